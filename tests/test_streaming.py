"""Records read as streams: the archive frame by frame, the tail of an SGN file before appending,
a tournament's resume without holding its games, and ``replay --check`` in bounded memory."""

from __future__ import annotations

import io
import os
import pathlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.records import (
    MAGIC,
    Frame,
    encode_frame,
    frame_payload,
    iter_archive,
    iter_frames,
    iter_stream_frames,
    parse_sgn,
)

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
