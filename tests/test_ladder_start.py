"""The ladder's start reads the store's index and the archive's tail, not the whole archive.

Real store and archive files; the ladder's own test is a real ``santorini serve --ladder``.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import structlog

from santorini_server.records import GameRecord, encode_frame
from santorini_server.records.archive import iter_archive
from santorini_server.records.frames import Frame, iter_frames
from santorini_server.server import runs
from santorini_server.server.async_store import AsyncStore
from santorini_server.server.ladder import LadderFiles
from santorini_server.server.runs import reconcile
from santorini_server.server.store import Store

from .test_server_damage import a_match, four_games
from .test_server_run_standings import a_record
from .test_server_serve import Daemon, daemons, data, indexed

__all__ = ["daemons", "data"]  # the fixtures, shared with test_server_serve

LADDER = ("--ladder", "--tc", "5+0.05", "--concurrency", "1", "--drain-timeout", "1")


async def test_reconcile_reads_only_the_tail_after_the_last_indexed_frame(tmp_path: Path) -> None:
    """Games are indexed in archive order, so the start reads from the last indexed frame on: a
    game before it that the index lacks (which the ladder's record lock rules out) is not looked
    for, and the tail's game is indexed with its offset."""
    data = tmp_path / "data"
    match = a_match(data, four_games(), indexed=[0, 2], state="running")
    store = await AsyncStore.open(data)
    try:
        assert await store.read(Store.run_tail, match.run_id) == (3, match.offsets[2])
        assert await reconcile(store, match.run_id, match.archive.parent) == 1
        assert [game.number for game in await store.read(Store.games, match.run_id)] == [1, 3, 4]
        assert (await store.read(Store.run_game, match.run_id, 4)).archive_offset == match.offsets[3]
        assert await store.read(Store.run_tail, match.run_id) == (4, match.offsets[3])
        assert await reconcile(store, match.run_id, match.archive.parent) == 0  # the tail is the last frame alone
        assert await store.read(Store.last_seating, match.run_id, "alpha", "beta") == ("beta", "alpha")  # game 4
        assert await store.read(Store.last_seating, match.run_id + 1, "alpha", "beta") is None  # another run
    finally:
        store.close()


async def test_reconcile_indexes_a_long_unindexed_tail_a_batch_at_a_time(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Nothing indexed (a store restored from an old backup): every game is indexed, in archive
    order, read BATCH games at a time, so memory does not grow with the archive."""
    monkeypatch.setattr(runs, "BATCH", 3)
    data = tmp_path / "data"
    match = a_match(data, four_games() + [a_record(n, "alpha", "beta") for n in range(5, 9)], indexed=[], state="running")
    store = await AsyncStore.open(data)
    try:
        assert await reconcile(store, match.run_id, match.archive.parent) == 8
        games = await store.read(Store.games, match.run_id)
        assert [game.number for game in games] == list(range(1, 9))
        assert [game.archive_offset for game in games] == match.offsets
        assert await reconcile(store, match.run_id, match.archive.parent) == 0
    finally:
        store.close()


async def test_the_ladder_s_archive_is_opened_from_the_last_indexed_frame(tmp_path: Path) -> None:
    """Opening the ladder's archive reads from the last indexed frame on: a half-written frame
    after it is cut off (a crash mid-write) and appending goes on from there; a damaged region
    before it is not read (the store's index has those games)."""
    data = tmp_path / "data"
    match = a_match(data, four_games(), state="running")
    raw = bytearray(match.archive.read_bytes())
    raw[match.offsets[1] + 30] ^= 0xFF  # game 2's payload
    whole = len(raw)
    match.archive.write_bytes(bytes(raw) + encode_frame(a_record(5, "alpha", "beta"))[:30])
    store = await AsyncStore.open(data)
    try:
        files = LadderFiles(match.archive.parent, store, match.run_id, start=match.offsets[3])
        records, damage = files.open()
        try:
            assert records == []
            assert [(region.offset, region.truncated) for region in damage] == [(whole, True)]
            assert match.archive.stat().st_size == whole
            assert await files.append(a_record(5, "alpha", "beta")) == whole
        finally:
            files.close()
        assert [record.game_number for record, _ in frames(match.archive)] == [1, 3, 4, 5]
        assert not (match.archive.parent / "games.sgn").exists()
    finally:
        store.close()


async def test_a_start_skips_an_archived_game_whose_bot_is_gone(tmp_path: Path) -> None:
    """A game archived in the instant its never-played bot was removed cannot be indexed: the
    start says so and goes on (it once failed there, at every start)."""
    data = tmp_path / "data"
    games = [*four_games(), a_record(5, "alpha", "gamma")]  # no bot gamma
    match = a_match(data, games, indexed=[0, 1, 2, 3], state="running")
    store = await AsyncStore.open(data)
    try:
        with structlog.testing.capture_logs() as logs:
            assert await reconcile(store, match.run_id, match.archive.parent) == 0
        assert [(entry["event"], entry["game"]) for entry in logs] == [("archived game not indexed", 5)]
    finally:
        store.close()


def frames(archive: Path) -> list[tuple[GameRecord, int]]:
    """The readable records of ``archive`` with their frames' offsets."""
    offsets = [item.offset for item in iter_frames(archive.read_bytes()) if isinstance(item, Frame)]
    with archive.open("rb") as file:
        records = [item for item in iter_archive(file) if isinstance(item, GameRecord)]
    return list(zip(records, offsets, strict=True))


def test_a_ladder_whose_last_frame_was_damaged_numbers_on_from_the_index(data: Path, daemons: list[Daemon]) -> None:
    """The index keeps the game whose frame is lost: the next game is numbered after it, so
    every game the archive gives is the one the index has at that offset (none is refused by the
    index as a number taken, unrated and unlisted)."""
    daemon = Daemon(data, *LADDER)
    daemons.append(daemon)
    deadline = time.monotonic() + 60
    while len(indexed(data, 1)) < 3:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert daemon.stop() == 0
    archive = data / "runs" / "1" / "games.msgpack"
    played = frames(archive)
    raw = bytearray(archive.read_bytes())
    raw[played[-1][1] + 40] ^= 0xFF  # the last game's payload: its frame is damaged, not cut off
    archive.write_bytes(bytes(raw))
    again = Daemon(data, *LADDER)
    daemons.append(again)
    while len(indexed(data, 1)) < len(played) + 2:
        assert time.monotonic() < deadline + 60
        time.sleep(0.05)
    assert again.stop() == 0
    with sqlite3.connect(data / "santorini.db") as conn:
        at = dict(conn.execute("SELECT number, archive_offset FROM games WHERE run_id = 1").fetchall())
    assert sorted(at) == list(range(1, len(at) + 1))
    readable = frames(archive)
    assert [record.game_number for record, _ in readable] == [n for n in sorted(at) if n != len(played)]
    assert all(at[record.game_number] == offset for record, offset in readable if record.game_number is not None)
