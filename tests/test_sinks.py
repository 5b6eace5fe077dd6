"""The collector's derived sinks: written off the collector, from copies, never waited for."""

from __future__ import annotations

import math
import pathlib
import threading
from collections.abc import Callable, Sequence

import trio
import trio.lowlevel

from santorini_server.records import ArchiveWriter, GameRecord, read_record_at
from santorini_server.tournament.output import ARCHIVE
from santorini_server.tournament.report import ReportInfo
from santorini_server.tournament.report_files import REPORT, ReportWriter
from santorini_server.tournament.sinks import Changes, keep_written, write_all

from .test_streaming import _numbered


class Slow:
    """A derived sink whose every write blocks until the test lets it go."""

    def __init__(self) -> None:
        self.seen: list[int] = []
        self.written: list[list[int]] = []
        self.release = threading.Event()
        self.writing = threading.Event()

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        self.seen.append(number)

    def wait_for(self, now: float) -> float:
        return 0.0 if len(self.seen) > sum(len(w) for w in self.written) else math.inf

    def write(self, now: float | None = None) -> bool:
        return self.prepare(now)()

    def backlog(self) -> int:
        return 0

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        taken = self.seen[sum(len(w) for w in self.written):]
        self.written.append(taken)

        def write() -> bool:
            self.writing.set()
            self.release.wait(10)
            return True

        return write


async def test_the_collector_records_games_while_a_derived_file_is_written() -> None:
    sink = Slow()
    changes = Changes()
    record = _numbered(1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keep_written, [sink], changes)
        sink.recorded(record, 1, 0, 1)
        changes.note()
        await trio.to_thread.run_sync(sink.writing.wait, 10)  # the first write is under way in a thread...
        for number in range(2, 6):  # ...and games are recorded meanwhile, nobody waiting for it
            sink.recorded(record, number, 0, 1)
            await trio.lowlevel.checkpoint()
        assert sink.written == [[1]]
        sink.release.set()
        while len(sink.written) < 2:
            await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    await write_all([sink])
    assert sink.written[0] == [1] and [n for w in sink.written for n in w] == [1, 2, 3, 4, 5]


def test_a_report_write_holds_what_was_taken_when_it_was_prepared(tmp_path: pathlib.Path) -> None:
    """Games added after :meth:`ReportWriter.prepare` (while its write runs in a thread) are in
    the next write, not in this one: the write works from copies."""
    archive = tmp_path / ARCHIVE
    with ArchiveWriter(archive) as w:
        offsets = [w.append(_numbered(k)) for k in range(1, 151)]
    pages: dict[str, list[int | None]] = {}

    def viewer(records: Sequence[GameRecord], out: pathlib.Path, *, title: str | None = None) -> None:
        pages[out.name] = [r.game_number for r in records]
        out.write_text(str(title))

    report = ReportWriter(tmp_path, ReportInfo("cup", ("Kronos 0.3", "Hestia 1.1"), 2, "60+1", "mortal/mortal", 150),
                          viewer=viewer, archive=archive)
    for k in range(1, 101):
        report.add(read_record_at(archive, offsets[k - 1]), k, offsets[k - 1])
    write = report.prepare(0.0)
    for k in range(101, 151):
        report.add(read_record_at(archive, offsets[k - 1]), k, offsets[k - 1])
    assert write()
    assert pages == {"0001-0100.html": list(range(1, 101))}
    assert "game 101" not in (tmp_path / REPORT).read_text().lower()
    assert report.due(1e9)
    assert report.prepare(1e9)()
    assert pages["0101-0200.html"] == list(range(101, 151))


async def test_the_writer_sleeps_until_a_sink_is_due_and_while_nothing_changes(autojump_clock: trio.abc.Clock) -> None:
    """No polling: with nothing recorded the writer waits for word of a change; with a change it
    sleeps until the sink's own due time (5 s after its last write, on the test's clock)."""
    written: list[float] = []

    class Paced:
        changed = False
        written_at = 98.0

        def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
            self.changed = True

        def wait_for(self, now: float) -> float:
            return self.written_at + 5.0 - now if self.changed else math.inf

        def write(self, now: float | None = None) -> bool:
            return self.prepare(now)()

        def backlog(self) -> int:
            return 0

        def prepare(self, now: float | None = None) -> Callable[[], bool]:
            self.changed = False
            self.written_at = trio.current_time()
            written.append(self.written_at)
            return lambda: True

    sink = Paced()
    changes = Changes()
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keep_written, [sink], changes)
        await trio.sleep_until(start + 100)
        assert written == []  # nothing recorded: nothing written, however long
        sink.written_at = start + 98
        sink.recorded(_numbered(1), 1, 0, 1)
        changes.note()
        await trio.sleep_until(start + 101)
        assert written == []  # due 5 s after the last write: at 103
        await trio.sleep_until(start + 110)
        assert [t - start for t in written] == [103.0]
        nursery.cancel_scope.cancel()


class Backlogged:
    """A derived sink each of whose writes clears at most ``per_write`` of its backlog; its write
    number ``hold`` waits for ``release``."""

    def __init__(self, backlog: int, per_write: int, hold: int = 0) -> None:
        self.left = backlog
        self.per_write = per_write
        self.hold = hold
        self.writes = 0
        self.holding = threading.Event()
        self.release = threading.Event()

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        pass

    def wait_for(self, now: float) -> float:
        return 0.0 if self.left else math.inf

    def write(self, now: float | None = None) -> bool:
        return self.prepare(now)()

    def backlog(self) -> int:
        return self.left

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        def write() -> bool:
            if self.writes + 1 == self.hold:
                self.holding.set()
                self.release.wait(10)
            self.writes += 1
            self.left = max(0, self.left - self.per_write)
            return True

        return write


async def test_a_completed_run_writes_each_backlog_in_bounded_writes_and_an_interrupted_one_writes_once() -> None:
    told: list[int] = []
    sink = Backlogged(backlog=10, per_write=3)
    await write_all([sink], announce=told.append)
    assert (sink.writes, sink.left, told) == (4, 0, [7])  # one write each, then the 7 left in three more
    stopping = Backlogged(backlog=10, per_write=3)
    await write_all([stopping], complete=False, announce=told.append)
    assert (stopping.writes, stopping.left, told) == (1, 7, [7])  # the backlog waits for the next run


async def test_a_stop_during_the_backlog_ends_it_after_the_write_under_way() -> None:
    sink = Backlogged(backlog=100, per_write=1, hold=3)
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(write_all, [sink])
            assert await trio.to_thread.run_sync(sink.holding.wait, 10)  # the third write is under way...
            scope.cancel()  # ...when the run is told to stop
            sink.release.set()
    assert scope.cancelled_caught
    assert (sink.writes, sink.left) == (3, 97)  # the write under way was finished, then no more


async def test_the_first_write_of_every_sink_is_made_even_when_the_run_is_stopping() -> None:
    sinks = [Backlogged(backlog=5, per_write=5), Backlogged(backlog=5, per_write=5)]
    with trio.CancelScope() as scope:
        scope.cancel()
        await write_all(sinks)
    assert [s.writes for s in sinks] == [1, 1] and [s.left for s in sinks] == [0, 0]


async def test_a_backlog_write_that_makes_no_progress_ends_the_backlog() -> None:
    sink = Backlogged(backlog=4, per_write=0)  # a write that fails every time (the sink warns once)
    await write_all([sink])
    assert sink.writes == 2 and sink.left == 4
