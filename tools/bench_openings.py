#!/usr/bin/env python3
"""Benchmark opening suites (SPEC.md section 19.5): how fast a suite is made, and what it is worth.

1. Generation: ``--gen-count`` (1,000) distinct balanced openings for one god pairing with
   ``--jobs`` processes; prints the seconds and the candidates tried.  Target: under 2 minutes
   with 2 jobs.
2. Evidence: a stronger against a weaker bundled alpha-beta (``--strong-nodes`` against
   ``--weak-nodes`` per search, each search's limit drawn within +-25% from a generator seeded
   by the pair: deterministic engines would otherwise replay one game from one start, and a
   clock's noise is what varies a real match) play ``--games`` games (pairs: the same start,
   engines swapped) from each kind of start, in one run: the empty board (the engines place),
   uniformly random placements, and the bundled base-game suite.  Per kind: the pentanomial,
   the logistic Elo with its 95% error scaled to one game (``error x sqrt(games)``: lower means
   more information per game), nElo with its 95% error (nElo divides by the pairs' own spread,
   so its error is the same for every kind at the same games; a larger nElo for the same two
   engines is the more informative start), and the expected games an SPRT(elo0=0, elo1=10, normalized)
   needs to decide, from the pentanomial: the LLR the observed pairs give, per pair, is the
   drift of the LLR's walk, so ``E[games] ~ 2 x upper bound / drift`` (Wald, ignoring the
   overshoot; the engines are far enough apart that H1 is accepted).  The difference of the
   suite's expected games and the empty board's gets a 95% interval from ``--bootstrap``
   resamples of the pairs.

Games are played in-process (no referee, no clocks): the figures are about the starts, and the
engines are the referee's bundled alpha-beta through its own ``choose``.

    python tools/bench_openings.py --games 200 --jobs 2            # a quick run
    python tools/bench_openings.py --games 1000 --jobs 2 --skip-generation
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import threading
import time

from santorini_engines.alphabeta import AlphaBeta
from santorini_engines.sei_bot import Limits
from santorini_server.openings.generate import Recipe, generate
from santorini_server.openings.suites import bundled_suite
from santorini_server.rules import Position
from santorini_server.stats.elo import pentanomial_elo
from santorini_server.stats.sprt import SprtConfig, llr_pentanomial

SPRT = SprtConfig(elo0=0.0, elo1=10.0)
KINDS = ("empty board", "random placements", "bundled suite")
_ENGINES: tuple[AlphaBeta, AlphaBeta] | None = None


def _quiet(_: str) -> None:
    pass


def play(start: Position, strong_seat: int, nodes: tuple[int, int], rng: random.Random) -> float:
    """One game from ``start``; the stronger engine's points (1 or 0)."""
    global _ENGINES
    if _ENGINES is None:
        _ENGINES = (AlphaBeta(), AlphaBeta())
    strong, weak = _ENGINES
    strong.new_game()
    weak.new_game()
    pos = start
    stop = threading.Event()
    for _ in range(300):
        mover = pos.to_move
        if pos.is_lost():
            return 0.0 if mover == strong_seat else 1.0
        engine, base = (strong, nodes[0]) if mover == strong_seat else (weak, nodes[1])
        limit = max(64, round(base * rng.uniform(0.75, 1.25)))
        turn = engine.choose(pos, Limits(nodes=limit), stop, _quiet)
        played = pos.play(turn)
        if played.win:
            return 1.0 if mover == strong_seat else 0.0
        pos = played.position
    raise RuntimeError(f"a game from {start.sps()} did not end")


def random_start(rng: random.Random) -> Position:
    pos = Position.start()
    while pos.is_placement:
        pos = pos.play(rng.choice(pos.legal_turns())).position
    return pos


def play_pair(args: tuple[str, int, int, tuple[int, int]]) -> tuple[str, int]:
    """Pair ``index`` of one kind of start: the stronger engine's half-points over both games (0-4)."""
    kind, index, seed, nodes = args
    rng = random.Random(f"bench-openings/{seed}/{kind}/{index}")
    if kind == "empty board":
        start = Position.start()
    elif kind == "random placements":
        start = random_start(rng)
    else:
        suite = bundled_suite(("mortal", "mortal"))
        start = Position.from_sps(suite[index % len(suite)])
    points = play(start, 0, nodes, rng) + play(start, 1, nodes, rng)
    return kind, round(2 * points)  # the pentanomial index: half-points 0-4


