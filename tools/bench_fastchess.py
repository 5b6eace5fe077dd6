#!/usr/bin/env python3
"""Per-ply cost of `santorini match` and `santorini tournament` beside fastchess, as a user runs them.

Instant scripted engines play the same number of plies through each runner: one C program
(``canned_engine.c``, compiled here with ``cc`` into a temporary folder) answers ``sei`` as a
Santorini engine replaying an 86-turn game and ``uci`` as a chess engine replaying an 86-ply
game (knights shuffling between pawn pushes, ended by a threefold repetition, which fastchess
adjudicates).  So what differs between the rows is the runner.

Each configuration runs the CLI as a user would (a fresh process, its output read here), pinned
(``taskset -c 0``: the runner and its engines share one core, what ``--affinity`` users and
CPU-bound engines see) or unpinned, at ``-j 1`` and ``-j 2`` (``match`` plays one game at a
time: ``-j 1`` only).  Per ply is the difference of a LARGE and a SMALL run over the difference
of plies, so start-up (Python's imports, fastchess's own) cancels out; a run's time ends when
its last "Finished game" line arrives (fastchess's main thread looks for the end once a second,
so its exit would round every run up to a whole second).  Configurations are
interleaved within each repetition and the medians of ``--reps`` repetitions are printed, with
the ratio to fastchess in the same mode when a fastchess binary is given (``--fastchess PATH``;
without it, our own figures only).  The runner's CPU per ply is its process tree's (the tool's
children's rusage) less the engines' own, which each engine writes at exit (``CANNED_CPU_LOG``).

    python tools/bench_fastchess.py --fastchess /tmp/fastchess/fastchess [--games 400] [--reps 3]
    python tools/bench_fastchess.py --rev HEAD~3      # our rows for HEAD~3 too, in the same run

``--rev REV`` adds ``match`` and ``tournament`` rows for a git revision (its ``santorini_server``
checked out into the temporary folder, run with ``python -m santorini_server.cli``), interleaved
with the working tree's: a before/after in one run.

fastchess is not part of this project: build it from its own repository (``make``) anywhere.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ab_referee import WORKTREE, checkout
from canned import canned_argv

from santorini_server.records import GameRecord, iter_archive
from santorini_server.rules import Position

PLIES = 86
"""The scripted games' length, the same for chess and Santorini."""

# The chess game: knights out and back, then 13 blocks of a white and a black pawn push and a
# knight round trip (each push makes the position new, so no repetition ends it early), then
# one last round trip: the position after the last pushes stands for the third time at ply 86.
_CHESS_PUSHES = (  # white, black, white, black...
    ("a2a3", "h7h6"), ("a3a4", "h6h5"), ("a4a5", "h5h4"), ("a5a6", "h4h3"), ("b2b3", "g7g6"), ("b3b4", "g6g5"),
    ("b4b5", "g5g4"), ("b5b6", "g4g3"), ("c2c3", "e7e6"), ("c3c4", "e6e5"), ("c4c5", "e5e4"), ("c5c6", "e4e3"),
    ("d2d3", "d7d6"),
)
_KNIGHTS = ("g1f3", "g8f6", "f3g1", "f6g8")


def chess_script() -> list[str]:
    """An 86-ply legal chess game (UCI moves) that fastchess ends by threefold repetition."""
    moves = ["b1c3", "b8c6", "c3b1", "c6b8"]
    for white, black in _CHESS_PUSHES:
        moves += [white, black, *_KNIGHTS]
    return moves + list(_KNIGHTS)


def santorini_script(turns: int) -> list[str]:
    """A legal Santorini game of exactly ``turns`` turns (STN), won on the last.

    Depth-first: no turn before the last wins or leaves the opponent a win; the last wins.
    """
    path: list[str] = []

    def extend(position: Position) -> bool:
        transitions = position.transitions()
        if len(path) == turns - 1:
            win = next((t for t in transitions if t.win), None)
            if win is not None:
                path.append(win.stn)
            return win is not None
        for t in transitions:
            if t.win:
                continue
            replies = t.position.transitions()
            if not replies or (len(path) + 2 < turns and any(r.win for r in replies)):
                continue
            path.append(t.stn)
            if extend(t.position):
                return True
            path.pop()
        return False

    if not extend(Position.start()):
        raise SystemExit(f"error: found no {turns}-turn Santorini game")
    return path


