#!/usr/bin/env python3
"""Referee overhead per turn against the floor of one pipe round trip, and clock accuracy.

Three measurements, in one run, printed as medians:

1. floor: a trio parent writes one request line to a minimal engine process (the same
   canned engine the referee plays) and reads its one-line answer with trio's standard stream
   calls (``send_all``, ``receive_some``); median round trip.  Measured on the very engine
   process the referee then plays, just before each game, so both sides see the same kernel
   scheduling (on one core a round trip is fast or slow depending on whether the woken engine
   preempts its parent, and that varies from process to process).
2. referee: whole games between two canned engines (zero thinking: each answers from a fixed
   script) through the real referee (``play_game``: position+go in one write, parse, rules
   check, clock, record).  Per turn: game wall time / turns; the engines' own time (their CPU
   time, user and system, from /proc/PID/schedstat); the referee's overhead as issue 3 defines
   it, game wall time minus the engines' own time; and the referee's CPU time per turn, beside
   the floor parent's CPU time per round trip (what the kernel and trio cost either way).
   Ratio = overhead / floor.  Issue 3's targets: <= 2.3 pinned to one core, <= 2.0 unpinned.
   The wall time's own ratio to the floor is printed too.
3. clock accuracy: an engine that sleeps a known time per turn reports what it really spent;
   the referee's charged time minus that, median and 99th percentile (target < 1 ms / < 5 ms).

    python tools/bench_referee.py [--games 40] [--pin]
    (--pin runs the whole measurement on core 0; run both to compare)
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import trio
from canned import canned_argv

from santorini_server.adjudicator import parse_tc
from santorini_server.referee import Engine, GameSetup, play_game
from santorini_server.referee.engine_spec import EngineSpec
from santorini_server.rules import Position


def make_script(path: Path) -> int:
    """A legal game (first legal turn each time, but take a win when there is one)."""
    pos = Position.start()
    turns = []
    while True:
        transitions = pos.transitions()
        if not transitions:
            break
        t = next((t for t in transitions if t.win), transitions[len(transitions) // 2])
        turns.append(t.stn)
        if t.win:
            break
        pos = t.position
    path.write_text(" ".join(turns) + "\n")
    return len(turns)


KIND = "c"


def spec(script: Path, name: str, *extra: str) -> EngineSpec:
    return EngineSpec(name=name, argv=tuple(canned_argv(script, KIND, *extra)))


async def round_trips(process: object, rounds: int) -> list[float]:
    """The floor: ``rounds`` bare request/response round trips over the engine's pipes."""
    times = []
    for _ in range(rounds):
        start = trio.current_time()
        await process.send_all(b"go\n")  # type: ignore[attr-defined]
        buf = b""
        while not buf.endswith(b"\n"):
            buf += await process.receive_some()  # type: ignore[attr-defined]
        times.append(trio.current_time() - start)
    return times


