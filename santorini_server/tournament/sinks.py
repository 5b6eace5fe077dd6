"""What a run keeps beside its archive: files derived from the games recorded, written off the game loop.

Theory of operation.  The archive is a run's one durable copy of its games (fsync'd, a frame per
game, SPEC.md section 10.4); the SGN and JSON Lines files follow it game by game.  Everything
else on disk is *derived*: the report and its viewer files, the standings snapshot.  The
collector tells each derived sink of every game as it is recorded (:meth:`Derived.recorded`, in
the collector's task: it keeps what it needs of the game, a row, an offset or counters, and lets
the record go), and writes the sinks that are due in a worker thread, so the engines' clocks run
on meanwhile; once more when the run ends or is interrupted.  A derived file is rewritten whole
(beside, then renamed) and a failure to write it never stops a run: the games are safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import trio

from ..records import GameRecord

__all__ = ["Derived", "write_due", "write_all"]


class Derived(Protocol):
    """A file (or files) derived from a run's recorded games."""

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        """Game ``number`` is recorded: its frame is the archive's bytes ``start`` to ``end``."""

    def due(self, now: float) -> bool:
        """Whether a write is due at monotonic time ``now``."""
        ...

    def write(self, now: float | None = None) -> bool:
        """Write what changed (blocking: the collector calls it in a worker thread); False if it
        failed (reported once by the sink itself)."""
        ...


async def write_due(sinks: Sequence[Derived], now: float) -> None:
    """Write every sink that is due, each in a worker thread."""
    for sink in sinks:
        if sink.due(now):
            await trio.to_thread.run_sync(sink.write, now)


async def write_all(sinks: Sequence[Derived], now: float) -> None:
    """Write every sink (the run has ended or is stopping)."""
    for sink in sinks:
        await trio.to_thread.run_sync(sink.write, now)
