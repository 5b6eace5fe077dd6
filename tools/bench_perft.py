#!/usr/bin/env python3
"""Benchmark the rules core: perft throughput and the cost of validating one submitted turn.

Prints, for the base-game positions of SPEC.md section 3.4 and three- and four-seat positions,
perft leaves per second (median of ``--repeat`` runs), and the median microseconds of
``Position.play`` on canonical and non-canonical turns.  Targets: perft 4 of the cross position
in < 10 s on one core; validating a base turn < 20 us median; three- and four-seat perft at least
half the two-seat leaves per second (the ratio line); validating a three-seat turn < 25 us median.

    python tools/bench_perft.py [--repeat 3] [--depth 4]
"""

from __future__ import annotations

import argparse
import statistics
import time
import timeit

from santorini_server.rules import Position, perft

POSITIONS = [
    ("cross", "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"),
    ("midgame p1", "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22"),
    ("midgame p2", "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;2;22"),
    ("empty board", "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"),
    # three and four seats (SPEC.md section 15): gods are compulsory, so a mix of counted gods
    ("3p cross", "athena/pan/minotaur;00000/00000/00000/00000/00000;b3,d3/c2,c4/b5,d1;1;2"),
    ("3p midgame", "athena/pan/apollo;01234/12321/00240/31012/40123;b4,e2/b2,d4/a3,c1;1;22"),
    ("4p midgame", "athena/pan/apollo/minotaur;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()
    print(f"{'position':<12} {'depth':>5} {'leaves':>12} {'median s':>9} {'leaves/s':>12}")
    rates = {}
    for name, sps in POSITIONS:
        pos = Position.from_sps(sps)
        depth = min(args.depth, 3) if name == "empty board" else args.depth
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            n = perft(pos, depth)
            times.append(time.perf_counter() - start)
        med = statistics.median(times)
        rates[name] = n / med
        print(f"{name:<12} {depth:>5} {n:>12,} {med:>9.3f} {n / med:>12,.0f}")
    two = rates["cross"]
    print("N-seat / two-seat cross leaves/s: " + ", ".join(
        f"{name} {rates[name] / two:.2f}x" for name in rates if name[0] in "34"
    ))
    cross = Position.from_sps(POSITIONS[0][1])
    three = Position.from_sps(POSITIONS[4][1])
    start_pos = Position.start()
    print()
    for label, p, text in [
        ("validate canonical base turn", cross, "b3-b4+c5"),
        ("validate non-canonical (x for -)", cross, "b3xb4+c5"),
        ("validate placement", start_pos, "b3,d3"),
        ("validate 3p turn (athena)", three, "b3-b4+c5"),
        ("validate 3p turn (minotaur)", three.play("b3-b4+c5").position.play("c2-b2+c2").position, "b5-a5+a4"),
    ]:
        runs = timeit.repeat(lambda p=p, text=text: p.play(text), number=2000, repeat=15)
        print(f"{label:<34} median {statistics.median(runs) / 2000 * 1e6:7.2f} us")


if __name__ == "__main__":
    main()
