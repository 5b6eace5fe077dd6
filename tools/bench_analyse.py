#!/usr/bin/env python3
"""``santorini analyse`` with ``--jobs 1`` and ``--jobs 2``: wall time, games per second, the ratio.

Issue 31's target: analysing 1,000 games at depth 3 with the bundled alphabeta, two jobs are at
least 1.7x faster than one on two cores.  The games are played first (``santorini match greedy
random --tc depth=1``, seats alternating); each run analyses all of them into a fresh file, the
runs alternate (1, 2, 1, 2, ...) so a change in the machine's load hits both, and the two outputs
must be the same games (analysis at a fixed depth is deterministic).  ``tools/machine_ceiling.py``
says how much faster two busy processes can run at once on this machine at all.

    python tools/bench_analyse.py [--games 1000] [--depth 3] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cli(*args: str | Path) -> float:
    """Run ``santorini ARGS``; its wall time (it must succeed)."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "santorini_server.cli", *map(str, args)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"santorini {' '.join(map(str, args))} failed: {result.stderr.strip()[-400:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each --jobs value (alternating)")
    parser.add_argument("--engine", default="alphabeta")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        games = Path(tmp) / "games.sgn"
        played = cli("match", "greedy", "random", "-n", str(args.games), "--tc", "depth=1", "--out", games)
        turns = games.read_text().count("}")  # one comment per turn (the engines' telemetry)
        print(f"{args.games} games ({turns} turns) played in {played:.0f} s; analysing at depth {args.depth} "
              f"with {args.engine}; {os.cpu_count()} CPUs")
        walls: dict[int, list[float]] = {1: [], 2: []}
        outputs: dict[int, str] = {}
        for r in range(args.repeat):
            for jobs in (1, 2):
                out = Path(tmp) / f"analysed-{jobs}-{r}.sgn"
                wall = cli("analyse", games, "--engine", args.engine, "--depth", str(args.depth), "--jobs", str(jobs),
                           "--out", out)
                walls[jobs].append(wall)
                outputs[jobs] = out.read_text()
                print(f"  --jobs {jobs}: {wall:7.1f} s  ({args.games / wall:.2f} games/s, {turns / wall:.1f} turns/s)")
        if outputs[1] != outputs[2]:
            raise SystemExit("the two analyses differ")
        one, two = statistics.median(walls[1]), statistics.median(walls[2])
        print(f"median --jobs 1 {one:.1f} s, --jobs 2 {two:.1f} s: 2 jobs are {one / two:.2f}x faster (target >= 1.7x)")


if __name__ == "__main__":
    main()
