"""A run's standings, kept current by reading only what its archive gained: for the job API's
``GET /api/runs/ID`` (SPEC.md section 16.5) and the dashboard's run page (section 17.1).

Why: the standings are the tournament's own (:func:`~..tournament.scoring.count_game` into
:class:`~..stats.standings.Standings` or ``NSeatStandings``, never a second way of counting), and
they need every game's record, which lives in the run's archive, not in the database.  Reading a
10,000-game archive for every request would cost seconds; so each run's standings are kept in
memory with the byte offset its archive was read to, and a view reads only the frames appended
since (an archive only grows: the tournament appends fsync'd frames).  A frame cut off by a write
in progress is left for the next view; a game number seen before (a resume's duplicate) counts
once.  The first view of a run after the daemon starts reads the whole archive once, decoding
each record's tags and eliminations but not its turns.  Nothing holds the records themselves.

Damage is kept as it is read (:meth:`RunStandings.damage`), so that a game missing from the
standings is said to be, never silently: a damaged region followed by a good frame is kept for
good (an archive only grows, and it is not read again); the region after the last good frame,
read again with every view, is replaced each time, and a frame cut off there counts only once
the run has ended (while it plays, that is a write in progress; a resume cuts off what a crash
left there, SPEC.md section 10.4).

What a view shows (the API's text tables, the page's tables) is made by the caller's ``show``
from the run's config and standings, and kept per kind: it is made again only when games were added, and while a
run plays at most once a :data:`REFRESH` (rendering a big round robin's crosstable costs tens of
milliseconds of pure Python, which even in a worker thread holds the interpreter the games'
clocks run on).  Every view blocks on file reads and CPU work: call it in a worker thread.

One view of a run at a time: a run's views take its lock, so a count is never made twice at
once, whoever started it.  A caller that must not wait for another view's count (the dashboard's
run page, SPEC.md section 17.1) passes ``wait``: if another view holds the run for longer than
that, or is making its first count (the whole archive: not worth waiting for), :class:`Counting`
is raised at once and that count goes on by itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..records.frames import ArchiveError, CorruptFrame, Frame, iter_frames
from ..records.payload import decode_record_without_turns
from ..tournament.config import TournamentConfig

if TYPE_CHECKING:
    from ..stats.nseat_standings import NSeatStandings  # loads openskill: only three and four seats need it
    from ..stats.standings import Standings

__all__ = ["Counting", "Damage", "MAX_REGIONS", "RunStandings", "StandingsCache", "Show", "REFRESH", "text_tables"]

_T = TypeVar("_T")

Show = Callable[[TournamentConfig, "Standings | NSeatStandings", int], _T]
"""What a view makes of a run's standings: from its config, its standings and the games counted."""

REFRESH = 1.0
"""Seconds a running run's shown tables are reused although games were added since."""
SLICE = 0.002
"""Seconds a count works before it pauses :data:`PAUSE` seconds.  A count is pure Python in a
worker thread, and a thread that wants the interpreter back after a system call waits for it up
to the switch interval (5 ms), so the event loop (pages, WebSockets, the games' engine I/O) would
wait that long at each of its many system calls while a 10,000-game archive is counted (about a
second): the pause lets it run.  Measured on two loaded cores, a bot page asked for at the
daemon's start while the warm-up counts 10,000 games: 674 ms without the pause, 432 ms with it
(medians of 5 starts); a count's own work grows by at most a quarter (0.5 ms per 2 ms)."""
PAUSE = 0.0005
"""Seconds a count sleeps after each :data:`SLICE` (a sleep of 0 would not do: the counting
thread takes the interpreter back before the waiting one wakes)."""
MAX_REGIONS = 100
"""Damaged regions of a run's archive kept and shown (the first in the file); more are counted.
Each is kept in memory while the daemon runs and is matched with the games the index has there,
so an archive damaged all through costs no more than this."""


@dataclass(frozen=True)
class Damage:
    """What a run's archive holds that is not a readable game."""

    regions: tuple[CorruptFrame, ...]
    """The first :data:`MAX_REGIONS` damaged regions, in file order."""
    count: int
    """How many damaged regions in all."""


class Counting(Exception):
    """Another view of the run holds it (its first count after a start reads its whole archive)
    for longer than the caller would wait."""