def expected_games(ptnml: tuple[int, int, int, int, int]) -> float:
    """Games an SPRT(0, 10) needs to decide at the pairs' LLR drift (inf: no drift toward H1)."""
    pairs = sum(ptnml)
    drift = llr_pentanomial(ptnml, SPRT) / pairs if pairs else 0.0
    return 2 * SPRT.upper / drift if drift > 0 else math.inf


def _ptnml(outcomes: list[int]) -> tuple[int, int, int, int, int]:
    counts = [0] * 5
    for k in outcomes:
        counts[k] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per kind of start (even: pairs)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strong-nodes", type=int, default=2000)
    parser.add_argument("--weak-nodes", type=int, default=1000)
    parser.add_argument("--bootstrap", type=int, default=500)
    parser.add_argument("--gen-count", type=int, default=1000)
    parser.add_argument("--gen-gods", default="apollo/pan")
    parser.add_argument("--skip-generation", action="store_true")
    args = parser.parse_args()

    if not args.skip_generation:
        recipe = Recipe(tuple(args.gen_gods.split("/")), 2, args.gen_count, args.seed)
        started = time.perf_counter()
        suite = generate(recipe, args.jobs)
        seconds = time.perf_counter() - started
        print(f"generation: {len(suite):,} distinct balanced openings of {args.gen_gods} from "
              f"{suite[-1].candidate + 1:,} candidates in {seconds:.1f} s with --jobs {args.jobs} (target < 120 s)")

    pairs = args.games // 2
    if not pairs:
        return
    nodes = (args.strong_nodes, args.weak_nodes)
    tasks = [(kind, i, args.seed, nodes) for i in range(pairs) for kind in KINDS]
    outcomes: dict[str, list[int]] = {kind: [] for kind in KINDS}
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for kind, points in pool.imap_unordered(play_pair, tasks, chunksize=2):
            outcomes[kind].append(points)
    seconds = time.perf_counter() - started
    print(f"evidence: alphabeta {nodes[0]} nodes against {nodes[1]} (+-25% a search), {pairs} pairs per kind of "
          f"start, {seconds:.0f} s")
    print(f"{'start':<18} {'pentanomial':<24} {'score':>6} {'Elo':>14} {'err/game':>9} {'nElo':>14} {'E[SPRT games]':>14}")
    expected: dict[str, float] = {}
    for kind in KINDS:
        ptnml = _ptnml(outcomes[kind])
        est = pentanomial_elo(ptnml)
        per_game = est.error95 * math.sqrt(2 * pairs)
        expected[kind] = expected_games(ptnml)
        print(f"{kind:<18} {list(ptnml)!s:<24} {100 * est.score:5.1f}% {est.elo:7.1f} +/- {est.error95:5.1f} "
              f"{per_game:9.0f} {est.nelo:7.1f} +/- {est.nelo_error95:5.1f} {expected[kind]:14.1f}")
    rng = random.Random(args.seed)
    for kind in KINDS[1:]:
        diffs = []
        for _ in range(args.bootstrap):
            a = expected_games(_ptnml([rng.choice(outcomes[kind]) for _ in range(pairs)]))
            b = expected_games(_ptnml([rng.choice(outcomes[KINDS[0]]) for _ in range(pairs)]))
            if math.isfinite(a) and math.isfinite(b):
                diffs.append(a - b)
        diffs.sort()
        if diffs:
            lo, hi = diffs[int(0.025 * len(diffs))], diffs[min(len(diffs) - 1, int(0.975 * len(diffs)))]
            print(f"{kind} - empty board: {expected[kind] - expected[KINDS[0]]:+.1f} expected games, "
                  f"95% bootstrap interval {lo:+.1f} to {hi:+.1f} ({len(diffs)} resamples)")


if __name__ == "__main__":
    main()
