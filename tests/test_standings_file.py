"""The tournament folder's standings snapshot (``standings.msgpack``): saved by the collector as
games finish and at the end, read back into standings that print what the tournament printed, and
refused in one line when it is damaged, of other settings or of another archive."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from santorini_server.records import ArchiveWriter, CorruptFrame, read_archive
from santorini_server.stats.standings import Standings
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import ARCHIVE, TournamentFiles
from santorini_server.tournament.runner import run_tournament
from santorini_server.tournament.schedule import ScheduledGame
from santorini_server.tournament.scoring import count_game, new_standings, standings_block, termination_table
from santorini_server.tournament.standings_file import (
    ANCHOR,
    MAX_REGIONS,
    SNAPSHOT,
    Snapshot,
    SnapshotError,
    SnapshotKeeper,
    StandingsFile,
)

from .test_report import GODS, RecordsBackend, play_game, renamed

MATCH = Settings(engines=["random name=base", "greedy name=dev"], rounds=4, tc="1+0.01", sprt="elo0=0 elo1=10")
ROUND_ROBIN = Settings(engines=["random name=a", "greedy name=b", "random name=c"], rounds=2, tc="1+0.01")


class SeatsBackend(RecordsBackend):
    """:class:`RecordsBackend` for games of any seat count."""

    async def play(self, games: Iterable[ScheduledGame], results: Any, started: Any) -> None:
        names = [spec.name for spec in self.config.specs]
        async with results:
            for game in games:
                started(game)
                record = play_game(GODS[len(game.seats)], game.number).record
                await results.send(renamed(record, [names[i] for i in game.seats], game.number))


class FirstGames(SeatsBackend):
    """:class:`RecordsBackend` that sends only the first ``count`` games it is given (a run stopped early)."""

    def __init__(self, config: TournamentConfig, count: int) -> None:
        super().__init__(config)
        self.count = count

    async def play(self, games: Iterable[ScheduledGame], results: Any, started: Any) -> None:
        await super().play(list(itertools.islice(games, self.count)), results, started)


async def play(config: TournamentConfig, directory: Path, count: int | None = None) -> list[str]:
    lines: list[str] = []
    files = TournamentFiles(directory)
    backend = SeatsBackend(config) if count is None else FirstGames(config, count)
    try:
        await run_tournament(config, files, backend=backend, emit=lines.append)
    finally:
        files.close()
    return lines


def recount(config: TournamentConfig, directory: Path) -> Standings:
    """The standings counted again from the archive, every game once."""
    standings = new_standings(config)
    for record in read_archive(directory / ARCHIVE)[0]:
        if record.game_number is not None and not standings.recorded(record.game_number):
            count_game(standings, record, record.game_number)
    return standings


def tables(config: TournamentConfig, standings: Standings) -> list[str]:
    names = [spec.name for spec in config.specs]
    out = [standings_block(config, standings), standings_block(config, standings, final=True),
           standings.crosstable(), termination_table(standings, names)]
    if len(names) == 2:
        out.append(standings.results_block(names[0], names[1], "details", config.sprt))
    return out


@pytest.mark.parametrize("settings", [MATCH, ROUND_ROBIN, Settings(
    engines=["random name=a", "greedy name=b", "random name=c", "random name=d"], players=3, rounds=1, games=6,
    gods="apollo/minotaur/pan", tc="1+0.01")])
async def test_the_tournament_leaves_a_snapshot_that_prints_what_it_printed(tmp_path: Path, settings: Settings) -> None:
    config = TournamentConfig.from_settings(settings)
    await play(config, tmp_path)
    snapshot = StandingsFile(tmp_path, config).load()
    assert snapshot is not None
    assert snapshot.offset == (tmp_path / ARCHIVE).stat().st_size and snapshot.regions == ()
    counted = recount(config, tmp_path)
    assert snapshot.games == counted.played > 0
    assert snapshot.standings.state() == counted.state()
    assert tables(config, snapshot.standings) == tables(config, counted)


async def test_a_resume_saves_what_both_sessions_counted(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(ROUND_ROBIN)
    await play(config, tmp_path, count=5)
    first = StandingsFile(tmp_path, config).load()
    assert first is not None and first.games == 5
    with (tmp_path / ARCHIVE).open("ab") as file:  # a crash mid-write: the resume cuts it off
        file.write(b"\x89SGR\0\0")
    await play(config, tmp_path)
    snapshot = StandingsFile(tmp_path, config).load()
    assert snapshot is not None and snapshot.games == config.total
    assert snapshot.offset == (tmp_path / ARCHIVE).stat().st_size and snapshot.damaged == 0
    assert snapshot.standings.state() == recount(config, tmp_path).state()


async def test_damage_the_resume_read_past_is_kept_in_the_snapshot(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(ROUND_ROBIN)
    await play(config, tmp_path, count=3)
    with (tmp_path / ARCHIVE).open("ab") as file:
        file.write(b"garbage!" * 3)
    await play(config, tmp_path)
    snapshot = StandingsFile(tmp_path, config).load()
    assert snapshot is not None and snapshot.damaged == 1
    (region,) = snapshot.regions
    assert region.length == 24 and not region.truncated
    assert snapshot.standings.state() == recount(config, tmp_path).state()


def a_snapshot(directory: Path, config: TournamentConfig) -> Snapshot:
    """Standings of two games of ``config`` written to an archive there, saved."""
    from .test_server_run_standings import a_record

    standings = new_standings(config)
    names = [spec.name for spec in config.specs]
    with ArchiveWriter(directory / ARCHIVE) as writer:
        for number in (1, 2):
            record = a_record(number, names[0], names[1])
            writer.append(record)
            count_game(standings, record, number)
        end = writer.end
    snapshot = Snapshot(standings, end, (CorruptFrame(3, 4, "made up"),), 7)
    StandingsFile(directory, config).save(snapshot)
    return snapshot


def test_a_snapshot_reads_back_whole(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(MATCH)
    saved = a_snapshot(tmp_path, config)
    loaded = StandingsFile(tmp_path, config).load()
    assert loaded is not None
    assert (loaded.offset, loaded.regions, loaded.damaged, loaded.games) == (saved.offset, saved.regions, 7, 2)
    assert tables(config, loaded.standings) == tables(config, saved.standings)
    assert StandingsFile(tmp_path / "none", config).load() is None  # no snapshot: not an error


def _flip(path: Path, at: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[at] ^= 0xFF
    path.write_bytes(raw)


@pytest.mark.parametrize(("spoil", "reason"), [
    (lambda d: _flip(d / SNAPSHOT, 40), "is damaged"),
    (lambda d: (d / SNAPSHOT).write_bytes(b""), "is damaged"),
    (lambda d: _flip(d / ARCHIVE, os.path.getsize(d / ARCHIVE) - 1), "counted another archive"),
    (lambda d: os.truncate(d / ARCHIVE, 100), "shorter than the"),
    (lambda d: (d / ARCHIVE).unlink(), "shorter than the"),
])
def test_a_snapshot_that_cannot_be_used_is_one_line(tmp_path: Path, spoil: Any, reason: str) -> None:
    config = TournamentConfig.from_settings(MATCH)
    a_snapshot(tmp_path, config)
    spoil(tmp_path)
    with pytest.raises(SnapshotError, match=reason) as caught:
        StandingsFile(tmp_path, config).load()
    assert "\n" not in str(caught.value)


def test_a_snapshot_of_other_settings_or_format_is_refused(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(MATCH)
    a_snapshot(tmp_path, config)
    for other in (Settings(engines=["random name=base", "greedy name=other"], rounds=4),  # another engine
                  Settings(engines=["random name=base", "greedy name=dev"], rounds=5)):  # another schedule
        with pytest.raises(SnapshotError, match="made for other settings"):
            StandingsFile(tmp_path, TournamentConfig.from_settings(other)).load()
    # the same settings, read again: the same snapshot
    assert StandingsFile(tmp_path, TournamentConfig.from_settings(MATCH)).load() is not None


def test_a_snapshot_of_another_format_or_shape_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from santorini_server.tournament import standings_file

    config = TournamentConfig.from_settings(MATCH)
    monkeypatch.setattr(standings_file, "FORMAT", 99)
    a_snapshot(tmp_path, config)
    monkeypatch.undo()
    with pytest.raises(SnapshotError, match=f"of format 99, not {standings_file.FORMAT}"):
        StandingsFile(tmp_path, config).load()
    (tmp_path / SNAPSHOT).write_bytes(standings_file.frame_payload(b"\x93\x01\x02\x03"))
    with pytest.raises(SnapshotError, match="does not read"):
        StandingsFile(tmp_path, config).load()


def test_the_anchor_is_what_precedes_the_offset(tmp_path: Path) -> None:
    """Bytes before the anchor are not read: the snapshot stands for them."""
    config = TournamentConfig.from_settings(MATCH)
    saved = a_snapshot(tmp_path, config)
    raw = bytearray((tmp_path / ARCHIVE).read_bytes())
    raw[: saved.offset - ANCHOR] = b"\0" * (saved.offset - ANCHOR)
    (tmp_path / ARCHIVE).write_bytes(raw)
    loaded = StandingsFile(tmp_path, config).load()
    assert loaded is not None and loaded.games == 2


def test_the_keeper_saves_when_due_and_at_the_end_and_warns_once(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(MATCH)
    standings = new_standings(config)
    regions = [CorruptFrame(0, 5, "x"), CorruptFrame(9, 3, "torn", truncated=True)]
    with ArchiveWriter(tmp_path / ARCHIVE) as writer:
        end = writer.end
    warned: list[str] = []
    keeper = SnapshotKeeper(tmp_path, config, standings, regions, end, interval=10.0, warn=warned.append)
    assert keeper.due(0.0)  # never saved: at once
    assert keeper.write(0.0) and not keeper.due(5.0)  # nothing new
    keeper.add(end)
    assert not keeper.due(5.0) and keeper.due(10.0)
    loaded = StandingsFile(tmp_path, config).load()
    assert loaded is not None and loaded.regions == (regions[0],) and loaded.damaged == 1  # the torn frame is gone
    keeper.add(end + 100)  # more than the archive holds: not saved, said once
    assert not keeper.write() and not keeper.write()
    assert len(warned) == 1 and "shorter than the" in warned[0]
    (tmp_path / SNAPSHOT).unlink()
    (tmp_path / SNAPSHOT).mkdir()  # cannot be replaced
    keeper.add(end)
    assert not keeper.write() and len(warned) == 1
    assert {p.name for p in tmp_path.iterdir()} == {ARCHIVE, SNAPSHOT}  # the file written beside is removed


def test_damage_beyond_the_bound_is_counted_not_kept(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(MATCH)
    regions = [CorruptFrame(i * 10, 5, "x") for i in range(MAX_REGIONS + 5)]
    with ArchiveWriter(tmp_path / ARCHIVE) as writer:
        end = writer.end
    SnapshotKeeper(tmp_path, config, new_standings(config), regions, end).write()
    loaded = StandingsFile(tmp_path, config).load()
    assert loaded is not None and len(loaded.regions) == MAX_REGIONS and loaded.damaged == MAX_REGIONS + 5
