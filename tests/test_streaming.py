"""Records read as streams: the archive frame by frame, the tail of an SGN file before appending,
a tournament's resume without holding its games, and ``replay --check`` in bounded memory."""

from __future__ import annotations

import gc
import io
import json
import os
import pathlib
import random
import re
import tempfile
import tracemalloc
from collections.abc import Sequence

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.cli import main, replay_cmd
from santorini_server.records import (
    MAGIC,
    ArchiveWriter,
    CorruptFrame,
    Frame,
    GameRecord,
    RecordError,
    SgnWriter,
    detect_file_format,
    detect_format,
    encode_frame,
    format_sgn,
    format_sgn_games,
    frame_payload,
    iter_archive,
    iter_frames,
    iter_stream_frames,
    parse_sgn,
    read_record_at,
    result_summary,
    sgn_writer,
)
from santorini_server.records.sgn_writer import TAIL_CHECK
from santorini_server.tournament import report_files
from santorini_server.tournament.output import ARCHIVE, RESULTS, SGN, TournamentFiles
from santorini_server.tournament.report import ReportInfo
from santorini_server.tournament.report_files import REPORT, ReportWriter
from santorini_server.tournament.standings_file import DoneGames

from .test_records import SAMPLE


def _reads_of(data: bytes, rng: random.Random):  # type: ignore[no-untyped-def]
    """``read(n)`` over ``data`` returning short pieces at random (as a pipe may)."""
    stream = io.BytesIO(data)

    def read(n: int) -> bytes:
        return stream.read(min(n, rng.randint(1, 9)))

    return read


