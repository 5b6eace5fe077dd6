"""``santorini serve``: start to accepting connections, and the job API's latency while games run.

    python tools/bench_serve.py [--starts 5] [--games 16] [--requests 500]

1. Starts the daemon ``--starts`` times (a fresh data directory each time) and times exec to the
   first accepted HTTP connection: the issue's target is under 1 s.
2. Registers ``2 x --games`` local ``random`` bots, submits a tournament of them with
   ``concurrency = --games`` (so that many games run at once), and times ``--requests`` sequential
   ``GET /api/runs/1`` and ``GET /api/bots`` while they play: the target is a p99 under 50 ms.
"""

from __future__ import annotations

import argparse
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

CLI = [sys.executable, "-m", "santorini_server.cli"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(data: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    begun = time.perf_counter()
    process = subprocess.Popen(
        [*CLI, "serve", "--data", str(data), "--http", f"127.0.0.1:{port}", "--bots", "127.0.0.1:0", "--drain-timeout", "1"],
        stderr=subprocess.DEVNULL,
    )
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, time.perf_counter() - begun
        except OSError:
            time.sleep(0.002)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        starts = []
        for i in range(args.starts):
            process, took = start(Path(tmp) / f"start{i}", free_port())
            starts.append(took)
            stop(process)
        print(f"exec to accepting HTTP: median {statistics.median(starts):.3f} s, max {max(starts):.3f} s ({args.starts} starts)")

        data = Path(tmp) / "data"
        names = [f"r{i}" for i in range(2 * args.games)]
        for name in names:
            subprocess.run([*CLI, "bot", "add", name, "--local", "random", "--data", str(data)], check=True, capture_output=True)
        port = free_port()
        process, _ = start(data, port)
        try:
            token = (data / "admin.token").read_text().strip()
            client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
            settings = {"engines": names, "tc": "10+0.1", "concurrency": args.games, "rounds": 1}
            assert client.post("/api/runs", json=settings, headers={"Authorization": f"Bearer {token}"}).status_code == 201
            while client.get("/api/runs/1").json()["state"] != "running":
                time.sleep(0.05)
            time.sleep(2)  # the workers have started their engines
            latencies = []
            for i in range(args.requests):
                begun = time.perf_counter()
                answer = client.get("/api/bots" if i % 2 else "/api/runs/1")
                latencies.append(time.perf_counter() - begun)
                assert answer.status_code == 200
            run = client.get("/api/runs/1").json()
            latencies.sort()
            p99 = latencies[int(len(latencies) * 0.99) - 1]
            print(
                f"API while up to {args.games} games run ({run['games']} of {run['total']} played meanwhile): "
                f"p50 {statistics.median(latencies) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms"
            )
        finally:
            stop(process)


if __name__ == "__main__":
    main()
