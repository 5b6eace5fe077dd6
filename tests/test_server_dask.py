"""``santorini serve --backend dask``: runs of local bots play on a real Dask cluster (a
``santorini scheduler`` and a ``santorini worker`` on loopback), runs with a remote bot in the
daemon (SPEC.md section 16.4)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from santorini_server.records import read_archive

from .test_server_serve import Daemon, indexed, santorini, wait_state

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    """A scheduler and a two-slot worker whose engines file names the bots: its ``b`` resigns at
    its first turn (the daemon's ``b`` is greedy, which never does), so a game's record says where
    it was played."""
    engines = tmp_path / "engines.json"
    instant = f"cmd={PY} arg=-m arg=tests.gallery.instant"
    engines.write_text(json.dumps({"a": f"{instant} name=a", "b": f"{instant} name=b arg=resign"}))
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([PY, "-m", "santorini_server.cli", "scheduler", "--port", str(port)],
                                  cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    processes.append(subprocess.Popen(
        [PY, "-m", "santorini_server.cli", "worker", "--address", address, "--engines", str(engines), "--slots", "2"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    ))
    try:
        yield address
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_serve_plays_local_runs_on_dask_and_remote_runs_itself(tmp_path: Path, cluster: str) -> None:
    data = tmp_path / "data"
    santorini("bot", "add", "a", "--local", "random", data=data)
    santorini("bot", "add", "b", "--local", "greedy", data=data)
    santorini("bot", "add", "r", "--remote", data=data)
    daemon = Daemon(data, "--backend", "dask", "--address", cluster, "--reconnect-grace", "0")
    try:
        token = {"Authorization": f"Bearer {(data / 'admin.token').read_text().strip()}"}
        answer = daemon.http.post("/api/runs", json={"engines": ["a", "b"], "rounds": 2, "tc": "10+0.1", "concurrency": 2},
                                  headers=token)
        assert answer.status_code == 201, answer.text
        run = wait_state(daemon, 1, {"finished", "cancelled"}, timeout=120)
        assert run["state"] == "finished" and run["games"] == run["total"] == 4
        records = read_archive(data / "runs" / "1" / "games.msgpack")[0]
        assert sorted(r.game_number for r in records) == indexed(data, 1) == [1, 2, 3, 4]
        assert {(r.termination, r.players[r.placings.index(2)]) for r in records} == {("resign", "b")}  # the worker's b
        # a run with a remote bot plays in the daemon (r is not connected: with no grace, it loses at once)
        answer = daemon.http.post("/api/runs", json={"engines": ["a", "r"], "rounds": 1, "tc": "10+0.1"}, headers=token)
        run = wait_state(daemon, 2, {"finished", "cancelled"}, timeout=60)
        assert run["state"] == "finished"
        assert {r.termination_detail for r in read_archive(data / "runs" / "2" / "games.msgpack")[0]} == {"disconnected"}
        log = "".join(daemon.lines)
        assert '"run on the Dask cluster"' in log and '"run in the daemon: remote bots' in log
    finally:
        assert daemon.stop() == 0
