#!/usr/bin/env python3
"""The bundled alphabeta against every adapted engine that is built here, and them against each other.

Finds the engines through the same variables as the tests (``SANTORINI_CPP_BINARY``;
``SANTORINI_AZ_CHECKOUT`` with ``SANTORINI_AZ_PYTHON``; ``SANTORINI_AI_BINARY``), warms the AlphaZero engine outside the
referee (``--warm``, docs/external-engines.md), and runs one ``santorini tournament`` round-robin
(``--games`` per pairing, default 20, at ``--tc``, default 5+0.05, ``--jobs`` games at a time,
default 1, from the bundled base-game opening suite, each opening twice with colours reversed): the
tournament prints standings with Elo and error bars.  Then it prints, from the records, every
game an adapted engine lost by a fault (time, crash, illegal, engine-error, stall: the target is
none caused by an adapter), and the adapters' own cost per turn: translating the position, the
engine's answer and checking it with the rules core, measured in-process over 2,000 positions of
random games (target: under 1 ms; santorini-ai's is measured by ``tools/rules_diff.py``).

    python tools/gauntlet_external.py [--games 20] [--tc 5+0.05] [--jobs 1] [--out DIR] [--cost-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from santorini_server.adapters.alphazero import az_state, az_turn
from santorini_server.adapters.common import judge
from santorini_server.adapters.cpp_santorini import cpp_position, cpp_turn
from santorini_server.referee.engine_spec import adapter_argv
from santorini_server.rules import Position

FAULTS = {"time", "crash", "illegal", "engine-error", "stall", "limit"}


def available() -> dict[str, list[str]]:
    """Adapter name -> its arguments, for each engine whose variables are set."""
    found: dict[str, list[str]] = {}
    if binary := os.environ.get("SANTORINI_CPP_BINARY"):
        found["cpp-santorini"] = ["--binary", binary]
    checkout, python = os.environ.get("SANTORINI_AZ_CHECKOUT"), os.environ.get("SANTORINI_AZ_PYTHON")
    if checkout and python:
        found["alphazero"] = ["--checkout", checkout, "--python", python, "--sims", os.environ.get("SANTORINI_AZ_SIMS", "200")]
    if binary := os.environ.get("SANTORINI_AI_BINARY"):
        found["santorini-ai"] = ["--binary", binary]
    return found


def spec(name: str, args: list[str]) -> str:
    return " ".join([f"adapter={name}", f"name={name}", *(f"arg={a}" for a in args)])


def positions(count: int, seed: int) -> list[Position]:
    """Positions (workers placed, game not over) from random base games."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        pos = Position.start()
        while not pos.is_lost():
            turns = pos.transitions()
            if not pos.is_placement:
                found.append(pos)
            chosen = rng.choice(turns)
            if chosen.win:
                break
            pos = chosen.position
    return found[:count]


def cost_per_turn(label: str, work: Callable[[Position, str], object], sample: list[tuple[Position, str]]) -> None:
    times = []
    for pos, answer in sample:
        t0 = time.perf_counter()
        work(pos, answer)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(
        f"{label}: median {statistics.median(times) * 1e6:.0f} us, p99 {times[int(len(times) * 0.99)] * 1e6:.0f} us, "
        f"max {times[-1] * 1e6:.0f} us over {len(times)} turns"
    )


def report_cost() -> None:
    quiet: Callable[[str], None] = lambda text: None  # noqa: E731
    sample: list[tuple[Position, str]] = []
    for pos in positions(2000, seed=29):
        src, rest = random.Random(len(sample)).choice(pos.legal_turns()).split("-", 1)
        dst, _, build = rest.partition("+")
        sample.append((pos, f"{src}{dst}{build or src}"))  # a legal answer, as cpp-santorini spells it

    def index(square: str) -> tuple[int, int]:
        return 5 - int(square[1]), "abcde".index(square[0])  # (row from the a5 side, column)

    def az_action(pos: Position, answer: str) -> tuple[int, int, int, int]:
        """The same answer as the AlphaZero engine's decoded action."""
        (sy, sx), (dy, dx), (by, bx) = (index(answer[i : i + 2]) for i in (0, 2, 4))
        mine = [sq for sq in range(25) if pos.workers[pos.to_move] >> sq & 1]
        return mine.index(5 * sy + sx), 0, 3 * (dy - sy + 1) + dx - sx + 1, 3 * (by - dy + 1) + bx - dx + 1

    def cpp(pos: Position, answer: str) -> str:
        cpp_position(pos)
        return judge(pos, cpp_turn(pos, answer), answer, quiet, "cpp")

    def az(pos: Position, answer: str) -> str:
        json.dumps({"state": az_state(pos, 11), "sims": 200})  # what goes down the socket
        reply = json.loads(json.dumps({"action": 0, "decoded": answer, "sims": 200, "seconds": 0.5}))
        worker, power, move, build = reply["decoded"]
        return judge(pos, az_turn(pos, (worker, power, move, build)), "action 0", quiet, "az")

    print("adapter cost per turn (translation both ways and the rules check; the engine's search excluded):")
    cost_per_turn("  cpp-santorini", cpp, sample)
    cost_per_turn("  alphazero", az, [(pos, list(az_action(pos, answer))) for pos, answer in sample])  # type: ignore[misc]


def faults(sgn: Path, adapted: set[str]) -> None:
    games = sgn.read_text().split("\n\n[Event")
    counts: Counter[str] = Counter()
    lost = 0
    for game in games:
        tags = dict(re.findall(r'\[(\w+) "(.*)"\]', game))
        if tags.get("Termination") not in FAULTS:
            continue
        loser = tags["Player2"] if tags.get("Result") == "1-0" else tags["Player1"]
        if loser in adapted:
            lost += 1
            counts[f"{loser} {tags['Termination']}"] += 1
            print(f"  {loser} lost game {tags.get('GameNumber')} by {tags['Termination']}: {tags.get('TerminationDetail')}")
    print(f"games an adapted engine lost by a fault: {lost} {dict(counts) if counts else ''}".rstrip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per pairing (even)")
    parser.add_argument("--tc", default="5+0.05")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="games at a time (each engine thinks only on its turn)")
    parser.add_argument("--out", type=Path, default=None, help="tournament folder (default: a temporary one)")
    parser.add_argument("--cost-only", action="store_true", help="only the adapters' cost per turn")
    args = parser.parse_args()
    report_cost()
    if args.cost_only:
        return 0
    engines = available()
    if not engines:
        print("no adapted engine built here: set SANTORINI_CPP_BINARY, SANTORINI_AZ_CHECKOUT + SANTORINI_AZ_PYTHON, "
              "SANTORINI_AI_BINARY")
        return 0
    if "alphazero" in engines:
        subprocess.run([*adapter_argv("alphazero"), *engines["alphazero"], "--warm"], check=True)
    out = args.out or Path(tempfile.mkdtemp(prefix="gauntlet-external-"))
    command = [
        sys.executable, "-m", "santorini_server.cli", "tournament", "-e", "alphabeta",
        *(x for name, a in engines.items() for x in ("-e", spec(name, a))),
        "--games", str(args.games), "--tc", args.tc, "--openings", "bundled", "-j", str(args.jobs), "--out", str(out),
        "--rating-interval", "1000",
    ]  # fmt: skip
    print("$", " ".join(command[2:]), flush=True)
    started = time.monotonic()
    subprocess.run(command, check=False)
    print(f"wall time {time.monotonic() - started:.0f} s; records in {out}")
    faults(out / "games.sgn", set(engines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
