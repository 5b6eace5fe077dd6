"""The daemon's data under damage (SPEC.md sections 16.1 and 16.4): a game page read from its one
indexed frame, damaged archive regions said (log, run page, ``GET /api/runs/ID``), and a damaged
database refused in one line by ``santorini serve`` and the ``santorini bot`` commands.

Every case is real files: archives written by the archive writer, then a byte flipped or the tail
cut; databases made by the store, then pages overwritten; and a real ``santorini serve`` subprocess.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
import structlog

from santorini_server.records import ArchiveWriter, GameRecord, encode_frame
from santorini_server.server.async_store import AsyncStore
from santorini_server.server.run_standings import Damage, count_run, load_snapshot
from santorini_server.server.runs import RUNS_DIR, DamageLog, index_game, reconcile
from santorini_server.server.store import DB_FILE, DamagedStore, RunState, Store, StoreError
from santorini_server.tournament.config import Settings, TournamentConfig, save_settings
from santorini_server.tournament.output import ARCHIVE
from santorini_server.tournament.standings_file import StandingsFile

from .test_server_run_standings import a_record
from .test_server_serve import CLI, Daemon, santorini


@dataclass
class Match:
    """A finished match written straight to a data directory: its run, archive, frames' offsets
    and the ids of its indexed games (by number)."""

    run_id: int
    archive: Path
    offsets: list[int]
    ids: dict[int, int]


def a_match(
    data: Path, records: list[GameRecord], *, indexed: list[int] | None = None, state: RunState = "finished"
) -> Match:
    """``records`` appended to the run's archive in this order; those at the positions in
    ``indexed`` (default: all) indexed with their frame's offset, as the daemon does."""
    with Store(data, create=True) as store:
        if not store.bots():
            store.add_local_bot("alpha", "random")
            store.add_local_bot("beta", "greedy")
        run = store.create_run("match", {"engines": ["random name=alpha", "greedy name=beta"], "rounds": 2})
        store.set_run_state(run.id, "running")
        directory = data / RUNS_DIR / str(run.id)
        directory.mkdir(parents=True)
        save_settings(directory, msgspec.convert(run.settings, Settings))
        offsets, ids = [], {}
        with ArchiveWriter(directory / ARCHIVE) as writer:
            for k, record in enumerate(records):
                offsets.append(writer.append(record))
                if indexed is None or k in indexed:
                    game = index_game(store, run.id, record, offsets[-1])
                    assert game is not None and record.game_number is not None
                    ids[record.game_number] = game.id
        if state != "running":
            store.set_run_state(run.id, state)
    return Match(run.id, directory / ARCHIVE, offsets, ids)


def four_games() -> list[GameRecord]:
    return [a_record(n, *(("alpha", "beta") if n % 2 else ("beta", "alpha"))) for n in (1, 2, 3, 4)]


def warnings(daemon: Daemon) -> list[dict]:
    """The daemon's ``archive damaged`` log lines (JSON Lines: its stderr is a pipe)."""
    found = []
    for line in list(daemon.lines):
        if line.startswith("{") and '"archive damaged"' in line:
            found.append(json.loads(line))
    return found


def wait_for_warnings(daemon: Daemon, count: int, timeout: float = 20) -> list[dict]:
    deadline = time.monotonic() + timeout
    while len(found := warnings(daemon)) < count:
        assert time.monotonic() < deadline, "".join(daemon.lines)
        time.sleep(0.05)
    return found


# --- finding: the game page reads one frame ----------------------------------------------------


