"""Appending games to an SGN file: one fsync'd write per game, a half-written last game cut off."""

from __future__ import annotations

from .durable import DurableAppender
from .frames import CorruptFrame
from .game import GameRecord, RecordError
from .sgn import SgnError, format_sgn, parse_sgn

__all__ = ["SgnWriter"]


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
