"""A real ``santorini serve`` under attack: the daemon, a match of two remote bots in flight, and the
checks that every attack must leave true (SPEC.md section 16.6).

:class:`Siege` starts the daemon on loopback (through the CLI, as an operator does) with two remote
bots, ``h1`` and ``h2``, each a ``santorini connect`` bridge running ``steady_engine.py`` (a random
turn every 20 ms), playing a long match at a generous time control: the games the daemon referees
in its own loop, the ones an attack on that loop would hurt first.  A third remote bot, ``legit``,
is never connected by a bridge: an attack logs it in from ``127.0.0.1`` while it floods from other
loopback addresses, to show that a real bot still gets in.  :meth:`Siege.health` is what must hold
after each attack: the process lives, ``GET /api/bots`` answers within 100 ms, the match goes on
(a game ends after the attack), and the daemon's memory is back within a bound of its level
before.  :meth:`Siege.close` drains the daemon and checks that it exits 0, that no game was lost
to time (nor to anything but the board), and that no process is left.

The tests (``tests/hostile_clients/test_*.py``) and the benchmark (``tools/bench_hostile.py``) use
the same siege, at different scales.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from santorini_server.records import read_archive
from santorini_server.tournament.output import ARCHIVE
from tests.test_server_serve import CLI, Daemon, alive, child_pids, santorini

__all__ = ["Siege", "Health", "rss_mb", "MATCH_RUN", "LOOPBACK_ATTACKERS"]

MATCH_RUN = 1
"""The run id of the match in flight (the first run the daemon is given)."""
LOOPBACK_ATTACKERS = "127.0.0.{}"
"""Attackers' source addresses (``{}`` from 2 up): never 127.0.0.1, which the health checks, the
bridges and the ``legit`` bot use, so that no per-address bound or back-off of an attack falls on them."""
STEADY = f"cmd={sys.executable} arg={Path(__file__).with_name('steady_engine.py')}"
"""The bridges' engine: a random turn every 20 ms (a game a second or so)."""
API_TIMEOUT = 0.1
"""``GET /api/bots`` must be answered within this many seconds after every attack."""


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (the kernel's ``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise OSError(f"no VmRSS for {pid}")


def _descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        children = child_pids(frontier.pop())
        found += children
        frontier += children
    return found


@dataclass
class Health:
    """What :meth:`Siege.health` saw after an attack."""

    api_ms: float
    """The best of five ``GET /api/bots`` round trips, in ms."""
    games_before: int
    games_after: int
    rss_before: float
    rss_after: float


@dataclass
class Siege:
    """The daemon under attack, its bridges, and what the attacks need to know of them."""

    data: Path
    daemon: Daemon
    bridges: list[subprocess.Popen[str]]
    tokens: dict[str, str]
    admin: str
    rss_start: float = 0.0
    health_log: list[tuple[str, Health]] = field(default_factory=list)

    @classmethod
    def start(cls, tmp: Path, *extra: str, tc: str = "60+1") -> Siege:
        """Register the bots, start the daemon and the bridges, and submit the match in flight."""
        data = tmp / "data"
        tokens = {}
        for name in ("h1", "h2", "legit"):
            tokens[name] = santorini("bot", "add", name, "--remote", data=data).stdout.strip()
            (tmp / f"{name}.token").write_text(tokens[name] + "\n")
        daemon = Daemon(data, *extra)
        bridges = [
            subprocess.Popen(
                [*CLI, "connect", f"tcp://127.0.0.1:{daemon.bot_port}", "--bot", name, "--token-file", str(tmp / f"{name}.token"),
                 STEADY],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
            )
            for name in ("h1", "h2")
        ]
        siege = cls(data, daemon, bridges, tokens, (data / "admin.token").read_text().strip())
        try:
            deadline = time.monotonic() + 30
            while not all(bot["connected"] for bot in siege.http.get("/api/bots").json() if bot["name"] in ("h1", "h2")):
                assert time.monotonic() < deadline, "the bridges did not log in"
                time.sleep(0.1)
            answer = siege.http.post(
                "/api/runs", json={"engines": ["h1", "h2"], "rounds": 1000, "tc": tc, "event": "under siege"},
                headers={"Authorization": f"Bearer {siege.admin}"},
            )
            assert answer.status_code == 201 and answer.json()["id"] == MATCH_RUN, answer.text
            siege.wait_games(2)
            for path in ("/", "/live", f"/runs/{MATCH_RUN}", "/bots/h1", "/api/runs", f"/api/runs/{MATCH_RUN}"):
                siege.http.get(path)  # the dashboard's modules and first counts are in before the baseline
            siege.rss_start = rss_mb(daemon.process.pid)
        except BaseException:
            siege.kill()
            raise
        return siege

    @property
    def http(self) -> httpx.Client:
        return self.daemon.http

    @property
    def pid(self) -> int:
        return self.daemon.process.pid

    @property
    def http_address(self) -> tuple[str, int]:
        host, _, port = self.daemon.url.removeprefix("http://").rpartition(":")
        return host, int(port)

    @property
    def bot_address(self) -> tuple[str, int]:
        return "127.0.0.1", self.daemon.bot_port

    def games(self) -> int:
        return int(self.http.get(f"/api/runs/{MATCH_RUN}").json()["games"])

    def wait_games(self, count: int, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while (played := self.games()) < count:
            assert time.monotonic() < deadline, f"the match in flight stalled at {played} games (waiting for {count})"
            assert self.daemon.process.poll() is None, self.log_tail()
            time.sleep(0.1)
        return played

    def rss(self) -> float:
        return rss_mb(self.pid)

    def log_tail(self, lines: int = 20) -> str:
        return "".join(self.daemon.lines[-lines:])

    def api_ms(self) -> float:
        """The best of five ``GET /api/bots``, each on a new connection (as a new client would come)."""
        best = float("inf")
        for _ in range(5):
            with httpx.Client(base_url=self.daemon.url, timeout=10) as client:
                started = time.perf_counter()
                answer = client.get("/api/bots")
                best = min(best, time.perf_counter() - started)
                assert answer.status_code == 200, answer.text
        return best * 1000

    def health(self, attack: str, rss_before: float, rss_slack: float = 10.0, settle: float = 10.0) -> Health:
        """What every attack must leave true; asserted here, and kept for the benchmark's table."""
        assert self.daemon.process.poll() is None, f"the daemon died under {attack}:\n{self.log_tail()}"
        api = self.api_ms()
        assert api <= API_TIMEOUT * 1000, f"after {attack}, GET /api/bots took {api:.1f} ms at best"
        before = self.games()
        after = self.wait_games(before + 1)
        deadline = time.monotonic() + settle
        while (rss := self.rss()) > rss_before + rss_slack and time.monotonic() < deadline:
            time.sleep(0.25)  # closed connections' buffers are freed as their tasks end
        assert rss <= rss_before + rss_slack, f"after {attack} the daemon holds {rss:.1f} MB, {rss_before:.1f} MB before"
        health = Health(api, before, after, rss_before, rss)
        self.health_log.append((attack, health))
        return health

    def terminations(self) -> dict[str, int]:
        with sqlite3.connect(self.data / "santorini.db") as conn:
            rows = conn.execute("SELECT termination, count(*) FROM games WHERE run_id = ? GROUP BY termination", (MATCH_RUN,))
            return dict(rows.fetchall())

    def unusual_endings(self) -> list[str]:
        """The match's games that did not end on the board (a crash, a forfeit...), with their details."""
        records, _ = read_archive(self.data / "runs" / str(MATCH_RUN) / ARCHIVE)
        return [
            f"game {r.game_number}: {r.termination} ({r.tag('TerminationDetail')})"
            for r in records
            if r.termination not in ("climb", "no-moves")
        ]

    def close(self) -> dict[str, int]:
        """Drain the daemon (its game in flight ends first), then stop the bridges; the daemon must
        exit 0, have lost no game to time, and leave no process."""
        status = self.daemon.stop()
        assert status == 0, f"the daemon exited {status}:\n{self.log_tail()}"
        assert not _descendants(self.pid)
        leftovers = {bridge.pid: _descendants(bridge.pid) for bridge in self.bridges}
        for bridge in self.bridges:
            if bridge.poll() is None:
                bridge.send_signal(signal.SIGINT)
        for bridge in self.bridges:
            bridge.wait(30)
        time.sleep(0.2)
        alive = [pid for pids in leftovers.values() for pid in pids if alive(pid)]
        assert not alive, f"processes left behind: {alive}"
        ended = self.terminations()
        assert "time" not in ended, f"a game in flight lost on time: {ended}; {self.unusual_endings()}"
        assert not self.unusual_endings(), f"games in flight did not end on the board: {self.unusual_endings()}"
        return ended

    def kill(self) -> None:
        for bridge in self.bridges:
            if bridge.poll() is None:
                os.killpg(bridge.pid, signal.SIGKILL)
                bridge.wait()
        if self.daemon.process.poll() is None:
            self.daemon.process.kill()
            self.daemon.process.wait()

