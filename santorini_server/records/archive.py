"""The msgpack game archive (``games.msgpack``) and the durable append writers.

Theory of operation
-------------------
An archive is a plain concatenation of self-delimiting, checksummed frames, one per game, so
it can be appended to forever and read by scanning. Each frame is:

======  ====  ==========================================================================
offset  size  field
======  ====  ==========================================================================
0       4     magic ``89 53 47 52`` (``b"\\x89SGR"``; the high byte catches 7-bit mangling)
4       4     payload length *n*, unsigned big-endian (at most :data:`MAX_PAYLOAD`)
8       4     CRC-32 (``zlib.crc32``) of the payload, unsigned big-endian
12      4     CRC-32 of bytes 0-11 of this frame (header check), unsigned big-endian
16      *n*   payload: one msgpack map, schema below
======  ====  ==========================================================================

Payload schema, version 1 (a msgpack map; strings are msgpack str, UTF-8)::

    {"v": 1,
     "tags":  [[name, value], ...],                       # in record order
     "turns": [[turn, time_ms, score, depth, nodes, comment], ...]}

Each turn array drops trailing nils (``["b3,d3"]`` is a turn with no telemetry), so arrays
have 1 to 6 elements; a nil inside means "absent". Readers ignore map keys they do not know
(room for optional additions); a different ``v`` is reported as an unreadable frame.

Recovery rules (cutechess#754, fishtest#2142: never lose or merge half records):

* The reader looks for the magic, checks the header CRC, the length bound, the payload CRC and
  the schema. Any failure means "not a frame here": it resumes the search one byte after that
  magic. One damaged frame therefore costs that frame only, and a frame's header is never
  trusted before its own CRC has passed.
* Bytes between good frames are reported once as a :class:`CorruptFrame` (offset, length,
  reason of the first failure there).
* If the file ends inside a frame (a header cut off, a valid header whose payload runs past the
  end, or a partial magic), that tail is reported with ``truncated=True``: the signature of a
  write interrupted by a crash.
* :class:`ArchiveWriter` cuts such a truncated tail off when it opens the file (and says so);
  any other damage it leaves in place, since appending after it is safe: readers resynchronise.

The writers open for append, write each record as one ``write`` of its whole bytes, and
``fsync`` before returning, so a game is on disk before anyone counts it.
"""

from __future__ import annotations

import json
import mmap
import os
import stat
import struct
import threading
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator

import msgpack

from .game import GameRecord, RecordError, TurnRecord
from .sgn import SgnError, format_sgn, parse_sgn

__all__ = [
    "MAGIC",
    "HEADER_SIZE",
    "MAX_PAYLOAD",
    "SCHEMA_VERSION",
    "ArchiveError",
    "CorruptFrame",
    "Frame",
    "encode_record",
    "decode_record",
    "encode_frame",
    "iter_frames",
    "scan_archive",
    "iter_archive",
    "read_archive",
    "result_summary",
    "ArchiveWriter",
    "ResultsWriter",
    "SgnWriter",
]

