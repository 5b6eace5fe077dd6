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
import itertools
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from santorini_server.tournament.runner import _Done
from santorini_server.tournament.schedule import MAX_GAMES, ScheduledGame, build_schedule, draw_gods, set_size

SHAPES: dict[str, dict[str, Any]] = {
    "pairs": dict(engines=2, rounds=MAX_GAMES // 2),
    "encounters": dict(engines=1000),
    "three": dict(engines=21, players=3, matchups=None, games=6 * 125),  # 1,330 groups x 750 games = 997,500
}


def eager_schedule(
    engines: int,
    *,
    fmt: str = "round-robin",
    seeds: int = 1,
    rounds: int = 1,
    games: int | None = None,
    matchups: tuple[tuple[str, ...], ...] | None = (("mortal", "mortal"),),
    openings: tuple[str | None, ...] = (None,),
    order: str = "sequential",
    seed: int = 0,
    players: int = 2,
) -> list[ScheduledGame]:
    """The schedule as it was built before it became lazy: every game in a list (no checks)."""
    gods_list: tuple[tuple[str, ...] | None, ...] = (None,) if matchups is None else matchups
    conditions = [(g, o) for o in openings for g in gods_list]
    if order == "random":
        random.Random(seed).shuffle(conditions)
    size = set_size(players)
    per_encounter = size * len(conditions) if games is None else games
    listing: Iterable[tuple[int, ...]] = (
        itertools.combinations(range(engines), players) if fmt == "round-robin"
        else ((s, o) for s in range(seeds) for o in range(seeds, engines))
    )
    seatings = [
        [(e[0], e[1]), (e[1], e[0])] if len(e) == 2 else list(itertools.permutations(e)) for e in listing
    ]
    schedule: list[ScheduledGame] = []
    sets = per_encounter // size
    for rnd in range(1, rounds + 1):
        for orders in seatings:
            for k in range(sets):
                index = (rnd - 1) * sets + k
                gods, opening = conditions[index % len(conditions)]
                if gods is None:  # uncached, as it was
                    gods = draw_gods.__wrapped__(seed, index, players)
                for seats in orders:
                    schedule.append(ScheduledGame(len(schedule) + 1, seats, gods, opening, rnd))
    return schedule


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    gc.collect()
    started = time.perf_counter()
    value = run()
    return time.perf_counter() - started, value


def peak(run: Callable[[], Any]) -> int:
    """Peak bytes allocated while ``run`` runs (what it returns is dropped after)."""
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def walk(games: Iterable[ScheduledGame]) -> int:
    return sum(1 for _ in games)


def bench(name: str, shape: dict[str, Any], lookups: int) -> None:
    draw_gods.cache_clear()
    build_eager, eager = timed(lambda: eager_schedule(**shape))
    walk_eager, count = timed(partial(walk, eager))
    eager.clear()
    eager_peak = peak(lambda: eager_schedule(**shape))
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
