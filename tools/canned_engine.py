#!/usr/bin/env python3
"""A zero-work SEI engine for benchmarks: plays a fixed game script, instantly.

``canned_engine.py SCRIPT [sleep_ms | fair=F]``: SCRIPT is a file of canonical STN turns, one game
from the start position.  At ``go`` it answers the turn whose index is the number of moves in the
last ``position`` command, so both seats of any game follow the same script.  With
``sleep_ms`` it sleeps that long first and reports the time it really spent, in microseconds,
as ``info nodes`` (for clock-accuracy measurements).  With ``fair=0.95`` it uses 95% of its
fair share of the clock each turn: (its clock + the increments still to come) / its turns left,
timed from the moment it read ``go`` (for the spurious-time-forfeit benchmark).  Stdlib only:
starts in milliseconds.
"""

import sys
import time


def main() -> None:
    with open(sys.argv[1]) as f:
        script = f.read().split()
    arg = sys.argv[2] if len(sys.argv) > 2 else "0"
    fair = float(arg[5:]) if arg.startswith("fair=") else 0.0
    sleep = 0.0 if fair else float(arg) / 1000
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
            if fair:
                words = line.split()
                me = "p1" if moves % 2 == 0 else "p2"
                clock = int(words[words.index(me + "time") + 1]) / 1000
                inc = int(words[words.index(me + "inc") + 1]) / 1000
                left = max(1, (len(script) - moves + 1) // 2)
                # what it may spend over its remaining turns is its clock plus the increments still
                # to come (one fewer than its turns left: the last turn gets none in time)
                target = fair * (clock + inc * (left - 1)) / left
                while time.perf_counter() - start < target:
                    time.sleep(max(0.0, min(0.002, target - (time.perf_counter() - start))))
                out.write(f"bestmove {script[moves]}\n")
            elif sleep:
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