def run_ns(pid: int | None) -> int:
    """Nanoseconds ``pid`` has run on a CPU (user and system), from /proc/PID/schedstat."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


async def referee(script: Path, games: int) -> tuple[list[float], float, list[float], list[float], float, int]:
    """Floor round trips and referee games, alternating on the same two engine processes."""
    floor: list[float] = []
    floor_cpu = 0.0
    per_turn = []
    engines_per_turn = []
    turns_total = 0
    cpu = 0.0
    async with trio.open_nursery() as nursery:
        a = await Engine.start(nursery, spec(script, "A"))
        b = await Engine.start(nursery, spec(script, "B"))
        tc = parse_tc("60+1")
        for _ in range(games):
            cpu0 = time.process_time()
            floor += await round_trips(a.process, 40)
            floor_cpu += time.process_time() - cpu0
            pids = (a.process.engine_pid, b.process.engine_pid)
            cpu0 = time.process_time()
            engines0 = sum(map(run_ns, pids))
            start = trio.current_time()
            report = await play_game((a, b), GameSetup(tcs=(tc, tc)))
            wall = trio.current_time() - start
            engines = (sum(map(run_ns, pids)) - engines0) / 1e9
            cpu += time.process_time() - cpu0
            n = len(report.record.turns)
            turns_total += n
            per_turn.append(wall / n)
            engines_per_turn.append(engines / n)
        await a.aclose()
        await b.aclose()
    # CPU of the floor's round trips and of the games only, each per round trip / turn
    return floor, floor_cpu / len(floor), per_turn, engines_per_turn, cpu / turns_total, turns_total


async def clock_accuracy(script: Path, games: int, sleep_ms: float) -> list[float]:
    """Charged minus really spent, in ms, per turn: the referee's unrounded stopwatch
    (``Reply.elapsed``, what the clock is charged) against the engine's own measurement."""
    errors: list[float] = []
    original = Engine.think

    async def think(self: Engine, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        reply = await original(self, *args, **kwargs)  # type: ignore[arg-type]
        if reply.info is not None and reply.info.nodes is not None:
            errors.append(reply.elapsed * 1000 - reply.info.nodes / 1000)
        return reply

    Engine.think = think  # type: ignore[method-assign]
    try:
        async with trio.open_nursery() as nursery:
            a = await Engine.start(nursery, EngineSpec(name="A", argv=tuple(canned_argv(script, "python", str(sleep_ms)))))
            b = await Engine.start(nursery, EngineSpec(name="B", argv=tuple(canned_argv(script, "python", str(sleep_ms)))))
            tc = parse_tc("600+1")
            for _ in range(games):
                await play_game((a, b), GameSetup(tcs=(tc, tc)))
            await a.aclose()
            await b.aclose()
    finally:
        Engine.think = original  # type: ignore[method-assign]
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--pin", action="store_true", help="pin this process and the engines to core 0")
    parser.add_argument("--sleep-ms", type=float, default=20.0)
    parser.add_argument("--engine", choices=["c", "python"], default="c", help="the canned engine's language (default c)")
    args = parser.parse_args()
    global KIND
    KIND = args.engine
    if args.pin:
        os.sched_setaffinity(0, {0})
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "game.txt"
        turns = make_script(script)
        where = "pinned to core 0" if args.pin else "unpinned"
        print(f"script: a {turns}-turn game; {args.games} games; {args.engine} canned engines; {where}")
        # several chunks, each with fresh engine processes, so no one process's scheduling
        # luck decides the figures; floor and games alternate within each chunk
        f: list[float] = []
        per_turn: list[float] = []
        overhead: list[float] = []
        engines: list[float] = []
        cpu_total = 0.0
        floor_cpu_total = 0.0
        total = 0
        chunks = 10
        for _ in range(chunks):
            fl_chunk, fl_cpu, p, e, cpu, n = trio.run(referee, script, max(1, args.games // chunks))
            f += fl_chunk
            floor_cpu_total += fl_cpu * len(fl_chunk)
            per_turn += p
            engines += e
            overhead += [w - x for w, x in zip(p, e, strict=True)]
            cpu_total += cpu * n
            total += n
        cpu = cpu_total / total
        fl, ref, eng, over = (statistics.median(x) * 1e6 for x in (f, per_turn, engines, overhead))
        p90 = statistics.quantiles(f, n=10)[-1] * 1e6
        print(f"floor   round trip over pipes      median {fl:8.1f} us  (p90 {p90:.1f}, {len(f)} round trips)")
        print(f"game wall time per turn            median {ref:8.1f} us  over {total} turns  ({ref / fl:.2f}x the floor)")
        print(f"engines' own CPU time per turn     median {eng:8.1f} us  (/proc/PID/schedstat)")
        print(f"referee overhead (wall - engines)  median {over:8.1f} us")
        parent = floor_cpu_total / len(f) * 1e6
        print(f"referee CPU per turn                      {cpu * 1e6:8.1f} us  "
              f"(the floor's parent: {parent:.1f} us per round trip)")
        print(f"ratio overhead / floor                    {over / fl:8.2f}x")
        errors = trio.run(clock_accuracy, script, max(2, args.games // 10), args.sleep_ms)
        errors.sort()
        p99 = errors[min(len(errors) - 1, int(len(errors) * 0.99))]
        median = statistics.median(errors)
        print(f"clock: charged - spent over {len(errors)} turns of {args.sleep_ms:g} ms: median {median:.3f} ms, "
              f"p99 {p99:.3f} ms, max {errors[-1]:.3f} ms")


if __name__ == "__main__":
    main()