@dataclass
class RunStandings:
    """One run's standings, how far its archive was read, and what was last shown of them."""

    config: TournamentConfig
    standings: Standings | NSeatStandings
    offset: int = 0
    seen: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    shown: dict[str, tuple[int, float, object]] = field(default_factory=dict)
    """Per kind of view: the games counted when it was made, when, and what ``show`` gave."""
    counted: bool = False
    """The archive was read once: later views read only what it gained."""
    damaged: list[CorruptFrame] = field(default_factory=list)
    """Damaged regions before the last good frame (byte offsets in the archive), in file order:
    the first :data:`MAX_REGIONS`."""
    more: int = 0
    """Damaged regions found beyond :data:`MAX_REGIONS`."""
    tail: tuple[CorruptFrame, ...] = ()
    """Damaged regions after the last good frame, as last read."""

    def damage(self, *, final: bool) -> Damage:
        """The damaged regions of the archive as read so far; a frame cut off at its end only if
        the run has ended (``final``): while it plays, that is a write in progress."""
        tail = [region for region in self.tail if final or not region.truncated]
        regions = (self.damaged + tail)[:MAX_REGIONS]
        return Damage(tuple(regions), len(self.damaged) + self.more + len(tail))

    def _damaged(self, region: CorruptFrame) -> None:
        if len(self.damaged) < MAX_REGIONS:
            self.damaged.append(region)
        else:
            self.more += 1

    def view(self, archive: Path, kind: str, show: Show[_T], *, final: bool, wait: float | None = None) -> _T:
        """``show(config, standings, games counted)`` once the games appended to ``archive`` since
        the last call are counted; the last one of this ``kind`` again if no game was added, or if
        the run still plays (not ``final``) and it is younger than :data:`REFRESH`.

        Raises:
            Counting: ``wait`` is given and another view held the run for ``wait`` seconds, or
                holds it for its first count.
        """
        timeout = -1.0 if wait is None else (max(wait, 0.0) if self.counted else 0.0)
        if not self.lock.acquire(timeout=timeout):
            raise Counting("the run's standings are being counted")
        try:
            self._update(archive)
            self.counted = True
            now = time.monotonic()
            last = self.shown.get(kind)
            if last is None or (last[0] != len(self.seen) and (final or now - last[1] >= REFRESH)):
                last = self.shown[kind] = (len(self.seen), now, show(self.config, self.standings, len(self.seen)))
            return cast(_T, last[2])
        finally:
            self.lock.release()

    def _update(self, archive: Path) -> None:
        try:
            with archive.open("rb") as file:
                file.seek(self.offset)
                tail = file.read()
        except FileNotFoundError:
            return
        # the tournament's counting brings the rating statistics: loaded with the first view, not at start
        from ..tournament.scoring import count_game

        end = 0
        until = time.perf_counter() + SLICE
        regions: list[CorruptFrame] = []  # since the last good frame
        for item in iter_frames(tail):
            if time.perf_counter() > until:
                time.sleep(PAUSE)
                until = time.perf_counter() + SLICE
            if not isinstance(item, Frame):
                regions.append(CorruptFrame(self.offset + item.offset, item.length, item.reason, item.truncated))
                continue
            for region in regions:
                self._damaged(region)
            regions = []
            end = item.offset + item.size
            try:
                record = decode_record_without_turns(item.payload)
            except ArchiveError as exc:  # a frame whose payload does not decode: damage like any other
                self._damaged(CorruptFrame(self.offset + item.offset, item.size, f"unreadable payload: {exc}"))
                continue
            number = record.game_number
            if number is None or number in self.seen or not 1 <= number <= len(self.config.schedule):
                continue  # a resumed run may hold a game twice: it counts once
            self.seen.add(number)
            count_game(self.standings, record, number)
        self.offset += end
        self.tail = tuple(regions)


class StandingsCache:
    """The standings of every run viewed since the daemon started, by run id."""

    def __init__(self) -> None:
        self._runs: dict[int, RunStandings] = {}
        self._lock = threading.Lock()

    def view(
        self,
        run_id: int,
        config: Callable[[], TournamentConfig],
        archive: Path,
        kind: str,
        show: Show[_T],
        *,
        final: bool = True,
        wait: float | None = None,
    ) -> _T:
        """What :meth:`RunStandings.view` gives for the run (blocking: call it in a worker thread).
        ``config`` is called only for a run not seen before.

        Raises:
            ValueError, OSError: from ``config``: the run's settings cannot be read.
            Counting: ``wait`` is given and another view held the run for ``wait`` seconds, or
                holds it for its first count.
        """
        with self._lock:
            entry = self._runs.get(run_id)
            if entry is None:
                from ..tournament.scoring import new_standings

                made = config()
                entry = self._runs[run_id] = RunStandings(made, new_standings(made))
        return entry.view(archive, kind, show, final=final, wait=wait)

    def damage(self, run_id: int, *, final: bool) -> Damage | None:
        """The damaged regions of the run's archive that its views have read (see
        :meth:`RunStandings.damage`), or None before its first count."""
        with self._lock:
            entry = self._runs.get(run_id)
        return entry.damage(final=final) if entry is not None and entry.counted else None


def text_tables(config: TournamentConfig, standings: Standings | NSeatStandings, games: int) -> dict[str, Any]:
    """The job API's view: ``games`` counted, ``total`` scheduled, and the ``standings`` and
    ``crosstable`` texts the tournament prints."""
    from ..stats.standings import Standings
    from ..tournament.scoring import standings_block

    return {
        "games": games,
        "total": len(config.schedule),
        "standings": standings_block(config, standings),
        "crosstable": standings.crosstable() if isinstance(standings, Standings) else "",
    }
