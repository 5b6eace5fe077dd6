"""The daemon's data store (SPEC.md section 16.1) and its tokens (section 16.2), on real files.

Every test opens real SQLite files in a temporary data directory; concurrency is tested with real
processes writing at once, secrecy by reading the raw bytes of every file the store wrote.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import structlog
import trio

from santorini_server.server import tokens
from santorini_server.server.async_store import AsyncStore
from santorini_server.server.auth import BotAuthenticator, StoreAuthenticator
from santorini_server.server.backup import backup
from santorini_server.server.names import check_bot_name
from santorini_server.server.redact import redact_secrets
from santorini_server.server.store import (
    DB_FILE,
    MIGRATIONS,
    BadRunState,
    BotExists,
    BotHasGames,
    DuplicateGame,
    NewGame,
    NoStore,
    NoSuchBot,
    NoSuchRun,
    SchemaTooNew,
    Store,
    StoreError,
    migrate,
)
from santorini_server.server.tokens import ensure_admin_token, new_token, token_hash, token_matches

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "data", create=True) as opened:
        yield opened


def raw_bytes(data_dir: Path) -> bytes:
    """Every byte of every file in the data directory (database, WAL, shared memory...)."""
    return b"".join(path.read_bytes() for path in sorted(data_dir.rglob("*")) if path.is_file())


def a_game(run_id: int, number: int, bots: tuple[str, ...] = ("alpha", "beta"), places: tuple[int, ...] = (1, 2)) -> NewGame:
    return NewGame(run_id, number, bots, places, "apollo/pan", "1-0", "climb", 31, archive_offset=0, sgn_offset=0)


# --- opening, pragmas and migrations --------------------------------------------------------------


def test_a_new_store_is_wal_with_foreign_keys_busy_timeout_and_the_latest_schema(store: Store) -> None:
    conn = store._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert store.schema_version == len(MIGRATIONS)
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"schema_version", "bots", "runs", "games", "game_seats", "ratings", "rating_history"}
    assert stat.S_IMODE(store.data_dir.stat().st_mode) == 0o700


def test_opening_a_missing_store_without_create_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(NoStore) as caught:
        Store(tmp_path / "nowhere")
    assert "\n" not in str(caught.value) and "nowhere" in str(caught.value)
    assert not (tmp_path / "nowhere").exists()


def test_migrations_apply_each_step_once_in_order(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "db", isolation_level=None)
    steps = (*MIGRATIONS, ("CREATE TABLE extra (x INTEGER)", "INSERT INTO extra VALUES (7)"))
    assert migrate(conn, MIGRATIONS) == len(MIGRATIONS)
    assert migrate(conn, steps) == len(MIGRATIONS) + 1
    assert migrate(conn, steps) == len(MIGRATIONS) + 1  # nothing applied twice
    assert conn.execute("SELECT x FROM extra").fetchall() == [(7,)]


def test_a_failing_step_leaves_the_database_at_the_previous_version(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "db", isolation_level=None)
    migrate(conn, MIGRATIONS)
    broken = (*MIGRATIONS, ("CREATE TABLE half (x INTEGER)", "INSERT INTO nosuchtable VALUES (1)"))
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == len(MIGRATIONS)
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0


def test_a_database_from_a_newer_santorini_is_refused_in_one_line(tmp_path: Path) -> None:
    Store(tmp_path, create=True).close()
    conn = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.close()
    with pytest.raises(SchemaTooNew) as caught:
        Store(tmp_path)
    message = str(caught.value)
    assert "\n" not in message and "99" in message and "upgrade" in message


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as caught:
        Store(tmp_path)
    assert "\n" not in str(caught.value)


# --- bots ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["", "a b", "x" * 33, "ä", "a/b", "a;b", ".", "..", "bot\n", "tab\t"])
def test_bad_bot_names_are_refused_naming_the_rule(store: Store, name: str) -> None:
    with pytest.raises(ValueError, match=re.escape("1 to 32 characters from A-Z a-z 0-9 _ . -")):
        store.add_remote_bot(name)
    assert store.bots() == []


@pytest.mark.parametrize("name", ["a", "x" * 32, "My_Bot-2.0", "...", "-"])
def test_good_bot_names(name: str) -> None:
    assert check_bot_name(name) == name


def test_local_bots_take_bundled_names_and_specs_and_refuse_bad_specs(store: Store) -> None:
    assert store.add_local_bot("ab", "alphabeta").spec == "alphabeta"
    assert store.add_local_bot("mine", "cmd=./mybot arg=--fast tc=10+0.1").kind == "local"
    with pytest.raises(ValueError, match="unknown key 'nmae'"):
        store.add_local_bot("bad", "cmd=./x nmae=y")
    with pytest.raises(ValueError, match="no cmd="):
        store.add_local_bot("bad", "name=y")
    assert [bot.name for bot in store.bots()] == ["ab", "mine"]
    assert not any(bot.has_token for bot in store.bots())


def test_names_are_unique_regardless_of_case(store: Store) -> None:
    store.add_remote_bot("Alpha")
    with pytest.raises(BotExists, match="'Alpha' exists"):
        store.add_local_bot("alpha", "greedy")
    assert store.bot("ALPHA").name == "Alpha"


def test_a_token_is_stored_only_as_its_hash(store: Store) -> None:
    _bot, token = store.add_remote_bot("alpha")
    assert len(token) == 43 and token != new_token()  # 32 bytes, URL-safe base64
    data = raw_bytes(store.data_dir)
    assert token.encode() not in data
    assert token_hash(token).encode() in data  # the hash is what is kept
    store.close()
    assert token.encode() not in raw_bytes(store.data_dir)


def test_authentication(store: Store) -> None:
    _a, token_a = store.add_remote_bot("alpha")
    _b, token_b = store.add_remote_bot("beta")
    store.add_local_bot("local", "greedy")
    auth: BotAuthenticator = StoreAuthenticator(store)
    assert auth.authenticate("alpha", token_a)
    assert auth.authenticate("ALPHA", token_a)  # names are case-insensitive
    assert auth.authenticate("beta", token_b)
    assert not auth.authenticate("alpha", token_b)  # B's token does not log in A
    assert not auth.authenticate("beta", token_a)
    assert not auth.authenticate("alpha", token_a[:-1])
    assert not auth.authenticate("alpha", "")
    assert not auth.authenticate("nobody", token_a)
    assert not auth.authenticate("local", token_a)
    assert not auth.authenticate("\x00\xff", "\udcff")  # garbage in: False, no exception
    store.revoke_bot("alpha")
    assert not auth.authenticate("alpha", token_a)  # seen at once: another connection committed
    fresh = store.issue_token("alpha")
    assert auth.authenticate("alpha", fresh) and not auth.authenticate("alpha", token_a)
    assert store.bot("alpha").active


def test_a_revoke_in_another_process_is_seen_at_the_next_login(store: Store) -> None:
    _bot, token = store.add_remote_bot("alpha")
    auth = StoreAuthenticator(store)
    assert auth.authenticate("alpha", token)
    code = f"from santorini_server.server.store import Store; Store({str(store.data_dir)!r}).revoke_bot('alpha')"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    assert not auth.authenticate("alpha", token)


def test_every_answer_goes_through_compare_digest(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Constant time is hmac.compare_digest's: check that every path, unknown names included, uses it."""
    _bot, token = store.add_remote_bot("alpha")
    store.add_local_bot("local", "greedy")
    calls: list[tuple[bytes, bytes]] = []
    real = tokens.hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens.hmac, "compare_digest", spy)
    auth = StoreAuthenticator(store)
    answers = [auth.authenticate(name, token) for name in ("alpha", "beta", "local", "nobody")]
    assert answers == [True, False, False, False]
    assert len(calls) == 4
    assert all(len(a) == len(b) == 64 for a, b in calls)  # the same work whatever the answer
    assert not token_matches(token, None)