MAGIC = b"\x89SGR"
_HEADER = struct.Struct(">4sIII")
HEADER_SIZE = _HEADER.size  # 16
#: Largest payload a reader accepts. A game of ~100 turns with full telemetry is a few KB;
#: 16 MiB leaves room for long comments while bounding what a damaged header can make us read.
MAX_PAYLOAD = 16 * 1024 * 1024
SCHEMA_VERSION = 1
_TURN_FIELDS = 6


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


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame whose checksums passed (its payload is not decoded yet)."""

    offset: int
    payload: bytes

    @property
    def size(self) -> int:
        """Bytes the whole frame occupies."""
        return HEADER_SIZE + len(self.payload)


# --- payload -------------------------------------------------------------------------------


def encode_record(record: GameRecord) -> bytes:
    """The msgpack payload (schema version 1) of ``record``; deterministic."""
    turns = []
    for t in record.turns:
        row: list[Any] = [t.turn, t.time_ms, t.score, t.depth, t.nodes, t.comment]
        while row[-1] is None:
            row.pop()
        turns.append(row)
    obj = {"v": SCHEMA_VERSION, "tags": [[n, v] for n, v in record.tags], "turns": turns}
    return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]


def decode_record(payload: bytes) -> GameRecord:
    """The record in a msgpack payload.

    Raises:
        ArchiveError: not msgpack, not schema version 1, or not a valid record.
    """
    try:
        obj = msgpack.unpackb(payload, raw=False, strict_map_key=True, use_list=True)
    except (ValueError, TypeError, OverflowError, msgpack.UnpackException) as e:
        raise ArchiveError(f"payload is not msgpack: {e}") from None
    if not isinstance(obj, dict):
        raise ArchiveError(f"payload is not a map: {type(obj).__name__}")
    version = obj.get("v")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise ArchiveError(f"unsupported payload version {version!r}")
    tags, turns = obj.get("tags"), obj.get("turns")
    if not isinstance(tags, list) or not all(isinstance(p, list) and len(p) == 2 for p in tags):
        raise ArchiveError(f"'tags' must be a list of [name, value] pairs: {tags!r}"[:300])
    if not isinstance(turns, list) or not all(
        isinstance(row, list) and 1 <= len(row) <= _TURN_FIELDS for row in turns
    ):
        raise ArchiveError(f"'turns' must be a list of 1..6-element arrays: {turns!r}"[:300])
    try:
        return GameRecord(
            tuple((n, v) for n, v in tags),
            tuple(TurnRecord(*row) for row in turns),
        )
    except RecordError as e:
        raise ArchiveError(f"payload is not a valid record: {e}") from None


def encode_frame(record: GameRecord) -> bytes:
    """One whole archive frame (header + payload) for ``record``."""
    payload = encode_record(record)
    if len(payload) > MAX_PAYLOAD:
        raise ArchiveError(f"record payload is {len(payload)} bytes, over the {MAX_PAYLOAD} limit")
    head = struct.pack(">4sII", MAGIC, len(payload), zlib.crc32(payload))
    return head + struct.pack(">I", zlib.crc32(head)) + payload


# --- reading -------------------------------------------------------------------------------

_OK, _BAD, _SHORT = 0, 1, 2


def _check_frame(data: bytes | mmap.mmap, o: int) -> tuple[int, str, bytes]:
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
    payload = data[o + HEADER_SIZE : end]
    if zlib.crc32(payload) != crc:
        return _BAD, "payload checksum mismatch", b""
    return _OK, "", payload


def iter_frames(data: bytes | mmap.mmap) -> Iterator[Frame | CorruptFrame]:
    """Checksum-valid frames and the damaged regions between them, in file order.

    Pure (no I/O): ``data`` is the whole archive. Never raises on bad data.
    """
    n = len(data)
    good_end = 0  # end of the last good frame
    pos = 0  # where the magic search resumes
    first_fail: tuple[int, str] | None = None  # first refused candidate since good_end
    first_short: tuple[int, str] | None = None  # first candidate cut off by the end of data
    while (o := data.find(MAGIC, pos)) >= 0:
        status, reason, payload = _check_frame(data, o)
        if status != _OK:
            if first_fail is None:
                first_fail = (o, reason)
            if status == _SHORT and first_short is None:
                first_short = (o, reason)
            pos = o + 1
            continue
        if o > good_end:
            why = first_fail[1] if first_fail is not None else "bytes outside any frame"
            yield CorruptFrame(good_end, o - good_end, why)
        yield Frame(o, payload)
        good_end = pos = o + HEADER_SIZE + len(payload)
        first_fail = first_short = None
    if good_end == n:
        return
    # The tail after the last good frame: find where an interrupted write began, if anywhere.
    cut: tuple[int, str] | None = first_short
    if cut is None:
        for k in range(len(MAGIC) - 1, 0, -1):
            if n - k >= good_end and data[n - k : n] == MAGIC[:k]:
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


def scan_archive(data: bytes | mmap.mmap) -> Iterator[GameRecord | CorruptFrame]:
    """Records and damaged regions of an archive held in memory (pure; never raises on bad data).

    A frame whose checksums pass but whose payload does not decode (e.g. a future schema
    version) is reported as a :class:`CorruptFrame` covering that frame.
    """
    for item in iter_frames(data):
        if isinstance(item, CorruptFrame):
            yield item
            continue
        try:
            yield decode_record(item.payload)
        except ArchiveError as e:
            yield CorruptFrame(item.offset, item.size, f"unreadable payload: {e}")


def _map_file(fileobj: BinaryIO) -> bytes | mmap.mmap:
    """The whole archive: memory-mapped for a regular file, read into memory otherwise."""
    try:
        fd = fileobj.fileno()
        st = os.fstat(fd)
    except (AttributeError, OSError, ValueError):
        fd = -1
    if fd >= 0 and stat.S_ISREG(st.st_mode):
        if st.st_size == 0:
            return b""
        try:
            return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            pass
    if fileobj.seekable():
        fileobj.seek(0)
    return fileobj.read()


def iter_archive(fileobj: BinaryIO) -> Iterator[GameRecord | CorruptFrame]:
    """Records of an archive file, with :class:`CorruptFrame` reports for damaged regions.

    Reads the whole file from its beginning (a pipe: everything left in it); offsets in the
    reports are byte offsets in the file.
    """
    data = _map_file(fileobj)
    try:
        yield from scan_archive(data)
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def read_archive(path: str | os.PathLike[str]) -> tuple[list[GameRecord], list[CorruptFrame]]:
    """All readable records of the archive at ``path`` and the damaged regions found."""
    records: list[GameRecord] = []
    damage: list[CorruptFrame] = []
    with open(path, "rb") as f:
        for item in iter_archive(f):
            (damage if isinstance(item, CorruptFrame) else records).append(item)  # type: ignore[arg-type]
    return records, damage


# --- durable appenders ---------------------------------------------------------------------


def _fsync_dir(path: str) -> None:
    """Make a newly created file's directory entry durable (POSIX needs the directory fsync'd)."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _Appender:
    """An append-only file: one ``write`` per record, then ``fsync``; exclusive while open."""

    def __init__(self, path: str | os.PathLike[str], *, durable: bool = True) -> None:
        """``durable=False`` skips the fsync after each append: for files that are rebuilt from
        a durable one after a crash (the tournament's SGN and JSON Lines are rebuilt from its
        archive), where an fsync per game would only cost time."""
        self.path = os.fspath(path)
        self.durable = durable
        existed = os.path.exists(self.path)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        self._lock = threading.Lock()
        try:
            try:
                import fcntl

                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # pragma: no cover - not POSIX
                pass
            except BlockingIOError:
                raise ArchiveError(f"{self.path!r} is open for appending elsewhere") from None
            if not existed:
                _fsync_dir(self.path)
            self._recover()
        except BaseException:
            os.close(self._fd)
            raise

    def _recover(self) -> None:
        """Subclasses: remove or repair an interrupted last write."""

    def _size(self) -> int:
        return os.fstat(self._fd).st_size

    def _read(self, offset: int, size: int) -> bytes:
        return os.pread(self._fd, size, offset)

    def _truncate(self, size: int) -> None:
        os.ftruncate(self._fd, size)
        os.fsync(self._fd)

    def _append(self, data: bytes) -> int:
        """Write ``data`` at the end in one ``write`` call (looping only on a short write), fsync.

        On failure the file is cut back to where it was, so no half record stays behind.
        """
        with self._lock:
            offset = os.lseek(self._fd, 0, os.SEEK_END)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                if self.durable:
                    os.fsync(self._fd)
            except BaseException:
                try:
                    self._truncate(offset)
                except OSError:
                    pass
                raise
            return offset

    def close(self) -> None:
        """Close the file (idempotent). Everything appended is already on disk."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> _Appender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ArchiveWriter(_Appender):
    """Appends frames to a msgpack archive; on open, cuts off a frame left half-written.

    A non-empty file with no frame that does not start with the magic is refused
    (:class:`ArchiveError`): it is some other file, not a damaged archive.

    Attributes:
        recovered: the truncated tail that was removed on open, or None.
        damage: every damaged region found on open (the truncated tail included); other
            damage is left in place (readers skip it).
        count: readable frames in the file (checksums only), kept up to date by :meth:`append`.
    """

    recovered: CorruptFrame | None
    damage: tuple[CorruptFrame, ...]
    count: int

    def _recover(self) -> None:
        self.recovered = None
        self.count = 0
        damage: list[CorruptFrame] = []
        size = self._size()
        if size:
            with mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ) as data:
                for item in iter_frames(data):
                    if isinstance(item, Frame):
                        self.count += 1
                    else:
                        damage.append(item)
        self.damage = tuple(damage)
        if size and self.count == 0 and self._read(0, len(MAGIC)) != MAGIC[: min(size, len(MAGIC))]:
            raise ArchiveError(f"{self.path!r} is not a game archive (no frames); refusing to append")
        if damage and damage[-1].truncated:
            self.recovered = damage[-1]
            self._truncate(damage[-1].offset)

    def append(self, record: GameRecord) -> int:
        """Append ``record`` as one frame and fsync; returns the frame's byte offset."""
        offset = self._append(encode_frame(record))
        self.count += 1
        return offset

    def __enter__(self) -> ArchiveWriter:
        return self


