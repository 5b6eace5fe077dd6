#!/usr/bin/env python3
"""Benchmark the live standings: what one game costs to count and query at 5,000 games and at
100,000, and the memory they hold from 10,000 to 1,000,000 games.

A game is counted as the runner counts it under ``--sprt``: ``record`` (pairs ``2k-1, 2k``
arriving out of order, as under concurrency: within ``--spread`` places of their number), then
the pair's ``pairs()`` and the pentanomial LLR.  ``--engines`` above 2 plays a round robin and
also times the ranking table and the crosstable (what ``--rating-interval`` prints).  Three
seats (``--seats 3``) time ``record_game`` and the placings table (Weng-Lin rates each game by
openskill, some 0.3 ms: use smaller sizes).  Each figure is the median of ``--samples`` steps
at that size.  RSS is read from /proc/self/status after the standings hold each count of games
(the process's other memory is the same throughout).  No assertions: it prints the figures.

    python tools/bench_standings.py [--sizes 5000 100000] [--rss 10000 100000 1000000] [--engines 2]
        [--seats 2] [--samples 301] [--spread 16]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from santorini_server.stats.sprt import SprtConfig, llr_pentanomial
from santorini_server.stats.standings import Standings

SPRT = SprtConfig(0.0, 5.0)
THREE = [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1), (1, 2, 2)]


class Feed:
    """Games in finishing order: numbers in blocks of ``spread`` shuffled (out of order), pairs
    of the round robin's engines in turn, random results (a few aborted)."""

    def __init__(self, engines: int, seats: int, spread: int, seed: int = 1) -> None:
        self.names = [f"engine-{k}" for k in range(1, engines + 1)]
        self.seats = seats
        self.spread = max(spread, 1)
        self.rng = random.Random(seed)
        self.pairs = [(a, b) for i, a in enumerate(self.names) for b in self.names[i + 1 :]]
        self.block: list[int] = []
        self.next_block = 1

    def number(self) -> int:
        if not self.block:
            self.block = list(range(self.next_block, self.next_block + self.spread))
            self.next_block += self.spread
            self.rng.shuffle(self.block)
        return self.block.pop()

    def add(self, standings: Standings) -> tuple[str, str]:
        number = self.number()
        if self.seats == 2:
            a, b = self.pairs[((number + 1) // 2) % len(self.pairs)]
            first, second = (a, b) if number % 2 else (b, a)
            winner = self.rng.choice((1, 2, 1, 2, 1, 2, 1, 2, 1, None))
            standings.record(first, second, winner, "climb" if winner else "aborted", number)
            return a, b
        seated = self.rng.sample(self.names, 3)
        standings.record_game(seated, self.rng.choice(THREE), "climb", number)
        return seated[0], seated[1]


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def filled(args: argparse.Namespace, games: int) -> tuple[Standings, Feed]:
    standings, feed = Standings(args.seats), Feed(args.engines, args.seats, args.spread)
    for _ in range(games):
        feed.add(standings)
    return standings, feed


def median_us(step: Callable[[], object], samples: int) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def one_size(args: argparse.Namespace, size: int) -> str:
    """The medians at ``size`` games: a game's record, the pair's ``pairs()``, its LLR (two seats;
    with more than two engines the ranking and the crosstable too), or a game's record_game and
    the placings table (three seats)."""
    started = time.perf_counter()
    standings, feed = filled(args, size)
    fill = time.perf_counter() - started
    last: list[tuple[str, str]] = []
    ranking = median_us(standings.format_ranking, 21)
    if args.seats == 2:
        record = median_us(lambda: last.append(feed.add(standings)), args.samples)
        pairs = median_us(lambda: standings.pairs(*last[-1]), args.samples)
        ptnml = standings.pairs(*last[-1]).ptnml
        llr = median_us(lambda: llr_pentanomial(ptnml, SPRT), args.samples)
        line = f"record {record:7.1f} us, pairs() {pairs:6.1f} us, LLR {llr:7.1f} us"
        if args.engines > 2:
            line += f"; ranking {ranking:8.1f} us, crosstable {median_us(standings.crosstable, 21):8.1f} us"
    else:
        record = median_us(lambda: feed.add(standings), args.samples)
        line = f"record_game {record:7.1f} us; ranking {ranking:8.1f} us"
    return f"  {size:>9,} games: {line} (filled in {fill:.1f} s, {standings.waiting} waiting)"


def timing(args: argparse.Namespace) -> None:
    print(f"per game, median of {args.samples} ({args.engines} engines, {args.seats} seats, spread {args.spread}):")
    for size in args.sizes:
        print(one_size(args, size), flush=True)


def memory(args: argparse.Namespace) -> None:
    print("RSS while the standings hold:")
    standings, feed = Standings(args.seats), Feed(args.engines, args.seats, args.spread)
    held = 0
    for size in sorted(args.rss):
        while held < size:
            feed.add(standings)
            held += 1
        gc.collect()
        print(f"  {size:>9,} games: {rss_kib() / 1024:7.1f} MiB ({standings.waiting} waiting)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 100_000])
    parser.add_argument("--rss", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--engines", type=int, default=2)
    parser.add_argument("--seats", type=int, choices=(2, 3), default=2)
    parser.add_argument("--samples", type=int, default=301)
    parser.add_argument("--spread", type=int, default=16)
    args = parser.parse_args()
    if args.engines < args.seats or any(n < 1 for n in [*args.sizes, *args.rss, args.samples]):
        parser.error("--engines must be at least --seats, and every count at least 1")
    timing(args)
    if args.rss:
        memory(args)


if __name__ == "__main__":
    main()
