#!/usr/bin/env python3
"""A zero-work SEI engine for benchmarks: plays a fixed game script, instantly.

``canned_engine.py SCRIPT [sleep_ms]``: SCRIPT is a file of canonical STN turns, one game from
the start position.  At ``go`` it answers the turn whose index is the number of moves in the
last ``position`` command, so both seats of any game follow the same script.  With
``sleep_ms`` it sleeps that long first and reports the time it really spent, in microseconds,
as ``info nodes`` (for clock-accuracy measurements).  Stdlib only: starts in milliseconds.
"""

import sys
import time


def main() -> None:
    script = open(sys.argv[1]).read().split()
    sleep = float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0.0
    moves = 0
    out = sys.stdout
    read = sys.stdin.readline
    while True:
        line = read()
        if not line:
            return
        if line.startswith("position"):
            words = line.split()
            moves = len(words) - 3 if "moves" in words else 0
        elif line.startswith("go"):
            start = time.perf_counter()
            if sleep:
                time.sleep(sleep)
                spent = int((time.perf_counter() - start) * 1e6)
                out.write(f"info nodes {spent}\nbestmove {script[moves]}\n")
            else:
                out.write(f"bestmove {script[moves]}\n")
            out.flush()
        elif line.startswith("isready"):
            out.write("readyok\n")
            out.flush()
        elif line.startswith("sei"):
            out.write("id name canned\nseiok 1\n")
            out.flush()
        elif line.startswith("quit"):
            return


if __name__ == "__main__":
    main()
