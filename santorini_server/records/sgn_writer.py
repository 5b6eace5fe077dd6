"""Appending games to an SGN file: one fsync'd write per game, a half-written last game cut off."""

from __future__ import annotations

import errno
import os

from .durable import DurableAppender
from .frames import CorruptFrame
from .game import GameRecord, RecordError
from .sgn import SgnError, format_sgn, parse_sgn

__all__ = ["SgnWriter", "DeferredSgnWriter"]


class SgnWriter(DurableAppender):
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
        pos = self._find_last(b"\n\n[")
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


class DeferredSgnWriter:
    """An :class:`SgnWriter` opened by the first game: a run in which no game could start (an
    engine that will not start) leaves no empty file behind.

    What can be checked without creating the file is checked at once, so a bad path fails before
    any game is played: an existing file is opened (its tail checked or repaired, and locked); for
    a new one, its directory must exist and be writable.

    Raises:
        OSError: the directory is missing or not writable; also what :class:`SgnWriter` raises.
        RecordError: an existing file whose tail is not SGN (from :class:`SgnWriter`).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._writer: SgnWriter | None = None
        if os.path.exists(self.path):
            self._writer = SgnWriter(self.path)
            return
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), directory)
        if not os.access(directory, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), directory)

    def append(self, record: GameRecord) -> int:
        """Append ``record`` (creating the file the first time) and fsync; returns its offset."""
        if self._writer is None:
            self._writer = SgnWriter(self.path)
        return self._writer.append(record)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
