"""A run's standings, from its snapshot and the games since: for the job API's ``GET /api/runs/ID``
(SPEC.md section 16.5) and the dashboard's run page (section 17.1).

Why: the standings are the tournament's own (:func:`~..tournament.scoring.count_game` into
:class:`~..stats.standings.Standings`, never a second way of counting), and they need every
game's record, which lives in the run's archive, not in the database.  The run's collector
saves them beside the archive (``standings.msgpack``, :mod:`~..tournament.standings_file`) with
the byte offset they counted to, at most every few seconds and at the end.  So a view loads that
snapshot (its size grows with the engines, not the games), counts the archive's frames after its
offset (the games since the last save: a few seconds of play; none once the run has ended) and
renders.  The daemon keeps nothing per run between views: a million-game run costs a view what a
ten-game run does.

A frame cut off by a write in progress is left for the next view; a game number counted already
(a resume's duplicate) counts once.  A run with no usable snapshot (played before snapshots
existed; a snapshot damaged, or made for another archive: the reason is logged) is counted from
its archive's start, streamed (a frame at a time, each record's tags but not its turns), and the
snapshot is saved then, unless the run is being played: its collector owns the file, and saves
it within seconds.  Such a first count takes seconds for a big run: one at a time per run, and a
view that must not wait for it (the dashboard's run page, SPEC.md section 17.1) passes
``block=False`` and gets :class:`Counting` at once while another view makes it.

Damage is said, never silently: the snapshot keeps the damaged regions found before its offset
(the first :data:`MAX_REGIONS`, and their count); a view adds those it finds after it.  A damaged
region followed by a good frame stays (a later snapshot keeps it); the region after the last good
frame is read again by every view, and a frame cut off there counts only once the run has ended
(while it plays, that is a write in progress; a resume cuts off what a crash left there, SPEC.md
section 10.4).

What a view shows (the API's text tables, the page's tables) is made by the caller's ``show``;
the last :data:`MEMO` made are kept (a few kilobytes each), so a view of a run whose archive and
snapshot have not changed since, or of a run that plays whose tables are younger than
:data:`REFRESH`, costs two ``stat`` calls: rendering a big round robin's crosstable costs tens of
milliseconds of pure Python, which even in a worker thread holds the interpreter the games'
clocks run on.  Every view blocks on file reads and CPU work: call it in a worker thread.
"""

from __future__ import annotations

import copy
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import structlog

from ..records.frames import ArchiveError, CorruptFrame, Frame, iter_stream_frames
from ..records.payload import decode_record_without_turns
from ..stats.gods import GodStats
from ..tournament.config import TournamentConfig
from ..tournament.output import ARCHIVE
from ..tournament.standings_file import MAX_REGIONS, SNAPSHOT, Snapshot, SnapshotError, StandingsFile

if TYPE_CHECKING:
    from ..stats.standings import Standings

__all__ = ["Counting", "Damage", "MAX_REGIONS", "MEMO", "REFRESH", "RunGods", "RunViews", "Show", "count_run",
           "load_snapshot", "text_tables"]

_log = structlog.get_logger("santorini.runs")

_T = TypeVar("_T")

Show = Callable[[TournamentConfig, "Standings", int], _T]
"""What a view makes of a run's standings: from its config, its standings and the games counted."""

REFRESH = 1.0
"""Seconds a running run's shown tables are reused although games were added since."""
MEMO = 8
"""Views kept (run, kind): the pages and API calls of the few runs people are looking at."""


@dataclass(frozen=True)
class Damage:
    """What a run's archive holds that is not a readable game."""

    regions: tuple[CorruptFrame, ...]
    """The first :data:`MAX_REGIONS` damaged regions, in file order."""
    count: int
    """How many damaged regions in all."""


class Counting(Exception):
    """The run's archive is being counted from its start by another view (no snapshot yet)."""


def load_snapshot(directory: Path, config: TournamentConfig) -> Snapshot | None:
    """The run's snapshot, or None: there is none, or it cannot be used (why is logged)."""
    try:
        return StandingsFile(directory, config).load()
    except SnapshotError as exc:
        _log.warning("standings counted from the archive", directory=str(directory), reason=str(exc))
        return None


