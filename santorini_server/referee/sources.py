"""Where a game's engines come from, and the one game loop every way of playing shares.

Theory of operation.  Whatever plays a game (``match``, the tournament's workers in this process
or in the process pool, a Dask worker, the server's runs and its ladder), it does the same
thing: take an engine for each seat from an :class:`EngineSource`, play the game with
:func:`~.slots.play_or_forfeit` (an engine that cannot be started forfeits), and give the
engines back.  Only the source differs: :class:`PoolSource` runs engine processes from the
worker's :class:`~.slots.EnginePool` (kept between games, restarted after a fault); the server's
remote bots are a source that leases connected bots and hands the other seats on to a
:class:`PoolSource` (``server/remote_source.py``).  A seat's engine is asked for when the game
reaches it (``getters``), so a seat whose engine cannot start forfeits in seat order.

A game's progress is told as data (:mod:`.progress`): ``watch`` takes its :class:`~.progress.Begin`,
:class:`~.progress.Turn` and :class:`~.progress.Ending` messages, in this process or, encoded,
across a pipe; nothing outside the referee ever holds the adjudicator.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from functools import partial
from typing import Protocol

from ..adjudicator import GameReport, GameSetup
from .engine import Engine
from .engine_spec import EngineSpec
from .progress import GameSink, ProgressObserver
from .slots import EnginePool, play_or_forfeit

__all__ = ["Getter", "EngineSource", "PoolSource", "play", "instance_names"]

Getter = Callable[[], Awaitable[Engine]]
"""A seat's engine, got when the game starts it (raises EngineFailure if it cannot be had)."""


class EngineSource(Protocol):
    """Hands out the engines of one game's seats and takes them back when the game is over."""

    def seats(self, specs: Sequence[EngineSpec]) -> AbstractAsyncContextManager[Sequence[Getter]]:
        """For ``specs`` (seat order), a getter per seat, valid while the context is open."""
        ...


def instance_names(names: Sequence[str]) -> tuple[str, ...]:
    """A name per seat for the engine *process* that plays it: the engine's name, and ``name~2``
    for its second seat in one game (four seats, a team of one engine): each seat has a process
    of its own, and engine pools key running engines by name.  Records keep the engines' names."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}~{seen[name]}")
    return tuple(out)


class PoolSource:
    """Engine processes from a worker's pool: the engines of this game are kept running (so
    are those ``busy`` names, the engines of the worker's other games in progress); the least
    recently used others are closed when the pool is full."""

    def __init__(self, pool: EnginePool, busy: Callable[[], Collection[str]] | None = None) -> None:
        self.pool = pool
        self.busy = busy

    @asynccontextmanager
    async def seats(self, specs: Sequence[EngineSpec]) -> AsyncIterator[Sequence[Getter]]:
        running = [replace(spec, name=name) for spec, name in zip(specs, instance_names([s.name for s in specs]), strict=True)]
        keep = {spec.name for spec in running}
        if self.busy is not None:
            keep.update(self.busy())
        yield [partial(self.pool.get, spec, keep) for spec in running]


async def play(
    source: EngineSource, specs: Sequence[EngineSpec], setup: GameSetup, *, watch: GameSink | None = None
) -> GameReport:
    """Play one game with engines from ``source`` (``specs`` in seat order); tell ``watch`` its
    progress.  Never raises for engine misbehaviour: a seat whose engine cannot be had forfeits."""
    names = [spec.name for spec in specs]
    observer = ProgressObserver(setup.game_number or 0, watch) if watch is not None else None
    async with source.seats(specs) as getters:
        return await play_or_forfeit(getters, setup, names, observer=observer)
