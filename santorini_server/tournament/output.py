"""The tournament folder: the archive (source of truth), SGN and JSON Lines (derived), settings.

Theory of operation.  ``games.msgpack`` is the record of what finished: a game counts only once
its frame is fsync'd there.  ``games.sgn`` and ``results.jsonl`` are written right after (not
fsync'd: an fsync per file per game would cost throughput for nothing), for people and scripts;
if the referee or the machine dies they can lag the archive or lose a tail, so on resume they
are rebuilt from the archive (written to a temporary file, fsync'd, renamed),
which keeps every finished game exactly once in every file.  All writes happen in a worker
thread: an fsync must never stall the event loop that times the engines.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from ..records import ArchiveWriter, CorruptFrame, GameRecord, ResultsWriter, SgnWriter, read_archive

__all__ = ["TournamentFiles", "ARCHIVE", "SGN", "RESULTS"]

ARCHIVE = "games.msgpack"
SGN = "games.sgn"
RESULTS = "results.jsonl"


class TournamentFiles:
    """Durable appends of finished games to the three files of a tournament folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._archive: ArchiveWriter | None = None
        self._sgn: SgnWriter | None = None
        self._results: ResultsWriter | None = None

    def open(self) -> tuple[list[GameRecord], list[CorruptFrame]]:
        """Open for appending; return the games already recorded (resume) and any damage found.

        The derived files are rebuilt from the archive so they hold exactly its games.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        archive_path = self.directory / ARCHIVE
        records: list[GameRecord] = []
        damage: list[CorruptFrame] = []
        if archive_path.exists():
            records, found = read_archive(archive_path)
            damage = list(found)
        self._archive = ArchiveWriter(archive_path)
        self._rebuild(SGN, records, SgnWriter)
        self._rebuild(RESULTS, records, ResultsWriter)
        # the derived files are rebuilt from the archive on resume: no fsync per game for them
        self._sgn = SgnWriter(self.directory / SGN, durable=False)
        self._results = ResultsWriter(self.directory / RESULTS, durable=False)
        return records, damage

    def _rebuild(self, name: str, records: list[GameRecord], writer_type: type) -> None:
        path = self.directory / name
        tmp = path.with_name(name + ".tmp")
        if tmp.exists():
            tmp.unlink()
        with writer_type(tmp) as writer:
            for record in records:
                writer.append(record)
        os.replace(tmp, path)

    def _append(self, record: GameRecord) -> int:
        assert self._archive is not None
        assert self._sgn is not None
        assert self._results is not None
        offset = self._archive.append(record)  # the game counts from here on
        self._sgn.append(record)
        self._results.append(record)
        return offset

    async def append(self, record: GameRecord) -> int:
        """Append and fsync in a worker thread (the event loop keeps timing engines meanwhile);
        returns the game's byte offset in the archive."""
        return await trio.to_thread.run_sync(self._append, record)

    def close(self) -> None:
        for writer in (self._archive, self._sgn, self._results):
            if writer is not None:
                writer.close()
