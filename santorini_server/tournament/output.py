"""The tournament folder: the archive (source of truth), SGN and JSON Lines (derived), settings.

Theory of operation.  ``games.msgpack`` is the record of what finished: a game counts only once
its frame is fsync'd there.  ``games.sgn`` and ``results.jsonl`` are written right after, in
the archive's order (not fsync'd: an fsync per file per game would cost throughput for
nothing), for people and scripts; if the referee or the machine dies they can lag the archive
or lose a tail.  On resume the archive is read as a stream, a frame at a time (each record is
handed to the caller and let go), and each derived file is checked by its last game: if that is
the archive's last game the file is left as it is; if it is an earlier game of the archive,
the games after it are appended, read again from the archive from that frame on; otherwise (no
file, no readable last game, a game the archive does not hold) the file is rebuilt from the
archive, streamed into a temporary file that is fsync'd and renamed over it.  Every finished
game is so kept exactly once in every file, and memory stays bounded by one game whatever the
archive's size.  All writes happen in a worker thread: an fsync must never stall the event loop
that times the engines.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import trio

from ..records import (
    ArchiveError,
    ArchiveWriter,
    CorruptFrame,
    GameRecord,
    RecordError,
    ResultsWriter,
    SgnWriter,
    iter_archive,
    iter_archive_frames,
)

__all__ = ["TournamentFiles", "ARCHIVE", "SGN", "RESULTS", "ANCHOR", "archive_anchor"]

ARCHIVE = "games.msgpack"
SGN = "games.sgn"
RESULTS = "results.jsonl"

ANCHOR = 32
"""Archive bytes before an offset that a derived file (the standings snapshot, the report's
state) keeps, to know the archive it counted: one cut shorter or replaced does not match them."""

_Derived = TypeVar("_Derived", SgnWriter, ResultsWriter)

Visit = Callable[[GameRecord, int, int], None]
"""Called with each record already in the archive and its frame's first and past-the-end byte
offsets, in file order."""


class TournamentFiles:
    """Durable appends of finished games to the three files of a tournament folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._archive: ArchiveWriter | None = None
        self._sgn: SgnWriter | None = None
        self._results: ResultsWriter | None = None

    def open(self) -> tuple[list[GameRecord], list[CorruptFrame]]:
        """:meth:`resume`, returning the records already there as a list (for a caller that keeps
        them all anyway); a tournament uses :meth:`resume`, which holds none of them."""
        records: list[GameRecord] = []
        damage = self.resume(lambda record, _start, _end: records.append(record))
        return records, damage

    def resume(self, visit: Visit | None = None, *, since: int = 0, since_last: int | None = None) -> list[CorruptFrame]:
        """Open for appending: hand each record already in the archive to ``visit`` (streamed,
        in file order), bring the derived files level with the archive, and return the damaged
        regions found in it (a torn last frame, then cut off, included).

        ``since``: read only the frames from this byte on (the end of a frame: what a standings
        snapshot counted to), ``since_last`` the number of the game whose frame ends there; a
        derived file whose last game is earlier still is levelled by reading the archive from
        its start for that game's frame.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        archive_path = self.directory / ARCHIVE
        self._archive = ArchiveWriter(archive_path, start=since)  # first: another referee's lock is refused here
        # the derived files are rebuilt from the archive on resume: no fsync per game for them
        sgn = _opened(SgnWriter, self.directory / SGN)
        results = _opened(ResultsWriter, self.directory / RESULTS)
        lasts = {
            SGN: sgn.last.game_number if sgn is not None and sgn.last is not None else None,
            RESULTS: results.last_game() if results is not None else None,
        }
        ends: dict[str, int | None] = {name: since if since and last == since_last and last is not None else None
                                       for name, last in lasts.items()}
        damage: list[CorruptFrame] = []
        last_end = since  # end of the last readable frame
        with open(archive_path, "rb") as f:
            for item in iter_archive_frames(f, since):
                if isinstance(item, CorruptFrame):
                    damage.append(item)
                    continue
                frame, record = item
                last_end = frame.offset + frame.size
                number = record.game_number
                for name, last in lasts.items():
                    if number is not None and number == last:
                        ends[name] = last_end
                if visit is not None:
                    visit(record, frame.offset, last_end)
        if self._archive.recovered is not None:  # the torn last frame the writer cut on opening
            damage.append(self._archive.recovered)
        if since:
            self._find_ends(lasts, ends, since)
        self._sgn = self._level(SgnWriter, self.directory / SGN, sgn, ends[SGN], last_end)
        self._results = self._level(ResultsWriter, self.directory / RESULTS, results, ends[RESULTS], last_end)
        return damage

    def _find_ends(self, lasts: dict[str, int | None], ends: dict[str, int | None], until: int) -> None:
        """Where the frame of each derived file's last game ends, for the files whose last game
        was not met after ``until``: read from the archive's start (a file that lags further
        than the snapshot; rare)."""
        wanted = {name: last for name, last in lasts.items() if last is not None and ends[name] is None}
        if not wanted:
            return
        with open(self.directory / ARCHIVE, "rb") as f:
            for item in iter_archive_frames(f):
                if isinstance(item, CorruptFrame):
                    continue
                frame, record = item
                if frame.offset >= until:
                    break
                for name, last in wanted.items():
                    if record.game_number == last:
                        ends[name] = frame.offset + frame.size

    def _level(self, writer_type: type[_Derived], path: Path, writer: _Derived | None, since: int | None,
               last_end: int) -> _Derived:
        """The derived file at ``path`` (``writer``: opened, None if it does not read) holding the
        archive's games: as it is, with the games after byte ``since`` of the archive (the end of
        the frame of the file's last game) appended, or rebuilt (see the module docstring)."""
        if writer is not None:
            if since is None and last_end == 0 and os.path.getsize(path) == 0:
                return writer  # an empty file for an archive with no game
            if since is not None:
                if since < last_end:
                    self._append_from(writer, since)
                return writer
            writer.close()
        return self._rebuild(writer_type, path)

    def _append_from(self, writer: SgnWriter | ResultsWriter, offset: int) -> None:
        """Append to ``writer`` every record of the archive after byte ``offset``."""
        with open(self.directory / ARCHIVE, "rb") as f:
            for item in iter_archive(f, offset):
                if not isinstance(item, CorruptFrame):
                    writer.append(item)

    def _rebuild(self, writer_type: type[_Derived], path: Path) -> _Derived:
        tmp = path.with_name(path.name + ".tmp")
        if tmp.exists():
            tmp.unlink()
        with writer_type(tmp, durable=False) as writer:
            self._append_from(writer, 0)
            writer.sync()
        os.replace(tmp, path)
        return writer_type(path, durable=False)

    def _append(self, record: GameRecord) -> int:
        assert self._archive is not None
        assert self._sgn is not None
        assert self._results is not None
        offset = self._archive.append(record)  # the game counts from here on
        self._sgn.append(record)
        self._results.append(record)
        return offset

    @property
    def end(self) -> int:
        """The archive's size as this writer left it: the end of the last frame appended (after
        :meth:`resume`, of what it read)."""
        return self._archive.end if self._archive is not None else 0

    async def append(self, record: GameRecord) -> int:
        """Append and fsync in a worker thread (the event loop keeps timing engines meanwhile);
        returns the game's byte offset in the archive."""
        return await trio.to_thread.run_sync(self._append, record)

    def close(self) -> None:
        for writer in (self._archive, self._sgn, self._results):
            if writer is not None:
                writer.close()


def _opened(writer_type: type[_Derived], path: Path) -> _Derived | None:
    """``path`` opened for appending (a torn last game or line cut), or None: it does not read."""
    try:
        return writer_type(path, durable=False)
    except ArchiveError:  # locked by another process
        raise
    except RecordError:
        return None


def archive_anchor(archive: Path, offset: int) -> bytes:
    """The archive's last :data:`ANCHOR` bytes before ``offset`` (shorter at its start; none
    when there is no archive and ``offset`` is 0).

    Raises:
        ValueError: the archive is shorter than ``offset``.
        OSError: it cannot be read.
    """
    start = max(0, offset - ANCHOR)
    try:
        with archive.open("rb") as file:
            file.seek(start)
            data = file.read(offset - start)
    except FileNotFoundError:
        data = b""
    if len(data) != offset - start:
        raise ValueError(f"{archive} is shorter than the {offset:,} bytes counted")
    return data
