#!/usr/bin/env python3
"""The SEI codec's per-turn work, in nanoseconds: what the referee does with it every turn.

Every turn the referee builds a ``go``, has the connection encode ``position`` and ``go`` (state
machine and writer), then feeds it the engine's ``bestmove`` line and reads the event back.  This
times those steps on their own, without processes or trio, so a change to the codec shows up here
in tens of nanoseconds where ``ab_referee.py`` sees microseconds of noise.  Each figure is the
best of ``--repeat`` runs of ``--number`` loops (the minimum is the least disturbed by the other
users of a shared machine), for two-seat messages and, when the codec has them, four-seat ones.
Timings on a shared machine move by 10-50%; ``--instructions`` counts CPU instructions per step
instead (valgrind's callgrind over this script running one step 2,000 and 12,000 times: the
difference over 10,000), which repeats within a few instructions.

    python tools/bench_sei.py [--number 20000] [--repeat 15]
    python tools/bench_sei.py --root /path/to/other/checkout      # the same figures for another version
    python tools/bench_sei.py --instructions [--root ...] [--only turn]   # needs valgrind
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any


def cases(sei: Any) -> dict[str, Callable[[], object]]:
    """The timed steps, named; each a zero-argument callable."""
    position = sei.PositionCommand.unchecked(None, ("b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5"))
    conn = sei.SeiConnection()
    conn.send(sei.Sei(version=1))
    conn.receive_data(b"seiok 1\n")
    conn.next_event()
    conn.send(sei.NewGame(gods=("apollo", "pan")))
    reply = b"bestmove b4-b5+a5\n"

    def go2() -> object:
        return sei.Go(p1time=41230, p2time=39870, p1inc=1000, p2inc=1000)

    go = go2()

    def turn2() -> object:
        # the referee's turn: encode position+go, then read the one bestmove
        data = conn.send(position) + conn.send(go)
        conn.receive_data(reply)
        conn.next_event()
        return data

    def result2() -> object:
        return sei.Result(result="1-0", reason="climb")

    steps: dict[str, Callable[[], object]] = {
        "Go(...) 2 seats": go2,
        "turn 2 seats (send position+go, read bestmove)": turn2,
        "Result 1-0 build": result2,
        "NewGame 2 gods build+write": lambda: conn.send(sei.NewGame(gods=("apollo", "pan"))),
    }
    try:
        sei.Go(p3time=1)
    except TypeError:
        return steps  # a codec from before N seats
    conn4 = sei.SeiConnection()
    conn4.send(sei.Sei(version=1))
    conn4.receive_data(b"seiok 1\n")
    conn4.next_event()
    conn4.send(sei.NewGame(gods=("apollo", "minotaur", "pan", "athena")))

    def go4() -> object:
        return sei.Go(
            p1time=41230, p2time=39870, p3time=40000, p4time=38000, p1inc=1000, p2inc=1000, p3inc=1000, p4inc=1000
        )

    go_4 = go4()

    def turn4() -> object:
        data = conn4.send(position) + conn4.send(go_4)
        conn4.receive_data(reply)
        conn4.next_event()
        return data

    steps["Go(...) 4 seats"] = go4
    steps["turn 4 seats (send position+go, read bestmove)"] = turn4
    steps["Result 2-1-2-1 build"] = lambda: sei.Result(placings=(2, 1, 2, 1), reason="climb")
    return steps


_SMALL, _LARGE = 2000, 12000


def instructions(root: str | None, index: int, loops: int) -> int:
    """Instructions this script executes to run step ``index`` ``loops`` times (callgrind)."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__]
    command += ["--run", str(index), str(loops)] + (["--root", root] if root else [])
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    return int(re.findall(r"Collected : (\d+)", proc.stderr)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--root", help="import santorini_server from this checkout instead")
    parser.add_argument("--instructions", action="store_true", help="count instructions per step (callgrind)")
    parser.add_argument("--only", default="", help="time only the steps whose name contains this text")
    parser.add_argument("--run", nargs=2, type=int, metavar=("STEP", "LOOPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.root:
        sys.path.insert(0, args.root)
    import santorini_server.sei as sei

    steps = cases(sei)
    if args.run:
        step = list(steps.values())[args.run[0]]
        for _ in range(args.run[1]):
            step()
        return
    print(f"codec: {sei.__file__}")
    for index, (name, step) in enumerate(steps.items()):
        if args.only not in name:
            continue
        if args.instructions:
            per = (instructions(args.root, index, _LARGE) - instructions(args.root, index, _SMALL)) / (_LARGE - _SMALL)
            print(f"{per:8.0f} instructions  {name}")
        else:
            best = min(timeit.repeat(step, number=args.number, repeat=args.repeat)) / args.number
            print(f"{best * 1e9:8.0f} ns  {name}")


if __name__ == "__main__":
    main()
