#!/usr/bin/env python3
"""Benchmark record re-validation: ``santorini replay --check`` on a 10,000-game archive.

Generates an archive of random legal base games (uniformly random turns until a climb or a side
without a legal turn, so games are longer than engine games: a conservative load), then times
the real command end to end in a subprocess and, in process, the two stages (decode, replay).
Target (issue text): replaying and re-validating 10,000 games in under 10 s.

    python tools/bench_replay.py [--games 10000] [--seed 1] [--archive PATH] [--jobs N]

``--archive PATH`` keeps the generated archive (and reuses it if it exists).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from santorini_server.records import GameRecord, TurnRecord, encode_frame, read_archive
from santorini_server.records.replay import check_record
from santorini_server.rules import SQUARE_NAMES, Position


def random_game(rng: random.Random, number: int) -> GameRecord:
    """One random legal game from the empty board, with the tags the referee writes."""
    pos = Position.start()
    turns: list[TurnRecord] = []
    termination = "no-moves"
    winner = 0
    while True:
        if pos.is_placement:
            taken = pos.workers[0] | pos.workers[1]
            free = [SQUARE_NAMES[sq] for sq in range(25) if not taken >> sq & 1]
            t = pos.play(",".join(rng.sample(free, 2)))
        else:
            legal = pos.legal_turns()
            if not legal:
                winner = 2 - pos.to_move  # the side to move has no legal turn and loses
                break
            t = pos.play(rng.choice(legal))
        score = f"{rng.randrange(-50, 50):+d}"
        turns.append(TurnRecord(t.stn, time_ms=rng.randrange(1, 2000), score=score, depth=rng.randrange(1, 9)))
        if t.win:
            winner = pos.to_move + 1
            termination = t.termination or "climb"
            break
        pos = t.position
    return GameRecord.build(
        event="bench", site="local", date="2025.06.01", round=str(number), player1="rand-a",
        player2="rand-b", gods="mortal/mortal", ruleset="santorini-base-v1", start="startpos",
        time_control="10+0.1", result="1-0" if winner == 1 else "0-1", termination=termination,
        termination_detail="", game_number=number, turns=turns,
    )


def make_archive(path: Path, games: int, seed: int) -> None:
    rng = random.Random(seed)
    with open(path, "wb") as f:
        for i in range(1, games + 1):
            f.write(encode_frame(random_game(rng, i)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--archive", type=Path, help="keep the archive here (reused if it exists)")
    parser.add_argument("--jobs", type=int, help="passed to santorini replay --jobs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.archive or Path(tmp) / "bench.msgpack"
        if not path.exists():
            t0 = time.perf_counter()
            make_archive(path, args.games, args.seed)
            print(f"generated {args.games} random games in {time.perf_counter() - t0:.1f} s -> {path}")
        size = path.stat().st_size

        t0 = time.perf_counter()
        records, damage = read_archive(path)
        t_read = time.perf_counter() - t0
        turns = sum(len(r.turns) for r in records)
        t0 = time.perf_counter()
        bad = sum(1 for i, r in enumerate(records, 1) if check_record(r, i, {}))
        t_check = time.perf_counter() - t0
        print(f"archive: {len(records)} games, {turns} turns ({turns / max(1, len(records)):.1f}/game), "
              f"{size / 1e6:.1f} MB, {len(damage)} damaged regions")
        print(f"in process, one core: decode {t_read:.2f} s, re-validate {t_check:.2f} s "
              f"({t_check / max(1, turns) * 1e6:.1f} us/turn), {bad} games with problems")

        cmd = [sys.executable, "-m", "santorini_server.cli", "replay", "--check", str(path)]
        if args.jobs is not None:
            cmd += ["--jobs", str(args.jobs)]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        print(f"$ santorini replay --check {path.name}{' --jobs ' + str(args.jobs) if args.jobs else ''}"
              f"  -> exit {proc.returncode}, {wall:.2f} s wall ({os.cpu_count()} CPUs)")
        print("  " + (proc.stdout.strip().splitlines() or [""])[-1])
        if proc.returncode != 0:
            print(proc.stderr.strip()[-2000:], file=sys.stderr)
            sys.exit(1)
        if wall >= 10:
            print(f"SLOW: {wall:.2f} s is over the 10 s target", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
