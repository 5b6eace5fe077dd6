#!/usr/bin/env python3
"""A/B of the referee's cost per turn: two versions of the code, interleaved in one run.

bench_referee.py's ratios move by +-0.2x from run to run on this shared VM (the floor itself
drifts), so a change worth 1-2 us a turn cannot be seen by comparing two of its runs.  This
plays the same canned games through two versions at once: each version runs in its own worker
process (its ``santorini_server`` imported from a checkout of that revision, its own two canned
engine processes), and the workers take turns, block by block, in ABBA order, so both see the
machine as it is at that moment.  It prints each version's median wall time per turn and the
median of the paired block differences with a bootstrap 95% interval.

    python tools/ab_referee.py HEAD~1            # HEAD~1 against the working tree
    python tools/ab_referee.py main my-branch --pin --blocks 60

Wall time per turn includes the engines' few microseconds, the same on both sides.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parent
WORKTREE = "worktree"


# --- worker: one version's referee, playing blocks of games on request ------------------------------


def worker(root: str, script: str, pin: bool) -> None:
    """Import the referee from ``root``, then play ``n`` games per line ``n`` read from stdin,
    answering with the µs per turn of each game on one line."""
    if pin:
        os.sched_setaffinity(0, {0})  # the engines inherit it
    sys.path.insert(0, root)
    import trio

    import santorini_server

    if not Path(santorini_server.__file__).resolve().is_relative_to(Path(root).resolve()):
        print(f"error: imported santorini_server from {santorini_server.__file__}, not {root}", flush=True)
        return
    try:
        from santorini_server.referee import Engine, GameSetup, play_game
        try:
            from santorini_server.adjudicator import parse_tc
        except ImportError:  # a version from before the adjudicator
            from santorini_server.referee import parse_tc  # type: ignore[attr-defined,no-redef]
        from santorini_server.referee.engine_spec import EngineSpec
    except ImportError as exc:
        print(f"error: this version lacks what the A/B drives: {exc}", flush=True)
        return
    sys.path.insert(1, str(TOOLS))
    from canned import canned_argv

    argv = tuple(canned_argv(Path(script)))

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            engines = (
                await Engine.start(nursery, EngineSpec(name="A", argv=argv)),
                await Engine.start(nursery, EngineSpec(name="B", argv=argv)),
            )
            tc = parse_tc("60+1")
            print("ready", flush=True)
            while line := await trio.to_thread.run_sync(sys.stdin.readline):
                per_turn = []
                for _ in range(int(line)):
                    start = trio.current_time()
                    report = await play_game(engines, GameSetup(tcs=(tc, tc)))
                    per_turn.append((trio.current_time() - start) / len(report.record.turns) * 1e6)
                print(" ".join(f"{x:.3f}" for x in per_turn), flush=True)
            for engine in engines:
                await engine.aclose()

    trio.run(serve)


# --- coordinator -----------------------------------------------------------------------------------


def checkout(rev: str, into: Path) -> Path:
    """The source tree of ``rev`` (``santorini_server`` only) under ``into``; the working tree
    as it is for ``WORKTREE``."""
    if rev == WORKTREE:
        return REPO
    found = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        raise SystemExit(f"error: {rev!r} is not a commit of {REPO}")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", found.stdout.strip(), "santorini_server"],
        capture_output=True, check=True,
    ).stdout
    into.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


class Side:
    """One version's worker process."""

    def __init__(self, label: str, root: Path, script: Path, pin: bool) -> None:
        self.label = label
        self.games: list[float] = []
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(root), str(script), *(["--pin"] if pin else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self._expect_ready()

    def _read(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line or line.startswith("error:"):
            raise SystemExit(f"{self.label}: {line.strip() or 'the worker exited'}")
        return line

    def _expect_ready(self) -> None:
        self._read()

    def play(self, games: int) -> float:
        """Play a block; return its median µs per turn (every game is kept for the totals)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{games}\n")
        self.proc.stdin.flush()
        block = [float(x) for x in self._read().split()]
        self.games += block
        return statistics.median(block)

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def bootstrap_median(diffs: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95% interval for the median of ``diffs`` (seeded: the same data, the same interval)."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(diffs, k=len(diffs))) for _ in range(rounds))
    return medians[int(rounds * 0.025)], medians[int(rounds * 0.975) - 1]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        # Ctrl-C reaches the whole group: the coordinator handles it by closing our stdin,
        # and we then close our engines the orderly way
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        worker(sys.argv[2], sys.argv[3], "--pin" in sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", metavar="REV_A", help="the baseline: a git revision")
    parser.add_argument("b", metavar="REV_B", nargs="?", default=WORKTREE,
                        help="the candidate: a git revision (default: the working tree, uncommitted changes included)")
    parser.add_argument("--blocks", type=int, default=40, help="blocks per side (default 40)")
    parser.add_argument("--games", type=int, default=10, help="games per block (default 10; 36 turns a game)")
    parser.add_argument("--pin", action="store_true", help="pin both sides and their engines to core 0")
    args = parser.parse_args()
    if args.blocks < 2 or args.games < 1:
        parser.error("--blocks must be >= 2 and --games >= 1")
    sys.path.insert(0, str(TOOLS))
    from bench_referee import make_script

    with tempfile.TemporaryDirectory(prefix="ab-referee-") as tmp:
        script = Path(tmp) / "game.txt"
        turns = make_script(script)
        sides = []
        try:
            for label, rev in (("A", args.a), ("B", args.b)):
                sides.append(Side(f"{label} ({rev})", checkout(rev, Path(tmp) / label), script, args.pin))
            a, b = sides
            a.play(args.games), b.play(args.games)  # warm-up, not counted
            a.games.clear(), b.games.clear()
            diffs = []
            for i in range(args.blocks):
                if i % 2 == 0:
                    ma = a.play(args.games)
                    mb = b.play(args.games)
                else:
                    mb = b.play(args.games)
                    ma = a.play(args.games)
                diffs.append(mb - ma)
        except KeyboardInterrupt:
            raise SystemExit("interrupted") from None
        finally:
            for side in sides:
                side.close()
    low, high = bootstrap_median(diffs)
    faster = sum(d < 0 for d in diffs)
    print(f"{args.blocks} blocks of {args.games} games ({turns} turns each) per side, ABBA order, "
          f"{'pinned to core 0' if args.pin else 'unpinned'}")
    for side in sides:
        print(f"{side.label:30s} median {statistics.median(side.games):7.2f} us per turn")
    print(f"B - A, median of paired blocks: {statistics.median(diffs):+.2f} us per turn "
          f"(95% interval {low:+.2f} .. {high:+.2f}); B faster in {faster} of {len(diffs)} blocks")


if __name__ == "__main__":
    main()
