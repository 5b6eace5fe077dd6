#!/usr/bin/env python3
"""Spurious time forfeits: engines that use 95% of their fair share of the clock must never lose
on time.

Each engine (``tools/canned_engine.py ... fair=0.95``) spends, every turn, 95% of its fair share
((its clock + the increments still to come) / its turns left), measured from the moment it read
``go``, so even its last turn leaves it 5% of a share.  Any time loss is the referee's fault (measurement, scheduling).  Runs the
games through the real tournament runner at each concurrency and counts forfeits.

Target (issue 5): 0 time forfeits in 1,000 games at --tc 1+0.01, at concurrency 2 and 8 on two
cores.

    python tools/bench_time_forfeits.py [--games 1000] [--concurrency 2 8] [--tc 1+0.01]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import bench_referee
import trio

from santorini_server.records import read_archive
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.pool import default_processes, local_backend
from santorini_server.tournament.runner import run_tournament

CANNED = Path(__file__).resolve().parent / "canned_engine.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--tc", default="1+0.01")
    parser.add_argument("--fair", default="0.95")
    parser.add_argument("--backend", choices=["processes", "local"], default="processes",
                        help="processes: referee processes as the CLI chooses them (default); local: one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "game.txt"
        turns = bench_referee.make_script(script)
        engine = f"cmd={sys.executable} arg=-S arg={CANNED} arg={script} arg=fair={args.fair}"
        for concurrency in args.concurrency:
            settings = Settings(
                engines=[engine + " name=A", engine + " name=B"], games=args.games, tc=args.tc,
                concurrency=concurrency, rating_interval=10**6,
            )
            config = TournamentConfig.from_settings(settings)
            files = TournamentFiles(Path(tmp) / f"c{concurrency}")
            start = time.monotonic()
            processes = default_processes(concurrency) if args.backend == "processes" else 1
            backend = local_backend(config, processes)
            trio.run(partial(run_tournament, config, files, backend=backend, emit=lambda line: None))
            files.close()
            records = read_archive(Path(tmp) / f"c{concurrency}" / "games.msgpack")[0]
            tags = collections.Counter(r.termination for r in records)
            forfeits = [r.termination_detail for r in records if r.termination == "time"]
            referees = f"{processes} referee process{'es' if processes > 1 else ''}"
            print(f"concurrency {concurrency} ({referees}): {len(records)} games of {turns} turns at {args.tc} in "
                  f"{time.monotonic() - start:.0f} s; terminations {dict(tags)}; time forfeits {len(forfeits)}"
                  + (f" ({', '.join(forfeits[:5])})" if forfeits else ""))


if __name__ == "__main__":
    main()
