"""As the engine's utils.dotdict: a dict read by attribute."""


class dotdict(dict):
    def __getattr__(self, name):
        return self[name]