def test_a_game_page_is_the_frame_at_its_indexed_offset_never_a_scan(tmp_path: Path) -> None:
    """The archive holds game 1 twice (a resume's duplicate): the index, which the ratings
    follow, points at the second copy, and the page shows that one, as ``/games/ID`` and as
    ``/games/RUN-NUMBER``; a scan of the archive would find the first.  A game indexed where the
    archive holds no frame of it, or not indexed at all, is a 404 that says so."""
    data = tmp_path / "data"
    first, indexed = a_record(1, "alpha", "beta"), a_record(1, "beta", "alpha", "0-1")
    match = a_match(data, [first, indexed, a_record(2, "alpha", "beta")], indexed=[1, 2])
    with sqlite3.connect(data / DB_FILE) as conn:  # game 2's offset now points at game 1's second copy
        conn.execute("UPDATE games SET archive_offset = ? WHERE id = ?", (match.offsets[1], match.ids[2]))
    daemon = Daemon(data)
    try:
        for path in (f"/games/{match.ids[1]}", f"/games/{match.run_id}-1"):
            page = daemon.http.get(path)
            assert page.status_code == 200, page.text[:300]
            assert "<title>beta vs alpha \u2014 mortal/mortal" in page.text, page.text[:400]
        for path in (f"/games/{match.ids[2]}", f"/games/{match.run_id}-2"):  # indexed, but that frame is game 1
            page = daemon.http.get(path)
            assert page.status_code == 404 and f"run {match.run_id}&#39;s index lists it" in page.text, page.text
        page = daemon.http.get(f"/games/{match.run_id}-3")
        assert page.status_code == 404 and "not in run" in page.text
    finally:
        assert daemon.stop() == 0


# --- finding: archive damage is said -----------------------------------------------------------


def test_a_flipped_byte_is_logged_at_start_shown_on_the_run_page_and_in_the_api(tmp_path: Path) -> None:
    data = tmp_path / "data"
    match = a_match(data, four_games())
    raw = bytearray(match.archive.read_bytes())
    raw[match.offsets[1] + 30] ^= 0xFF  # game 2's payload checksum fails
    match.archive.write_bytes(raw)
    length = match.offsets[2] - match.offsets[1]
    text = f"damaged region at byte {match.offsets[1]} ({length} bytes) skipped: payload checksum mismatch"
    daemon = Daemon(data)
    try:
        # at start, before any request: the warm-up's count of the runs home lists finds it
        (logged,) = wait_for_warnings(daemon, 1)
        assert logged["run"] == match.run_id and logged["level"] == "warning"
        assert logged["region"] == f"{text}; lost: game 2"
        run = daemon.http.get(f"/api/runs/{match.run_id}").json()
        assert run["damage"] == [{
            "offset": match.offsets[1], "length": length, "truncated": False, "reason": "payload checksum mismatch",
            "lost": [{"number": 2, "id": match.ids[2]}], "lost_games": 1,
        }]
        assert run["damaged_regions"] == 1 and run["games"] == 3 and len(run["game_ids"]) == 4
        page = daemon.http.get(f"/runs/{match.run_id}").text
        note = re.search(r'id="archive-damage">(.*?)</div>', page, re.S)
        assert note is not None, page
        assert "archive is damaged" in note[1] and text in note[1]
        assert f'<a href="/games/{match.ids[2]}">game 2</a>' in note[1]
        assert len(warnings(daemon)) == 1  # logged once, whoever looked
    finally:
        assert daemon.stop() == 0


def test_a_cut_tail_is_said_once_the_run_has_ended(tmp_path: Path) -> None:
    data = tmp_path / "data"
    match = a_match(data, four_games())
    size = match.archive.stat().st_size
    os.truncate(match.archive, size - 10)  # game 4's frame loses its last 10 bytes
    daemon = Daemon(data)
    try:
        (logged,) = wait_for_warnings(daemon, 1)
        assert logged["region"].startswith(f"truncated frame at byte {match.offsets[3]} ({size - 10 - match.offsets[3]} bytes)")
        assert logged["region"].endswith("; lost: game 4")
        run = daemon.http.get(f"/api/runs/{match.run_id}").json()
        (region,) = run["damage"]
        assert region["truncated"] and region["offset"] == match.offsets[3] and region["lost"] == [
            {"number": 4, "id": match.ids[4]}
        ]
        assert "payload cut off" in region["reason"] and run["games"] == 3
        assert 'id="archive-damage"' in daemon.http.get(f"/runs/{match.run_id}").text
    finally:
        assert daemon.stop() == 0


