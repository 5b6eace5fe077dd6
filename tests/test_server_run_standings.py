"""The API's run tables and single-game reads: the archive read once, then only what it gained;
one frame per game (SPEC.md section 16.5)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio

from santorini_server.records import ArchiveError, ArchiveWriter, GameRecord, TurnRecord, read_record_at
from santorini_server.server import run_standings, runs
from santorini_server.server.registry import BotRegistry
from santorini_server.server.runs import RunScheduler
from santorini_server.tournament.config import Settings, TournamentConfig, load_settings, save_settings
from santorini_server.tournament.output import ARCHIVE

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


async def test_the_api_tables_read_the_archive_once_then_only_what_it_gained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tables count what the archive holds, read from where the last view stopped; while a
    run plays they are remade at most once a REFRESH, and are current once it has ended."""
    directory = tmp_path / "1"
    directory.mkdir()
    save_settings(directory, Settings(engines=["cmd=x name=a", "cmd=x name=b", "cmd=x name=c"], rounds=2))  # 12 games
    writer = ArchiveWriter(directory / ARCHIVE)
    writer.append(a_record(1, "a", "b"))
    writer.append(a_record(2, "b", "a", "0-1"))
    scheduler = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    scheduler.directory = tmp_path
    configs: list[int] = []
    real_load = runs.load_settings
    monkeypatch.setattr(runs, "load_settings", lambda path: configs.append(1) or real_load(path))

    detail = await scheduler.tables(1, played=2, final=False)
    assert detail["games"] == 2 and detail["total"] == 12 and detail["standings"]
    assert "2.0/2" in detail["crosstable"]
    entry = scheduler.standings._runs[1]
    assert entry.offset == (directory / ARCHIVE).stat().st_size

    # later games are read from where the last view stopped; one seen before counts once
    for number, (white, black) in enumerate([("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")], start=3):
        writer.append(a_record(number, white, black))
    writer.append(a_record(3, "a", "c"))  # a resume's duplicate
    monkeypatch.setattr(run_standings, "REFRESH", 0.0)
    assert (await scheduler.tables(1, played=6, final=False))["games"] == 6
    assert entry.offset == (directory / ARCHIVE).stat().st_size and configs == [1]  # the settings read once
    # while a run plays, its tables are made at most once a REFRESH: a request just after a game
    # may see the tables from before it; once the run has ended, they are current
    monkeypatch.setattr(run_standings, "REFRESH", 3600.0)
    writer.append(a_record(7, "a", "b"))
    assert (await scheduler.tables(1, played=7, final=False))["games"] == 6
    assert (await scheduler.tables(1, played=7, final=True))["games"] == 7
    writer.close()


async def test_a_run_with_no_schedule_has_only_its_count(tmp_path: Path) -> None:
    scheduler = RunScheduler(_NO_STORE, BotRegistry(), drain=trio.Event())
    scheduler.directory = tmp_path
    assert await scheduler.tables(5, played=9, final=False) == {"games": 9, "total": None, "standings": "", "crosstable": ""}


def _gate() -> tuple[threading.Event, threading.Event, list[int], Callable[[int], None]]:
    """A count held open: ``hold(n)`` notes ``n``, sets the first event and waits for the second."""
    inside, release = threading.Event(), threading.Event()
    counted: list[int] = []

    def hold(n: int) -> None:
        counted.append(n)
        inside.set()
        assert release.wait(30)

    return inside, release, counted, hold


@contextmanager
def _viewing_in_a_thread(
    cache: run_standings.StandingsCache, config: Callable[[], TournamentConfig], archive: Path, kind: str,
    show: Callable[[TournamentConfig, Any, int], Any], inside: threading.Event, release: threading.Event,
) -> Iterator[None]:
    """Run 1 viewed in another thread, held inside its count (``inside``) until the block ends."""
    thread = threading.Thread(target=cache.view, args=(1, config, archive, kind, show))
    thread.start()
    try:
        assert inside.wait(30)
        yield
    finally:
        release.set()
        thread.join(30)


def test_a_view_that_may_not_wait_gives_way_to_the_count_under_way(tmp_path: Path) -> None:
    """While one view of a run holds it (its first count), a view given ``wait`` raises Counting
    after that wait instead of counting again beside it; once that view is done, it answers at
    once from what was counted (the archive is read once)."""
    save_settings(tmp_path, Settings(engines=["cmd=x name=a", "cmd=x name=b"], rounds=2))
    with ArchiveWriter(tmp_path / ARCHIVE) as writer:
        writer.append(a_record(1, "a", "b"))
        writer.append(a_record(2, "b", "a", "0-1"))
    cache = run_standings.StandingsCache()

    def config() -> TournamentConfig:
        return TournamentConfig.from_settings(load_settings(tmp_path))

    holding, release, counted, hold = _gate()

    def slow(config: TournamentConfig, standings: object, games: int) -> int:
        hold(games)
        return games

    with _viewing_in_a_thread(cache, config, tmp_path / ARCHIVE, "slow", slow, holding, release):
        begun = time.monotonic()
        with pytest.raises(run_standings.Counting):
            cache.view(1, config, tmp_path / ARCHIVE, "page", lambda c, s, games: games, wait=0.05)
        assert 0.05 <= time.monotonic() - begun < 5
        with pytest.raises(run_standings.Counting):
            cache.view(1, config, tmp_path / ARCHIVE, "page", lambda c, s, games: games, wait=0)
    assert counted == [2]
    assert cache.view(1, config, tmp_path / ARCHIVE, "page", lambda c, s, games: games, wait=0) == 2
    assert cache._runs[1].offset == (tmp_path / ARCHIVE).stat().st_size


def test_a_first_count_under_way_is_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that may wait does not wait for another view's first count of the run (it reads the
    whole archive, seconds for a big run): Counting at once, and that count is made once."""
    from santorini_server.tournament import scoring

    save_settings(tmp_path, Settings(engines=["cmd=x name=a", "cmd=x name=b"], rounds=2))
    with ArchiveWriter(tmp_path / ARCHIVE) as writer:
        writer.append(a_record(1, "a", "b"))
    inside, release, counted, hold = _gate()

    def slow_count(standings: object, record: GameRecord, number: int) -> None:
        hold(number)

    monkeypatch.setattr(scoring, "count_game", slow_count)
    cache = run_standings.StandingsCache()

    def config() -> TournamentConfig:
        return TournamentConfig.from_settings(load_settings(tmp_path))

    with _viewing_in_a_thread(cache, config, tmp_path / ARCHIVE, "api", lambda c, s, games: games, inside, release):
        begun = time.monotonic()
        with pytest.raises(run_standings.Counting):
            cache.view(1, config, tmp_path / ARCHIVE, "page", lambda c, s, games: games, wait=20)
        assert time.monotonic() - begun < 10  # not the 20 s it may wait for a later view
    assert cache.view(1, config, tmp_path / ARCHIVE, "page", lambda c, s, games: games, wait=20) == 1
    assert counted == [1]
