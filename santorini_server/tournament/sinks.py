"""What a run keeps beside its archive: files derived from the games recorded, written off the game loop.

Theory of operation.  The archive is a run's one durable copy of its games (fsync'd, a frame per
game, SPEC.md section 10.4); the SGN and JSON Lines files follow it game by game.  Everything
else on disk is *derived*: the report and its viewer files, the standings snapshot.  The
collector tells each derived sink of every game as it is recorded (:meth:`Derived.recorded`, in
the collector's task: it keeps what it needs of the game, a row, an offset or counters, and lets
the record go).  A task beside the collector (:func:`keep_written`) writes each sink when it is
due, in a worker thread, from what :meth:`Derived.prepare` took (copies): the collector never
waits for a derived file, and games are recorded while one is written.  Every sink is written
once more when the run ends or is interrupted (:func:`write_all`); a write may leave work for a
later one (the report renders viewer files for a bounded time a write: its *backlog*), which a
run that completed then does in bounded writes, so Ctrl-C stops it within one of them (the
backlog is in the sink's own state: ``santorini report`` or ``--resume`` picks it up).  A derived
file is rewritten whole
(beside, then renamed) and a failure to write it never stops a run: the games are safe.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

import trio

from ..records import GameRecord

__all__ = ["Changes", "Derived", "keep_written", "write_all"]


class Derived(Protocol):
    """A file (or files) derived from a run's recorded games."""

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        """Game ``number`` is recorded: its frame is the archive's bytes ``start`` to ``end``."""

    def wait_for(self, now: float) -> float:
        """Seconds from ``now`` (``trio.current_time()``) until a write is due; ``inf`` when
        nothing changed since the last one."""
        ...

    def write(self, now: float | None = None) -> bool:
        """Write what changed (blocking); False if it failed (reported once by the sink itself)."""
        ...

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        """Take what a write needs now (in the collector's task, cheap: copies of counters, the
        list of what changed) and return the write, which runs in a worker thread while the
        collector goes on recording games."""
        ...

    def backlog(self) -> int:
        """What the writes so far left for later, in the sink's own unit (0: up to date)."""
        ...


class Changes:
    """The collector's word to the writer that games were recorded: the writer sleeps while
    nothing changes (no polling: a run that waits on its engines wakes nothing)."""

    def __init__(self) -> None:
        self._event = trio.Event()

    def note(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()
        self._event = trio.Event()


async def keep_written(sinks: Sequence[Derived], changes: Changes) -> None:
    """Write each sink when it is due, in a worker thread, one write at a time, until cancelled:
    the collector never waits for a derived file (a write in progress when this is cancelled
    is finished first: files are replaced whole)."""
    while True:
        delay = min((sink.wait_for(trio.current_time()) for sink in sinks), default=math.inf)
        if delay == math.inf:
            await changes.wait()
            continue
        if delay > 0:
            await trio.sleep(delay)
        for sink in sinks:
            now = trio.current_time()
            if sink.wait_for(now) <= 0:
                write = sink.prepare(now)
                with trio.CancelScope(shield=True):  # what prepare took is written, even as the run stops
                    await trio.to_thread.run_sync(write)


async def write_all(sinks: Sequence[Derived], *, complete: bool = True, announce: Callable[[int], None] | None = None) -> None:
    """Write every sink once (the run has ended or is stopping); when ``complete``, then each
    sink's backlog, one bounded write after another (``announce`` is told its size first).

    Between two writes Ctrl-C stops this (each write runs whole in its thread): what is left
    stays in the sink's state for the next run or ``santorini report``."""
    with trio.CancelScope(shield=True):  # every sink's state is saved once, whatever comes
        for sink in sinks:
            await trio.to_thread.run_sync(sink.prepare(trio.current_time()))
    if not complete:
        return
    for sink in sinks:
        left = sink.backlog()
        if left and announce is not None:
            announce(left)
        while left:
            await trio.to_thread.run_sync(sink.prepare(trio.current_time()))
            now_left = sink.backlog()
            if now_left >= left:
                return  # a write that made no progress failed (the sink reported it): stop here
            left = now_left
