#!/usr/bin/env python3
"""Three- and four-seat strength of the bundled engines, measured in-process (a measuring tool, not the referee).

Games are played through ``Position`` directly: each seat's engine is its ``choose`` function
(a fresh alpha-beta searcher per seat and game), every turn is checked with ``Position.play``, a
seat with no turn is eliminated (three seats) or loses for its team (four seats), and each turn
gets the same budget: ``--movetime`` milliseconds, or a Fischer clock per seat (``--tc``) kept
by this tool from the measured thinking time (a seat whose clock runs out loses: eliminated
with three seats, its team's loss with four).

Three seats: every ordering of the three engines plays the same randomly drawn gods (6 games a
round).  Four seats: two engines, each a whole team, both sides (2 games a round).

    python tools/nseat_duel.py --players 3 alphabeta greedy random --rounds 20 --tc 1+0.01 --jobs 2
    python tools/nseat_duel.py --players 4 alphabeta greedy --rounds 30 --tc 1+0.01 --jobs 2
    python tools/nseat_duel.py --players 3 alphabeta greedy random --rounds 10 --nodes 6000 --movetime 100000

A node limit (``--nodes``, with ``--movetime``) makes a figure independent of the machine's load.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import random
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from santorini_engines import greedy, random_engine
from santorini_engines.alphabeta import AlphaBeta
from santorini_engines.sei_bot import Limits
from santorini_server.rules import SIMPLE_GODS, Position

Choose = Callable[[Position, Limits, threading.Event, Callable[[str], None]], str]
ENGINES = ("alphabeta", "greedy", "random")


def make_engine(name: str) -> Choose:
    """A fresh player for one seat of one game."""
    if name == "alphabeta":
        return AlphaBeta().choose
    if name == "greedy":
        return greedy.choose
    if name == "random":
        return random_engine.choose
    raise ValueError(f"unknown engine {name!r} (one of {', '.join(ENGINES)})")


@dataclass
class Game:
    """One finished game: placings per seat (1 = first) and how it ended."""

    seats: tuple[str, ...]
    gods: tuple[str, ...]
    placings: tuple[int, ...]
    termination: str
    turns: int
    think: dict[int, list[float]]  # seat -> thinking times (s)
    over_budget: int  # turns longer than --movetime


def _limits(clocks: list[float] | None, inc: float, movetime_ms: int | None, nodes: int | None) -> Limits:
    """The ``go`` limits of a turn: the fixed budget, or every seat's clock (``p<seat>time``)."""
    if clocks is None:
        return Limits(movetime=movetime_ms, nodes=nodes)
    if "p3time" not in Limits.__dataclass_fields__:
        raise SystemExit("--tc needs a bot helper with N-seat clocks (p3time, p4time)")
    times = {f"p{k + 1}time": int(c * 1000) for k, c in enumerate(clocks)}
    incs = {f"p{k + 1}inc": int(inc * 1000) for k in range(len(clocks))}
    return Limits(**times, **incs)  # type: ignore[arg-type]


def play_game(seats: tuple[str, ...], gods: tuple[str, ...], movetime_ms: int | None, tc: tuple[float, float] | None,
              seed: int, nodes: int | None = None) -> Game:
    """One game from the empty board; ``seats[i]`` plays seat ``i + 1``."""
    random_engine._rng.seed(seed)
    greedy._rng.seed(seed + 1)
    n = len(gods)
    players = [make_engine(name) for name in seats]
    clocks = [tc[0]] * n if tc is not None else None
    inc = tc[1] if tc is not None else 0.0
    pos = Position.start(gods)
    out: list[int] = []  # three seats: eliminated seats, in order
    think: dict[int, list[float]] = collections.defaultdict(list)
    over = 0
    turns = 0
    stop = threading.Event()
    while True:
        me = pos.to_move
        loser: int | None = None
        termination = ""
        if pos.is_lost():
            loser, termination = me, "no-turn"
        else:
            limits = _limits(clocks, inc, movetime_ms, nodes)
            started = time.monotonic()
            turn = players[me](pos, limits, stop, lambda _line: None)
            spent = time.monotonic() - started
            think[me].append(spent)
            if movetime_ms is not None and spent > movetime_ms / 1000:  # a hard limit (a clock is the engine's to spend)
                over += 1
            if clocks is not None:
                clocks[me] -= spent
                if clocks[me] < 0:
                    loser, termination = me, "time"
                else:
                    clocks[me] += inc
            if loser is None:
                step = pos.play(turn)  # raises on an illegal turn: a defect to see, not to score
                turns += 1
                if step.win:
                    return Game(seats, gods, _placings(n, me, out, pos), step.termination or "win", turns, think, over)
                pos = step.position
                continue
        if n != 3:
            winner_team = (loser + 1) % 2
            return Game(seats, gods, tuple(1 if s % 2 == winner_team else 2 for s in range(n)), termination, turns,
                        think, over)
        out.append(loser)
        after = pos.eliminate()
        if after is None:
            last = next(s for s in pos.live_seats if s != loser)
            return Game(seats, gods, _placings(3, last, out, pos), termination, turns, think, over)
        pos = after


def _placings(n: int, winner: int, out: list[int], pos: Position) -> tuple[int, ...]:
    """Placings per seat: the winner (with four seats its team) 1; with three seats the first seat
    eliminated is third, the second second, and seats still in when another wins tie at 2."""
    if n == 4:
        return tuple(1 if s % 2 == winner % 2 else 2 for s in range(4))
    placings = [2] * n
    placings[winner] = 1
    if out:
        placings[out[0]] = 3
    return tuple(placings)


