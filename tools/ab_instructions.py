#!/usr/bin/env python3
"""A/B of the referee's work per turn, in CPU instructions: deterministic where time is not.

``ab_referee.py`` times two versions against each other, and on this shared VM its interval is
a few microseconds wide at best (unpinned, tens).  This counts instead: each version's referee
worker (``ab_referee.py``'s, the same canned games against the same canned C engines) runs under
valgrind's callgrind, once playing ``--games`` SMALL and once LARGE games; the difference of the
two instruction totals, over the difference of turns, is the referee process's instructions per
turn, with its start-up and shutdown cancelled out.  The engines are other processes and are
not counted, nor is time spent in the kernel.  Repeated runs agree within about 1%.

    python tools/ab_instructions.py 2a46ef7              # 2a46ef7 against the working tree
    python tools/ab_instructions.py main my-branch --games 5,25

Needs valgrind (Debian package ``valgrind``).  A run takes about a minute per version.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

from ab_referee import WORKTREE, checkout  # noqa: E402  (a sibling tool, found through TOOLS)

_COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(root: Path, script: Path, games: int) -> int:
    """Instructions the referee worker of ``root`` executes to start, play ``games`` games, and stop."""
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, str(TOOLS / "ab_referee.py"), "--worker", str(root), str(script)],
        input=f"{games}\n", capture_output=True, text=True, timeout=1800,
    )
    found = _COLLECTED.search(proc.stderr)
    if proc.returncode != 0 or found is None or proc.stdout.startswith("error:"):
        tail = (proc.stdout.strip() or proc.stderr.strip()).splitlines()[-1:] or ["no output"]
        raise SystemExit(f"error: the worker of {root} failed: {tail[0]}")
    return int(found[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", metavar="REV_A", help="the baseline: a git revision")
    parser.add_argument("b", metavar="REV_B", nargs="?", default=WORKTREE,
                        help="the candidate: a git revision (default: the working tree, uncommitted changes included)")
    parser.add_argument("--games", default="5,25", help="SMALL,LARGE games per count (default 5,25)")
    args = parser.parse_args()
    try:
        small, large = (int(n) for n in args.games.split(","))
    except ValueError:
        parser.error(f"--games takes SMALL,LARGE (e.g. 5,25), got {args.games!r}")
    if not 0 <= small < large:
        parser.error("--games: SMALL must be at least 0 and below LARGE")
    if shutil.which("valgrind") is None:
        raise SystemExit("error: valgrind is not installed (apt-get install valgrind)")
    from bench_referee import make_script
    from canned import canned_argv

    with tempfile.TemporaryDirectory(prefix="ab-instructions-") as tmp:
        script = Path(tmp) / "game.txt"
        turns = make_script(script)
        canned_argv(script)  # builds the C engine now, outside the counted runs
        print(f"referee instructions per turn (callgrind): {large} games minus {small} of a {turns}-turn canned game")
        results = []
        for label, rev in (("A", args.a), ("B", args.b)):
            root = checkout(rev, Path(tmp) / label)
            per_turn = (instructions(root, script, large) - instructions(root, script, small)) / ((large - small) * turns)
            results.append(per_turn)
            print(f"{label} ({rev}):{'':<{max(1, 28 - len(rev))}}{per_turn:10,.0f} instructions per turn")
        a, b = results
        print(f"B / A: {b / a:.3f}  (B - A: {b - a:+,.0f} instructions per turn)")


if __name__ == "__main__":
    main()
