"""A run's standings and crosstable for the API, kept off the event loop (SPEC.md 16.5).

``GET /api/runs/ID`` answers with the tournament's own tables.  Rebuilding them from the run's
archive on every request cost a read of the whole archive, and rendering a big round robin's
crosstable costs tens of milliseconds of pure Python (every pair of engines tallies the games):
done on the event loop, either stalls every connection and game clock for that long.  So
:class:`RunTablesCache` keeps each run's finished records in memory (read from its archive once,
in a worker thread, the first time the run is asked for; then each game the run's files append,
:meth:`RunTablesCache.add`), and renders the tables in a worker thread from those immutable
records: at most once a second while the run plays (the tables may lag its last games by that
much), and at once for a run that has ended.  A game that ends while the archive is being read
is counted once: games are keyed by number, as the tournament's resume does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from ..records import GameRecord, read_archive
from ..tournament.config import STATE_FILE, TournamentConfig, load_settings
from ..tournament.output import ARCHIVE

__all__ = ["RunTables", "RunTablesCache", "REFRESH", "render_tables"]

REFRESH = 1.0
"""Seconds a running run's rendered tables are served before they are rendered again."""


def render_tables(config: TournamentConfig, records: list[GameRecord]) -> dict[str, Any]:
    """``games``, ``total``, ``standings`` and ``crosstable`` (text) of a run's finished games
    (pure CPU work: the cache runs it in a worker thread)."""
    # the standings bring the rating statistics: loaded when a run is first shown, not at start
    from ..stats.standings import Standings
    from ..tournament.scoring import count_game, new_standings, standings_block

    standings = new_standings(config)
    for record in records:
        assert record.game_number is not None
        count_game(standings, record, record.game_number)
    return {
        "games": len(records),
        "total": len(config.schedule),
        "standings": standings_block(config, standings),
        "crosstable": standings.crosstable() if isinstance(standings, Standings) else "",
    }


class RunTables:
    """One scheduled run (a match or tournament): its finished records and its last rendering."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.records: dict[int, GameRecord] = {}
        self.rendered: dict[str, Any] | None = None
        self.rendered_at = -float("inf")
        self.dirty = True
        self.ended = False
        self.rendering = trio.Lock()

    def add(self, record: GameRecord) -> None:
        """Take a finished game (a number seen before, or outside the schedule, is ignored)."""
        number = record.game_number
        if self.ended or number is None or number in self.records or not 1 <= number <= len(self.config.schedule):
            return
        self.records[number] = record
        self.dirty = True

    async def detail(self, final: bool, played: int) -> dict[str, Any]:
        """The rendered tables: current if ``final`` (the run has ended), else at most
        :data:`REFRESH` seconds old.  Once an ended run's tables hold all its ``played`` games
        (the store's count), they are kept and its records let go."""
        async with self.rendering:  # concurrent requests share one rendering
            if self.ended:
                assert self.rendered is not None
                return self.rendered
            fresh_enough = not final and time.monotonic() - self.rendered_at < REFRESH
            if self.rendered is None or (self.dirty and not fresh_enough):
                self.dirty = False
                records = [self.records[n] for n in sorted(self.records)]
                self.rendered_at = time.monotonic()
                self.rendered = await trio.to_thread.run_sync(render_tables, self.config, records)
            if final and len(self.records) >= played:  # it changes no more: keep the tables, not the records
                self.ended = True
                self.records.clear()
            return self.rendered

    @classmethod
    def from_directory(cls, directory: Path) -> RunTables:
        """The run in ``directory``, from its settings and archive (blocking I/O)."""
        tables = cls(TournamentConfig.from_settings(load_settings(directory)))
        archive = directory / ARCHIVE
        if archive.exists():
            for record in read_archive(archive)[0]:
                tables.add(record)
        return tables


class _Entry:
    def __init__(self) -> None:
        self.tables: RunTables | None = None
        self.pending: list[GameRecord] = []
        self.built = trio.Event()
        self.error: Exception | None = None


class RunTablesCache:
    """Every run's tables, built on first use and kept current by :meth:`add` (see the module)."""

    def __init__(self, directory_of: Callable[[int], Path]) -> None:
        self._directory_of = directory_of
        self._entries: dict[int, _Entry] = {}

    def add(self, run_id: int, record: GameRecord) -> None:
        """A game of run ``run_id`` was appended to its archive: count it if the tables exist
        (if they do not, the archive they will be built from holds it)."""
        entry = self._entries.get(run_id)
        if entry is None:
            return
        if entry.tables is None:
            entry.pending.append(record)
        else:
            entry.tables.add(record)

    async def detail(self, run_id: int, played: int, final: bool) -> dict[str, Any]:
        """The run's tables as :meth:`RunTables.detail` (``final``: the run has ended); a run with
        no schedule (not started yet, or the ladder) has only ``games``, ``played`` (the number
        the store has indexed).

        Raises:
            ValueError, OSError: the run's settings cannot be read.
        """
        entry = self._entries.get(run_id)
        if entry is None:
            directory = self._directory_of(run_id)
            if not (directory / STATE_FILE).exists():
                return {"games": played, "total": None, "standings": "", "crosstable": ""}
            entry = self._entries[run_id] = _Entry()
            try:
                tables = await trio.to_thread.run_sync(RunTables.from_directory, directory)
            except (ValueError, OSError) as exc:
                del self._entries[run_id]
                entry.error = exc
                entry.built.set()
                raise
            for record in entry.pending:
                tables.add(record)
            entry.pending.clear()
            entry.tables = tables
            entry.built.set()
        else:
            await entry.built.wait()
            if entry.error is not None:
                raise entry.error
        assert entry.tables is not None
        return await entry.tables.detail(final, played)