def test_a_cut_tail_while_the_run_plays_is_a_write_in_progress_and_garbage_is_kept_once(tmp_path: Path) -> None:
    """A view keeps a damaged region followed by a good frame for good (in the snapshot it
    saves), reads the tail again each time, and counts a cut-off frame there only once the run
    has ended."""
    settings = Settings(engines=["random name=alpha", "greedy name=beta"], rounds=4)
    config = TournamentConfig.from_settings(settings)
    archive = tmp_path / ARCHIVE
    frames = [encode_frame(record) for record in four_games()]
    archive.write_bytes(frames[0] + b"junk" * 5 + frames[1] + frames[2][:40])

    def view(final: bool) -> tuple[int, Damage]:
        standings, damage = count_run(tmp_path, config, load_snapshot(tmp_path, config), final=final, save=True)
        return standings.played, damage

    junk = len(frames[0])
    assert [(r.offset, r.length, r.truncated) for r in view(False)[1].regions] == [(junk, 20, False)]
    assert view(True)[1].count == 2 and view(True)[1].regions[1].truncated
    with archive.open("ab") as file:  # the write completes, and garbage follows it
        file.write(frames[2][40:] + b"\0" * 7)
    regions = view(False)[1].regions
    tail = len(frames[0]) + 20 + len(frames[1]) + len(frames[2])
    assert [(r.offset, r.length) for r in regions] == [(junk, 20), (tail, 7)]
    assert view(True) == (3, Damage(regions, 2))  # read again: the same regions, not twice
    snapshot = StandingsFile(tmp_path, config).load()  # what the views saved: up to the last good frame
    assert snapshot is not None and snapshot.offset == tail and snapshot.games == 3
    assert [(r.offset, r.length) for r in snapshot.regions] == [(junk, 20)] and snapshot.damaged == 1


async def test_a_resume_indexes_missing_games_with_their_offsets_and_reports_damage(tmp_path: Path) -> None:
    """:func:`reconcile` (before a run resumes) indexes a game the index missed with its frame's
    offset (so its page reads one frame) and reports the damaged regions it read past, but not a
    frame cut off at the end: that is a crash mid-write, which the resume cuts off."""
    data = tmp_path / "data"
    match = a_match(data, four_games(), indexed=[0, 1, 2], state="running")
    raw = bytearray(match.archive.read_bytes())
    raw[match.offsets[1] + 30] ^= 0xFF
    match.archive.write_bytes(bytes(raw) + encode_frame(a_record(5, "alpha", "beta"))[:30])
    store = await AsyncStore.open(data)
    try:
        with structlog.testing.capture_logs() as logs:
            assert await reconcile(store, match.run_id, match.archive.parent, DamageLog(store)) == 1
        game = await store.read(Store.run_game, match.run_id, 4)
        assert game.archive_offset == match.offsets[3]
        assert [entry["region"] for entry in logs if entry["event"] == "archive damaged"] == [
            f"damaged region at byte {match.offsets[1]} ({match.offsets[2] - match.offsets[1]} bytes) skipped: "
            "payload checksum mismatch; lost: game 2"
        ]
    finally:
        store.close()


# --- finding: a damaged database is one line ---------------------------------------------------


def a_data_dir(data: Path) -> None:
    """Seven bots and thirty runs (the runs table spans several pages), then the store closed."""
    with Store(data, create=True) as store:
        for name in "abcdefg":
            store.add_local_bot(name, "random")
        for _ in range(30):
            run = store.create_run("match", {"engines": ["random name=a", "random name=b"], "event": "x" * 200})
            store.set_run_state(run.id, "cancelled")


