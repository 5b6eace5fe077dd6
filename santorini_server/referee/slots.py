"""Engines kept running between games, and a game whose engines may fail to start.

Shared by every way of playing games (``match``, the tournament's local workers, the Dask
workers' engine host): an :class:`EngineSlot` keeps one engine across games and restarts it when
it broke; an :class:`EnginePool` keeps the few engines one worker plays with; and
:func:`play_or_forfeit` starts a game's engines, ruling that an engine that cannot be started
loses the game it was to play (so one broken entrant cannot stop a run).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence

import trio

from ..adjudicator import Adjudicator, GameReport, GameSetup
from .engine import Engine, EngineFailure, IoLog
from .engine_spec import EngineSpec
from .game import GameObserver, forfeit, play_seated, record_date

__all__ = ["EngineSlot", "EnginePool", "play_or_forfeit", "ENGINES_PER_WORKER"]

#: Engines a worker keeps running between games: the two of its current game.  Enough for
#: round-robins, where consecutive games share an engine, without a process per engine per
#: worker in big fields.
ENGINES_PER_WORKER = 2


class EngineSlot:
    """Keeps one engine running across games, restarting it when it is broken or asked to."""

    def __init__(self, nursery: trio.Nursery, spec: EngineSpec, io_log: IoLog | None = None) -> None:
        self.nursery = nursery
        self.spec = spec
        self.io_log = io_log
        self.engine: Engine | None = None
        self.restarts = 0

    async def get(self) -> Engine:
        """A healthy engine for the next game (raises EngineFailure if it cannot be started)."""
        if self.engine is not None and (self.engine.broken or self.spec.restart):
            await self.engine.aclose()
            self.engine = None
            self.restarts += 1
        if self.engine is None:
            self.engine = await Engine.start(self.nursery, self.spec, io_log=self.io_log)
        return self.engine

    async def aclose(self) -> None:
        if self.engine is not None:
            await self.engine.aclose()
            self.engine = None


class EnginePool:
    """A worker's small LRU of running engines, keyed by name (a changed spec gets a fresh one)."""

    def __init__(self, nursery: trio.Nursery, io_log: IoLog | None = None, capacity: int = ENGINES_PER_WORKER) -> None:
        self.nursery = nursery
        self.io_log = io_log
        self.capacity = capacity
        self.slots: dict[str, EngineSlot] = {}

    async def get(self, spec: EngineSpec, keep: set[str]) -> Engine:
        """The engine for ``spec``, closing the least recently used one not in ``keep`` if full."""
        slot = self.slots.pop(spec.name, None)
        if slot is not None and slot.spec != spec:  # same name, other settings: a fresh engine
            await slot.aclose()
            slot = None
        while slot is None and len(self.slots) >= self.capacity:
            victim = next(name for name in self.slots if name not in keep)
            await self.slots.pop(victim).aclose()
        self.slots[spec.name] = slot or EngineSlot(self.nursery, spec, self.io_log)  # most recent last
        return await self.slots[spec.name].get()

    async def close_except(self, names: Collection[str]) -> None:
        """Close the engine of every name not in ``names`` (an entrant gone from the field)."""
        for name in [name for name in self.slots if name not in names]:
            slot = self.slots.pop(name, None)  # None: taken meanwhile by a get, which awaits too
            if slot is not None:
                await slot.aclose()

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            for slot in self.slots.values():
                await slot.aclose()
            self.slots.clear()


async def play_or_forfeit(
    engines: Sequence[Callable[[], Awaitable[Engine]]],
    setup: GameSetup,
    names: Sequence[str],
    *,
    observer: GameObserver | None = None,
) -> GameReport:
    """Get each seat's engine (``engines[i]()`` for seat ``i + 1``) and play the game.

    An engine that cannot be (re)started loses the game it was to play (``crash``/``stall``, the
    detail says why), which then has no turns; with three or four seats that is its seat's fault
    (SPEC.md section 15.2) and the others play on.
    """
    adjudicator = Adjudicator(setup)
    if observer is not None:
        observer.started(adjudicator, names)
    started: dict[int, Engine] = {}
    for seat, get in enumerate(engines):
        try:
            started[seat] = await get()
        except EngineFailure as failure:
            forfeit(adjudicator, seat, failure)
            if adjudicator.outcome is not None:
                report = adjudicator.report(names, date=record_date())
                if observer is not None:
                    observer.over(report)
                return report
    return await play_seated(adjudicator, started, names, observer=observer)
