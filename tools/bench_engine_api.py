#!/usr/bin/env python3
"""The public engine API's cost per ``play`` beside the referee's cost per turn (issue 31's target:
within 1.3x).

Both play the same scripted game against canned engines that answer at once (``canned.py``: the
C build when a compiler is there), so what is measured is the caller's side: the referee's whole
turn (``play_game``: position+go, rules check, clock, record) against one ``play`` call of the API
(position check, ``position`` + ``go``, the reply as a ``PlayResult``), in three forms:

* the referee: game wall time / turns (``bench_referee.py``'s games, two engines);
* ``AsyncEngine.play`` (trio), one engine playing every turn of the game, ``startpos`` + ``moves``
  as python-chess users pass a board;
* ``SimpleEngine.play``, the same from plain Python (a hop to the engine's thread and back).

Chunks of each alternate, with fresh engine processes each, so no one process's scheduling luck
decides a figure.  Prints medians per turn and the ratios to the referee.

    python tools/bench_engine_api.py [--games 40] [--pin]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import trio
from bench_referee import make_script, referee, spec

from santorini_server.engine import Limit, SimpleEngine, popen

LIMIT = Limit(clocks=(60.0, 60.0), incs=(1.0, 1.0))


async def api_games(script: Path, turns: list[str], games: int) -> tuple[list[float], float]:
    """Seconds per ``play`` call, one value per game (its wall time / turns), and this process's
    CPU seconds per call."""
    per_turn = []
    cpu = 0.0
    async with popen(spec(script, "A")) as engine:
        for _ in range(games):
            cpu0 = time.process_time()
            moves: list[str] = []
            game = object()
            start = trio.current_time()
            for _turn in turns:
                result = await engine.play("startpos", LIMIT, moves=moves, game=game)
                assert result.turn is not None
                moves.append(result.turn)
            per_turn.append((trio.current_time() - start) / len(turns))
            cpu += time.process_time() - cpu0
    return per_turn, cpu / (games * len(turns))


def simple_games(script: Path, turns: list[str], games: int) -> list[float]:
    per_turn = []
    with SimpleEngine.popen(spec(script, "A")) as engine:
        for _ in range(games):
            moves: list[str] = []
            game = object()
            start = time.perf_counter()
            for _turn in turns:
                result = engine.play("startpos", LIMIT, moves=moves, game=game)
                assert result.turn is not None
                moves.append(result.turn)
            per_turn.append((time.perf_counter() - start) / len(turns))
    return per_turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--pin", action="store_true", help="pin this process and the engines to core 0")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {0})
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "game.txt"
        n = make_script(script)
        print(f"script: a {n}-turn game; {args.games} games each; {'pinned to core 0' if args.pin else 'unpinned'}")
        turns = script.read_text().split()
        ref: list[float] = []
        api: list[float] = []
        simple: list[float] = []
        ref_cpu: list[float] = []
        api_cpu: list[float] = []
        chunks = 10
        each = max(1, args.games // chunks)
        for _ in range(chunks):
            figures = trio.run(referee, script, each)
            ref += figures[2]
            ref_cpu.append(figures[4])
            walls, cpu = trio.run(api_games, script, turns, each)
            api += walls
            api_cpu.append(cpu)
            simple += simple_games(script, turns, each)
        r, a, s = (statistics.median(x) * 1e6 for x in (ref, api, simple))
        print(f"referee      per turn            median {r:8.1f} us")
        print(f"AsyncEngine  per play()          median {a:8.1f} us  ({a / r:.2f}x the referee; target <= 1.3x)")
        print(f"SimpleEngine per play()          median {s:8.1f} us  ({s / r:.2f}x the referee)")
        rc, ac = statistics.median(ref_cpu) * 1e6, statistics.median(api_cpu) * 1e6
        print(f"CPU of this process: referee {rc:.1f} us per turn, AsyncEngine {ac:.1f} us per play() ({ac / rc:.2f}x)")


if __name__ == "__main__":
    main()
