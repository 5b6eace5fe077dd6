"""The API's run tables and single-game reads: a run's standings snapshot and the games its archive
gained since, never the whole archive again; one frame per game (SPEC.md section 16.5)."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import structlog
import trio

from santorini_server.records import ArchiveError, ArchiveWriter, GameRecord, TurnRecord, read_record_at
from santorini_server.server import run_standings
from santorini_server.server.registry import BotRegistry
from santorini_server.server.run_standings import Counting, Damage, RunViews, text_tables
from santorini_server.server.runs import RunScheduler
from santorini_server.tournament.config import Settings, TournamentConfig, save_settings
from santorini_server.tournament.output import ARCHIVE, TournamentFiles
from santorini_server.tournament.runner import run_tournament
from santorini_server.tournament.standings_file import ANCHOR, SNAPSHOT, StandingsFile

from .test_report import RecordsBackend
from .test_standings_file import FirstGames, recount

# the tables read files only: a scheduler with no database behind it
_NO_STORE: Any = SimpleNamespace(data_dir=Path("/nonexistent"))


def a_record(number: int, white: str, black: str, result: str = "1-0") -> GameRecord:
    return GameRecord.build(
        event="t", site="local", date="2026.12.02", round=str(number), player1=white, player2=black,
        gods="mortal/mortal", ruleset="santorini-simple-gods-v1", start="startpos", time_control="10+0.1",
        result=result, termination="time", termination_detail="", game_number=number,
        turns=(TurnRecord("b3,d3", 5), TurnRecord("c2,c4", 7)),
    )


def test_a_record_is_read_from_its_offset_alone(tmp_path: Path) -> None:
    archive = tmp_path / ARCHIVE
    with ArchiveWriter(archive) as writer:
        offsets = [writer.append(a_record(n, "a", "b")) for n in (1, 2, 3)]
    assert [read_record_at(archive, offset).game_number for offset in offsets] == [1, 2, 3]
    for wrong in (offsets[1] + 1, archive.stat().st_size, 10**9):
        with pytest.raises(ArchiveError, match="no intact frame"):
            read_record_at(archive, wrong)


THREE = Settings(engines=["cmd=x name=a", "cmd=x name=b", "cmd=x name=c"], rounds=2)  # 12 games


def a_run(tmp_path: Path, settings: Settings = THREE) -> tuple[RunScheduler, Path]:
    """A scheduler with no database over runs in ``tmp_path``, and run 1's folder with its settings."""
    directory = tmp_path / "1"
    directory.mkdir()
    save_settings(directory, settings)
    scheduler = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    scheduler.directory = tmp_path
    return scheduler, directory


