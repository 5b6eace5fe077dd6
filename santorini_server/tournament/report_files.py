"""``report.html`` and the ``games/`` viewer files of a tournament folder, kept current as games finish.

Theory of operation.  :class:`ReportWriter` keeps, of each game it was given, the row the
report lists (:class:`~.report.GameSummary`) and where its record is in the archive, and its own
standings (counted by :func:`~.scoring.count_game`, as the tournament's, or the tournament's own
standings, shared); on
:meth:`ReportWriter.write` it rewrites the viewer file of each block that gained a game since the
last write, reading that block's records again from the archive, then ``report.html``.  So a
game costs the report about 165 bytes however long its record (``tools/bench_streaming.py``
measures it), not the record's 15 KB.  The tournament calls ``write`` at most every ``interval`` seconds as games
finish, and always at the end (or on Ctrl-C), so a 10,000-game run rewrites a 100-game viewer
file, not every game, each time: a write reads only that block's records, by their offsets.  A
viewer file holds its games packed (``santorini_server.viewer.packed``) and costs less disk per
game than the archive (about 640 against 775 bytes a game for a hundred games of 27 turns;
``tools/bench_viewer_pages.py``).  Every file is replaced whole (written beside it, then renamed):
a browser or a crash never meets half a page.  The report is derived from the archive (a resumed
tournament's report covers every game), so it is not fsync'd per game, and a failure to write it
is reported once on stderr and never stops or loses the tournament: the games are already safe.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..records import GameRecord, atomic_file, read_record_at
from .report import BLOCK_SIZE, Block, GameSummary, ReportInfo, block_of, build_report, game_summary
from .report_page import render_report
from .scoring import count_game, empty_standings

if TYPE_CHECKING:
    from ..stats.nseat_standings import NSeatStandings
    from ..stats.standings import Standings

__all__ = ["ReportWriter", "ViewerWriter", "REPORT", "GAMES_DIR", "default_viewer"]

REPORT = "report.html"
GAMES_DIR = "games"


class ViewerWriter(Protocol):
    """Writes one self-contained viewer page of ``records`` to ``out``, atomically (``#game=K``
    opens the K-th, 1-based): ``santorini_server.viewer.write_viewer``."""

    def __call__(self, records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None: ...


def default_viewer() -> ViewerWriter:
    """The game viewer of ``santorini replay --html`` (imported when a report is first written)."""
    from ..viewer import write_viewer

    return write_viewer


@dataclass(frozen=True, slots=True)
class _Kept(GameSummary):
    """A game as the report keeps it: its row, and its record's offset in the archive (or the
    record itself when there is no archive to read it from)."""

    where: int | GameRecord


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class ReportWriter:
    """The report of one folder.  ``add`` and :meth:`prepare` are called from one thread; the
    write ``prepare`` returns may run in a worker thread while games are added (it holds copies).

    ``archive``: the archive the games are in (their offsets are given to :meth:`add`); without
    it, or for a game added without its offset, the record itself is kept.
    """

    def __init__(
        self,
        directory: Path,
        info: ReportInfo,
        *,
        archive: Path | None = None,
        viewer: ViewerWriter | None = None,
        interval: float = 5.0,
        slowdown: float = 10.0,
        block_size: int = BLOCK_SIZE,
        warn: Callable[[str], None] = _stderr,
    ) -> None:
        self.directory = directory
        self.info = info
        self.archive = archive
        self.interval = interval
        self.slowdown = slowdown
        self.block_size = block_size
        self._viewer = viewer
        self._warn = warn
        self._warned = False
        self._games: dict[int, _Kept] = {}
        self._strings: dict[str, str] = {}  # one copy of each player, gods, result and termination text
        self._seatings: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._placings: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._standings = empty_standings(info.seats, info.engines)
        self._counts = True  # False: the standings are the tournament's, which counts each game
        self._dirty: set[Block] = set()
        self._written_at: float | None = None
        self.cost = 0.0
        """Seconds the last :meth:`write` took."""

    def add(self, record: GameRecord, number: int, offset: int | None = None) -> None:
        """Count a finished game (schedule number ``number``, its frame at byte ``offset`` of the
        archive); shown at the next :meth:`write`."""
        if number in self._games:
            raise ValueError(f"game {number} is already in the report")
        if self._counts:
            count_game(self._standings, record, number)
        g = game_summary(record)
        share = self._strings.setdefault
        seats = self._seatings.setdefault(g.seats, g.seats)  # one copy of each, like the strings
        placings = self._placings.setdefault(g.placings, g.placings) if g.placings is not None else None
        self._games[number] = _Kept(share(g.players, g.players), share(g.gods, g.gods), share(g.result, g.result),
                                    share(g.termination, g.termination), g.turns, seats, placings,
                                    offset if offset is not None and self.archive is not None else record)
        self._dirty.add(block_of(number, self.block_size))

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        """:meth:`add` as the collector's :class:`~.sinks.Derived` sink."""
        self.add(record, number, start)

    def blocks(self) -> list[Block]:
        """The viewer files of the games added, in order."""
        return sorted({block_of(number, self.block_size) for number in self._games}, key=lambda b: b.first)

    def share_standings(self, standings: Standings | NSeatStandings) -> None:
        """Show ``standings`` instead of counting its own: the tournament's, into which its
        owner counts every game it adds here (one copy of each game's scoring, not two)."""
        if self._games:
            raise ValueError("standings are shared before the first game is added")
        self._standings = standings
        self._counts = False

    def _read(self, where: int | GameRecord) -> GameRecord:
        if isinstance(where, GameRecord):
            return where
        assert self.archive is not None
        return read_record_at(self.archive, where)

    def due(self, now: float) -> bool:
        """Whether a write is due at time ``now``: something changed, and ``interval`` seconds
        have passed since the last write (or there was none), or ``slowdown`` times what that
        write took if longer (so a huge tournament's report takes at most a tenth of the time)."""
        return self.wait_for(now) <= 0

    def wait_for(self, now: float) -> float:
        """Seconds from ``now`` until a write is due (``inf``: nothing changed)."""
        if not self._dirty:
            return math.inf
        if self._written_at is None:
            return 0.0
        return self._written_at + max(self.interval, self.slowdown * self.cost) - now

    def write(self, now: float | None = None) -> bool:
        """Rewrite the changed viewer files, then ``report.html``; True if all was written.

        A failure is reported once (``warn``) and the changed blocks are tried again next time.
        """
        return self.prepare(now)()

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        """:meth:`write` in two steps: this takes what the write needs (the changed blocks, the
        rows, a copy of the standings) and returns the write itself, which may then run in a
        worker thread while games are added."""
        if now is not None:
            self._written_at = now
        job = self._job()

        def write() -> bool:
            started = time.perf_counter()
            try:
                job()
            except Exception as exc:  # a report must never stop a tournament (its games are safe)
                if not self._warned:
                    self._warned = True
                    self._warn(f"Warning: cannot write the report in {self.directory}: {exc} (the games are recorded)")
                return False
            finally:
                self.cost = time.perf_counter() - started
            return True

        return write

    def write_now(self) -> None:
        """:meth:`write`, raising what fails (``santorini report`` turns it into its error line).

        Raises:
            OSError: a file cannot be written.
        """
        self._job()()

    def _job(self) -> _Job:
        blocks = sorted(self._dirty, key=lambda b: b.first)
        self._dirty.clear()
        pages = [
            (block, [self._games[n].where for n in range(block.first, block.last + 1) if n in self._games])
            for block in blocks
        ]
        standings = self._standings if self._counts else type(self._standings).from_state(self._standings.state())
        return _Job(self, pages, list(self._games.items()), standings)


class _Job:
    """One write of a report: what it needs, taken from the writer, so that it can run in a
    worker thread while the collector adds games (the rows are immutable, the standings a copy)."""

    def __init__(
        self, writer: ReportWriter, pages: list[tuple[Block, list[int | GameRecord]]],
        rows: list[tuple[int, _Kept]], standings: Standings,
    ) -> None:
        self.writer = writer
        self.pages = pages
        self.rows = rows
        self.standings = standings

    def __call__(self) -> None:
        writer = self.writer
        if self.pages:
            writer._viewer = writer._viewer or default_viewer()
            (writer.directory / GAMES_DIR).mkdir(parents=True, exist_ok=True)
        done = 0
        try:
            for block, where in self.pages:
                assert writer._viewer is not None
                writer._viewer([writer._read(w) for w in where], writer.directory / block.path,
                               title=f"{writer.info.title}: games {block.first}-{block.last}")
                done += 1
        except BaseException:  # the blocks not written are tried again next time
            writer._dirty.update(block for block, _ in self.pages[done:])
            raise
        data = build_report(writer.info, self.rows, standings=self.standings, block_size=writer.block_size)
        html = render_report(data).encode("utf-8")
        with atomic_file(writer.directory / REPORT) as f:
            f.write(html)