_PIECES = st.one_of(
    st.binary(max_size=40).map(frame_payload),  # a good frame
    st.binary(max_size=40).map(lambda p: frame_payload(p)[: max(1, len(p) // 2)]),  # a frame cut short
    st.binary(max_size=12),  # garbage
    st.sampled_from([MAGIC, MAGIC[:3], MAGIC[:1]]),  # a stray or partial magic
)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=8), flip=st.integers(min_value=0), seed=st.integers(0, 2**32))
def test_the_stream_scanner_reports_what_the_whole_data_scanner_reports(pieces: list[bytes], flip: int, seed: int) -> None:
    data = bytearray(b"".join(pieces))
    if data and flip % 3 == 0:
        data[flip % len(data)] ^= 0x40
    data = bytes(data)
    expected = list(iter_frames(data))
    assert list(iter_stream_frames(_reads_of(data, random.Random(seed)))) == expected
    assert list(iter_stream_frames(io.BytesIO(data).read)) == expected


def test_the_stream_scanner_counts_offsets_from_where_it_starts() -> None:
    frames = [frame_payload(bytes([k]) * 10) for k in range(3)]
    data = b"".join(frames)
    start = len(frames[0])
    items = list(iter_stream_frames(io.BytesIO(data[start:]).read, start))
    assert [(f.offset, f.payload) for f in items if isinstance(f, Frame)] == [
        (start, b"\x01" * 10), (start + len(frames[1]), b"\x02" * 10)]


class _CountingFile(io.FileIO):
    """A real file that notes how much each read asked for and how far it has read."""

    largest = 0
    total = 0

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        data = super().read(size)
        _CountingFile.largest = max(_CountingFile.largest, len(data))
        _CountingFile.total += len(data)
        return data

    def readall(self) -> bytes:
        data = super().readall()
        _CountingFile.largest = max(_CountingFile.largest, len(data))
        _CountingFile.total += len(data)
        return data

    def fileno(self) -> int:  # a map of the file would read it behind our back: refuse one
        raise OSError("no map")


def test_an_archive_is_read_a_piece_at_a_time(tmp_path: pathlib.Path) -> None:
    """The first record is read long before the file's end, and no read takes more than a
    buffer's worth, whatever the archive's size (SPEC.md section 13.3)."""
    record = parse_sgn(SAMPLE)[0]
    frame = encode_frame(record)
    path = tmp_path / "big.msgpack"
    copies = (3 << 20) // len(frame) + 1  # over 3 MiB
    path.write_bytes(frame * copies)
    _CountingFile.largest = _CountingFile.total = 0
    with _CountingFile(path, "rb") as f:
        items = iter_archive(f)  # type: ignore[arg-type]
        first = next(items)
        assert first == record and _CountingFile.total <= (1 << 20) + len(frame)
        assert sum(1 for _ in items) == copies - 1
    assert _CountingFile.largest <= (1 << 20) + len(frame)
    assert _CountingFile.total == os.path.getsize(path)


# --- appending to SGN checks the file's tail -------------------------------------------------


def _games(count: int) -> list[str]:
    """``count`` canonical games, each with its blank line, numbered 1..count."""
    game = format_sgn(parse_sgn(SAMPLE)[0]) + "\n"
    return [game.replace('[Round "17"]', f'[Round "{k}"]') for k in range(1, count + 1)]


class _TailReader(SgnWriter):
    """An SGN writer that notes how many bytes opening it read."""

    read_bytes = 0

    def _read(self, offset: int, size: int) -> bytes:
        data = super()._read(offset, size)
        _TailReader.read_bytes += len(data)
        return data


def _big_sgn(path: pathlib.Path, first: str = "") -> list[str]:
    games = _games(TAIL_CHECK // len(_games(1)[0]) * 3)
    path.write_text(first + "".join(games), encoding="utf-8")
    return games


def test_appending_to_a_big_sgn_file_reads_its_tail_only(tmp_path: pathlib.Path) -> None:
    """A damaged game far from the end is not seen (SPEC.md section 13.3 says so): opening reads
    the last TAIL_CHECK bytes, a few hundred games, not a million."""
    path = tmp_path / "games.sgn"
    damaged = _games(1)[0].replace('[Gods "mortal/mortal"]', '[Gods "zz"]')
    _big_sgn(path, damaged)
    size = path.stat().st_size
    assert size > 3 * TAIL_CHECK
    _TailReader.read_bytes = 0
    with _TailReader(path) as w:
        assert w.recovered is None
        assert _TailReader.read_bytes <= 2 * TAIL_CHECK
        w.append(parse_sgn(SAMPLE)[0])
    assert path.read_bytes()[size:] == (format_sgn(parse_sgn(SAMPLE)[0]) + "\n").encode()


def test_damage_in_the_tail_of_a_big_sgn_file_is_refused_by_byte(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.sgn"
    games = _big_sgn(path)
    bad = "".join(games[:-2]).encode()
    data = (("".join(games[:-2]) + games[-2].replace('[Gods "mortal/mortal"]', '[Gods "zz"]') + games[-1])
            .encode())
    path.write_bytes(data)
    line = games[-2].splitlines().index('[Gods "mortal/mortal"]') + 1
    with pytest.raises(RecordError) as caught:
        SgnWriter(path)
    assert str(caught.value).startswith(
        f"{path}: the game from byte {len(bad)} does not parse: line {line} of it, column 7: Gods ")
    assert str(caught.value).endswith("refusing to append (only a last game cut short by an interrupted write is repaired)")
    assert path.read_bytes() == data
    path.write_bytes(b"".join(g.encode() for g in games) + b"notes\n")
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}: the text after the game ending at byte \d+ is not SGN: "):
        SgnWriter(path)


def test_a_torn_last_game_of_a_big_sgn_file_is_cut(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.sgn"
    games = _big_sgn(path)
    data = path.read_bytes()
    last = len(data) - len(games[-1].encode())
    for cut in (last + 5, last + 200, len(data) - 3):
        path.write_bytes(data[:cut])
        with SgnWriter(path) as w:
            assert w.recovered is not None
            assert (w.recovered.offset, w.recovered.length) == (last, cut - last)
            w.append(parse_sgn(games[-1])[0])
        assert path.read_bytes() == data


def test_a_big_file_in_which_no_game_begins_is_refused(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sgn_writer, "MAX_TAIL_CHECK", 4 * TAIL_CHECK)
    path = tmp_path / "notes.txt"
    data = b"notes " * (4 * TAIL_CHECK)
    path.write_bytes(data)
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}: no game begins in its last \d+ bytes"):
        SgnWriter(path)
    assert path.read_bytes() == data


# --- resume streams the archive and leaves level derived files alone --------------------------


def _numbered(number: int) -> GameRecord:
    base = parse_sgn(SAMPLE)[0]
    tags = (*tuple(t for t in base.tags if t[0] != "GameNumber"), ("GameNumber", str(number)))
    return GameRecord(tags, base.turns, base.eliminations)


def _folder(path: pathlib.Path, count: int) -> list[GameRecord]:
    """A tournament folder whose three files hold games 1..count, as a run leaves them."""
    games = [_numbered(k) for k in range(1, count + 1)]
    files = TournamentFiles(path)
    files.resume()
    for record in games:
        files._append(record)
    files.close()
    return games


def _expected(games: list[GameRecord]) -> tuple[bytes, bytes]:
    sgn = format_sgn_games(games).encode()
    jsonl = "".join(json.dumps(result_summary(r), ensure_ascii=False, separators=(",", ":")) + "\n" for r in games)
    return sgn, jsonl.encode()


def test_resume_hands_over_each_record_with_its_offset_and_leaves_level_files_alone(tmp_path: pathlib.Path) -> None:
    games = _folder(tmp_path, 5)
    before = {name: (tmp_path / name).stat().st_ino for name in (SGN, RESULTS)}
    seen: list[tuple[int | None, int]] = []
    files = TournamentFiles(tmp_path)
    assert files.resume(lambda record, offset, _end: seen.append((record.game_number, offset))) == []
    files.close()
    assert [n for n, _ in seen] == [1, 2, 3, 4, 5]
    assert [read_record_at(tmp_path / ARCHIVE, offset) for _, offset in seen] == games
    # not rewritten: the same files (a rebuild renames a new one over each)
    assert {name: (tmp_path / name).stat().st_ino for name in (SGN, RESULTS)} == before
    assert ((tmp_path / SGN).read_bytes(), (tmp_path / RESULTS).read_bytes()) == _expected(games)


@pytest.mark.parametrize("lag", [1, 3])
def test_derived_files_behind_the_archive_get_only_the_missing_games(tmp_path: pathlib.Path, lag: int) -> None:
    games = _folder(tmp_path, 6)
    sgn, jsonl = _expected(games)
    kept_sgn, kept_jsonl = _expected(games[:-lag])
    (tmp_path / SGN).write_bytes(kept_sgn + sgn[len(kept_sgn):][:25])  # a torn game after the kept ones
    (tmp_path / RESULTS).write_bytes(kept_jsonl + jsonl[len(kept_jsonl):][:10])
    before = {name: (tmp_path / name).stat().st_ino for name in (SGN, RESULTS)}
    files = TournamentFiles(tmp_path)
    files.resume()
    files.close()
    assert {name: (tmp_path / name).stat().st_ino for name in (SGN, RESULTS)} == before  # appended to
    assert ((tmp_path / SGN).read_bytes(), (tmp_path / RESULTS).read_bytes()) == (sgn, jsonl)


def test_derived_files_that_do_not_match_the_archive_are_rebuilt(tmp_path: pathlib.Path) -> None:
    games = _folder(tmp_path, 4)
    expected = _expected(games)
    for sgn, jsonl in ((b"", b""),  # emptied
                       (format_sgn_games([_numbered(9)]).encode(), b'{"game":9}\n'),  # a game the archive lacks
                       (b"notes\n", b"notes\n"),  # not the format
                       (format_sgn_games([*games[:1], parse_sgn(SAMPLE)[0]]).encode(), b'{"x":1}\n')):  # no number
        (tmp_path / SGN).write_bytes(sgn)
        (tmp_path / RESULTS).write_bytes(jsonl)
        files = TournamentFiles(tmp_path)
        files.resume()
        files.close()
        assert ((tmp_path / SGN).read_bytes(), (tmp_path / RESULTS).read_bytes()) == expected
    (tmp_path / SGN).unlink()
    (tmp_path / RESULTS).unlink()
    assert TournamentFiles(tmp_path).open()[0] == games
    assert ((tmp_path / SGN).read_bytes(), (tmp_path / RESULTS).read_bytes()) == expected


def test_resume_holds_one_game_at_a_time(tmp_path: pathlib.Path) -> None:
    """Memory while resuming does not grow with the archive: the records are streamed to the
    caller and let go (the figure for a million games is tools/bench_streaming.py's)."""
    frame = encode_frame(_numbered(1))
    count = 3000
    with open(tmp_path / ARCHIVE, "wb") as f:
        for k in range(1, count + 1):
            f.write(encode_frame(_numbered(k)) if k in (1, count) else frame)
    tracemalloc.start()
    try:
        files = TournamentFiles(tmp_path)
        seen = 0

        def visit(record: GameRecord, offset: int, end: int) -> None:
            nonlocal seen
            seen += 1

        files.resume(visit)
        files.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == count
    assert peak < 4 << 20, peak  # the records alone would be over 10 MB


# --- the report keeps a summary per game ------------------------------------------------------


class _Viewer:
    """Notes the records each viewer file is written with."""

    def __init__(self) -> None:
        self.pages: dict[str, list[GameRecord]] = {}

    def __call__(self, records: Sequence[GameRecord], out: pathlib.Path, *, title: str | None = None) -> None:
        self.pages[out.name] = list(records)
        out.write_text(f"{title}: {len(records)}")


def test_the_report_keeps_a_summary_per_game_and_reads_its_blocks_from_the_archive(tmp_path: pathlib.Path) -> None:
    count = 2000
    archive = tmp_path / ARCHIVE
    offsets = []
    with ArchiveWriter(archive) as w:
        for k in range(1, count + 1):
            offsets.append(w.append(_numbered(k)))
    info = ReportInfo("cup", ("Kronos 0.3", "Hestia 1.1"), 2, "60+1", "mortal/mortal", count)
    streamed, held = _Viewer(), _Viewer()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    report = ReportWriter(tmp_path / "a", info, viewer=streamed, archive=archive)
    reference = ReportWriter(tmp_path / "b", info, viewer=held)
    reference.add(_numbered(1), 1)
    report.add(read_record_at(archive, offsets[0]), 1, offsets[0])  # the first game's strings are kept once
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for k in range(2, count + 1):
            report.add(read_record_at(archive, offsets[k - 1]), k, offsets[k - 1])  # a new record each time
        gc.collect()  # what is left is what the report keeps
        per_game = (tracemalloc.get_traced_memory()[0] - before) / (count - 1)
    finally:
        tracemalloc.stop()
    assert per_game < 400, per_game  # its standings included (SPEC.md section 10.7 states the figure)
    for k in range(2, count + 1):
        reference.add(_numbered(k), k)
    report.write_now()
    reference.write_now()
    assert streamed.pages == held.pages and len(streamed.pages) == 20
    assert (tmp_path / "a" / REPORT).read_bytes() == (tmp_path / "b" / REPORT).read_bytes()


# --- replay --check reads as it checks --------------------------------------------------------


class _Counted(replay_cmd._Reader):
    """The command's reader, noting how many games and damaged regions it has handed out."""

    pulled = 0

    def items(self):  # type: ignore[no-untyped-def]
        for item in super().items():
            _Counted.pulled += 1
            yield item


@pytest.mark.parametrize(("kind", "jobs"), [("msgpack", 1), ("msgpack", 2), ("sgn", 1)])
def test_replay_check_reads_the_file_as_it_checks_it(tmp_path: pathlib.Path, kind: str, jobs: int) -> None:
    """Bounded memory whatever the file's size: the first game is checked after at most the
    look-ahead that chooses worker processes (2,000 games) and a few chunks are read."""
    count = 6000
    path = tmp_path / f"games.{kind}"
    record = parse_sgn(SAMPLE)[0]
    path.write_bytes((encode_frame(record) if kind == "msgpack" else (format_sgn(record) + "\n").encode()) * count)
    _Counted.pulled = 0
    reader = _Counted(path)
    try:
        rows = replay_cmd.checked_rows(reader, jobs)
        first = next(rows)
        assert first == (1, replay_cmd.Row(record.players, "mortal/mortal", "1-0", "climb", 19, ()))
        assert _Counted.pulled <= replay_cmd._PARALLEL_FROM + (2 * jobs + 1) * replay_cmd._CHUNK, _Counted.pulled
        rows.close()  # the worker processes are shut down
    finally:
        reader.close()


def test_replay_check_output_is_the_same_for_a_stream_and_for_data_in_memory(tmp_path: pathlib.Path) -> None:
    record = parse_sgn(SAMPLE)[0]
    frame = encode_frame(record)
    path = tmp_path / "games.msgpack"
    path.write_bytes(frame * 3 + b"junk" + frame[:20] + frame * 2 + frame[:30])
    streamed = replay_cmd._Reader(path)
    held = replay_cmd._Reader(path)
    held.close()
    held._file = None
    held.data = path.read_bytes()
    try:
        assert streamed._file is not None
        assert list(replay_cmd.checked_rows(streamed, 1)) == list(replay_cmd.checked_rows(held, 1))
    finally:
        streamed.close()


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from([b"[Event", b"\n", "Ω".encode(), b"\xff", MAGIC, MAGIC[:2], b"x" * 5]), max_size=10),
       chunk=st.integers(1, 8))
