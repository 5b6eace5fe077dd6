"""The game archive (``games.msgpack``): records framed one per game, and reading archives.

An archive is the frames of :mod:`.frames` holding the payloads of :mod:`.payload`. A frame whose
checksums pass but whose payload does not decode (a future schema version, a writer's bug) is
reported as a :class:`~.frames.CorruptFrame` covering that frame, like any other damage: readers
list what is readable and say what is not (SPEC.md section 13.3).
"""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from .frames import (
    _HEADER,
    HEADER_SIZE,
    MAX_PAYLOAD,
    ArchiveError,
    CorruptFrame,
    Frame,
    frame_payload,
    iter_frames,
    iter_stream_frames,
)
from .game import GameRecord
from .payload import decode_record, encode_record

__all__ = [
    "encode_frame", "read_frame", "scan_archive", "map_file", "iter_archive", "iter_archive_frames", "read_archive",
    "read_record_at",
]


def encode_frame(record: GameRecord) -> bytes:
    """One whole archive frame (header + payload) for ``record``."""
    return frame_payload(encode_record(record))


def read_frame(frame: Frame) -> GameRecord | CorruptFrame:
    """The record in ``frame``, or the frame reported as damage if its payload does not decode."""
    try:
        return decode_record(frame.payload)
    except ArchiveError as e:
        return CorruptFrame(frame.offset, frame.size, f"unreadable payload: {e}")


def scan_archive(data: bytes | mmap.mmap) -> Iterator[GameRecord | CorruptFrame]:
    """Records and damaged regions of an archive held in memory (pure; never raises on bad data)."""
    for item in iter_frames(data):
        yield item if isinstance(item, CorruptFrame) else read_frame(item)


def map_file(fileobj: BinaryIO) -> bytes | mmap.mmap:
    """The whole file: memory-mapped for a regular file (big archives are not copied), read into
    memory otherwise (a pipe: everything left in it). The map outlives ``fileobj``."""
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


def iter_archive(fileobj: BinaryIO, offset: int = 0) -> Iterator[GameRecord | CorruptFrame]:
    """Records of an archive file, with :class:`CorruptFrame` reports for damaged regions.

    Reads the file as a stream from byte ``offset`` (a seekable file is sought there; a pipe is
    read from where it is), one frame at a time: memory stays bounded by one frame and a read
    buffer whatever the archive's size. Offsets in the reports are byte offsets in the file.
    """
    if fileobj.seekable():
        fileobj.seek(offset)
    for item in iter_stream_frames(fileobj.read, offset):
        yield item if isinstance(item, CorruptFrame) else read_frame(item)


def iter_archive_frames(fileobj: BinaryIO, offset: int = 0) -> Iterator[tuple[Frame, GameRecord] | CorruptFrame]:
    """:func:`iter_archive`, each record with its frame (its offset and size in the file); a
    frame whose payload does not decode is reported as damage."""
    if fileobj.seekable():
        fileobj.seek(offset)
    for item in iter_stream_frames(fileobj.read, offset):
        if isinstance(item, CorruptFrame):
            yield item
            continue
        record = read_frame(item)
        yield record if isinstance(record, CorruptFrame) else (item, record)


def read_archive(path: str | os.PathLike[str]) -> tuple[list[GameRecord], list[CorruptFrame]]:
    """All readable records of the archive at ``path`` and the damaged regions found."""
    records: list[GameRecord] = []
    damage: list[CorruptFrame] = []
    with open(path, "rb") as f:
        for item in iter_archive(f):
            if isinstance(item, CorruptFrame):
                damage.append(item)
            else:
                records.append(item)
    return records, damage


def read_record_at(path: str | os.PathLike[str], offset: int) -> GameRecord:
    """The record of the frame that starts at byte ``offset`` of the archive at ``path``: one
    game read without scanning the archive (the offset is what the writer's append returned).

    Raises:
        ArchiveError: no intact frame starts there, or its payload does not decode.
        OSError: the file cannot be read.
    """
    with open(path, "rb") as f:
        f.seek(offset)
        header = f.read(HEADER_SIZE)
        length = _HEADER.unpack(header)[1] if len(header) == HEADER_SIZE else 0
        data = header + f.read(min(length, MAX_PAYLOAD))
    item = next(iter_frames(data), None)
    if not isinstance(item, Frame) or item.offset != 0:
        raise ArchiveError(f"{os.fspath(path)!r}: no intact frame at byte {offset}")
    record = read_frame(item)
    if isinstance(record, CorruptFrame):
        raise ArchiveError(f"{os.fspath(path)!r}: frame at byte {offset}: {record.reason}")
    return record
