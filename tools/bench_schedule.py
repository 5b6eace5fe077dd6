#!/usr/bin/env python3
"""Benchmark the tournament schedule at its bound: 1,000,000 games, the old eager list against the
lazy :class:`~santorini_server.tournament.schedule.Schedule`.

For each shape (one pair of engines over half a million rounds; 1,000 engines in one round, so
499,500 encounters; three seats) it prints, for the eager list (the construction as it was,
rebuilt here) and the lazy schedule: the time to build it, the peak memory (tracemalloc) of the
build, and the time and peak memory of walking every game; then the time of ``game(n)`` at random
numbers, and of ``len(games_from(done))`` with a third of the games done (a resume's count).
tracemalloc slows what it traces, so the times are measured in runs of their own, without it.

    python tools/bench_schedule.py [--shape pairs|encounters|three|all] [--lookups 100000]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from santorini_server.tournament.runner import _Done
from santorini_server.tournament.schedule import MAX_GAMES, ScheduledGame, build_schedule, draw_gods
from tests.test_schedule import _peak_while as peak  # peak bytes allocated while a call runs
from tests.test_schedule import old_build_schedule  # the list as it was built before, the oracle of the tests

SHAPES: dict[str, dict[str, Any]] = {
    "pairs": dict(engines=2, rounds=MAX_GAMES // 2),
    "encounters": dict(engines=1000),
    "three": dict(engines=21, players=3, matchups=None, games=6 * 125),  # 1,330 groups x 750 games = 997,500
}


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    started = time.perf_counter()
    value = run()
    return time.perf_counter() - started, value


def walk(games: Iterable[ScheduledGame]) -> int:
    return sum(1 for _ in games)


def bench(name: str, shape: dict[str, Any], lookups: int) -> None:
    draw_gods.cache_clear()
    build_eager, eager = timed(lambda: old_build_schedule(**shape))
    walk_eager, count = timed(partial(walk, eager))
    eager.clear()
    eager_peak = peak(lambda: old_build_schedule(**shape))
    draw_gods.cache_clear()
    build_lazy, schedule = timed(lambda: build_schedule(**shape))
    assert len(schedule) == count
    walk_lazy, _ = timed(lambda: walk(schedule))
    lazy_peak = peak(lambda: build_schedule(**shape))
    walk_peak = peak(lambda: walk(schedule))
    numbers = [random.Random(1).randint(1, count) for _ in range(lookups)]
    lookup, _ = timed(lambda: [schedule.game(n) for n in numbers])
    done = _Done(count)
    for n in range(1, count + 1, 3):
        done.add(n)
    counting, pending = timed(lambda: len(schedule.games_from(done)))
    print(f"{name}: {count:,} games ({shape})")
    print(f"  eager list:      build {build_eager:6.2f} s, peak {eager_peak / 1e6:7.1f} MB; walk {walk_eager:5.2f} s")
    print(f"  lazy Schedule:   build {build_lazy * 1e6:6.0f} us, peak {lazy_peak / 1e3:7.1f} KB; "
          f"walk {walk_lazy:5.2f} s, peak {walk_peak / 1e3:.1f} KB")
    print(f"  game(n):         {lookup / lookups * 1e6:.2f} us each ({lookups:,} random numbers)")
    print(f"  games_from:      len {pending:,} counted in {counting:.2f} s (a third done)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=[*SHAPES, "all"], default="all")
    parser.add_argument("--lookups", type=int, default=100_000)
    args = parser.parse_args()
    for name, shape in SHAPES.items():
        if args.shape in (name, "all"):
            bench(name, shape, args.lookups)


if __name__ == "__main__":
    main()
