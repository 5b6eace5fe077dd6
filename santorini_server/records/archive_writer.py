"""Appending games to an archive: one fsync'd frame per game, a half-written last frame cut off."""

from __future__ import annotations

import os

from .archive import encode_frame
from .durable import DurableAppender
from .frames import MAGIC, ArchiveError, CorruptFrame, Frame, iter_stream_frames
from .game import GameRecord

__all__ = ["ArchiveWriter"]


class ArchiveWriter(DurableAppender):
    """Appends frames to a msgpack archive; on open, cuts off a frame left half-written.

    Other damage is left in place, since appending after it is safe: readers resynchronise. A
    non-empty file with no frame that does not start with the magic is refused
    (:class:`ArchiveError`): it is some other file, not a damaged archive.

    ``start``: the check on open reads from this byte on, the end of a frame known intact (what a
    standings snapshot or the server's index counted to): anything a crash left is after it, so
    opening a million-game archive reads only its tail.

    Attributes:
        recovered: the truncated tail that was removed on open, or None.
        damage: every damaged region found on open (the truncated tail included), after ``start``.
        count: readable frames in the file (checksums only) after ``start``, kept up to date by
            :meth:`append`.
        end: the file's size (where the next frame goes), kept up to date by :meth:`append`.
    """

    recovered: CorruptFrame | None
    damage: tuple[CorruptFrame, ...]
    count: int
    end: int

    def __init__(self, path: str | os.PathLike[str], *, start: int = 0) -> None:
        self.start = start
        super().__init__(path)

    def _recover(self) -> None:
        self.recovered = None
        self.count = 0
        damage: list[CorruptFrame] = []
        size = self._size()
        if size > self.start:
            for item in iter_stream_frames(self._reader(self.start), self.start):  # a frame at a time
                if isinstance(item, Frame):
                    self.count += 1
                else:
                    damage.append(item)
        self.damage = tuple(damage)
        if not self.start and size and self.count == 0 and self._read(0, len(MAGIC)) != MAGIC[: min(size, len(MAGIC))]:
            raise ArchiveError(f"{self.path!r} is not a game archive (no frames); refusing to append")
        if damage and damage[-1].truncated:
            self.recovered = damage[-1]
            self._truncate(damage[-1].offset)
        self.end = self._size()

    def append(self, record: GameRecord) -> int:
        """Append ``record`` as one frame and fsync; returns the frame's byte offset."""
        frame = encode_frame(record)
        offset = self._append(frame)
        self.count += 1
        self.end = offset + len(frame)
        return offset
