#!/usr/bin/env python3
"""The ladder at full tilt: spurious time forfeits of instant remote bots.

    python tools/bench_ladder.py [--games 1000] [--concurrency 32] [--tc 5+0.05] [--bots 64]

Starts ``santorini serve --ladder --tc TC --concurrency N`` on a fresh data directory with
``--bots`` remote bots (twice the concurrency by default: each bot plays one ladder game at a
time), all connected over TCP from one process, ``tools/remote_bots.py``: an in-process trio
client per bot that answers every ``go`` at once with the canned game's turn (no engine process,
so the machine's CPU goes to the daemon).  Runs until ``--games`` ladder games are indexed, then
counts their terminations from the database.  The bots answer instantly, so every ``time``
termination is spurious: the referee's own delay counted against a bot (target: 0 in 1,000
games at 32 concurrent games on two cores).  Also prints the games' rate and the per-turn time
the records show (the referee's stopwatch: writing ``go`` to reading ``bestmove``).
"""

from __future__ import annotations

import argparse
import collections
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_referee
import httpx
from bench_serve import CLI, REMOTE_BOTS, free_port, stop

from santorini_server.records import read_archive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--tc", default="5+0.05")
    parser.add_argument("--bots", type=int, default=0, help="remote bots (default: twice the concurrency)")
    args = parser.parse_args()
    count = args.bots or 2 * args.concurrency
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        script = Path(tmp) / "game.txt"
        turns = bench_referee.make_script(script)
        names = [f"bot{i:03d}" for i in range(count)]
        for name in names:
            subprocess.run(
                [*CLI, "bot", "add", name, "--remote", "--token-file", str(Path(tmp) / f"{name}.token"), "--data", str(data)],
                check=True, capture_output=True,
            )
        port, bot_port = free_port(), free_port()
        log = open(Path(tmp) / "serve.log", "wb")  # noqa: SIM115 (closed below, after the daemon)
        daemon = subprocess.Popen(
            [*CLI, "serve", "--data", str(data), "--http", f"127.0.0.1:{port}", "--bots", f"127.0.0.1:{bot_port}",
             "--ladder", "--tc", args.tc, "--concurrency", str(args.concurrency), "--drain-timeout", "5"],
            stderr=log,
        )
        bots = subprocess.Popen([sys.executable, str(REMOTE_BOTS), f"tcp://127.0.0.1:{bot_port}", str(script), tmp, *names])
        db = data / "santorini.db"
        try:
            client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
            deadline = time.monotonic() + 120
            while True:
                try:
                    if sum(bool(bot["connected"]) for bot in client.get("/api/bots").json()) == count:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or daemon.poll() is not None:
                    raise SystemExit("the bots did not all connect")
                time.sleep(0.2)
            begun = time.monotonic()
            played = 0
            while played < args.games:
                assert daemon.poll() is None, "the daemon died"
                time.sleep(1)
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
                    played = conn.execute("SELECT count(*) FROM games").fetchone()[0]
                print(f"\r{played} games in {time.monotonic() - begun:.0f} s", end="", file=sys.stderr, flush=True)
            took = time.monotonic() - begun
            print(file=sys.stderr)
        finally:
            stop(daemon)
            bots.send_signal(signal.SIGTERM)
            bots.wait(30)
            log.close()
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT termination, run_id FROM games ORDER BY id").fetchall()
        kinds = collections.Counter(termination for termination, _ in rows)
        records, _ = read_archive(data / "runs" / str(rows[0][1]) / "games.msgpack")
        times = [t.time_ms for r in records for t in r.turns if t.time_ms is not None]
        forfeits = [r.termination_detail for r in records if r.termination == "time"]
        print(
            f"ladder at {args.tc}, {args.concurrency} games at once, {count} instant remote bots (one process, over TCP): "
            f"{len(rows)} games of {turns} turns in {took:.0f} s ({len(rows) / took:.1f} games/s)"
        )
        print(f"  terminations {dict(kinds)}; spurious time forfeits {kinds.get('time', 0)}"
              + (f" ({'; '.join(str(f) for f in forfeits[:5])})" if forfeits else ""))
        times.sort()
        print(f"  turn time as recorded (ms): median {statistics.median(times):.0f}, p99 {times[int(len(times) * 0.99)]}, "
              f"max {times[-1]} ({len(times)} turns)")


if __name__ == "__main__":
    main()