def test_a_local_bot_has_no_token(store: Store) -> None:
    store.add_local_bot("local", "greedy")
    with pytest.raises(StoreError, match="local bot"):
        store.issue_token("local")


def test_revoke_keeps_the_bot_and_is_idempotent(store: Store) -> None:
    store.add_remote_bot("alpha")
    first = store.revoke_bot("alpha")
    assert first.revoked is not None and not first.has_token and not first.active
    assert store.revoke_bot("alpha").revoked == first.revoked
    with pytest.raises(NoSuchBot):
        store.revoke_bot("nobody")


def test_remove_is_refused_once_the_bot_has_played(store: Store) -> None:
    store.add_remote_bot("alpha")
    store.add_local_bot("beta", "greedy")
    store.add_local_bot("idle", "random")
    run = store.create_run("match", {"games": 2})
    store.record_game(a_game(run.id, 1), {"alpha": (26.0, 8.0), "beta": (24.0, 8.0)})
    with pytest.raises(BotHasGames, match="alpha has played 1 game and stays with them: santorini bot revoke alpha"):
        store.remove_bot("alpha")
    store.remove_bot("idle")
    assert [bot.name for bot in store.bots()] == ["alpha", "beta"]
    store.add_remote_bot("idle")  # the name is free again
    with pytest.raises(sqlite3.IntegrityError):  # the foreign key backs the check up
        store._conn.execute("DELETE FROM bots WHERE name = 'alpha'")


