#!/usr/bin/env python3
"""What this machine's CPUs give two busy processes at once: the ceiling for any scaling figure.

A scaling target ("concurrency 2 at least 1.6x concurrency 1") assumes two cores that each run at
full speed while the other is busy.  Virtual machines do not always give that: two vCPUs may be
two hyperthreads of one host core, or share it with other guests, and the guest cannot see it
(``lscpu`` may still say one thread per core, and no steal time is reported).  This measures it
directly: a fixed pure-Python loop in one process, then the same loop in two processes at once;
the ceiling is twice the lone time over the time the pair takes.  2.0 means two full cores; a
tournament's concurrency-2 scaling can only be judged against what the machine itself reaches.

    python tools/machine_ceiling.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

LOOP = "x = 0\nfor i in range(12_000_000):\n    x += i\n"


def _timed(count: int) -> float:
    """Wall time for ``count`` copies of the loop, each in its own process, started together."""
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", LOOP]) for _ in range(count)]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - start


def cpu_ceiling(repeat: int = 3) -> tuple[float, float, float]:
    """(lone seconds, pair seconds, ceiling) as medians of ``repeat`` alternating measurements."""
    lone, pair = [], []
    for _ in range(repeat):
        lone.append(_timed(1))
        pair.append(_timed(2))
    one, two = statistics.median(lone), statistics.median(pair)
    return one, two, 2 * one / two


PINGPONG = """
import os, subprocess, sys
rounds, work = int(sys.argv[1]), int(sys.argv[2])
echo = subprocess.Popen([sys.executable, "-c",
    "import os\\nwhile (d := os.read(0, 64)):\\n    os.write(1, d)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
w, r = echo.stdin.fileno(), echo.stdout.fileno()
for _ in range(rounds):
    x = 0
    for i in range(work):
        x += i
    os.write(w, b"go\\n")
    os.read(r, 64)
echo.stdin.close()
echo.wait()
"""
"""A referee and an instant engine in miniature: a process does a little work (about 100 us),
writes a line to a child that echoes it at once, reads the echo; ``rounds`` times."""


def _pingpong(count: int, rounds: int, work: int) -> float:
    """Wall time for ``count`` ping-pong pairs started together."""
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", PINGPONG, str(rounds), str(work)]) for _ in range(count)]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - start


def pingpong_ceiling(repeat: int = 3, rounds: int = 20_000, work: int = 2_000) -> tuple[float, float, float]:
    """(lone seconds, pair seconds, ceiling) for ping-pong pairs (see :data:`PINGPONG`): the
    scaling a tournament of instant engines can reach here, where every turn wakes a process."""
    lone, pair = [], []
    for _ in range(repeat):
        lone.append(_pingpong(1, rounds, work))
        pair.append(_pingpong(2, rounds, work))
    one, two = statistics.median(lone), statistics.median(pair)
    return one, two, 2 * one / two


def describe(repeat: int = 3) -> str:
    one, two, ceiling = cpu_ceiling(repeat)
    p_one, p_two, p_ceiling = pingpong_ceiling(repeat)
    return (f"machine ceiling: one CPU-bound process {one:.2f} s, two at once {two:.2f} s: "
            f"two processes run {ceiling:.2f}x as fast as one (2.00 = two full cores); "
            f"ping-pong pairs (a process that works ~100 us then waits for an echo from a child, "
            f"20,000 times): one pair {p_one:.2f} s, two at once {p_two:.2f} s: {p_ceiling:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(describe(args.repeat))


if __name__ == "__main__":
    main()
