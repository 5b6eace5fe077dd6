"""Appending games to an SGN file: one fsync'd write per game, a half-written last game cut off.

Theory of operation.  The only damage an appender may repair is its own: a last game whose write
a crash interrupted.  That game is a prefix of a canonical game, so the reader stops at the
file's very end (its last line, or the end of input) and no other game follows it; it is cut
off.  Anything else that does not read (a damaged game, a complete last game with a bad tag,
text that is not SGN) is refused before anything is written: appending after it would put the
new games where no reader reaches them, since reading stops at the first malformed game.

Opening reads the file's tail, not all of it, so appending to a file of a million games starts
at once: the games that begin in the last :data:`TAIL_CHECK` bytes (all games of a smaller
file) are read as the reader reads them.  A game begins at a tag line whose previous non-blank
line is not a tag line; the window grows (four times each step, up to :data:`MAX_TAIL_CHECK`)
until one begins in it.  Damage before the first game of the window is not seen.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from dataclasses import dataclass

from .durable import DurableAppender
from .frames import CorruptFrame
from .game import GameRecord, RecordError
from .sgn import SgnError, format_sgn, iter_sgn

__all__ = ["SgnWriter", "DeferredSgnWriter", "TAIL_CHECK", "MAX_TAIL_CHECK"]

_BOM = "\ufeff".encode()

#: Bytes at the end of an SGN file that opening it for appending reads (a few dozen games).
TAIL_CHECK = 64 * 1024
#: The most it reads to find the beginning of a game (a file with no game beginning in its last
#: 64 MiB is refused: no game the referee writes is that long).
MAX_TAIL_CHECK = 64 * 1024 * 1024


@dataclass
class _Scan:
    """How far an SGN file reads: ``games`` whole games, the last ending at byte ``end`` (just
    past its result line) on line ``end_line``; the ``error`` that stopped the reader (None: the
    whole file reads) and ``stop``, the end of the line it was found on (or of the file)."""

    games: int = 0
    last: GameRecord | None = None
    end: int = 0
    end_line: int = 0
    error: SgnError | None = None
    stop: int = 0


def _scan(data: bytes) -> _Scan:
    """Read ``data`` as the SGN reader does (lines split at ``\\n``, each decoded alone, as
    :func:`~.convert.sgn_lines`), noting where the last whole game ends."""
    scan = _Scan()
    pos = lineno = 0

    def lines() -> Iterator[str]:
        nonlocal pos, lineno
        n = len(data)
        while pos < n:
            stop = data.find(b"\n", pos)
            line = data[pos : n if stop < 0 else stop + 1]
            pos += len(line)
            lineno += 1
            yield line.decode("utf-8")

    try:
        for game in iter_sgn(lines()):  # a game is delivered as its result line is read
            scan.games += 1
            scan.last = game
            scan.end = pos
            scan.end_line = lineno
    except SgnError as e:
        scan.error = e
        scan.stop = pos
    return scan


def _blank(line: bytes) -> bool:
    return not line.strip(b" \t\r\n")


def _next_game(data: bytes, offset: int, lineno: int) -> tuple[int, int, bool, bool]:
    """After the last whole game (byte ``offset``, line ``lineno``): where the next non-blank
    line begins (offset, line), whether it opens a game (a tag line), and whether another game
    begins after it (a tag line after a blank line, as games are separated)."""
    n = len(data)
    start = -1
    start_line = lineno + 1
    opens = again = after_blank = False
    pos = offset
    while pos < n:
        stop = data.find(b"\n", pos)
        stop = n if stop < 0 else stop + 1
        line = data[pos:stop]
        lineno += 1
        if _blank(line):
            after_blank = True
        elif start < 0:
            start, start_line = pos, lineno
            opens = line.removeprefix(_BOM if pos == 0 else b"").lstrip(b" \t").startswith(b"[")
            if not opens:
                break
            after_blank = False
        else:
            if after_blank and line.lstrip(b" \t").startswith(b"["):
                again = True
                break
            after_blank = False
        pos = stop
    return start, start_line, opens, again


def _first_game(data: bytes) -> int:
    """Offset in ``data`` (a file's tail, from anywhere in a line) of the first line that begins
    a game: a tag line whose previous non-blank line, seen in ``data``, is not one; -1 if none."""
    n = len(data)
    pos = data.find(b"\n") + 1  # the first whole line
    previous_is_tag: bool | None = None
    while 0 < pos < n:
        stop = data.find(b"\n", pos)
        stop = n if stop < 0 else stop + 1
        line = data[pos:stop]
        if not _blank(line):
            tag = line.lstrip(b" \t").startswith(b"[")
            if tag and previous_is_tag is False:
                return pos
            previous_is_tag = tag
        pos = stop
    return -1


class SgnWriter(DurableAppender):
    """Appends games as canonical SGN (UTF-8), each followed by a blank line, fsync'd.

    On open the file's tail is read (see the module docstring: the games that begin in its last
    :data:`TAIL_CHECK` bytes, or all of a smaller file).  A last game cut short by an
    interrupted write (it reads up to the file's end and no further game follows) is cut off and
    described in ``recovered``; a complete last game that lacks its blank line gets one.  Any
    other text in the tail that does not read is refused (RecordError naming the file and the
    game, by number and line in a file read whole, by byte offset in a tail) and the file is
    left as it is: a damaged game before the last, a complete last game that does not parse,
    text that is not SGN.
    """

    recovered: CorruptFrame | None
    last: GameRecord | None
    """The file's last whole game when it was opened (None: it held none)."""

    def _tail_start(self, size: int) -> int:
        """Where checking begins: 0 for a file of at most :data:`TAIL_CHECK` bytes, else the
        first game that begins in the smallest window holding one.

        Raises:
            RecordError: no game begins in the last :data:`MAX_TAIL_CHECK` bytes.
        """
        window = TAIL_CHECK
        while window < size:
            if window > MAX_TAIL_CHECK:
                raise RecordError(f"{self.path}: no game begins in its last {MAX_TAIL_CHECK} bytes, so it is not "
                                  "an SGN file of games; refusing to append")
            start = size - window
            found = _first_game(self._read(start, window))
            if found >= 0:
                return start + found
            window *= 4
        return 0

    def _recover(self) -> None:
        self.recovered = self.last = None
        size = self._size()
        if size == 0:
            return
        base = self._tail_start(size)
        data = self._read(base, size - base)
        n = len(data)
        scan = _scan(data)
        self.last = scan.last
        e = scan.error
        if e is None:
            ends_nl = data[n - 1 : n] == b"\n"
            if scan.games and scan.end == n:  # the last game lacks its blank line (or newline)
                self._append(b"\n" if ends_nl else b"\n\n")
            elif not ends_nl:
                self._append(b"\n")
            return
        start, start_line, opens, again = _next_game(data, scan.end, scan.end_line)
        if not opens:
            if base:
                raise RecordError(f"{self.path}: the text after the game ending at byte {base + scan.end} is not SGN: "
                                  f"{e.message}; refusing to append")
            where = f"{self.path} is not an SGN file" if scan.games == 0 else (
                f"{self.path}: the text after game {scan.games} is not SGN")
            raise RecordError(f"{where}: {e}; refusing to append")
        if again or scan.stop < n:  # the reader stopped before the file's end
            game = (f"the game from byte {base + start} does not parse: line {e.line - start_line + 1} of it, "
                    f"column {e.column}: {e.message}") if base else (
                f"game {scan.games + 1} (from line {start_line}) does not parse: {e}")
            raise RecordError(
                f"{self.path}: {game}; refusing to append (only a last game cut short by an interrupted write is "
                "repaired)"
            )
        self.recovered = CorruptFrame(base + start, n - start, f"half-written game: {e}", True)
        self._truncate(base + start)

    def append(self, record: GameRecord) -> int:
        """Append ``record`` and fsync; returns its byte offset."""
        return self._append((format_sgn(record) + "\n").encode("utf-8"))


class DeferredSgnWriter:
    """An :class:`SgnWriter` opened by the first game: a run in which no game could start (an
    engine that will not start) leaves no empty file behind.

    What can be checked without creating the file is checked at once, so a bad path fails before
    any game is played: an existing file is opened (its tail checked, a torn last game cut, and
    locked); for a new one, its directory must exist and be writable.

    Raises:
        OSError: the directory is missing or not writable; also what :class:`SgnWriter` raises.
        RecordError: an existing file that does not read as SGN, other than a half-written last
            game (from :class:`SgnWriter`).
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
