"""As the engine's utils.dotdict: a dict read by attribute."""


class dotdict(dict):  # noqa: N801 - the engine's name
    def __getattr__(self, name):
        return self[name]