def root_page(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        (page,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    return int((page - 1) * size)


def undecodable_text(db: Path) -> str:
    raw = bytearray(db.read_bytes())
    at = raw.index(b"x" * 200, 4096)
    raw[at + 50 : at + 60] = b"\xff" * 10  # a run's settings, no longer UTF-8
    db.write_bytes(raw)
    return "text that is not UTF-8 in column settings_json"


def malformed_bots(db: Path) -> str:
    at = root_page(db, "bots")
    raw = bytearray(db.read_bytes())
    raw[at : at + 12] = b"\x07" * 12  # the bots table's page header
    db.write_bytes(raw)
    return "database disk image is malformed"


def not_a_database(db: Path) -> str:
    db.write_bytes(os.urandom(8192))
    return "file is not a database"


@pytest.mark.parametrize("damage", [undecodable_text, malformed_bots, not_a_database])
def test_a_damaged_database_is_one_line_for_serve_and_the_bot_commands(damage: object, tmp_path: Path) -> None:
    data = tmp_path / "data"
    a_data_dir(data)
    db = data / DB_FILE
    reason = damage(db)  # type: ignore[operator]
    expected = (
        f"Error: {db} is damaged ({reason}): restore the data directory from a backup made by santorini backup "
        "(SPEC.md section 16.1)\n"
    )
    served = subprocess.run(
        [*CLI, "serve", "--data", str(data), "--http", "127.0.0.1:0", "--bots", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=30,
    )
    assert (served.returncode, served.stderr) == (1, expected)
    for command in (["bot", "list"], ["bot", "add", "zed", "--local", "random"], ["bot", "revoke", "a"]):
        done = santorini(*command, data=data, check=False)
        assert (done.returncode, done.stderr) == (1, expected), command


def test_damage_beyond_the_start_s_check_is_one_line_where_it_is_read(tmp_path: Path) -> None:
    """The start checks the bots and runs tables; a damaged page elsewhere (here an index of the games) is
    found when read: ``santorini bot list`` says so in one line, and so does the store to the
    daemon (a damaged row of a page the daemon reads is the one line too, not a traceback)."""
    data = tmp_path / "data"
    a_data_dir(data)
    db = data / DB_FILE
    at = root_page(db, "game_seats_bot_game")
    raw = bytearray(db.read_bytes())
    raw[at : at + 12] = b"\x07" * 12
    db.write_bytes(raw)
    done = santorini("bot", "list", data=data, check=False)
    assert done.returncode == 1 and done.stderr.startswith(f"Error: {db} is damaged (database disk image is malformed)")
    assert done.stderr.count("\n") == 1
    with Store(data) as store, pytest.raises(DamagedStore, match="restore the data directory"):
        store.games_played("a")
    assert issubclass(DamagedStore, StoreError)


def test_a_busy_database_is_not_damage(tmp_path: Path) -> None:
    """Only SQLite's corrupt and not-a-database errors (and text that does not decode) mean
    damage: a database locked by another writer is still the error it was."""
    data = tmp_path / "data"
    a_data_dir(data)
    holder = sqlite3.connect(data / DB_FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store(data) as store:
            store._conn.execute("PRAGMA busy_timeout = 0")
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                store.add_local_bot("zed", "random")
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_damage_a_resumed_run_finds_in_the_games_index_ends_serve_in_one_line(tmp_path: Path) -> None:
    """The start's check passes (bots and runs are whole), then the run left running is resumed
    and its games are read from a damaged index: the daemon stops with the one line, exit 1."""
    data = tmp_path / "data"
    a_match(data, four_games(), state="running")
    db = data / DB_FILE
    at = root_page(db, "sqlite_autoindex_games_1")
    raw = bytearray(db.read_bytes())
    raw[at : at + 12] = b"\x07" * 12
    db.write_bytes(raw)
    served = subprocess.run(
        [*CLI, "serve", "--data", str(data), "--http", "127.0.0.1:0", "--bots", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=60,
    )
    assert served.returncode == 1 and "Traceback" not in served.stderr, served.stderr
    assert served.stderr.splitlines()[-1] == (
        f"Error: {db} is damaged (database disk image is malformed): restore the data directory from a backup "
        "made by santorini backup (SPEC.md section 16.1)"
    )
