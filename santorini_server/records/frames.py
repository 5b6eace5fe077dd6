"""The archive's frame format: self-delimiting, checksummed frames, and a scanner that resynchronises.

Theory of operation
-------------------
An archive is a plain concatenation of frames, one per game, so it can be appended to forever and
read by scanning. Each frame is (SPEC.md section 13.3):

======  ====  ==========================================================================
offset  size  field
======  ====  ==========================================================================
0       4     magic ``89 53 47 52`` (``b"\\x89SGR"``; the high byte catches 7-bit mangling)
4       4     payload length *n*, unsigned big-endian (at most :data:`MAX_PAYLOAD`)
8       4     CRC-32 (``zlib.crc32``) of the payload, unsigned big-endian
12      4     CRC-32 of bytes 0-11 of this frame (header check), unsigned big-endian
16      *n*   payload (opaque here; :mod:`.payload` gives it its meaning)
======  ====  ==========================================================================

Recovery rules (cutechess#754, fishtest#2142: never lose or merge half records):

* The scanner looks for the magic, checks the header CRC, the length bound and the payload CRC.
  Any failure means "not a frame here": it resumes the search one byte after that magic. One
  damaged frame therefore costs that frame only, and a frame's header is never trusted before
  its own CRC has passed.
* Bytes between good frames are reported once as a :class:`CorruptFrame` (offset, length,
  reason of the first failure there).
* If the data ends inside a frame (a header cut off, a valid header whose payload runs past the
  end, or a partial magic), that tail is reported with ``truncated=True``: the signature of a
  write interrupted by a crash.

Pure: bytes in, frames out; no files, no msgpack.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .game import RecordError

__all__ = [
    "MAGIC",
    "HEADER_SIZE",
    "MAX_PAYLOAD",
    "ArchiveError",
    "CorruptFrame",
    "Frame",
    "frame_payload",
    "iter_frames",
    "iter_stream_frames",
]

MAGIC = b"\x89SGR"
_HEADER = struct.Struct(">4sIII")
#: Bytes before a frame's payload (magic, length, payload CRC, header CRC).
HEADER_SIZE = _HEADER.size
#: Largest payload a reader accepts. A game of ~100 turns with full telemetry is a few KB;
#: 16 MiB leaves room for long comments while bounding what a damaged header can make us read.
MAX_PAYLOAD = 16 * 1024 * 1024


class ArchiveError(RecordError):
    """A payload that is not a version-1 game record, or an archive that cannot be used."""


@dataclass(frozen=True, slots=True)
class CorruptFrame:
    """A region of an archive that held no readable record (reported, then skipped)."""

    offset: int
    """Byte offset of the region in the archive."""
    length: int
    """Length of the region in bytes."""
    reason: str
    """Why the first frame candidate in it was refused."""
    truncated: bool = False
    """True if the region is a frame cut off by the end of the file (an interrupted write)."""

    def describe(self) -> str:
        """The region in words, as every reader reports it (``santorini replay``, the server)."""
        kind = "truncated frame" if self.truncated else "damaged region"
        return f"{kind} at byte {self.offset} ({self.length} bytes) skipped: {self.reason}"


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame whose checksums passed (its payload is not decoded yet)."""

    offset: int
    payload: bytes

    @property
    def size(self) -> int:
        """Bytes the whole frame occupies."""
        return HEADER_SIZE + len(self.payload)


def frame_payload(payload: bytes) -> bytes:
    """One whole frame (header + ``payload``).

    Raises:
        ArchiveError: the payload is over :data:`MAX_PAYLOAD` (no reader would accept it).
    """
    if len(payload) > MAX_PAYLOAD:
        raise ArchiveError(f"record payload is {len(payload)} bytes, over the {MAX_PAYLOAD} limit")
    head = struct.pack(">4sII", MAGIC, len(payload), zlib.crc32(payload))
    return head + struct.pack(">I", zlib.crc32(head)) + payload


_OK, _BAD, _SHORT = 0, 1, 2


def _check_frame(data: bytes | bytearray | mmap.mmap, o: int) -> tuple[int, str, bytes]:
    """(status, reason, payload) of the frame candidate at ``o`` (magic already matched)."""
    n = len(data)
    if o + HEADER_SIZE > n:
        return _SHORT, f"frame header cut off after {n - o} bytes", b""
    header = data[o : o + HEADER_SIZE]
    _, length, crc, header_crc = _HEADER.unpack(header)
    if zlib.crc32(header[:12]) != header_crc:
        return _BAD, "header checksum mismatch", b""
    if length > MAX_PAYLOAD:
        return _BAD, f"payload length {length} over the limit {MAX_PAYLOAD}", b""
    end = o + HEADER_SIZE + length
    if end > n:
        return _SHORT, f"payload cut off after {n - o - HEADER_SIZE} of {length} bytes", b""
    payload = data[o + HEADER_SIZE : end] if not isinstance(data, bytearray) else bytes(data[o + HEADER_SIZE : end])
    if zlib.crc32(payload) != crc:
        return _BAD, "payload checksum mismatch", b""
    return _OK, "", payload


