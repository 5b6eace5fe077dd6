"""``report.html`` and the ``games/`` viewer files of a tournament folder, kept current as games finish.

Theory of operation.  :class:`ReportWriter` keeps counters, not games: its standings (counted by
:func:`~.scoring.count_game`, as the tournament's, or the tournament's own, shared), the score
chart (:class:`~.report.ScoreChart`, bounded), the terminations and each block's count of games;
and, until they are written, the rows of the games added since the last write with where their
records are in the archive.  On :meth:`ReportWriter.write` it rewrites, for each block that
gained a game, the block's list script (``games/0001-0100.js``: the rows already there, read
back, and the new ones) and its viewer file (the block's records read again from the archive by
their offsets), then ``report.html`` (one entry per block), then its state
(``games/report.msgpack``: the counters and the archive offset they counted to).  So memory and
the cost of a write stay flat however long the run: a write reads and writes only the blocks
that changed.  A viewer file holds its games packed (``santorini_server.viewer.packed``) and,
with its list script, costs less disk per game than the archive (``tools/bench_viewer_pages.py``).

A resumed tournament restores the state (:meth:`ReportWriter.restore`) and is given only the
games after its offset; a game a write put in a block's script before the run stopped (and
before the state was saved) is known there and not added twice (:meth:`ReportWriter.known`).
Without a state (or with one made for other settings or another archive) every game is added
again and the blocks are written afresh; :meth:`ReportWriter.settle` writes the blocks whenever
:data:`SPILL` games wait, so that too holds only a bounded number of rows.  Every file is
replaced whole (written beside it, then renamed): a browser or a crash never meets half a page.
The report is derived from the archive, so it is not fsync'd, and a failure to write it is
reported once on stderr and never stops or loses the tournament: the games are already safe.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from ..records import CorruptFrame, GameRecord, atomic_file, iter_archive_frames, read_record_at
from ..stats.gods import GodStats
from .output import archive_anchor
from .report import (
    BLOCK_SIZE,
    Block,
    BlockEntry,
    ReportInfo,
    ScoreChart,
    block_of,
    block_script,
    game_summary,
    read_block_script,
    report_data,
)
from .report_page import render_report
from .scoring import count_game, empty_standings

if TYPE_CHECKING:
    from ..stats.nseat_standings import NSeatStandings
    from ..stats.standings import Standings

__all__ = ["ReportWriter", "ViewerWriter", "REPORT", "GAMES_DIR", "STATE", "SPILL", "VIEWER_BUDGET", "default_viewer"]

REPORT = "report.html"
GAMES_DIR = "games"
STATE = "report.msgpack"
"""The report's counters and the archive offset they counted to, in ``games/``."""
SPILL = 20_000
"""Rows waiting beyond which a write is due at once (:meth:`ReportWriter.settle` writes their
blocks' list scripts then and there)."""
VIEWER_BUDGET = 2.0
"""Seconds a write (but the last) spends rendering viewer files: the rest wait for the next."""
_FORMAT = 1


