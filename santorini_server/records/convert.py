"""Lossless conversion between SGN text and the msgpack archive.

Both formats hold exactly the fields of :class:`~santorini_server.records.game.GameRecord`, so
``archive -> SGN -> archive`` and ``SGN -> archive -> SGN`` reproduce their input (canonical SGN
byte for byte; archives frame for frame).
"""

from __future__ import annotations

from typing import BinaryIO, Callable, Iterable, TextIO

from .archive import ArchiveError, CorruptFrame, encode_frame, iter_archive
from .sgn import format_sgn, iter_sgn

__all__ = ["sgn_to_archive", "archive_to_sgn"]


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