def count_run(
    directory: Path, config: TournamentConfig, snapshot: Snapshot | None, *, final: bool, save: bool
) -> tuple[Standings, Damage]:
    """The standings of the run in ``directory``: its ``snapshot`` (None: counted from the
    archive's start) and the archive's games after it; and the damage of its archive, where a
    frame cut off at its end is damage only if the run has ended (``final``).  With ``save``,
    the snapshot is saved if this count went further than it.  Blocks: call it in a worker thread."""
    if snapshot is None:
        # the tournament's counting brings the rating statistics: loaded with the first count, not at start
        from ..tournament.scoring import new_standings

        start = Snapshot(new_standings(config), 0)
    else:
        start = snapshot
    counted, tail = _count_after(directory / ARCHIVE, start, config.total)
    if save and (snapshot is None or counted.offset != snapshot.offset) and (directory / ARCHIVE).exists():
        try:
            StandingsFile(directory, config).save(counted)
        except (OSError, SnapshotError) as exc:  # the next view counts again: no harm but time
            _log.warning("standings snapshot not saved", directory=str(directory), error=str(exc))
    shown = [region for region in tail if final or not region.truncated]
    regions = (counted.regions + tuple(shown))[:MAX_REGIONS]
    return counted.standings, Damage(regions, counted.damaged + len(shown))


def _count_after(archive: Path, snapshot: Snapshot, total: int) -> tuple[Snapshot, tuple[CorruptFrame, ...]]:
    """``snapshot`` with the archive's games after its offset counted into its standings (up to
    the last good frame), and the damaged regions after that frame."""
    from ..tournament.scoring import count_game

    standings, offset = snapshot.standings, snapshot.offset
    regions, damaged = list(snapshot.regions), snapshot.damaged
    pending: list[CorruptFrame] = []  # since the last good frame

    def damage(region: CorruptFrame) -> None:
        nonlocal damaged
        damaged += 1
        if len(regions) < MAX_REGIONS:
            regions.append(region)

    try:
        file = archive.open("rb")
    except FileNotFoundError:
        return snapshot, ()
    with file:
        file.seek(offset)
        for item in iter_stream_frames(file.read, offset):
            if not isinstance(item, Frame):
                pending.append(item)
                continue
            for region in pending:
                damage(region)
            pending = []
            offset = item.offset + item.size
            try:
                record = decode_record_without_turns(item.payload)
            except ArchiveError as exc:  # a frame whose payload does not decode: damage like any other
                damage(CorruptFrame(item.offset, item.size, f"unreadable payload: {exc}"))
                continue
            number = record.game_number
            if number is None or not 1 <= number <= total or standings.recorded(number):
                continue  # a resumed run may hold a game twice: it counts once
            count_game(standings, record, number)
    return Snapshot(standings, offset, tuple(regions), damaged), tuple(pending)


@dataclass(frozen=True)
class _Shown:
    stamp: tuple[int, ...]
    made: float
    shown: object
    damage: Damage


def _stamp(directory: Path) -> tuple[int, ...]:
    """What changes when the run's archive or snapshot does: their sizes and modification times."""
    stamp: list[int] = []
    for name in (ARCHIVE, SNAPSHOT):
        try:
            st = os.stat(directory / name)
            stamp += [st.st_size, st.st_mtime_ns, st.st_ino]
        except OSError:
            stamp += [-1, -1, -1]
    return tuple(stamp)


@dataclass
class _GodCount:
    offset: int
    stats: GodStats
    seen: bytearray
    """A bit per game number counted (a resumed run may hold a game twice: it counts once)."""


