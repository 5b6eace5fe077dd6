"""Record files of either format: telling them apart, reading them, and converting losslessly.

Both formats hold exactly the fields of :class:`~santorini_server.records.game.GameRecord`, so
``archive -> SGN -> archive`` and ``SGN -> archive -> SGN`` reproduce their input (canonical SGN
byte for byte; archives frame for frame). A file is recognised by content, not by name
(SPEC.md section 14.2): one that starts with the archive magic, or holds it and is not
UTF-8 text (an archive whose first frame is damaged), is an archive; anything else is SGN.
"""

from __future__ import annotations

import codecs
import mmap
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Literal, TextIO

from .archive import encode_frame, iter_archive, scan_archive
from .frames import MAGIC, ArchiveError, CorruptFrame
from .game import GameRecord
from .sgn import SgnError, format_sgn, iter_sgn

__all__ = [
    "Format",
    "FORMATS",
    "detect_format",
    "detect_file_format",
    "iter_file_lines",
    "format_of_name",
    "sgn_lines",
    "iter_records",
    "record_bytes",
    "Conversion",
    "convert_records",
    "sgn_to_archive",
    "archive_to_sgn",
]

Format = Literal["sgn", "msgpack"]
#: The formats, and the file name extensions that imply them.
FORMATS: dict[str, Format] = {".sgn": "sgn", ".msgpack": "msgpack"}


def detect_format(data: bytes | mmap.mmap) -> Format:
    """``msgpack`` or ``sgn``, by content (see the module docstring)."""
    if data[: len(MAGIC)] == MAGIC:
        return "msgpack"
    if data.find(MAGIC) >= 0:
        try:
            bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            return "msgpack"
    return "sgn"


def detect_file_format(f: BinaryIO, chunk: int = 1 << 20) -> Format:
    """:func:`detect_format` of a seekable file, read in chunks from its start (a file that does
    not begin with the magic is read to its end, a chunk at a time); left positioned at 0."""
    f.seek(0)
    head = f.read(len(MAGIC))
    if head == MAGIC:
        f.seek(0)
        return "msgpack"
    decoder = codecs.getincrementaldecoder("utf-8")()
    found = False
    text = True
    carry = b""
    data = head
    while data:
        found = found or (carry + data).find(MAGIC) >= 0
        carry = (carry + data)[-(len(MAGIC) - 1):]
        if text:
            try:
                decoder.decode(data)
            except UnicodeDecodeError:
                text = False
        if found and not text:
            break
        data = f.read(chunk)
    if text and found:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            text = False
    f.seek(0)
    return "msgpack" if found and not text else "sgn"


def iter_file_lines(f: BinaryIO) -> Iterator[str]:
    """:func:`sgn_lines` of a file, read a line at a time."""
    for line in f:
        yield line.decode("utf-8")


def format_of_name(name: str | os.PathLike[str]) -> Format | None:
    """The format a file name's extension implies (``.sgn``, ``.msgpack``), or None."""
    return FORMATS.get(os.path.splitext(name)[1].lower())


def sgn_lines(data: bytes | mmap.mmap) -> Iterator[str]:
    """The lines of SGN text held as bytes, decoded one at a time (a UTF-8 error surfaces where
    it is, and :func:`~.sgn.iter_sgn` reports it with its line number)."""
    start, n = 0, len(data)
    while start < n:
        end = data.find(b"\n", start)
        end = n if end < 0 else end + 1
        yield data[start:end].decode("utf-8")
        start = end


def iter_records(data: bytes | mmap.mmap) -> Iterator[GameRecord | CorruptFrame]:
    """The games of a record file of either format, in file order, with archive damage reported.

    Raises:
        SgnError: malformed SGN, at the first bad game (the games before it have been yielded).
    """
    if detect_format(data) == "msgpack":
        yield from scan_archive(data)
    else:
        yield from iter_sgn(sgn_lines(data))


def record_bytes(record: GameRecord, to: Format) -> bytes:
    """``record`` as it is stored in a file of format ``to``: one frame, or one SGN game and its
    blank line.

    Raises:
        ArchiveError: the record's payload is over the frame size limit.
    """
    return encode_frame(record) if to == "msgpack" else (format_sgn(record) + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class Conversion:
    """What :func:`convert_records` did."""

    games: int
    """Games written."""
    damaged: tuple[CorruptFrame, ...]
    """Archive regions skipped because no record could be read there."""
    error: SgnError | None
    """The malformed SGN that ended the reading, if it did (the games before it are written)."""


def convert_records(
    data: bytes | mmap.mmap,
    out: BinaryIO,
    to: Format,
    *,
    on_corrupt: Callable[[CorruptFrame], None] | None = None,
) -> Conversion:
    """Write every game of a record file held in ``data`` (either format) to ``out`` in ``to``.

    Bad input never raises: damaged archive regions are skipped (and passed to ``on_corrupt`` as
    they are met, to warn while converting) and malformed SGN ends the conversion; both are in
    the returned :class:`Conversion`, so the caller decides what loss means.

    Raises:
        ArchiveError: a record too big for an archive frame (``to="msgpack"``).
        OSError: writing ``out`` failed.
    """
    games = 0
    damaged: list[CorruptFrame] = []
    try:
        for item in iter_records(data):
            if isinstance(item, CorruptFrame):
                damaged.append(item)
                if on_corrupt is not None:
                    on_corrupt(item)
                continue
            out.write(record_bytes(item, to))
            games += 1
    except SgnError as e:
        return Conversion(games, tuple(damaged), e)
    return Conversion(games, tuple(damaged), None)


def sgn_to_archive(sgn: Iterable[str], archive: BinaryIO) -> int:
    """Write every game of an SGN stream (lines) to ``archive`` as frames; returns the count.

    Raises:
        SgnError: malformed SGN; the games before it have been written.
    """
    count = 0
    for record in iter_sgn(sgn):
        archive.write(encode_frame(record))
        count += 1
    return count


def archive_to_sgn(
    archive: BinaryIO,
    sgn: TextIO,
    *,
    on_corrupt: Callable[[CorruptFrame], None] | None = None,
) -> int:
    """Write every record of ``archive`` to ``sgn`` as canonical SGN; returns the count.

    Args:
        on_corrupt: called with each damaged region, which is then skipped. Without it, damage
            is an error: a conversion should not silently drop games.

    Raises:
        ArchiveError: a damaged region and no ``on_corrupt``; earlier games have been written.
    """
    count = 0
    for item in iter_archive(archive):
        if isinstance(item, CorruptFrame):
            if on_corrupt is None:
                kind = "truncated" if item.truncated else "corrupt"
                raise ArchiveError(
                    f"{kind} archive region at byte {item.offset} ({item.length} bytes): {item.reason}"
                )
            on_corrupt(item)
            continue
        sgn.write(format_sgn(item) + "\n")
        count += 1
    return count