def test_a_file_s_format_is_told_in_chunks_as_from_its_whole_bytes(parts: list[bytes], chunk: int) -> None:
    data = b"".join(parts)
    f = io.BytesIO(data)
    assert detect_file_format(f, chunk) == detect_format(data)
    assert f.tell() == 0


def test_resume_reports_damage_and_a_torn_last_frame_in_file_order(tmp_path: pathlib.Path) -> None:
    games = _folder(tmp_path, 3)
    data = (tmp_path / ARCHIVE).read_bytes()
    frame = encode_frame(_numbered(4))
    damaged = data[:10] + b"\x00" + data[11:] + frame[:30]  # the first frame hit, the last one torn
    (tmp_path / ARCHIVE).write_bytes(damaged)
    seen: list[int | None] = []
    files = TournamentFiles(tmp_path)
    damage = files.resume(lambda record, _start, _end: seen.append(record.game_number))
    files.close()
    assert damage == list(iter_frames_of(damaged)) and [d.truncated for d in damage] == [False, True]
    assert seen == [2, 3]
    assert (tmp_path / ARCHIVE).read_bytes() == damaged[: len(data)]  # the torn frame is cut
    assert parse_sgn((tmp_path / SGN).read_text(encoding="utf-8")) == games  # its last game is the archive's


