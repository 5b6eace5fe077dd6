"""``santorini serve`` as a real process: start, submit, play (local and remote bots), drain, kill -9 and resume.

Every test starts the daemon as a subprocess on ports the OS picks (``--http 127.0.0.1:0``),
reads the addresses from its ready line, talks to it over real sockets (httpx, the CLI client,
``santorini connect``), and checks the store against the run's archive at the end.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio
from trio_websocket import open_websocket_url

from santorini_server.records import read_archive, read_record_at

CLI = [sys.executable, "-m", "santorini_server.cli"]
READY = re.compile(r"API (http://\S+), bots tcp://(\S+):(\d+), .*\(ready in ([0-9.]+) s\)")


def santorini(*args: str, data: Path | None = None, check: bool = True, **kwargs: object) -> subprocess.CompletedProcess[str]:
    extra = ["--data", str(data)] if data is not None else []
    return subprocess.run([*CLI, *args, *extra], capture_output=True, text=True, check=check, timeout=60, **kwargs)  # type: ignore[call-overload]


def child_pids(pid: int) -> list[int]:
    """Pids of the child processes of ``pid``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry))
    return out


class Daemon:
    """A ``santorini serve`` subprocess and what its ready line says."""

    def __init__(self, data: Path, *extra: str) -> None:
        started = time.monotonic()
        self.process = subprocess.Popen(
            [*CLI, "serve", "--data", str(data), "--http", "127.0.0.1:0", "--bots", "127.0.0.1:0", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[str] = []
        ready = threading.Event()
        self.match: re.Match[str] | None = None

        def read() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.lines.append(line)
                found = READY.search(line)
                if found:
                    self.match = found
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(30), "no ready line"
        assert self.match is not None, "".join(self.lines)
        self.wall = time.monotonic() - started
        self.url = self.match.group(1)
        self.bot_port = int(self.match.group(3))
        self.ready_in = float(self.match.group(4))
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def children(self) -> list[int]:
        """Pids of the daemon's child processes (its local engines)."""
        return child_pids(self.process.pid)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    directory = tmp_path / "data"
    santorini("bot", "add", "a", "--local", "random", data=directory)
    santorini("bot", "add", "b", "--local", "greedy", data=directory)
    return directory


@pytest.fixture
def daemons() -> Iterator[list[Daemon]]:
    started: list[Daemon] = []
    yield started
    for daemon in started:
        if daemon.process.poll() is None:
            daemon.process.kill()
            daemon.process.wait()


def wait_state(daemon: Daemon, run_id: int, states: set[str], timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        run = daemon.http.get(f"/api/runs/{run_id}").json()
        if run["state"] in states:
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.1)


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its reaper does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def indexed(data: Path, run_id: int) -> list[int]:
    with sqlite3.connect(data / "santorini.db") as conn:
        return [n for (n,) in conn.execute("SELECT number FROM games WHERE run_id = ? ORDER BY number", (run_id,))]


def archived(data: Path, run_id: int) -> list[int]:
    records, damage = read_archive(data / "runs" / str(run_id) / "games.msgpack")
    assert not damage
    return sorted(r.game_number for r in records if r.game_number is not None)


def test_serve_plays_a_submitted_match_with_a_remote_bot_then_drains(data: Path, tmp_path: Path, daemons: list[Daemon]) -> None:
    token = santorini("bot", "add", "c", "--remote", data=data).stdout.strip()
    token_file = tmp_path / "c.token"
    token_file.write_text(token + "\n")
    daemon = Daemon(data)
    daemons.append(daemon)
    print(f"serve: ready in {daemon.ready_in:.3f} s by its own clock, {daemon.wall:.3f} s from exec")
    assert (data / "admin.token").stat().st_mode & 0o777 == 0o600
    admin = (data / "admin.token").read_text().strip()
    assert all(admin not in line and token not in line for line in daemon.lines)
    bridge = subprocess.Popen(
        [*CLI, "connect", f"tcp://127.0.0.1:{daemon.bot_port}", "--bot", "c", "--token-file", str(token_file), "random"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not any(bot["name"] == "c" and bot["connected"] for bot in daemon.http.get("/api/bots").json()):
            assert time.monotonic() < deadline and bridge.poll() is None
            time.sleep(0.1)
        config = tmp_path / "match.toml"
        config.write_text('engines = ["a", "c"]\nrounds = 2\ntc = "5+0.05"\nconcurrency = 1\n')
        submitted = santorini("submit", str(config), "--server", daemon.url, "--token-file", str(data / "admin.token"))
        assert submitted.stdout.strip() == "submitted run 1"
        run = wait_state(daemon, 1, {"finished", "cancelled"})
        assert run["state"] == "finished" and run["games"] == run["total"] == 4
        assert "Results of a vs c" in run["standings"]
        listed = santorini("runs", "--server", daemon.url).stdout
        assert re.search(r"1\s+match\s+finished\s+a c", listed)
        bots = {bot["name"]: bot for bot in daemon.http.get("/api/bots").json()}
        assert bots["c"]["connected"] and bots["c"]["rtt_ms"] is not None
        assert bots["a"]["games"] == bots["c"]["games"] == 4 and bots["b"]["games"] == 0
        game = daemon.http.get(f"/api/games/{run['game_ids'][0]}").json()
        assert {game["player1"], game["player2"]} == {"a", "c"} and game["turns"]
        for record in read_archive(data / "runs" / "1" / "games.msgpack")[0]:  # the remote seat's round trip
            remote, local = (1, 2) if record.players[0] == "c" else (2, 1)
            assert re.fullmatch(r"\d+\.\d{3}ms", record.tag(f"Player{remote}RoundTrip") or ""), record.tags
            assert record.tag(f"Player{local}RoundTrip") is None
        assert "RoundTrip" in str(game["tags"])
        sgn = daemon.http.get(f"/api/games/{run['game_ids'][0]}.sgn").text
        assert sgn.startswith("[Event ") and "[Player1 " in sgn and "RoundTrip \"" in sgn
        with sqlite3.connect(data / "santorini.db") as conn:  # each game is read from its own frame
            offsets = conn.execute("SELECT number, archive_offset FROM games WHERE run_id = 1 ORDER BY number").fetchall()
        archive = data / "runs" / "1" / "games.msgpack"
        assert [read_record_at(archive, offset).game_number for _, offset in offsets] == [n for n, _ in offsets]
        assert daemon.http.get("/api/runs").json()[0]["state"] == "finished"
        assert admin not in daemon.http.get("/api/runs/1").text
    finally:
        bridge.send_signal(signal.SIGINT)
        bridge.wait(30)
    assert daemon.stop() == 0
    assert indexed(data, 1) == archived(data, 1) == [1, 2, 3, 4]
    assert not daemon.children()
    assert all(token not in line and admin not in line for line in daemon.lines)


def test_kill_9_mid_run_then_restart_loses_and_duplicates_nothing(data: Path, tmp_path: Path, daemons: list[Daemon]) -> None:
    daemon = Daemon(data)
    daemons.append(daemon)
    config = tmp_path / "t.toml"
    config.write_text('engines = ["a", "b"]\nrounds = 15\ntc = "5+0.05"\nconcurrency = 2\n')
    env = {**os.environ, "SANTORINI_ADMIN_TOKEN": (data / "admin.token").read_text().strip()}
    assert santorini("submit", str(config), "--server", daemon.url, env=env).stdout.strip() == "submitted run 1"
    deadline = time.monotonic() + 60
    while len(indexed(data, 1)) < 3:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    below = _descendants(daemon.process.pid)  # referee workers, engines, their guards
    assert any(b"santorini_engines." in cmd for _, cmd in below.values()), "the run's engines run under the daemon"
    daemon.process.kill()
    daemon.process.wait()
    time.sleep(0.5)
    assert not [pid for pid in below if alive(pid)], "a process outlived the daemon killed with SIGKILL"
    before = archived(data, 1)
    assert 3 <= len(before) < 30
    # resumes, then SIGTERM: exit 0, the run still running (enough games are left that the
    # referee workers cannot finish them all between the first indexed and the signal)
    drained = Daemon(data, "--drain-timeout", "0.2")
    daemons.append(drained)
    while len(indexed(data, 1)) == len(before):
        assert time.monotonic() < deadline + 60
        time.sleep(0.05)
    assert drained.stop() == 0
    assert not drained.children()
    with sqlite3.connect(data / "santorini.db") as conn:
        assert conn.execute("SELECT state FROM runs WHERE id = 1").fetchone()[0] == "running"
    assert indexed(data, 1) == archived(data, 1)
    restarted = Daemon(data)
    daemons.append(restarted)
    run = wait_state(restarted, 1, {"finished", "cancelled"}, timeout=120)
    assert run["state"] == "finished" and run["games"] == 30
    assert restarted.stop() == 0
    assert indexed(data, 1) == archived(data, 1) == list(range(1, 31))
    records, _ = read_archive(data / "runs" / "1" / "games.msgpack")
    assert len(records) == 30  # no game appended twice
    with sqlite3.connect(data / "santorini.db") as conn:
        assert conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 60


def test_cancel_and_one_line_client_errors(data: Path, tmp_path: Path, daemons: list[Daemon]) -> None:
    daemon = Daemon(data)
    daemons.append(daemon)
    token_file = str(data / "admin.token")
    auth = {"Authorization": f"Bearer {(data / 'admin.token').read_text().strip()}"}
    settings = {"engines": ["a", "b"], "rounds": 200, "tc": "5+0.05", "concurrency": 1}
    for expected in (1, 2):
        assert daemon.http.post("/api/runs", json=settings, headers=auth).json() == {"id": expected}
    wait_state(daemon, 1, {"running"})
    assert daemon.http.post("/api/runs/2/cancel", headers=auth).json()["state"] == "cancelled"
    assert santorini("cancel", "1", "--server", daemon.url, "--token-file", token_file).stdout.strip() == "run 1: cancelled"
    run = wait_state(daemon, 1, {"cancelled"})
    assert run["games"] < 400
    assert daemon.http.post("/api/runs/1/cancel", headers=auth).status_code == 409
    unknown = santorini("cancel", "99", "--server", daemon.url, "--token-file", token_file, check=False)
    assert unknown.returncode == 1 and unknown.stderr.count("\n") == 1 and "404: no run 99" in unknown.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('engines = ["a", "nobody"]\n')
    env = {**os.environ, "SANTORINI_ADMIN_TOKEN": auth["Authorization"].split()[1]}
    refused = santorini("submit", str(bad), "--server", daemon.url, check=False, env=env)
    assert refused.returncode == 1 and "400" in refused.stderr and "nobody" in refused.stderr
    began = time.monotonic()
    assert daemon.stop() == 0
    print(f"stopped in {time.monotonic() - began:.2f} s")
    assert indexed(data, 1) == archived(data, 1)
    down = santorini("runs", "--server", daemon.url, check=False)
    assert down.returncode == 1 and "cannot reach" in down.stderr and down.stderr.count("\n") == 1
    no_token = santorini("cancel", "1", "--server", daemon.url, check=False, env={**os.environ, "SANTORINI_ADMIN_TOKEN": ""})
    assert no_token.returncode == 1 and "admin token" in no_token.stderr


def test_pairing_prefers_close_ratings_and_high_uncertainty_and_swaps_seats() -> None:
    from santorini_server.server.ladder import Candidate, pick_pairs, seat_order

    fresh = [Candidate("a"), Candidate("b"), Candidate("c"), Candidate("d")]
    assert pick_pairs(fresh, 2) == [("a", "b"), ("c", "d")]  # all alike: by name, each bot once
    rated = [Candidate("top", 40, 1), Candidate("mid", 30, 1), Candidate("low", 29, 1), Candidate("new", 25, 8)]
    assert pick_pairs(rated, 1) == [("low", "new")]  # the uncertain newcomer first, against the closest
    assert pick_pairs(rated, 2) == [("low", "new"), ("mid", "top")]
    assert pick_pairs(rated[:1], 3) == []
    assert [seat_order("b", "A", k) for k in range(3)] == [("A", "b"), ("b", "A"), ("A", "b")]


def test_ladder_plays_rates_swaps_seats_rotates_gods_and_resumes_numbering(data: Path, daemons: list[Daemon]) -> None:
    santorini("bot", "add", "c", "--local", "random", data=data)
    options = ("--ladder", "--tc", "5+0.05", "--gods", "apollo/pan,athena/mortal", "--concurrency", "1", "--drain-timeout", "1")
    daemon = Daemon(data, *options)
    daemons.append(daemon)
    deadline = time.monotonic() + 90
    while len(indexed(data, 1)) < 4:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert daemon.stop() == 0
    records, _ = read_archive(data / "runs" / "1" / "games.msgpack")
    assert [r.game_number for r in records] == list(range(1, len(records) + 1))
    assert all(r.tag("Event") == "santorini ladder" for r in records)
    assert [r.gods for r in records[:4]] == [("apollo", "pan"), ("athena", "mortal")] * 2
    meetings: dict[frozenset[str], list[tuple[str, ...]]] = {}
    for record in records:
        meetings.setdefault(frozenset(record.players), []).append(record.players)
    assert {name for record in records for name in record.players} == {"a", "b", "c"}
    assert any(len(seats) > 1 for seats in meetings.values())
    for seats in meetings.values():
        assert all(later == earlier[::-1] for earlier, later in itertools.pairwise(seats))  # seats swap each meeting
    with sqlite3.connect(data / "santorini.db") as conn:
        assert conn.execute("SELECT kind, state FROM runs WHERE id = 1").fetchone() == ("ladder", "running")
        assert conn.execute("SELECT COUNT(*) FROM rating_history").fetchone()[0] == 2 * len(records)
    assert indexed(data, 1) == archived(data, 1)
    again = Daemon(data, *options)  # the same ladder run goes on, numbered on
    daemons.append(again)
    while len(indexed(data, 1)) <= len(records):
        assert time.monotonic() < deadline + 60
        time.sleep(0.1)
    ladder = again.http.get("/api/runs/1").json()
    assert ladder["kind"] == "ladder" and ladder["state"] == "running" and ladder["games"] > len(records)
    assert again.stop() == 0
    assert indexed(data, 1) == archived(data, 1) == list(range(1, len(indexed(data, 1)) + 1))
    assert sorted(path.name for path in (data / "runs" / "1").iterdir()) == ["games.msgpack"]  # the archive alone
    meetings.clear()
    for record in read_archive(data / "runs" / "1" / "games.msgpack")[0]:
        meetings.setdefault(frozenset(record.players), []).append(record.players)
    for seats in meetings.values():  # across the restart too: the last meeting is the index's
        assert all(later == earlier[::-1] for earlier, later in itertools.pairwise(seats))


def test_what_serve_loads_before_it_accepts_leaves_out_the_runner_the_ladder_and_openskill() -> None:
    """The daemon's start (under 1 s: tools/bench_serve.py) loads only what accepting needs; the
    tournament runner (its report page), Jinja2 (the dashboard's pages), the ladder and openskill load
    with their first use."""
    code = (
        "import sys, hypercorn.trio, santorini_server.cli.serve_cmd\n"
        "import santorini_server.server.daemon, santorini_server.server.api, santorini_server.dashboard.app\n"
        "print(' '.join(sorted(m for m in ('jinja2', 'openskill', 'santorini_server.tournament.runner',"
        " 'santorini_server.server.ladder', 'dask', 'numpy') if m in sys.modules)))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout.split()
    assert loaded == []


def _descendants(pid: int) -> dict[int, tuple[int, bytes]]:
    """Every descendant of ``pid``: its parent and its command line."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found: dict[int, tuple[int, bytes]] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, its_parent in parents.items():
            if its_parent == parent and child not in found:
                try:
                    found[child] = (parent, Path(f"/proc/{child}/cmdline").read_bytes())
                except OSError:
                    continue
                frontier.append(child)
    return found


async def test_local_bots_are_refereed_in_a_worker_process_and_watched_live(data: Path, daemons: list[Daemon]) -> None:
    daemon = Daemon(data)
    daemons.append(daemon)
    auth = {"Authorization": f"Bearer {(data / 'admin.token').read_text().strip()}"}
    async with open_websocket_url(daemon.url.replace("http://", "ws://") + "/ws?topic=home") as ws:

        async def next_events() -> list[dict]:
            with trio.fail_after(60):
                message = json.loads(await ws.get_message())
            return message if isinstance(message, list) else [message]

        assert (await next_events())[0]["type"] == "snapshot"
        settings = {"engines": ["a", "b"], "rounds": 1, "tc": "5+0.05", "concurrency": 1}
        response = await trio.to_thread.run_sync(lambda: daemon.http.post("/api/runs", json=settings, headers=auth))
        assert response.json() == {"id": 1}
        seen: dict[str, list[dict]] = {}
        recorded: dict[str, int] = {}
        trees: list[dict[int, tuple[int, bytes]]] = []

        async def watch_processes() -> None:  # who referees: the daemon's process tree, every 10 ms
            while True:
                trees.append(await trio.to_thread.run_sync(_descendants, daemon.process.pid))
                await trio.sleep(0.01)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch_processes)
            while len(recorded) < 2:
                for event in await next_events():
                    if event["type"] in ("started", "turn", "over"):
                        seen.setdefault(event["game"], []).append(event)
                    elif event["type"] == "recorded":
                        recorded[event["game"]] = event["id"]
            nursery.cancel_scope.cancel()
    # the referee is a pool worker: every engine seen descends from it (through its guard), and
    # from no other process of the daemon's
    both = 0
    for tree in trees:
        engines = [pid for pid, (_, cmd) in tree.items() if b"-m\0santorini_engines." in cmd and b"guard.py" not in cmd]
        workers = [pid for pid, (_, cmd) in tree.items() if cmd.endswith(b"santorini_server.tournament.pool_worker\0")
                   and b"guard.py" not in cmd]
        both += len(engines) == 2
        for pid in engines:
            while pid in tree and pid not in workers:
                pid = tree[pid][0]
            assert pid in workers, [(p, pp, c[-50:]) for p, (pp, c) in tree.items()]
    assert both, f"no view of the two engines in {len(trees)} looks at the daemon's processes"
    # every turn of both games reached the viewer, in order, with the record's turns and times
    assert sorted(recorded) == ["1-1", "1-2"]
    for key, game_id in recorded.items():
        events = seen[key]
        assert events[0]["type"] == "started" and events[-1]["type"] == "over"
        turns = [e for e in events if e["type"] == "turn"]
        record = (await trio.to_thread.run_sync(daemon.http.get, f"/api/games/{game_id}")).json()
        assert [t["seq"] for t in turns] == list(range(1, len(record["turns"]) + 1))
        assert [t["stn"] for t in turns] == [t["turn"] for t in record["turns"]]
        assert [t["turn"]["ms"] for t in turns] == [t["time_ms"] for t in record["turns"]]
        assert events[-1]["result"] == record["result"] and events[-1]["termination"] == record["termination"]
    assert daemon.stop() == 0


@pytest.mark.parametrize("flag", ["--http", "--bots"])
def test_a_taken_port_or_an_unknown_host_is_one_line_naming_the_flag(flag: str, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        other = "--bots" if flag == "--http" else "--http"
        result = santorini("serve", flag, address, other, "127.0.0.1:0", data=tmp_path / "d", check=False)
    assert result.returncode == 1
    assert result.stderr == f"Error: cannot listen on {flag} {address}: Address already in use\n"
    if flag == "--bots":
        unknown = santorini(
            "serve", "--bots", "no-such-host.invalid:0", "--http", "127.0.0.1:0", data=tmp_path / "d", check=False
        )
        assert unknown.returncode == 1 and unknown.stderr.count("\n") == 1
        assert unknown.stderr.startswith("Error: cannot listen on --bots no-such-host.invalid:0: ")


@pytest.mark.parametrize(
    ("command", "url", "reason"),
    [
        (["runs"], "http://127.0.0.1:abc", "Invalid port: 'abc'"),
        (["submit", "x.toml"], "http://[::1", "Invalid port"),
        (["cancel", "1"], f"http://{'a' * 70}.com", "idna"),
        (["runs"], "127.0.0.1:8080", "expected http://HOST:PORT or https://HOST:PORT"),
    ],
)
def test_a_malformed_server_url_is_one_line_before_any_request(command: list[str], url: str, reason: str) -> None:
    result = santorini(*command, "--server", url, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    error = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert error == [error[0]] and error[0].startswith(f"Error: Invalid value for '--server': bad server URL {url!r}: ")
    assert reason in error[0]


@pytest.mark.parametrize("flag", ["--drain-timeout", "--reconnect-grace"])
def test_a_duration_that_is_not_a_finite_number_is_refused(flag: str, tmp_path: Path) -> None:
    result = santorini("serve", flag, "nan", data=tmp_path / "d", check=False)
    assert result.returncode == 2
    assert f"Error: Invalid value for '{flag}': 'nan' is not a finite number of seconds" in result.stderr
    assert not (tmp_path / "d").exists()