Scheduled = tuple[tuple[str, ...], tuple[str, ...], int]


def schedule(players: int, names: list[str], rounds: int, seed: int, gods: tuple[str, ...] | None,
             with_god: str | None = None) -> list[Scheduled]:
    """Every game: (engine per seat, gods, seed).  ``with_god``: every draw holds this god, at a random seat."""
    rng = random.Random(seed)
    pool = sorted(g for g in SIMPLE_GODS if g != with_god)
    games = []
    for r in range(rounds):
        if with_god and not gods:
            others = rng.sample(pool, players - 1)
            seat = rng.randrange(players)
            drawn = (*others[:seat], with_god, *others[seat:])
        else:
            drawn = gods or tuple(rng.sample(pool, players))
        if players == 3:
            orders = list(itertools.permutations(names))
        else:
            a, b = names
            orders = [(a, b, a, b), (b, a, b, a)]
        games += [(order, drawn, seed * 1000 + r * 10 + k) for k, order in enumerate(orders)]
    return games


def _run(args: tuple[tuple[str, ...], tuple[str, ...], int, int | None, tuple[float, float] | None, int | None]) -> Game:
    seats, gods, seed, movetime_ms, tc, nodes = args
    return play_game(seats, gods, movetime_ms, tc, seed, nodes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engines", nargs="+", choices=ENGINES)
    parser.add_argument("--players", type=int, choices=(3, 4), required=True)
    parser.add_argument("--rounds", type=int, default=10, help="3 seats: 6 games a round; 4 seats: 2")
    parser.add_argument("--movetime", type=int, default=None, help="per-turn budget in ms (default 60)")
    parser.add_argument("--tc", default=None, help="Fischer clock per seat instead, base+increment in seconds")
    parser.add_argument("--nodes", type=int, default=None, help="also a node limit per turn (alphabeta): load-independent")
    parser.add_argument("--gods", default=None, help="fixed gods g1/g2/g3[/g4] instead of a random draw a round")
    parser.add_argument("--with-god", default=None, help="draw this god in every game, at a random seat, and split "
                        "each engine's firsts by who held it (e.g. athena)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="games at once (processes)")
    args = parser.parse_args()
    if len(args.engines) != {3: 3, 4: 2}[args.players]:
        parser.error("--players 3 takes three engines, --players 4 two (one per team)")
    tc = None
    if args.tc is not None:
        base, _, inc = args.tc.partition("+")
        tc = (float(base), float(inc or 0))
    movetime = None if tc is not None else (args.movetime or 60)
    gods = tuple(args.gods.split("/")) if args.gods else None
    if args.with_god and args.with_god not in SIMPLE_GODS:
        parser.error(f"--with-god: unknown god {args.with_god!r}")
    games = schedule(args.players, args.engines, args.rounds, args.seed, gods, args.with_god)
    held: collections.Counter[tuple[str, str, bool]] = collections.Counter()  # (engine, holder, first)
    started = time.monotonic()
    firsts: collections.Counter[str] = collections.Counter()
    played: collections.Counter[str] = collections.Counter()
    place_sum: collections.Counter[str] = collections.Counter()
    terms: collections.Counter[str] = collections.Counter()
    think: dict[str, list[float]] = collections.defaultdict(list)
    over = 0
    jobs = [(s, g, sd, movetime, tc, args.nodes) for s, g, sd in games]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for k, game in enumerate(pool.map(_run, jobs), 1):
            terms[game.termination] += 1
            over += game.over_budget
            names_in_game = set(game.seats)
            for name in names_in_game:  # a four-seat team counts once
                seats = [s for s, e in enumerate(game.seats) if e == name]
                played[name] += 1
                best = min(game.placings[s] for s in seats)
                place_sum[name] += best
                if best == 1:
                    firsts[name] += 1
                if args.with_god in game.gods:
                    held[name, game.seats[game.gods.index(args.with_god)], best == 1] += 1
            for seat, times in game.think.items():
                think[game.seats[seat]] += times
            line = " ".join(f"{e}:{p}" for e, p in zip(game.seats, game.placings, strict=True))
            print(f"game {k}/{len(jobs)} {'/'.join(game.gods)}: {line} {game.termination}, {game.turns} turns", flush=True)
    clock = (f"tc {args.tc}" if tc else f"movetime {movetime} ms") + (f", nodes {args.nodes}" if args.nodes else "")
    print(f"{args.players} seats, {len(jobs)} games, {clock}, seed {args.seed}, {time.monotonic() - started:.0f} s")
    for name in args.engines if args.players == 4 else sorted(set(args.engines), key=args.engines.index):
        n = played[name]
        times = sorted(think[name])
        worst = times[-1] * 1000 if times else 0.0
        print(f"{name}: first in {firsts[name]}/{n} ({100 * firsts[name] / max(n, 1):.1f}%), "
              f"mean placing {place_sum[name] / max(n, 1):.2f}, slowest turn {worst:.0f} ms")
        for holder in args.engines if args.with_god else ():
            won, lost = held[name, holder, True], held[name, holder, False]
            if won + lost:
                print(f"  {args.with_god} held by {holder}: first in {won}/{won + lost} ({100 * won / (won + lost):.1f}%)")
    over_text = f"; turns over movetime: {over}" if movetime else ""
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in terms.most_common()) + over_text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