class ViewerWriter(Protocol):
    """Writes one self-contained viewer page of ``records`` to ``out``, atomically (``#game=K``
    opens the K-th, 1-based): ``santorini_server.viewer.write_viewer``."""

    def __call__(self, records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None: ...


def default_viewer() -> ViewerWriter:
    """The game viewer of ``santorini replay --html`` (imported when a report is first written)."""
    from ..viewer import write_viewer

    return write_viewer


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _State(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    key: list[Any]
    offset: int
    anchor: bytes
    chart: Any
    terminations: dict[str, int]
    blocks: list[tuple[int, int]]
    stale: list[int]
    gods: Any


class ReportWriter:
    """The report of one folder.  ``add`` and :meth:`prepare` are called from one thread; the
    write ``prepare`` returns may run in a worker thread while games are added (it holds copies).

    ``archive``: the archive the games are in (their offsets are given to :meth:`add`); without
    it (a report of a few games made in memory), the records themselves are kept.
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
        self._pending: dict[int, BlockEntry] = {}  # added since the last write
        self._strings: dict[str, str] = {}  # one copy of each text of the rows pending
        self._records: dict[int, GameRecord] = {}  # without an archive
        self._blocks: dict[int, int] = {}  # block's first number -> games in it
        self._on_disk: set[int] = set()  # blocks whose script this report wrote
        self._restored = False  # the scripts in games/ are this report's (its state matched the archive)
        self._chart = ScoreChart(info.engines)
        self._terminations: dict[str, int] = {}
        self._gods = GodStats()
        self._standings = empty_standings(info.seats, info.engines)
        self._counts = True  # False: the standings are the tournament's, which counts each game
        self._dirty: set[Block] = set()
        self._stale: set[int] = set()  # blocks whose viewer file is older than their list script
        self._written_at: float | None = None
        self._known: dict[int, set[tuple[int, int]]] = {}  # a restore's look at block scripts: (number, offset)
        self.offset = 0
        """The archive's end after the last game added (what a write's state says it counted to)."""
        self.cost = 0.0
        """Seconds the last :meth:`write` took."""

    def add(
        self, record: GameRecord, number: int, offset: int | None = None, end: int | None = None, *, listed: bool = False
    ) -> None:
        """Count a finished game (schedule number ``number``, its frame the archive's bytes
        ``offset`` to ``end``); shown at the next :meth:`write`.  ``listed``: its block's script
        lists it already (:meth:`known`): it is counted, not listed again."""
        if number in self._pending:
            raise ValueError(f"game {number} is already in the report")
        if self._counts:
            count_game(self._standings, record, number)
        g = game_summary(record)
        self._chart.add(g.seats, g.placings)
        self._gods.add(record.gods, g.placings)
        self._terminations[g.termination] = self._terminations.get(g.termination, 0) + 1
        block = block_of(number, self.block_size)
        self._blocks[block.first] = self._blocks.get(block.first, 0) + 1
        if end is not None:
            self.offset = end
        if listed:
            return
        where = offset if offset is not None and self.archive is not None else -1
        if where < 0:
            self._records[number] = record
        share = self._strings.setdefault
        self._pending[number] = BlockEntry(number, share(g.players, g.players), share(g.gods, g.gods),
                                           share(g.result, g.result), share(g.termination, g.termination), g.turns, where)
        self._dirty.add(block)

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        """:meth:`add` as the collector's :class:`~.sinks.Derived` sink."""
        self.add(record, number, start, end)

    def settle(self) -> None:
        """Write the blocks now if :data:`SPILL` rows wait (a resume or ``santorini report`` adds
        games faster than writes are due).

        Raises:
            OSError: a file cannot be written.
        """
        if len(self._pending) >= SPILL:
            self._job(blocks_only=True)()

    def blocks(self) -> list[Block]:
        """The viewer files of the games added, in order."""
        return [block_of(first, self.block_size) for first in sorted(self._blocks)]

    def share_standings(self, standings: Standings | NSeatStandings) -> None:
        """Show ``standings`` instead of counting its own: the tournament's, into which its
        owner counts every game it adds here (one copy of each game's scoring, not two)."""
        if self._pending or self._blocks:
            raise ValueError("standings are shared before the first game is added")
        self._standings = standings
        self._counts = False

    def _key(self) -> list[Any]:
        info = self.info
        return [info.seats, list(info.engines), info.planned, self.block_size]

    def restore(self) -> int:
        """Take up the counters of the report's last write (its state file) and return the
        archive offset they counted to: the games from there on are to be added again.  0 when
        there is no usable state: every game is added again and every block written afresh."""
        path = self.directory / GAMES_DIR / STATE
        try:
            state = msgspec.msgpack.decode(path.read_bytes(), type=_State)
            if state.format != _FORMAT or state.key != self._key() or self.archive is None:
                return 0
            if archive_anchor(self.archive, state.offset) != state.anchor:
                return 0
            chart = ScoreChart.from_state(state.chart)
            gods = GodStats.from_state(state.gods)
        except (OSError, ValueError, msgspec.DecodeError):
            return 0
        self._chart = chart
        self._gods = gods
        self._terminations = dict(state.terminations)
        self._blocks = dict(state.blocks)
        self._stale = set(state.stale)
        self._restored = True
        self.offset = state.offset
        return state.offset

    def known(self, number: int, offset: int) -> bool:
        """Whether game ``number``, its frame at ``offset``, is listed in its block's script
        already (a resume's games after the state's offset may have been written before the run
        stopped)."""
        block = block_of(number, self.block_size)
        if not self._trusts(block):
            return False
        listed = self._known.get(block.first)
        if listed is None:
            listed = self._known[block.first] = {(e.number, e.where) for e in self._listed(block) or ()}
        return (number, offset) in listed

    def _trusts(self, block: Block) -> bool:
        """Whether ``block``'s script on disk is this report's (else it is written afresh)."""
        return self._restored or block.first in self._on_disk

    def _listed(self, block: Block) -> list[BlockEntry] | None:
        """The games of ``block``'s script as written (None: none, or it does not read)."""
        try:
            return read_block_script((self.directory / block.path).with_suffix(".js").read_text("utf-8"), block)
        except (OSError, ValueError):
            return None

    def _recovered(self, block: Block) -> list[BlockEntry]:
        """The games of ``block`` read from the archive (its script is lost): a full read, once."""
        if self.archive is None:
            return []
        entries = []
        with open(self.archive, "rb") as f:
            for item in iter_archive_frames(f):
                if isinstance(item, CorruptFrame):
                    continue
                frame, record = item
                number = record.game_number
                if number is not None and block.first <= number <= block.last:
                    g = game_summary(record)
                    entries.append(BlockEntry(number, g.players, g.gods, g.result, g.termination, g.turns, frame.offset))
        return entries

    def _read(self, entry: BlockEntry) -> GameRecord:
        if entry.where < 0:
            return self._records[entry.number]
        assert self.archive is not None
        return read_record_at(self.archive, entry.where)

    def due(self, now: float) -> bool:
        """Whether a write is due at time ``now``: something changed, and ``interval`` seconds
        have passed since the last write (or there was none), or ``slowdown`` times what that
        write took if longer."""
        return self.wait_for(now) <= 0

    def wait_for(self, now: float) -> float:
        """Seconds from ``now`` until a write is due (``inf``: nothing changed)."""
        if not self._dirty and not self._stale:
            return math.inf
        if self._written_at is None or len(self._pending) >= SPILL:
            return 0.0
        return self._written_at + max(self.interval, self.slowdown * self.cost) - now

    def write(self, now: float | None = None) -> bool:
        """Rewrite the changed blocks, then ``report.html`` and the state; True if all was written.

        A failure is reported once (``warn``) and the changed blocks are tried again next time.
        """
        return self.prepare(now)()

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        """:meth:`write` in two steps: this takes what the write needs (the changed blocks' new
        rows, copies of the counters) and returns the write itself, which may then run in a
        worker thread while games are added.  It renders stale viewer files for at most
        :data:`VIEWER_BUDGET` seconds: the rest are its :meth:`backlog`."""
        if now is not None:
            self._written_at = now
        job = self._job(budget=VIEWER_BUDGET)

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

    def backlog(self) -> int:
        """Blocks (of :attr:`block_size` games) whose viewer file waits for a later write."""
        return len(self._stale)

    def write_now(self) -> None:
        """:meth:`write`, raising what fails (``santorini report`` turns it into its error line).

        Raises:
            OSError: a file cannot be written.
        """
        self._job()()

    def _job(self, *, blocks_only: bool = False, budget: float = math.inf) -> _Job:
        blocks = sorted(self._dirty, key=lambda b: b.first)
        self._dirty.clear()
        pending, self._pending = self._pending, {}
        self._strings = {}
        pages: dict[int, list[BlockEntry]] = {block.first: [] for block in blocks}
        for number, entry in pending.items():
            pages[block_of(number, self.block_size).first].append(entry)
        counts = {block.first: self._blocks.get(block.first, 0) for block in blocks}
        if blocks_only:
            return _Job(self, blocks, pages, counts, None, budget=0.0)
        standings = self._standings if self._counts else type(self._standings).from_state(self._standings.state())
        data = report_data(self.info, standings, self._chart.lines(), dict(self._terminations), dict(self._blocks),
                           block_size=self.block_size, gods=self._gods)
        state = (self._chart.state(), dict(self._terminations), sorted(self._blocks.items()), self.offset,
                 self._gods.state())
        return _Job(self, blocks, pages, counts, (data, state), budget=budget)


class _Job:
    """One write of a report: what it needs, taken from the writer, so that it can run in a
    worker thread while the collector adds games (the rows are immutable, the counters copies).

    The blocks that gained games get their list scripts at once (cheap: their rows) and are
    marked stale; stale blocks' viewer files are then rendered, oldest first, for at most
    ``budget`` seconds (all of them at the end of a run), so a run whose games come faster than
    their viewer files can be rendered keeps its memory flat: the backlog is a set of block
    numbers, not rows."""

    def __init__(self, writer: ReportWriter, blocks: list[Block], pages: dict[int, list[BlockEntry]],
                 counts: dict[int, int], report: tuple[Any, tuple[Any, dict[str, int], list[tuple[int, int]], int, Any]] | None,
                 *, budget: float) -> None:
        self.writer = writer
        self.blocks = blocks
        self.pages = pages
        self.counts = counts  # each block's games when the write was prepared
        self.report = report
        self.budget = budget

    def __call__(self) -> None:
        writer = self.writer
        if self.blocks:
            (writer.directory / GAMES_DIR).mkdir(parents=True, exist_ok=True)
        done = 0
        listed: dict[int, list[BlockEntry]] = {}
        try:
            for block in self.blocks:
                listed[block.first] = self._write_script(block, self.pages[block.first])
                done += 1
        except BaseException:  # the blocks not written are tried again next time, with their rows
            for block in self.blocks[done:]:
                writer._dirty.add(block)
                for entry in self.pages[block.first]:
                    writer._pending.setdefault(entry.number, entry)
            raise
        self._render(listed)
        if self.report is None:
            return
        data, (chart, terminations, blocks, offset, gods) = self.report
        html = render_report(data).encode("utf-8")
        with atomic_file(writer.directory / REPORT) as f:
            f.write(html)
        if writer.archive is not None:
            (writer.directory / GAMES_DIR).mkdir(parents=True, exist_ok=True)
            state = _State(_FORMAT, writer._key(), offset, archive_anchor(writer.archive, offset), chart, terminations,
                           blocks, sorted(writer._stale), gods)
            with atomic_file(writer.directory / GAMES_DIR / STATE) as f:
                f.write(msgspec.msgpack.encode(state))

    def _write_script(self, block: Block, new: list[BlockEntry]) -> list[BlockEntry]:
        """The block's list script, its rows on disk and ``new`` merged; the block is then stale."""
        writer = self.writer
        entries: dict[int, BlockEntry] = {}
        if writer._trusts(block):
            listed = writer._listed(block)
            if listed is None and self.counts[block.first] > len(new):  # its script is lost: read the archive
                listed = writer._recovered(block)
            for entry in listed or ():
                entries.setdefault(entry.number, entry)
        for entry in new:
            entries.setdefault(entry.number, entry)
        ordered = [entries[n] for n in sorted(entries)]
        _replace((writer.directory / block.path).with_suffix(".js"), block_script(block, ordered).encode("utf-8"))
        writer._on_disk.add(block.first)
        writer._known.pop(block.first, None)
        writer._stale.add(block.first)
        return ordered

    def _render(self, listed: dict[int, list[BlockEntry]]) -> None:
        """The viewer files of stale blocks, oldest first, within the budget."""
        writer = self.writer
        if not writer._stale or self.budget <= 0:
            return
        writer._viewer = writer._viewer or default_viewer()
        deadline = time.perf_counter() + self.budget
        for first in sorted(writer._stale):
            block = block_of(first, writer.block_size)
            entries = listed.get(first)
            if entries is None:
                entries = writer._listed(block)
                if entries is None:  # its script is lost too: the archive has its games
                    entries = writer._recovered(block)
            writer._viewer([writer._read(e) for e in entries], writer.directory / block.path,
                           title=f"{writer.info.title}: games {block.first}-{block.last}")
            writer._stale.discard(first)
            if time.perf_counter() > deadline:
                return


def _replace(path: Path, data: bytes) -> None:
    """Write ``path`` beside and rename it over (a reader never meets half a file); not fsync'd:
    a list script is derived, and made again from the archive if lost."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
