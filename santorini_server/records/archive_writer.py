"""Appending games to an archive: one fsync'd frame per game, a half-written last frame cut off."""

from __future__ import annotations

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

    Attributes:
        recovered: the truncated tail that was removed on open, or None.
        damage: every damaged region found on open (the truncated tail included).
        count: readable frames in the file (checksums only), kept up to date by :meth:`append`.
        end: the file's size (where the next frame goes), kept up to date by :meth:`append`.
    """

    recovered: CorruptFrame | None
    damage: tuple[CorruptFrame, ...]
    count: int
    end: int

    def _recover(self) -> None:
        self.recovered = None
        self.count = 0
        damage: list[CorruptFrame] = []
        size = self._size()
        if size:
            for item in iter_stream_frames(self._reader(), 0):  # a frame at a time: any size of archive
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
        self.end = self._size()

    def append(self, record: GameRecord) -> int:
        """Append ``record`` as one frame and fsync; returns the frame's byte offset."""
        frame = encode_frame(record)
        offset = self._append(frame)
        self.count += 1
        self.end = offset + len(frame)
        return offset
