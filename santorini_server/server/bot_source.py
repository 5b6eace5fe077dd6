"""The server's remote bots as an engine source: a game's seats leased from the connected bots.

Theory of operation.  A run or the ladder plays a game like any other (:func:`~..referee.sources.play`);
its source is a :class:`BotSource`: the seats that are remote bots (named in ``remote``) are
leased from the :class:`~.registry.BotRegistry`, all of the game's bots in one step, so that
with ``concurrency`` above 1 games that need the same bot wait for each other instead of each
holding one of its bots; every other seat is handed on to the worker's
:class:`~..referee.sources.PoolSource` (a local bot: an engine process).  A bot busy in another
game is waited for; one not connected within the reconnect grace is the failure its seat
forfeits with (``crash``, ``disconnected``).  A game cut short (a cancelled run, a drain) leaves
its bots idle before they are given back (:meth:`RemoteEngine.settle`), so the next game finds
them ready.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager

from ..referee.engine import Engine, EngineFailure
from ..referee.engine_spec import EngineSpec
from ..referee.sources import EngineSource, Getter
from .registry import BotRegistry
from .remote_engine import RemoteEngine

__all__ = ["BotSource"]


class BotSource:
    """Seats named in ``remote`` leased from ``registry``; the others from ``local``."""

    def __init__(self, registry: BotRegistry, grace: float, remote: Collection[str], local: EngineSource) -> None:
        self.registry = registry
        self.grace = grace
        self.remote = remote
        self.local = local

    @asynccontextmanager
    async def seats(self, specs: Sequence[EngineSpec]) -> AsyncIterator[Sequence[Getter]]:
        wanted = [spec.name for spec in specs if spec.name in self.remote]
        bots = await self.registry.take_all(wanted, self.grace) if wanted else {}
        leased = {name: RemoteEngine(bot, self.registry, grace=self.grace) for name, bot in bots.items() if bot is not None}
        try:
            async with self.local.seats(specs) as local:
                getters: list[Getter] = []
                for spec, get in zip(specs, local, strict=True):
                    if spec.name not in self.remote:
                        getters.append(get)
                    elif spec.name in leased:
                        getters.append(_held(leased[spec.name]))
                    else:
                        getters.append(_failing(EngineFailure("crash", "disconnected")))
                yield getters
        finally:
            for engine in leased.values():
                await engine.settle()
                engine.release()


def _held(engine: Engine) -> Getter:
    async def get() -> Engine:
        return engine

    return get


def _failing(failure: EngineFailure) -> Getter:
    async def get() -> Engine:
        raise failure

    return get