class _Window:
    """The part of a byte stream the scanner still needs, at absolute offset ``base``.

    Over data held in memory (``read`` None) it is all of it, at its end from the start; over a
    stream it is refilled with reads of :data:`_CHUNK` bytes, and bytes before the scanner's
    search position are dropped as it refills, so it never holds more than one frame (at most
    :data:`MAX_PAYLOAD`) and a chunk.
    """

    def __init__(self, data: bytes | bytearray | mmap.mmap, read: Callable[[int], bytes] | None, base: int) -> None:
        self.data = data
        self.base = base
        self._read = read
        self.eof = read is None
        self._keep = base  # bytes before this absolute offset are no longer needed

    @property
    def end(self) -> int:
        return self.base + len(self.data)

    def release(self, upto: int) -> None:
        """The scanner will not look before absolute offset ``upto`` again."""
        self._keep = max(self._keep, upto)

    def fill(self, upto: int) -> None:
        """Read until the window reaches absolute offset ``upto`` or the stream ends."""
        if self.eof or self.end >= upto:
            return
        assert self._read is not None
        assert isinstance(self.data, bytearray)
        drop = self._keep - self.base
        if drop > 0:
            del self.data[:drop]
            self.base += drop
        while self.end < upto:
            chunk = self._read(max(_CHUNK, upto - self.end))
            if not chunk:
                self.eof = True
                return
            self.data += chunk

    def find(self, pos: int) -> int:
        """Absolute offset of the next magic at or after ``pos``, reading on as needed; -1 if none."""
        while True:
            o = self.data.find(MAGIC, pos - self.base)
            if o >= 0:
                return o + self.base
            if self.eof:
                return -1
            # a magic may straddle the window's end: keep its last bytes
            self.release(max(pos, self.end - (len(MAGIC) - 1)))
            pos = max(pos, self.end - (len(MAGIC) - 1))
            self.fill(self.end + 1)

    def check(self, o: int) -> tuple[int, str, bytes]:
        """:func:`_check_frame` at absolute offset ``o``, with the whole frame read in if it fits."""
        self.fill(o + HEADER_SIZE)
        status, reason, payload = _check_frame(self.data, o - self.base)
        if status == _SHORT and not self.eof and self.end >= o + HEADER_SIZE:
            length = _HEADER.unpack(self.data[o - self.base : o - self.base + HEADER_SIZE])[1]
            self.fill(o + HEADER_SIZE + length)
            status, reason, payload = _check_frame(self.data, o - self.base)
        return status, reason, payload


#: Bytes read at a time when scanning a stream.
_CHUNK = 1 << 20


def iter_frames(data: bytes | mmap.mmap) -> Iterator[Frame | CorruptFrame]:
    """Checksum-valid frames and the damaged regions between them, in file order.

    Pure (no I/O): ``data`` is the whole archive. Never raises on bad data.
    """
    return _scan(_Window(data, None, 0))


def iter_stream_frames(read: Callable[[int], bytes], offset: int = 0) -> Iterator[Frame | CorruptFrame]:
    """:func:`iter_frames` over a stream, read as it is scanned: ``read(n)`` returns up to ``n``
    more bytes (``b""`` at the end), the first of them at byte ``offset`` of the archive (the
    offsets reported count from the archive's start). Memory stays bounded by one frame and a
    chunk of :data:`_CHUNK` bytes, whatever the archive's size; what is reported is exactly what
    :func:`iter_frames` reports for the same bytes.

    Raises:
        OSError: what ``read`` raises.
    """
    return _scan(_Window(bytearray(), read, offset))


def _scan(w: _Window) -> Iterator[Frame | CorruptFrame]:
    good_end = w.base  # end of the last good frame
    pos = w.base  # where the magic search resumes
    first_fail: tuple[int, str] | None = None  # first refused candidate since good_end
    first_short: tuple[int, str] | None = None  # first candidate cut off by the end of data
    while (o := w.find(pos)) >= 0:
        status, reason, payload = w.check(o)
        if status != _OK:
            if first_fail is None:
                first_fail = (o, reason)
            if status == _SHORT and first_short is None:
                first_short = (o, reason)
            pos = o + 1
            w.release(pos)
            continue
        if o > good_end:
            why = first_fail[1] if first_fail is not None else "bytes outside any frame"
            yield CorruptFrame(good_end, o - good_end, why)
        yield Frame(o, payload)
        good_end = pos = o + HEADER_SIZE + len(payload)
        w.release(pos)
        first_fail = first_short = None
    n = w.end
    if good_end == n:
        return
    # The tail after the last good frame: find where an interrupted write began, if anywhere.
    cut: tuple[int, str] | None = first_short
    if cut is None:
        for k in range(len(MAGIC) - 1, 0, -1):
            if n - k >= good_end and w.data[n - k - w.base : n - w.base] == MAGIC[:k]:
                cut = (n - k, f"frame magic cut off after {k} bytes")
                break
    if cut is None:
        why = first_fail[1] if first_fail is not None else "bytes outside any frame"
        yield CorruptFrame(good_end, n - good_end, why)
        return
    if cut[0] > good_end:
        why = first_fail[1] if first_fail is not None and first_fail[0] < cut[0] else "bytes outside any frame"
        yield CorruptFrame(good_end, cut[0] - good_end, why)
    yield CorruptFrame(cut[0], n - cut[0], cut[1], truncated=True)
