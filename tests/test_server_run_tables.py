"""The API's run tables and single-game reads: built once, then counted on; one frame per game
(SPEC.md section 16.5)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from santorini_server.records import ArchiveError, ArchiveWriter, GameRecord, TurnRecord, read_record_at
from santorini_server.server import run_tables
from santorini_server.server.run_tables import RunTablesCache
from santorini_server.tournament.config import Settings, save_settings
from santorini_server.tournament.output import ARCHIVE


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


async def test_the_tables_are_read_once_then_counted_on_without_the_archive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "1"
    directory.mkdir()
    save_settings(directory, Settings(engines=["cmd=x name=a", "cmd=x name=b", "cmd=x name=c"], rounds=2))  # 12 games
    writer = ArchiveWriter(directory / ARCHIVE)
    writer.append(a_record(1, "a", "b"))
    writer.append(a_record(2, "b", "a", "0-1"))
    reads: list[Path] = []
    real_read = run_tables.read_archive
    monkeypatch.setattr(run_tables, "read_archive", lambda path: reads.append(path) or real_read(path))
    cache = RunTablesCache(lambda run_id: tmp_path / str(run_id))

    detail = await cache.detail(1, played=2, final=False)
    assert detail["games"] == 2 and detail["total"] == 12 and detail["standings"]
    assert "2.0/2" in detail["crosstable"] and len(reads) == 1

    # a game that ends while the archive is being read is counted once, whichever way the race goes
    cache2 = RunTablesCache(lambda run_id: tmp_path / str(run_id))
    async with trio.open_nursery() as nursery:
        answers: list[dict[str, object]] = []

        async def ask() -> None:
            answers.append(await cache2.detail(1, played=3, final=False))

        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        record = a_record(3, "a", "c")
        writer.append(record)
        cache2.add(1, record)
    assert answers[0]["games"] == 3

    # later games are counted from the records handed over, never from the archive again
    for number, (white, black) in enumerate([("c", "a"), ("b", "c"), ("c", "b")], start=4):
        record = a_record(number, white, black)
        writer.append(record)
        cache2.add(1, record)
        cache2.add(1, record)  # twice: once
    writer.close()
    reads.clear()
    monkeypatch.setattr(run_tables, "REFRESH", 0.0)
    assert (await cache2.detail(1, played=6, final=False))["games"] == 6 and reads == []
    # while a run plays, its tables are rendered at most once a REFRESH: a request just after a
    # game may see the tables from before it; once the run has ended, they are current
    monkeypatch.setattr(run_tables, "REFRESH", 3600.0)
    cache2.add(1, a_record(7, "a", "b"))
    assert (await cache2.detail(1, played=7, final=False))["games"] == 6
    assert (await cache2.detail(1, played=7, final=True))["games"] == 7
    # an ended run's tables are kept, its records let go (memory stays bounded by the runs playing)
    tables = cache2._entries[1].tables
    assert tables is not None and tables.records == {}
    assert (await cache2.detail(1, played=7, final=True))["games"] == 7 and reads == []


async def test_a_run_with_no_schedule_has_only_its_count(tmp_path: Path) -> None:
    cache = RunTablesCache(lambda run_id: tmp_path / str(run_id))
    assert await cache.detail(5, played=9, final=False) == {"games": 9, "total": None, "standings": "", "crosstable": ""}