def _find_last(appender: _Appender, size: int, needle: bytes) -> int:
    """Offset of the last ``needle`` in the file, or -1; reads backwards in growing windows."""
    window = 64 * 1024
    while True:
        start = max(0, size - window)
        pos = appender._read(start, size - start).rfind(needle)
        if pos >= 0:
            return start + pos
        if start == 0:
            return -1
        window *= 4


class SgnWriter(_Appender):
    """Appends games as canonical SGN (UTF-8), each followed by a blank line, fsync'd.

    On open, the last game in the file is checked: if it does not parse (a write interrupted by
    a crash) it is cut off and described in ``recovered``; a complete last game that lacks its
    blank line gets one. A file whose tail is not SGN at all is refused (RecordError) rather
    than cut.
    """

    recovered: CorruptFrame | None

    def _recover(self) -> None:
        self.recovered = None
        size = self._size()
        if size == 0:
            return
        pos = _find_last(self, size, b"\n\n[")
        start = 0 if pos < 0 else pos + 2
        tail = self._read(start, size - start)
        try:
            if not parse_sgn(tail.decode("utf-8")):
                raise SgnError("no complete game", 1, 1)
        except (UnicodeDecodeError, SgnError) as e:
            if not tail.startswith(b"["):
                raise RecordError(f"{self.path!r} does not end with SGN games; refusing to append: {e}") from None
            self.recovered = CorruptFrame(start, size - start, f"half-written game: {e}", True)
            self._truncate(start)
            return
        if not tail.endswith(b"\n\n"):
            self._append(b"\n" if tail.endswith(b"\n") else b"\n\n")

    def append(self, record: GameRecord) -> int:
        """Append ``record`` and fsync; returns its byte offset."""
        return self._append((format_sgn(record) + "\n").encode("utf-8"))

    def __enter__(self) -> SgnWriter:
        return self