class RunGods:
    """The god statistics of runs (SPEC.md section 19.6), counted from their archives where the
    last count stopped, for the last :data:`MEMO` runs: a view reads only the games since (the
    daemon's first view of a run after a start reads its archive once, a frame at a time).
    Thread-safe; blocks on file reads: call it in a worker thread."""

    def __init__(self) -> None:
        self._runs: OrderedDict[Path, _GodCount] = OrderedDict()
        self._lock = threading.Lock()

    def count(self, directory: Path, total: int) -> GodStats:
        """The god statistics of the run in ``directory`` (``total`` games scheduled), a copy;
        damaged frames are skipped (the standings view reports them)."""
        with self._lock:
            state = self._runs.get(directory) or _GodCount(0, GodStats(), bytearray(total // 8 + 1))
            try:
                file = (directory / ARCHIVE).open("rb")
            except FileNotFoundError:
                return GodStats()
            with file:
                file.seek(state.offset)
                for item in iter_stream_frames(file.read, state.offset):
                    if not isinstance(item, Frame):
                        continue
                    state.offset = item.offset + item.size
                    try:
                        record = decode_record_without_turns(item.payload)
                    except ArchiveError:
                        continue
                    number = record.game_number
                    if number is None or not 1 <= number <= total or state.seen[number >> 3] >> (number & 7) & 1:
                        continue
                    state.seen[number >> 3] |= 1 << (number & 7)
                    state.stats.add(record.gods, record.placings)
            self._runs[directory] = state
            self._runs.move_to_end(directory)
            while len(self._runs) > MEMO:
                self._runs.popitem(last=False)
            return copy.deepcopy(state.stats)  # a few dozen counters: the caller reads them unlocked


class RunViews:
    """Views of runs' standings (:func:`count_run`), the last :data:`MEMO` kept, and their god
    statistics (:attr:`gods`).  Thread-safe."""

    def __init__(self) -> None:
        self.gods = RunGods()
        self._memo: OrderedDict[tuple[Path, str, bool], _Shown] = OrderedDict()
        self._counting: dict[Path, threading.Event] = {}
        """First counts under way (no snapshot), by run folder: emptied as each ends."""
        self._lock = threading.Lock()

    def view(
        self,
        directory: Path,
        config: TournamentConfig,
        kind: str,
        show: Show[_T],
        *,
        final: bool,
        playing: bool = False,
        block: bool = True,
    ) -> tuple[_T, Damage]:
        """``show(config, standings, games counted)`` for the run in ``directory``, and its archive's
        damage; what was shown last for this ``kind`` if the archive and the snapshot have not
        changed since, or if the run still plays (not ``final``) and it is younger than
        :data:`REFRESH`.  ``playing``: the run's collector is at work (and owns its snapshot).

        Raises:
            Counting: ``block`` is False and another view is counting the run's archive from its
                start (it has no snapshot).
        """
        key = (directory, kind, final)
        stamp = _stamp(directory)
        with self._lock:
            memo = self._memo.get(key)
            if memo is not None and (memo.stamp == stamp or (not final and time.monotonic() - memo.made < REFRESH)):
                self._memo.move_to_end(key)
                return cast(_T, memo.shown), memo.damage
        snapshot = load_snapshot(directory, config)
        first = snapshot is None and stamp[0] > 0  # an archive without a snapshot: counted from its start
        if first:
            with self._lock:
                under_way = self._counting.get(directory)
                if under_way is None:
                    self._counting[directory] = threading.Event()
            if under_way is not None:
                if not block:
                    raise Counting("the run's standings are being counted")
                under_way.wait()
                return self.view(directory, config, kind, show, final=final, playing=playing, block=block)
        try:
            standings, damage = count_run(directory, config, snapshot, final=final, save=not playing)
            shown = show(config, standings, standings.played)
            with self._lock:
                self._memo[key] = _Shown(stamp, time.monotonic(), shown, damage)
                self._memo.move_to_end(key)
                while len(self._memo) > MEMO:
                    self._memo.popitem(last=False)
        finally:
            if first:  # the views that waited read the snapshot saved, or this one
                with self._lock:
                    self._counting.pop(directory).set()
        return shown, damage


def text_tables(config: TournamentConfig, standings: Standings, games: int) -> dict[str, Any]:
    """The job API's view: ``games`` counted, ``total`` scheduled, and the ``standings`` and
    ``crosstable`` texts the tournament prints."""
    from ..tournament.scoring import standings_block

    return {
        "games": games,
        "total": config.total,
        "standings": standings_block(config, standings),
        "crosstable": standings.crosstable() if standings.seats == 2 else "",
    }