def iter_frames_of(data: bytes) -> list[CorruptFrame]:
    return [item for item in iter_frames(data) if isinstance(item, CorruptFrame)]


def test_the_games_done_are_counted_as_bits() -> None:
    done = DoneGames(20)
    for number in (1, 7, 8, 20, 7):
        done.add(number)
    assert len(done) == 4
    assert [n for n in range(-1, 25) if n in done] == [1, 7, 8, 20]
    assert None not in done and "7" not in done


@pytest.mark.slow  # 1,400 games written and read under tracemalloc
@pytest.mark.parametrize("kind", ["sgn", "msgpack"])
def test_santorini_report_reads_the_records_as_a_stream(
    tmp_path: pathlib.Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``santorini report`` of a record file holds a row per game, not the games: an SGN file is
    framed into a scratch archive as it is read, and each viewer file reads its block from it
    (here a viewer that notes the block and lets go: the real one's cost is one block's)."""
    count = 700
    path = tmp_path / f"games.{kind}"
    with open(path, "wb") as f:
        for k in range(1, count + 1):
            f.write(encode_frame(_numbered(k)) if kind == "msgpack" else (format_sgn(_numbered(k)) + "\n").encode())
    blocks: list[tuple[int, int | None]] = []

    def viewer(records: Sequence[GameRecord], out: pathlib.Path, *, title: str | None = None) -> None:
        blocks.append((len(records), records[0].game_number))
        out.write_text(str(title))

    monkeypatch.setattr(report_files, "default_viewer", lambda: viewer)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, ["report", str(path), "--out", str(tmp_path / "out")])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert f"{count} games, 7 viewer files" in result.output
    assert blocks == [(100, k) for k in range(1, count, 100)]
    tracemalloc.start()
    try:
        held = [_numbered(k) for k in range(1, count + 1)]  # what holding the games would take
        records = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(held) == count and peak < records / 2, (peak, records)
    assert not list(tmp_path.glob("santorini-report-*"))  # the scratch archive is gone
