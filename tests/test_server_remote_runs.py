"""Runs and the ladder with remote bots behind ``santorini connect``: games that need the same
bots never deadlock, a busy bot is never ruled disconnected, and a cancel leaves the bots usable.

One daemon per module (two bridges, engines ``alphabeta``), real sockets and processes
throughout; the reconnect grace is short, so a game that waited on a busy bot as if it were
gone would lose with ``crash`` "disconnected" within the test's time.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .test_server_serve import CLI, Daemon, santorini, wait_state

GRACE = "3"


class Bots:
    """A daemon and one ``santorini connect`` bridge per remote bot."""

    def __init__(self, tmp: Path, names: tuple[str, ...], *options: str) -> None:
        self.data = tmp / "data"
        self.bridges: dict[str, subprocess.Popen[str]] = {}
        self.logs: dict[str, Path] = {}
        tokens = {}
        for name in names:
            tokens[name] = tmp / f"{name}.token"
            tokens[name].write_text(santorini("bot", "add", name, "--remote", data=self.data).stdout)
        self.daemon = Daemon(self.data, "--reconnect-grace", GRACE, *options)
        self.auth = {"Authorization": f"Bearer {(self.data / 'admin.token').read_text().strip()}"}
        for name in names:
            self.logs[name] = tmp / f"{name}.bridge.log"
            self.bridges[name] = subprocess.Popen(
                [*CLI, "connect", f"tcp://127.0.0.1:{self.daemon.bot_port}", "--bot", name, "--token-file", str(tokens[name]),
                 "alphabeta"],
                stdout=subprocess.DEVNULL, stderr=self.logs[name].open("w"), text=True,
            )
        deadline = time.monotonic() + 30
        while not all(bot["connected"] for bot in self.daemon.http.get("/api/bots").json() if bot["name"] in names):
            assert time.monotonic() < deadline, "".join(self.daemon.lines[-20:])
            time.sleep(0.05)

    def submit(self, **settings: object) -> int:
        answer = self.daemon.http.post("/api/runs", json=settings, headers=self.auth)
        assert answer.status_code == 201, answer.text
        run_id: int = answer.json()["id"]
        return run_id

    def terminations(self, run_id: int) -> list[str]:
        with sqlite3.connect(self.data / "santorini.db") as conn:
            return [t for (t,) in conn.execute("SELECT termination FROM games WHERE run_id = ? ORDER BY number", (run_id,))]

    def drops(self) -> int:
        """Connections the bridges saw end (each says so before connecting again)."""
        return sum(log.read_text().count("connecting again") for log in self.logs.values())

    def close(self) -> None:
        for bridge in self.bridges.values():
            bridge.send_signal(signal.SIGINT)
        for bridge in self.bridges.values():
            bridge.wait(30)
        if self.daemon.process.poll() is None:
            self.daemon.process.kill()
            self.daemon.process.wait()


FORFEITS = {"crash", "stall", "time", "engine-error", "illegal", "limit", "aborted"}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bots]:
    bots = Bots(tmp_path_factory.mktemp("pair"), ("x", "y"))
    yield bots
    bots.close()


def test_a_match_between_two_remote_bots_plays_its_games_in_turn_without_deadlock(pair: Bots) -> None:
    run_id = pair.submit(engines=["x", "y"], rounds=1, tc="2+0.02", concurrency=2)  # 2 games, seats swapped
    run = wait_state(pair.daemon, run_id, {"finished", "cancelled"}, timeout=120)
    assert run["state"] == "finished" and run["games"] == 2
    terminations = pair.terminations(run_id)
    assert len(terminations) == 2 and not FORFEITS & set(terminations), terminations
    assert pair.drops() == 0


def test_a_cancelled_run_gives_its_remote_bots_back_ready_for_the_next(pair: Bots) -> None:
    drops = pair.drops()
    slow = pair.submit(engines=["x", "y"], rounds=1, tc="60+0", concurrency=1)  # alphabeta thinks ~3 s a turn
    wait_state(pair.daemon, slow, {"running"})
    time.sleep(1.5)  # into the first turn's search (nothing to await: the bot is thinking)
    assert pair.daemon.http.post(f"/api/runs/{slow}/cancel", headers=pair.auth).json()["state"] == "cancelled"
    after = pair.submit(engines=["x", "y"], rounds=1, tc="2+0.02", concurrency=1)
    run = wait_state(pair.daemon, after, {"finished", "cancelled"}, timeout=120)
    assert run["state"] == "finished" and run["games"] == 2
    terminations = pair.terminations(after)
    assert not FORFEITS & set(terminations), terminations
    assert pair.drops() == drops, {name: log.read_text() for name, log in pair.logs.items()}
    assert not [line for line in pair.daemon.lines if "bot disconnected" in line]
    assert pair.terminations(slow) == []  # the game cut short is not recorded


def test_the_ladder_with_two_remote_bots_and_a_run_beside_it_never_rules_a_busy_bot_disconnected(
    tmp_path: Path,
) -> None:
    bots = Bots(tmp_path, ("p", "q"), "--ladder", "--tc", "2+0.02", "--concurrency", "2")
    try:
        run_id = bots.submit(engines=["p", "q"], rounds=1, tc="2+0.02", concurrency=2)  # wants the ladder's bots too
        run = wait_state(bots.daemon, run_id, {"finished", "cancelled"}, timeout=120)
        assert run["state"] == "finished" and run["games"] == 2
        assert not FORFEITS & set(bots.terminations(run_id)), bots.terminations(run_id)
        deadline = time.monotonic() + 60
        while not (ladder := bots.terminations(1)):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert ladder and not FORFEITS & set(ladder), ladder
        assert bots.drops() == 0
    finally:
        bots.close()
