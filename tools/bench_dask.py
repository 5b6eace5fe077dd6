#!/usr/bin/env python3
"""Benchmark the Dask backend's cost per game against the local backend, on this machine.

Plays the same tournament of short games (two instant engines, ``tests/gallery/instant.py``) on
the local backend and on the Dask backend without an address (a LocalCluster of ``--concurrency``
worker processes), interleaved ``--repeat`` times, and prints the wall time per game of each, the
Dask overhead per game (dask - local, cluster start-up excluded) and the cluster's start-up time.
Targets (issue 6): overhead under 2 ms per game for 200 short games; start-up under 1 s.

    python tools/bench_dask.py [--games 200] [--concurrency 2] [--repeat 3]

Run it from the repository root (the instant engine is ``python -m tests.gallery.instant``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

from santorini_server.backends.dask_backend import DaskBackend
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.runner import Backend, LocalBackend, run_tournament


def run(config: TournamentConfig, backend: Backend) -> float:
    """Seconds to play the whole tournament (for Dask: including start-up and close)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = TournamentFiles(Path(tmp))
        try:
            t0 = time.perf_counter()
            result = trio.run(lambda: run_tournament(config, files, backend=backend, emit=lambda line: None))
            elapsed = time.perf_counter() - t0
        finally:
            files.close()
    if result.played != len(config.schedule) or result.lost:
        raise SystemExit(f"bench: only {result.played} of {len(config.schedule)} games played ({len(result.lost)} lost)")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spec = f"cmd={sys.executable} arg=-m arg=tests.gallery.instant name="
    settings = Settings(engines=[spec + "A", spec + "B"], games=args.games, tc="10+0.1",
                        concurrency=args.concurrency, rating_interval=10**9)
    config = TournamentConfig.from_settings(settings)
    local, dask_play, startup, close = [], [], [], []
    for _ in range(args.repeat):
        local.append(run(config, LocalBackend(config)))
        backend = DaskBackend(config)
        total = run(config, backend)
        assert backend.startup_seconds is not None
        assert backend.close_seconds is not None
        startup.append(backend.startup_seconds)
        close.append(backend.close_seconds)
        dask_play.append(total - backend.startup_seconds - backend.close_seconds)
    n = args.games
    lo, da = statistics.median(local), statistics.median(dask_play)
    runs = lambda values: ", ".join(f"{v:.2f}" for v in values)  # noqa: E731
    print(f"{n} games of two instant engines, concurrency {args.concurrency}, {args.repeat} interleaved runs (medians)")
    print(f"local backend : {lo:7.3f} s  = {lo / n * 1000:6.2f} ms/game")
    print(f"dask backend  : {da:7.3f} s  = {da / n * 1000:6.2f} ms/game (cluster start-up and close excluded)")
    print(f"overhead      : {(da - lo) / n * 1000:+6.2f} ms/game (dask - local)   target < 2 ms")
    print(f"cluster start : {startup[0]:7.3f} s cold "
          f"(first run; later runs reuse this process's forkserver: {runs(startup[1:])})   target < 1 s")
    print(f"cluster close : {statistics.median(close):7.3f} s (runs: {runs(close)})")


if __name__ == "__main__":
    main()