# --- runs, games, ratings ------------------------------------------------------------------------


def test_run_life_cycle(store: Store) -> None:
    run = store.create_run("tournament", {"rounds": 2, "bots": ["a", "b"]})
    assert (run.state, run.settings, run.started) == ("queued", {"rounds": 2, "bots": ["a", "b"]}, None)
    assert store.set_run_state(run.id, "running").started is not None
    done = store.set_run_state(run.id, "finished")
    assert done.state == "finished" and done.finished is not None
    with pytest.raises(BadRunState, match=f"run {run.id} is finished: it cannot become cancelled"):
        store.set_run_state(run.id, "cancelled")
    queued = store.create_run("ladder", {})
    assert store.set_run_state(queued.id, "cancelled").state == "cancelled"
    assert [r.id for r in store.runs()] == [run.id, queued.id]
    assert [r.id for r in store.runs("cancelled")] == [queued.id]
    with pytest.raises(NoSuchRun):
        store.run(999)


def test_a_game_its_seats_and_the_ratings_are_one_transaction(store: Store) -> None:
    for name in ("alpha", "beta", "gamma"):
        store.add_remote_bot(name)
    run = store.create_run("match", {})
    game = store.record_game(a_game(run.id, 1), {"alpha": (27.0, 7.0), "beta": (23.0, 7.0)})
    assert (game.bots, game.places, game.number, game.termination) == (("alpha", "beta"), (1, 2), 1, "climb")
    assert store.game(game.id) == game
    # A replayed game must not be recorded twice: refused, and the ratings are not touched.
    with pytest.raises(DuplicateGame):
        store.record_game(a_game(run.id, 1), {"alpha": (99.0, 1.0)})
    # A failure inside the transaction (an unknown bot among the ratings) leaves nothing behind.
    with pytest.raises(NoSuchBot):
        store.record_game(a_game(run.id, 2), {"alpha": (50.0, 1.0), "nobody": (1.0, 1.0)})
    assert [g.number for g in store.games(run.id)] == [1]
    second = store.record_game(a_game(run.id, 2, ("gamma", "alpha", "beta"), (2, 1, 2)), {"alpha": (28.0, 6.0)})
    ratings = store.ratings()
    assert (ratings["alpha"].mu, ratings["alpha"].sigma, ratings["alpha"].games) == (28.0, 6.0, 2)
    assert ratings["alpha"].conservative == 28.0 - 18.0
    assert ratings["beta"].games == 1 and "gamma" not in ratings
    assert [(p.game_id, p.mu) for p in store.rating_history("alpha")] == [(game.id, 27.0), (second.id, 28.0)]
    assert store.games_played("alpha") == 2 and store.games_played("gamma") == 1
    with pytest.raises(ValueError, match="2 to 4 seats"):
        store.record_game(a_game(run.id, 3, ("alpha",), (1,)))


# --- concurrency ---------------------------------------------------------------------------------

WRITER = textwrap.dedent(
    """
    import os, sys, time
    from santorini_server.server.store import Store
    data, prefix, go = sys.argv[1], sys.argv[2], sys.argv[3]
    store = Store(data, create=True)
    run = store.create_run("match", {})
    print("ready", flush=True)
    while not os.path.exists(go):  # all start writing at once
        time.sleep(0.001)
    for i in range(60):
        store.add_remote_bot(f"{prefix}{i}")
        store.issue_token(f"{prefix}{i}")  # a read, then a write, in one transaction
        if i % 10 == 0:
            store.set_run_state(store.create_run("ladder", {"from": prefix}).id, "running")
    print(run.id)
    """
)


