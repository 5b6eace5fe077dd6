"""The daemon's data under damage (SPEC.md sections 16.1 and 16.4): a game page read from its one
indexed frame, damaged archive regions said (log, run page, ``GET /api/runs/ID``), and a damaged
database refused in one line by ``santorini serve`` and the ``santorini bot`` commands.

Every case is real files: archives written by the archive writer, then a byte flipped or the tail
cut; databases made by the store, then pages overwritten; and a real ``santorini serve`` subprocess.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from santorini_server.records import ArchiveWriter, GameRecord
from santorini_server.server.runs import RUNS_DIR, index_game
from santorini_server.server.store import DB_FILE, DamagedStore, RunState, Store, StoreError
from santorini_server.tournament.config import Settings, save_settings
from santorini_server.tournament.output import ARCHIVE

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