async def test_the_api_tables_count_the_games_since_the_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables count what the archive holds; a run not being played gets a snapshot saved, and
    later views count only what follows it.  While a run plays they are remade at most once a
    REFRESH, and are current once it has ended."""
    scheduler, directory = a_run(tmp_path)
    writer = ArchiveWriter(directory / ARCHIVE)
    writer.append(a_record(1, "a", "b"))
    writer.append(a_record(2, "b", "a", "0-1"))
    config = TournamentConfig.from_settings(THREE)

    def saved() -> int:
        snapshot = StandingsFile(directory, config).load()
        assert snapshot is not None
        return snapshot.offset

    detail, damage = await scheduler.tables(1, played=2, final=False)
    assert detail["games"] == 2 and detail["total"] == 12 and detail["standings"]
    assert "2.0/2" in detail["crosstable"] and damage == Damage((), 0)
    assert saved() == writer.end  # no snapshot: counted from the start, and saved

    # later games are read from the snapshot's offset; one seen before counts once
    for number, (white, black) in enumerate([("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")], start=3):
        writer.append(a_record(number, white, black))
    writer.append(a_record(3, "a", "c"))  # a resume's duplicate
    monkeypatch.setattr(run_standings, "REFRESH", 0.0)
    assert (await scheduler.tables(1, played=6, final=False))[0]["games"] == 6
    assert saved() == writer.end
    # while a run plays, its tables are made at most once a REFRESH: a request just after a game
    # may see the tables from before it; once the run has ended, they are current
    monkeypatch.setattr(run_standings, "REFRESH", 3600.0)
    writer.append(a_record(7, "a", "b"))
    assert (await scheduler.tables(1, played=7, final=False))[0]["games"] == 6
    assert (await scheduler.tables(1, played=7, final=True))[0]["games"] == 7
    writer.close()


async def test_a_run_with_no_schedule_has_only_its_count(tmp_path: Path) -> None:
    scheduler = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    scheduler.directory = tmp_path
    assert await scheduler.tables(5, played=9, final=False) == (
        {"games": 9, "total": None, "standings": "", "crosstable": ""}, None)


async def played(config: TournamentConfig, directory: Path) -> None:
    """The tournament played into ``directory`` by its collector (ready-made games)."""
    files = TournamentFiles(directory)
    try:
        await run_tournament(config, files, backend=RecordsBackend(config), emit=lambda _: None)
    finally:
        files.close()


async def test_a_finished_runs_view_reads_the_snapshot_not_the_archive(tmp_path: Path) -> None:
    """Once its collector saved the snapshot at the end, a view of a run reads the snapshot and
    the archive's last bytes that anchor it: the archive's counted part replaced with garbage,
    the view is the same (and says no damage)."""
    scheduler, directory = a_run(tmp_path)
    await played(TournamentConfig.from_settings(THREE), directory)
    assert (directory / SNAPSHOT).exists()
    before = await scheduler.tables(1, played=12, final=True)
    assert before[0]["games"] == 12 and before[1] == Damage((), 0)
    archive = directory / ARCHIVE
    size = archive.stat().st_size
    raw = bytearray(archive.read_bytes())
    raw[: size - ANCHOR] = b"\xee" * (size - ANCHOR)
    archive.write_bytes(raw)
    fresh = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())  # nothing kept from the first view
    fresh.directory = tmp_path
    assert await fresh.tables(1, played=12, final=True) == before


async def test_a_view_after_a_resume_and_of_a_snapshot_older_than_the_archive(tmp_path: Path) -> None:
    """A run stopped after 5 games, then resumed to its end: the view is the recount of both
    sessions' games.  A snapshot older than the archive (a crash or a cancel before the
    collector's last save) is counted on from: the view counts the games after it and saves a
    snapshot with them, unless the run is being played (its collector owns the file)."""
    scheduler, directory = a_run(tmp_path)
    config = TournamentConfig.from_settings(THREE)
    files = TournamentFiles(directory)
    try:
        await run_tournament(config, files, backend=FirstGames(config, 5), emit=lambda _: None)
    finally:
        files.close()
    older = (directory / SNAPSHOT).read_bytes()
    assert (await scheduler.tables(1, played=5, final=False))[0]["games"] == 5
    await played(config, directory)  # the resume
    whole = await scheduler.tables(1, played=12, final=True)
    assert whole[0]["games"] == 12
    assert whole[0]["standings"] == text_tables(config, recount(config, directory), 12)["standings"]

    (directory / SNAPSHOT).write_bytes(older)  # the archive grew after it: its anchor still holds
    views = RunViews()
    assert views.view(directory, config, "api", text_tables, final=True, playing=True) == whole
    assert (directory / SNAPSHOT).read_bytes() == older  # playing: left to the collector
    assert views.view(directory, config, "other", text_tables, final=True) == whole
    newer = StandingsFile(directory, config).load()
    assert newer is not None and newer.offset == (directory / ARCHIVE).stat().st_size and newer.games == 12


async def test_a_run_without_a_snapshot_gets_one(tmp_path: Path) -> None:
    """A run played before snapshots existed: its first view counts the archive and saves one."""
    scheduler, directory = a_run(tmp_path)
    await played(TournamentConfig.from_settings(THREE), directory)
    with_one = await scheduler.tables(1, played=12, final=True)
    (directory / SNAPSHOT).unlink()
    fresh = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    fresh.directory = tmp_path
    assert await fresh.tables(1, played=12, final=True) == with_one
    assert (directory / SNAPSHOT).exists()


@pytest.mark.parametrize("spoil", ["garbage", "other settings"])
async def test_a_bad_snapshot_is_a_recount_and_a_warning(tmp_path: Path, spoil: str) -> None:
    scheduler, directory = a_run(tmp_path)
    await played(TournamentConfig.from_settings(THREE), directory)
    good = await scheduler.tables(1, played=12, final=True)
    if spoil == "garbage":
        (directory / SNAPSHOT).write_bytes(b"\x89SGR not a snapshot")
        reason = "is damaged"
    else:
        other = TournamentConfig.from_settings(Settings(engines=["cmd=x name=a", "cmd=x name=b"], rounds=2))
        StandingsFile(directory, other).save(_empty(other))
        reason = "made for other settings"
    fresh = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    fresh.directory = tmp_path
    with structlog.testing.capture_logs() as logs:
        assert await fresh.tables(1, played=12, final=True) == good
    (warning,) = [entry for entry in logs if entry["event"] == "standings counted from the archive"]
    assert warning["log_level"] == "warning" and reason in warning["reason"]
    assert StandingsFile(directory, TournamentConfig.from_settings(THREE)).load() is not None  # saved anew


def _empty(config: TournamentConfig) -> Any:
    from santorini_server.tournament.scoring import new_standings
    from santorini_server.tournament.standings_file import Snapshot

    return Snapshot(new_standings(config), 0)


def test_a_view_that_may_not_block_gives_way_to_a_first_count_under_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one view counts a run's archive from its start (no snapshot), a view given
    ``block=False`` raises Counting at once instead of counting beside it, and a view that may
    block waits for it and reads what it saved: the archive is counted once."""
    _, directory = a_run(tmp_path, Settings(engines=["cmd=x name=a", "cmd=x name=b"], rounds=2))
    with ArchiveWriter(directory / ARCHIVE) as writer:
        writer.append(a_record(1, "a", "b"))
        writer.append(a_record(2, "b", "a", "0-1"))
    config = TournamentConfig.from_settings(Settings(engines=["cmd=x name=a", "cmd=x name=b"], rounds=2))
    inside, release = threading.Event(), threading.Event()
    counts: list[object] = []
    real = run_standings.count_run

    def held(*args: Any, **kwargs: Any) -> Any:
        counts.append(args[2])  # the snapshot it starts from
        if len(counts) == 1:
            inside.set()
            assert release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(run_standings, "count_run", held)
    views = RunViews()
    first = threading.Thread(target=views.view, args=(directory, config, "api", text_tables), kwargs={"final": True})
    first.start()
    assert inside.wait(30)
    with pytest.raises(Counting):
        views.view(directory, config, "page", lambda c, s, games: games, final=True, block=False)
    waited: list[object] = []
    second = threading.Thread(target=lambda: waited.append(
        views.view(directory, config, "page", lambda c, s, games: games, final=True)))
    second.start()
    release.set()
    first.join(30)
    second.join(30)
    assert waited == [(2, Damage((), 0))]
    assert counts[0] is None and counts[1] is not None  # the second view read the snapshot the first saved
