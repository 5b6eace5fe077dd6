"""``santorini serve``: start to accepting connections, and the job API's latency while games run.

    python tools/bench_serve.py [--starts 5] [--games 16] [--requests 500] [--engine remote|canned|random] [--think-ms 50]

1. Starts the daemon ``--starts`` times (a fresh data directory each time) and times exec to the
   first accepted HTTP connection: the issue's target is under 1 s.
2. Registers ``2 x --games`` local bots, submits a tournament of them with
   ``concurrency = --games`` (so that many games run at once), and times ``--requests`` sequential
   requests while they play, in turn ``GET /api/runs``, ``/api/runs/1``, ``/api/bots`` and
   ``/api/games/ID`` (the run's latest game): the target is a p99 under 50 ms.  Prints each
   path's p50/p99 and all of them together; then cancels the run and times the same requests
   with no game running, the machine's own noise for comparison.  The bots (``--engine``): ``canned`` (default), the
   stdlib-only canned engine thinking ``--think-ms`` per turn, so that 16 games are in flight with
   little engine CPU; ``random``, the bundled Python engine, which also costs a Python start per
   engine per game (a CPU-bound machine); ``remote`` (default), remote bots over TCP, all in one
   process (``tools/remote_bots.py``), answering the same canned game after ``--think-ms``: no
   engine process at all, so the figures are the daemon's own.  A remote bot plays one game at a
   time and the round robin's schedule meets the same bot in its first games, so remote bots keep
   fewer games in flight than ``--games``; ``--ladder`` runs the ladder instead (``--games`` at
   once, always), its run 1 then being the ladder's.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_referee
import httpx
from canned import CANNED

CLI = [sys.executable, "-m", "santorini_server.cli"]
REMOTE_BOTS = Path(__file__).resolve().parent / "remote_bots.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(data: Path, port: int, bot_port: int = 0, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen[bytes], float]:
    begun = time.perf_counter()
    addresses = ["--http", f"127.0.0.1:{port}", "--bots", f"127.0.0.1:{bot_port}"]
    process = subprocess.Popen(
        [*CLI, "serve", "--data", str(data), *addresses, "--drain-timeout", "1", *extra],
        stderr=subprocess.DEVNULL,
    )
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, time.perf_counter() - begun
        except OSError:
            time.sleep(0.002)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (on a loaded machine, less noisy than wall time)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(60)


PATHS = ["/api/runs", "/api/runs/1", "/api/bots", "/api/games/"]


def timed_requests(client: httpx.Client, count: int) -> dict[str, list[float]]:
    """``count`` sequential GETs, in turn of each path of :data:`PATHS` (the game: run 1's latest)."""
    latencies: dict[str, list[float]] = {path: [] for path in PATHS}
    game = client.get("/api/runs/1").json()["game_ids"][-1]
    for i in range(count):
        path = PATHS[i % len(PATHS)]
        begun = time.perf_counter()
        answer = client.get(path + str(game) if path.endswith("/") else path)
        latencies[path].append(time.perf_counter() - begun)
        assert answer.status_code == 200, answer.text
        if path == "/api/runs/1":
            game = answer.json()["game_ids"][-1]
    return latencies


def report(title: str, latencies: dict[str, list[float]]) -> None:
    print(title)
    for path, times in [*latencies.items(), ("all", [t for each in latencies.values() for t in each])]:
        times.sort()
        p99 = times[max(0, int(len(times) * 0.99) - 1)]
        print(
            f"  {path + 'ID' if path.endswith('/') else path:14} p50 {statistics.median(times) * 1000:6.1f} ms, "
            f"p99 {p99 * 1000:6.1f} ms, max {times[-1] * 1000:6.1f} ms ({len(times)} requests)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--engine", choices=["remote", "canned", "random"], default="remote")
    parser.add_argument("--think-ms", type=int, default=50)
    parser.add_argument("--ladder", action="store_true",
                        help="the games are the ladder's (--games at once, remote bots: always that many in flight)")
    parser.add_argument("--py-spy", metavar="FILE", help="profile the daemon with py-spy (raw format) while the requests run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        starts, cpus = [], []
        for i in range(args.starts):
            process, took = start(Path(tmp) / f"start{i}", free_port())
            cpus.append(cpu_seconds(process.pid))
            starts.append(took)
            stop(process)
        print(f"exec to accepting HTTP: median {statistics.median(starts):.3f} s, max {max(starts):.3f} s; "
              f"CPU used by then: median {statistics.median(cpus):.3f} s ({args.starts} starts)")

        data = Path(tmp) / "data"
        names = [f"r{i}" for i in range(2 * args.games)]
        script = Path(tmp) / "game.txt"
        bench_referee.make_script(script)
        engine = ["--local", "random"]
        if args.engine == "canned":
            engine = ["--local", f"cmd={sys.executable} arg=-S arg={CANNED} arg={script} arg={args.think_ms}"]
        for name in names:
            if args.engine == "remote":
                engine = ["--remote", "--token-file", str(Path(tmp) / f"{name}.token")]
            subprocess.run([*CLI, "bot", "add", name, *engine, "--data", str(data)], check=True, capture_output=True)
        port, bot_port = free_port(), free_port()
        ladder = ("--ladder", "--concurrency", str(args.games), "--tc", "60+0.1") if args.ladder else ()
        process, _ = start(data, port, bot_port, ladder)
        bots = None
        if args.engine == "remote":
            bots = subprocess.Popen(
                [sys.executable, str(REMOTE_BOTS), f"tcp://127.0.0.1:{bot_port}", str(script), tmp, *names,
                 "--think-ms", str(args.think_ms)]
            )
        try:
            token = (data / "admin.token").read_text().strip()
            client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
            while bots is not None and not all(bot["connected"] for bot in client.get("/api/bots").json()):
                time.sleep(0.1)
            if not args.ladder:
                settings = {"engines": names, "tc": "10+0.1", "concurrency": args.games, "rounds": 1}
                assert client.post("/api/runs", json=settings, headers={"Authorization": f"Bearer {token}"}).status_code == 201
            while client.get("/api/runs/1").json()["state"] != "running":
                time.sleep(0.05)
            time.sleep(2)  # the workers have started their engines
            while not client.get("/api/runs/1").json()["game_ids"]:
                time.sleep(0.05)
            spy = None
            if args.py_spy:
                spy = subprocess.Popen(["py-spy", "record", "-p", str(process.pid), "-f", "raw", "-o", args.py_spy])
            latencies = timed_requests(client, args.requests)
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                spy.wait(30)
            run = client.get("/api/runs/1").json()
            report(f"API while up to {args.games} games run ({run['games']} of {run['total']} played by the end):", latencies)
            if args.ladder and bots is not None:  # the bots leave: the ladder's games end
                stop(bots)
                bots = None
                time.sleep(2)
            else:
                client.post(f"/api/runs/{run['id']}/cancel", headers={"Authorization": f"Bearer {token}"})
                while client.get("/api/runs/1").json()["state"] != "cancelled":
                    time.sleep(0.05)
            report("The same requests with no game running (the machine's own noise):", timed_requests(client, args.requests))
        finally:
            stop(process)
            if bots is not None:
                stop(bots)


if __name__ == "__main__":
    main()