def test_three_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    """The daemon and the CLI both write: WAL, the busy timeout and BEGIN IMMEDIATE make them take
    turns. (With a plain BEGIN, a transaction that reads and then writes fails at once with
    "database is locked" when another process committed in between, whatever the busy timeout.)"""
    data = tmp_path / "data"
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(data), prefix, str(go)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for prefix in ("a", "b", "c")
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    go.touch()
    outcomes = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0], outcomes
    with Store(data) as store:
        assert len(store.bots()) == 180
        assert len(store.runs()) == 3 * 7 and len(store.runs("running")) == 3 * 6
        assert store.schema_version == len(MIGRATIONS)


async def test_the_async_store_writes_in_order_and_reads_apart(tmp_path: Path) -> None:
    store = await AsyncStore.open(tmp_path / "data")
    try:
        async with trio.open_nursery() as nursery:
            for i in range(40):
                nursery.start_soon(store.write, Store.add_local_bot, f"bot{i}", "random")
        bots = await store.read(Store.bots)
        assert len(bots) == 40
        _bot, token = await store.write(Store.add_remote_bot, "remote")
        assert StoreAuthenticator(store).authenticate("remote", token)
        # A write sent to a reader fails: readers are read-only connections.
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            await store.read(Store.add_local_bot, "sneaky", "random")
        with pytest.raises(BotExists):
            await store.write(Store.add_remote_bot, "REMOTE")
        assert (await store.read(Store.bot, "remote")).kind == "remote"
    finally:
        store.close()


async def test_the_bot_commands_write_while_the_daemon_writes(tmp_path: Path) -> None:
    """The daemon's writer is busy (a run created after another); a `santorini bot add` loop in
    another process still gets every bot in, and the daemon loses no write."""
    data = tmp_path / "data"
    store = await AsyncStore.open(data)
    written = 0
    stop = trio.Event()

    async def daemon() -> None:
        nonlocal written
        while not stop.is_set():
            await store.write(Store.create_run, "ladder", {"n": written})
            written += 1

    code = (
        "from santorini_server.cli import main\n"
        "for i in range(10):\n"
        "    try:\n"
        f"        main(['bot', 'add', f'b{{i}}', '--remote', '--data', {str(data)!r}])\n"
        "    except SystemExit as exit:\n"
        "        assert not exit.code, exit.code\n"
    )
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(daemon)
            cli = await trio.run_process(
                [sys.executable, "-c", code], cwd=ROOT, capture_stdout=True, capture_stderr=True, check=False
            )
            stop.set()
        assert cli.returncode == 0, cli.stderr
        assert len(cli.stdout.split()) == 10  # ten tokens printed
        assert len(await store.read(Store.bots)) == 10
        assert written > 0 and len(await store.read(Store.runs)) == written
    finally:
        store.close()


async def test_a_read_does_not_wait_for_an_open_write_transaction(tmp_path: Path) -> None:
    store = await AsyncStore.open(tmp_path / "data")
    other = Store(tmp_path / "data")
    try:
        await store.write(Store.add_remote_bot, "alpha")
        other._conn.execute("BEGIN IMMEDIATE")
        other._conn.execute("UPDATE bots SET revoked = 'x'")
        with trio.fail_after(2):
            assert [bot.revoked for bot in await store.read(Store.bots)] == [None]
        other._conn.execute("ROLLBACK")
    finally:
        other.close()
        store.close()


# --- admin token and logs ------------------------------------------------------------------------


def test_the_admin_token_is_created_once_with_mode_0600(tmp_path: Path) -> None:
    first = ensure_admin_token(tmp_path)
    path = tmp_path / tokens.ADMIN_TOKEN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == first + "\n" and len(first) == 43
    assert ensure_admin_token(tmp_path) == first
    os.chmod(path, 0o644)
    with pytest.raises(PermissionError, match="chmod 600"):
        ensure_admin_token(tmp_path)
    path.write_text("")
    os.chmod(path, 0o600)
    with pytest.raises(ValueError, match="empty"):
        ensure_admin_token(tmp_path)