@dataclass(frozen=True)
class Config:
    """One way to play the games: a runner, pinned or not, at a concurrency."""

    runner: str  # "fastchess", "match --out", "match", "tournament"
    pinned: bool
    jobs: int
    rev: str = WORKTREE  # our runners: the version of santorini_server they run

    @property
    def label(self) -> str:
        at = "" if self.runner == "fastchess" or self.rev == WORKTREE else f"@{self.rev}"
        return f"{self.runner}{at} {'pinned' if self.pinned else 'unpinned'} -j {self.jobs}"


@dataclass
class Sample:
    wall: float
    cpu: float  # the runner's process tree, engines excluded


class Bench:
    """Runs the configurations in a temporary folder holding the engine and both scripts."""

    def __init__(self, tmp: Path, fastchess: str | None, revs: list[str]) -> None:
        self.tmp = tmp
        self.fastchess = fastchess
        self.roots = {rev: checkout(rev, tmp / f"src{i}") for i, rev in enumerate(revs) if rev != WORKTREE}
        chess = tmp / "chess.txt"
        chess.write_text(" ".join(chess_script()) + "\n")
        sgame = tmp / "santorini.txt"
        sgame.write_text(" ".join(santorini_script(PLIES)) + "\n")
        self.santorini_argv = canned_argv(sgame)  # compiles canned_engine.c into tmp
        self.chess_argv = [self.santorini_argv[0], str(chess)]
        self.runs = 0

    def argv(self, config: Config, games: int, out: Path) -> list[str]:
        if config.runner == "fastchess":
            assert self.fastchess is not None
            binary, script = self.chess_argv
            engines = [a for name in ("A", "B") for a in ("-engine", f"cmd={binary}", f"args={script}", f"name={name}")]
            argv = [self.fastchess, *engines, "-each", "proto=uci", "tc=60+1", "-rounds", str(games // 2),
                    "-games", "2", "-concurrency", str(config.jobs), "-ratinginterval", "0",
                    "-pgnout", f"file={out / 'games.pgn'}"]
            if config.pinned:
                argv.append("-force-concurrency")
            return argv
        engine = "cmd=" + " arg=".join(self.santorini_argv)
        santorini = [sys.executable, "-m", "santorini_server.cli"]
        if config.runner.startswith("match"):
            argv = [*santorini, "match", f"{engine} name=A", f"{engine} name=B", "--games", str(games), "--tc", "60+1"]
            return argv + (["--out", str(out / "games.sgn")] if config.runner == "match --out" else [])
        argv = [*santorini, "tournament", "-e", f"{engine} name=A", "-e", f"{engine} name=B", "--games", str(games),
                "--tc", "60+1", "-j", str(config.jobs), "--rating-interval", "1000000", "--out", str(out / "run")]
        return argv + (["--force-concurrency"] if config.pinned else [])

    def run(self, config: Config, games: int) -> Sample:
        """Play ``games`` games; the wall time and the runner's CPU (engines' excluded)."""
        self.runs += 1
        out = self.tmp / f"run{self.runs}"
        out.mkdir()
        log = out / "engines-cpu.txt"
        argv = self.argv(config, games, out)
        if config.pinned:
            argv = ["taskset", "-c", "0", *argv]
        env = {**os.environ, "CANNED_CPU_LOG": str(log)}
        if config.rev in self.roots:
            env["PYTHONPATH"] = os.pathsep.join([str(self.roots[config.rev]), env.get("PYTHONPATH", "")])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        wall = 0.0
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=out)
        assert proc.stdout is not None
        with open(out / "stdout.txt", "wb") as stdout:
            for line in proc.stdout:  # the time of the last game's "Finished game" line, not the exit's:
                if b"Finished game" in line:  # fastchess looks for the end of its games once a second
                    wall = time.perf_counter() - start
                stdout.write(line)
        proc.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            tail = (out / "stdout.txt").read_text(errors="replace").strip().splitlines()[-3:]
            raise SystemExit(f"error: {config.label} exited {proc.returncode}: {' | '.join(tail)}")
        self.check(config, games, out)
        tree = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        engines = sum(int(x) for x in log.read_text().split()) / 1e6 if log.exists() else 0.0
        shutil.rmtree(out, ignore_errors=True)
        return Sample(wall, tree - engines)

    def check(self, config: Config, games: int, out: Path) -> None:
        """Every game was played, to its last ply (a benchmark of short games measures nothing)."""
        if config.runner == "fastchess":
            pgn = (out / "games.pgn").read_text()
            played = pgn.count("3-fold repetition")
        elif config.runner == "tournament":
            with open(out / "run" / "games.msgpack", "rb") as f:
                played = sum(1 for r in iter_archive(f) if isinstance(r, GameRecord) and len(r.turns) == PLIES)
        else:
            played = (out / "stdout.txt").read_text().count("wins by climbing")
        if played != games:
            raise SystemExit(f"error: {config.label}: {played} of {games} games ran their {PLIES} plies")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fastchess", metavar="PATH", help="a fastchess binary (else our own figures only)")
    parser.add_argument("--games", type=int, default=400, help="games of the LARGE run (default 400; even)")
    parser.add_argument("--small", type=int, default=20, help="games of the SMALL run (default 20; even)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--rev", action="append", default=[], metavar="REV",
                        help="also our rows for this git revision, interleaved (repeat)")
    parser.add_argument("--only", choices=["fastchess", "match", "tournament"], action="append",
                        help="only these runners (repeat; default all)")
    args = parser.parse_args()
    if args.games % 2 or args.small % 2 or not 0 < args.small < args.games:
        parser.error("--games and --small must be even, with 0 < SMALL < LARGE")
    if args.fastchess is not None and not os.access(args.fastchess, os.X_OK):
        parser.error(f"--fastchess: {args.fastchess} is not an executable file")
    if shutil.which("cc") is None or shutil.which("taskset") is None:
        raise SystemExit("error: needs cc (to build the scripted engine) and taskset (util-linux)")
    runners = ["fastchess"] * (args.fastchess is not None) + ["match --out", "match", "tournament"]
    if args.only:
        runners = [r for r in runners if r.split()[0] in args.only]
    revs = [WORKTREE, *args.rev]
    configs = [Config(r, pinned, jobs, rev) for r in runners for rev in (revs if r != "fastchess" else [WORKTREE])
               for pinned in (True, False) for jobs in (1, 2) if jobs == 1 or not r.startswith("match")]
    wall: dict[Config, list[float]] = {c: [] for c in configs}
    cpu: dict[Config, list[float]] = {c: [] for c in configs}
    plies = (args.games - args.small) * PLIES
    with tempfile.TemporaryDirectory(prefix="bench-fastchess-") as tmp:
        bench = Bench(Path(tmp), args.fastchess, revs)
        print(f"{PLIES}-ply scripted games (chess for fastchess, Santorini for ours), C engines; "
              f"per ply = ({args.games}-game run - {args.small}-game run) / {plies} plies; "
              f"medians of {args.reps} interleaved repetitions; {os.cpu_count()} CPUs")
        for rep in range(args.reps):
            order = configs if rep % 2 == 0 else configs[::-1]
            for config in order:
                small = bench.run(config, args.small)
                large = bench.run(config, args.games)
                wall[config].append((large.wall - small.wall) / plies * 1e6)
                cpu[config].append((large.cpu - small.cpu) / plies * 1e6)
            print(f"  repetition {rep + 1} of {args.reps} done", file=sys.stderr)
    med = {c: statistics.median(wall[c]) for c in configs}
    print(f"\n{'us per ply':32s} {'wall':>8s} {'runner CPU':>11s} {'vs fastchess':>13s}   runs (wall)")
    for c in configs:
        base = Config("fastchess", c.pinned, c.jobs)
        ratio = f"{med[c] / med[base]:12.2f}x" if base in med and c != base else f"{'':13s}"
        runs = ", ".join(f"{x:.1f}" for x in wall[c])
        print(f"{c.label:32s} {med[c]:8.1f} {statistics.median(cpu[c]):11.1f} {ratio}   {runs}")
    print("\nspeed-up of -j 2 over -j 1 (wall per ply)")
    for c in configs:
        two = Config(c.runner, c.pinned, 2, c.rev)
        if c.jobs == 1 and two in med:
            print(f"  {c.label.removesuffix(' -j 1'):36s} {med[c] / med[two]:5.2f}x")


if __name__ == "__main__":
    main()