def result_summary(record: GameRecord) -> dict[str, Any]:
    """One game's line in the JSON Lines results file (what a script wants without replaying)."""
    return {
        "game": record.game_number,
        "round": record.tag("Round"),
        "player1": record.players[0],
        "player2": record.players[1],
        "gods": record.tag("Gods"),
        "start": record.start,
        "opening": record.opening,
        "result": record.result,
        "termination": record.termination,
        "detail": record.termination_detail,
        "turns": len(record.turns),
    }


class ResultsWriter(_Appender):
    """Appends one JSON object per game (:func:`result_summary`) as a line, fsync'd.

    On open, a last line without its newline is completed if it is a whole JSON object and cut
    off if it is the start of one (``recovered`` says what was cut); other text is refused.
    """

    recovered: CorruptFrame | None

    def _recover(self) -> None:
        self.recovered = None
        size = self._size()
        if size == 0 or self._read(size - 1, 1) == b"\n":
            return
        start = _find_last(self, size, b"\n") + 1
        tail = self._read(start, size - start)
        try:
            whole = isinstance(json.loads(tail.decode("utf-8")), dict)
        except ValueError:
            whole = False
        if whole:
            self._append(b"\n")
        elif not tail.startswith(b"{"):
            raise RecordError(f"{self.path!r} is not a JSON Lines results file; refusing to append")
        else:
            self.recovered = CorruptFrame(start, size - start, "half-written result line", True)
            self._truncate(start)

    def append(self, record: GameRecord) -> int:
        """Append the record's summary line and fsync; returns its byte offset."""
        line = json.dumps(result_summary(record), ensure_ascii=False, separators=(",", ":"))
        return self._append((line + "\n").encode("utf-8"))

    def __enter__(self) -> ResultsWriter:
        return self