def test_two_processes_creating_the_admin_token_at_once_agree_and_never_see_it_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first takes its time making the token; the second comes meanwhile (two ``santorini bot
    add`` at once on a new data directory once failed with "admin.token is empty")."""
    started = threading.Event()
    original = tokens.new_token

    def slow_token() -> str:
        started.set()
        time.sleep(0.2)
        return original()

    monkeypatch.setattr(tokens, "new_token", slow_token)
    got: list[str] = []
    first = threading.Thread(target=lambda: got.append(ensure_admin_token(tmp_path)))
    first.start()
    assert started.wait(5)
    monkeypatch.setattr(tokens, "new_token", original)
    second = ensure_admin_token(tmp_path)  # while the first is still making its token
    first.join(5)
    assert got == [second] and (tmp_path / tokens.ADMIN_TOKEN_FILE).read_text() == second + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [tokens.ADMIN_TOKEN_FILE]  # no draft left


def test_secret_fields_are_dropped_from_logs() -> None:
    out = io.StringIO()
    structlog.configure(
        processors=[redact_secrets, structlog.processors.JSONRenderer()],
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    try:
        secret = new_token()
        log = structlog.get_logger()
        log.info(
            "login", name="alpha", token=secret, admin_token=secret, password=secret, Authorization=f"Bearer {secret}",
            request={"headers": {"X-Api-Key": secret, "host": "h"}, "path": "/api/runs"}, peer="127.0.0.1",
        )
    finally:
        structlog.reset_defaults()
    line = out.getvalue()
    assert secret not in line
    assert json.loads(line) == {"event": "login", "name": "alpha", "request": {"headers": {"host": "h"}, "path": "/api/runs"},
                                "peer": "127.0.0.1"}


# --- backup --------------------------------------------------------------------------------------


def test_backup_and_restore(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        _bot, token = store.add_remote_bot("alpha")
        store.add_local_bot("beta", "greedy")
        run = store.create_run("match", {})
        store.record_game(a_game(run.id, 1), {"alpha": (26.0, 8.0)})
        ensure_admin_token(data)
        (data / "records" / "run-1").mkdir(parents=True)
        (data / "records" / "run-1" / "games.sgn").write_text("[Event \"x\"]\n")
        # The daemon keeps running (a connection open, a write transaction in flight): the backup
        # holds what was committed and nothing of the transaction.
        other = Store(data)
        other._conn.execute("BEGIN IMMEDIATE")
        other._conn.execute("INSERT INTO runs (kind, settings_json, state, created) VALUES ('ladder', '{}', 'queued', 'now')")
        summary = backup(data, tmp_path / "bk")
        other._conn.execute("COMMIT")
        other.close()
    assert summary.files == 2
    bk = tmp_path / "bk"
    assert (bk / "records" / "run-1" / "games.sgn").read_text() == "[Event \"x\"]\n"
    assert stat.S_IMODE((bk / tokens.ADMIN_TOKEN_FILE).stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".bk.partial-*"))
    assert token.encode() not in raw_bytes(bk)
    # Restore: the backup is a data directory; copy it back in place of the lost one.
    import shutil

    shutil.rmtree(data)
    shutil.copytree(bk, data)
    with Store(data) as restored:
        assert [b.name for b in restored.bots()] == ["alpha", "beta"]
        assert len(restored.runs()) == 1  # the uncommitted run is not in the backup
        assert restored.games(1)[0].bots == ("alpha", "beta")
        assert StoreAuthenticator(restored).authenticate("alpha", token)


def test_backup_refuses_an_existing_or_inner_target_and_a_missing_store(tmp_path: Path) -> None:
    data = tmp_path / "data"
    Store(data, create=True).close()
    (tmp_path / "taken").mkdir()
    with pytest.raises(StoreError, match="exists"):
        backup(data, tmp_path / "taken")
    with pytest.raises(StoreError, match="inside"):
        backup(data, data / "bk")
    with pytest.raises(NoStore):
        backup(tmp_path / "nothing", tmp_path / "bk")
    assert not (tmp_path / "bk").exists()
    assert not list(tmp_path.glob(".*partial*"))
