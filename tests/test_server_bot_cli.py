"""``santorini bot ...`` and ``santorini backup`` as a user runs them: real processes, real files
(SPEC.md sections 16.1 and 16.2)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.server.auth import StoreAuthenticator
from santorini_server.server.store import NewGame, Store

ROOT = Path(__file__).resolve().parent.parent


def santorini(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", *map(str, args)],
        capture_output=True, text=True, timeout=60, cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def one_line_error(out: subprocess.CompletedProcess[str], *words: str) -> None:
    """Failed, nothing on stdout, one ``Error:`` line (click's usage errors add their usage lines) and no traceback."""
    assert out.returncode != 0, out
    assert out.stdout == ""
    assert "Traceback" not in out.stderr
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, out.stderr
    for word in words:
        assert word in errors[0], out.stderr


def everything_of(data: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(data.rglob("*")) if path.is_file())


def test_a_remote_bot_gets_a_token_once_and_it_appears_nowhere_else(tmp_path: Path) -> None:
    data = tmp_path / "data"
    added = santorini("bot", "add", "alpha", "--remote", "--data", data)
    assert added.returncode == 0, added.stderr
    token = added.stdout.strip()
    assert added.stdout == token + "\n" and len(token) == 43  # alone on stdout: `> alpha.token` captures it
    assert "shown only this once" in added.stderr and token not in added.stderr
    assert stat.S_IMODE((data / "admin.token").stat().st_mode) == 0o600  # bot add ensures the admin token
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    with Store(data) as store:
        assert StoreAuthenticator(store).authenticate("alpha", token)
    outputs = [
        santorini("bot", "list", "--data", data),
        santorini("bot", "list", "--json", "--data", data),
        santorini("bot", "add", "beta", "--local", "greedy", "--data", data),
        santorini("bot", "add", "alpha", "--remote", "--data", data),  # refused: exists
        santorini("bot", "revoke", "alpha", "--data", data),
        santorini("backup", tmp_path / "bk", "--data", data),
    ]
    for out in outputs:
        assert token not in out.stdout + out.stderr
    assert token.encode() not in everything_of(data)
    assert token.encode() not in everything_of(tmp_path / "bk")


def test_token_file_is_created_0600_and_never_overwritten(tmp_path: Path) -> None:
    data, file = tmp_path / "data", tmp_path / "alpha.token"
    out = santorini("bot", "add", "alpha", "--remote", "--token-file", file, "--data", data)
    assert out.returncode == 0 and out.stdout == "", out
    token = file.read_text().strip()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600 and token not in out.stderr
    with Store(data) as store:
        assert StoreAuthenticator(store).authenticate("alpha", token)
    one_line_error(santorini("bot", "token", "alpha", "--token-file", file, "--data", data), "exists")
    assert file.read_text().strip() == token
    no_token = santorini("bot", "add", "beta", "--local", "greedy", "--token-file", tmp_path / "x", "--data", data)
    one_line_error(no_token, "--remote")


def test_list_shows_kind_engine_state_games_and_rating(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert santorini("bot", "add", "alpha", "--remote", "--data", data).returncode == 0
    assert santorini("bot", "add", "beta", "--local", "cmd=./mybot arg=--fast", "--data", data).returncode == 0
    assert santorini("bot", "add", "gamma", "--local", "random", "--data", data).returncode == 0
    with Store(data) as store:
        run = store.create_run("match", {})
        game = NewGame(run.id, 1, ("alpha", "beta"), (2, 1), "mortal/mortal", "0-1", "climb", 20)
        store.record_game(game, {"beta": (30.0, 5.0)})
    assert santorini("bot", "revoke", "gamma", "--data", data).stdout == "bot gamma revoked\n"
    table = santorini("bot", "list", "--data", data).stdout.splitlines()
    assert table[0].split() == ["NAME", "KIND", "ENGINE", "CREATED", "STATE", "GAMES", "RATING"]
    assert table[1].split()[:3] == ["alpha", "remote", "remote"] and table[1].split()[4:7] == ["active", "1", "-"]
    assert "cmd=./mybot arg=--fast" in table[2] and table[2].endswith("15.0 (mu 30.0, sigma 5.00)")
    assert table[3].split()[4] == "revoked"
    listed = json.loads(santorini("bot", "list", "--json", "--data", data).stdout)
    assert [entry["name"] for entry in listed] == ["alpha", "beta", "gamma"]
    assert listed[1]["rating"] == {"mu": 30.0, "sigma": 5.0, "conservative": 15.0, "games": 1}
    assert listed[0]["spec"] is None and listed[2]["revoked"] is not None and listed[0]["games"] == 1
    assert set(listed[0]) == {"name", "kind", "spec", "created", "revoked", "games", "rating"}  # no token field


def test_an_empty_store_lists_no_bots(tmp_path: Path) -> None:
    Store(tmp_path, create=True).close()
    assert santorini("bot", "list", "--data", tmp_path).stdout.startswith("no bots")
    assert json.loads(santorini("bot", "list", "--json", "--data", tmp_path).stdout) == []


def test_revoke_and_a_new_token(tmp_path: Path) -> None:
    data = tmp_path / "data"
    old = santorini("bot", "add", "alpha", "--remote", "--data", data).stdout.strip()
    assert santorini("bot", "revoke", "alpha", "--data", data).returncode == 0
    with Store(data) as store:
        auth = StoreAuthenticator(store)
        assert not auth.authenticate("alpha", old)
        fresh = santorini("bot", "token", "alpha", "--data", data)
        assert fresh.returncode == 0
        new = fresh.stdout.strip()
        assert new != old and auth.authenticate("alpha", new) and not auth.authenticate("alpha", old)
        assert store.bot("alpha").active  # a new token reinstates a revoked bot


def test_remove_is_refused_for_a_bot_that_has_played(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for name in ("alpha", "beta", "idle"):
        assert santorini("bot", "add", name, "--local", "greedy", "--data", data).returncode == 0
    with Store(data) as store:
        run = store.create_run("match", {})
        store.record_game(NewGame(run.id, 1, ("alpha", "beta"), (1, 2), "mortal/mortal", "1-0", "climb", 20))
    one_line_error(santorini("bot", "remove", "alpha", "--data", data), "has played 1 game", "santorini bot revoke alpha")
    assert santorini("bot", "remove", "idle", "--data", data).stdout == "bot idle removed\n"
    with Store(data) as store:
        assert [bot.name for bot in store.bots()] == ["alpha", "beta"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("bot", "add", "a b", "--remote"), ("bad bot name 'a b'", "1 to 32 characters")),
        (("bot", "add", "x" * 33, "--local", "greedy"), ("bad bot name",)),
        (("bot", "add", "alpha"), ("exactly one of --local SPEC and --remote",)),
        (("bot", "add", "alpha", "--remote", "--local", "greedy"), ("exactly one",)),
        (("bot", "add", "alpha", "--local", "cmd=./x nmae=y"), ("unknown key 'nmae'", "did you mean name=")),
        (("bot", "add", "alpha", "--local", "cmd="), ("the program is empty",)),
        (("bot", "add", "alpha", "--local", "greedyy"), ("bad engine spec token 'greedyy'",)),
        (("bot", "add", "taken", "--remote"), ("exists already",)),
        (("bot", "add", "TAKEN", "--local", "greedy"), ("'taken' exists already", "regardless of case")),
        (("bot", "revoke", "nobody"), ("no bot named 'nobody'",)),
        (("bot", "remove", "nobody"), ("no bot named 'nobody'",)),
        (("bot", "token", "nobody"), ("no bot named 'nobody'",)),
        (("bot", "token", "local"), ("local bot",)),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: tuple[str, ...], words: tuple[str, ...]) -> None:
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        store.add_remote_bot("taken")
        store.add_local_bot("local", "greedy")
    one_line_error(santorini(*args, "--data", data), *words)


@pytest.mark.parametrize("command", [("bot", "list"), ("bot", "revoke", "x"), ("bot", "remove", "x"), ("bot", "token", "x")])
def test_commands_other_than_add_need_an_existing_store(tmp_path: Path, command: tuple[str, ...]) -> None:
    one_line_error(santorini(*command, "--data", tmp_path / "none"), "no santorini data in", "santorini bot add")
    assert not (tmp_path / "none").exists()


def test_the_default_data_directory_is_santorini_data(tmp_path: Path) -> None:
    assert santorini("bot", "add", "alpha", "--local", "greedy", cwd=tmp_path).returncode == 0
    assert (tmp_path / "santorini-data" / "santorini.db").is_file()
    assert santorini("bot", "list", cwd=tmp_path).stdout.splitlines()[1].startswith("alpha")


def test_two_cli_processes_adding_bots_at_once(tmp_path: Path) -> None:
    """Two shells each add bots in a loop against one data directory: nothing lost, no error."""
    data = tmp_path / "data"
    Store(data, create=True).close()
    loops = [
        subprocess.Popen(
            [sys.executable, "-c", (
                "import sys\nfrom santorini_server.cli import main\n"
                "for i in range(12):\n"
                "    try:\n"
                f"        main(['bot', 'add', f'{prefix}{{i}}', '--local', 'greedy', '--data', {str(data)!r}])\n"
                "    except SystemExit as exit:\n"
                "        assert not exit.code, exit.code\n"
            )],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for prefix in ("a", "b")
    ]
    results = [loop.communicate(timeout=120) for loop in loops]
    assert [loop.returncode for loop in loops] == [0, 0], results
    listed = json.loads(santorini("bot", "list", "--json", "--data", data).stdout)
    assert len(listed) == 24


def test_backup_then_restore_by_copying_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    token = santorini("bot", "add", "alpha", "--remote", "--data", data).stdout.strip()
    assert santorini("bot", "add", "beta", "--local", "alphabeta", "--data", data).returncode == 0
    (data / "records").mkdir()
    (data / "records" / "run-1.sgn").write_text("[Event \"x\"]\n")
    out = santorini("backup", tmp_path / "bk", "--data", data)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"backed up {data} to {tmp_path / 'bk'}: the database and 2 file(s)")
    one_line_error(santorini("backup", tmp_path / "bk", "--data", data), "exists")
    one_line_error(santorini("backup", data / "inner", "--data", data), "inside")
    one_line_error(santorini("backup", tmp_path / "bk2", "--data", tmp_path / "none"), "no santorini data")
    # Disaster, then the documented restore: copy the backup back in place.
    shutil.rmtree(data)
    shutil.copytree(tmp_path / "bk", data)
    listed = json.loads(santorini("bot", "list", "--json", "--data", data).stdout)
    assert [(entry["name"], entry["kind"]) for entry in listed] == [("alpha", "remote"), ("beta", "local")]
    assert (data / "records" / "run-1.sgn").read_text() == "[Event \"x\"]\n"
    with Store(data) as store:
        assert StoreAuthenticator(store).authenticate("alpha", token)


def test_a_token_file_that_cannot_be_created_leaves_nothing_registered_and_no_token_lost(tmp_path: Path) -> None:
    data = tmp_path / "data"
    missing = tmp_path / "no-such-dir" / "r.token"
    refused = santorini("bot", "add", "r", "--remote", "--token-file", missing, "--data", data)
    one_line_error(refused, "cannot create", str(missing))
    assert refused.stderr.count("\n") == 1  # not "remote bot r added" first
    assert not data.exists()
    out = santorini("bot", "add", "r", "--remote", "--token-file", tmp_path / "r.token", "--data", data)
    assert out.returncode == 0, out.stderr
    again = santorini("bot", "add", "r", "--remote", "--token-file", tmp_path / "again.token", "--data", data)
    one_line_error(again, "exists")
    assert not (tmp_path / "again.token").exists()  # the refused bot's file is removed again
    one_line_error(santorini("bot", "token", "r", "--token-file", missing, "--data", data), "cannot create")
    with Store(data) as store:  # the old token still logs in
        assert StoreAuthenticator(store).authenticate("r", (tmp_path / "r.token").read_text().strip())
