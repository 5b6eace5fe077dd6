#!/usr/bin/env python3
"""Measure the disk a tournament folder's files cost per game: the archive, the SGN, report.html
and the games/ viewer files, from real tournaments of the bundled engines.

Each tournament is played once by ``santorini tournament`` (seeded greedy engines, so the moves
are the same every run; times used and so clocks vary a little), then ``santorini report``
writes its report.html and games/ again from its archive with each ``--code`` checkout (default:
this one), so two versions of the viewer are compared on the same games.  Printed per tournament
and checkout: bytes per game of ``games.msgpack``, ``games.sgn``, ``report.html``, all of
``games/``, and the first block file (its games are BLOCK_SIZE = 100 whole games when the
tournament has that many), and the seconds ``santorini report`` took.  Target (issue: viewer
pages that scale): report and viewer files at most the archive's bytes per game.

    python tools/bench_viewer_pages.py [--only two-gods three four] [--code DIR ...] [--keep DIR]

To compare with an earlier commit: ``git archive COMMIT | tar -x -C /tmp/before`` and
``--code /tmp/before --code .``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent


def greedy(name: str) -> str:
    return f"cmd={PY} arg=-m arg=engines.greedy name={name}"


#: name -> the tournament's arguments (every one seeded: the same games each run).
TOURNAMENTS: dict[str, list[str]] = {
    "two-gods": ["-e", "greedy", "-e", greedy("greedy2"), "--each", "option.Seed=7", "--gods", "all",
                 "--tc", "5+0.05"],
    "two-mortal": ["-e", "greedy", "-e", greedy("greedy2"), "--each", "option.Seed=7", "--games", "100",
                   "--tc", "5+0.05"],
    "three": ["--players", "3", "-e", "greedy", "-e", "random", "-e", greedy("greedy2"), "--each", "option.Seed=7",
              "--games", "108", "--tc", "5+0.05"],
    "four": ["--players", "4", "-e", "greedy", "-e", greedy("greedy2"), "--each", "option.Seed=7", "--games", "100",
             "--tc", "5+0.05"],
}


def run(args: list[str], code: Path) -> None:
    proc = subprocess.run([PY, "-m", "santorini_server.cli", *args], capture_output=True, text=True, cwd=code,
                          env={**os.environ, "PYTHONPATH": str(code)})
    if proc.returncode != 0:
        raise SystemExit(f"santorini {' '.join(args[:1])} failed in {code}: {proc.stderr.strip()[-500:]}")


def games_in(folder: Path) -> tuple[int, float]:
    from santorini_server.records import read_archive

    records, _ = read_archive(folder / "games.msgpack")
    return len(records), sum(len(r.turns) for r in records) / max(len(records), 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(TOURNAMENTS), default=sorted(TOURNAMENTS))
    parser.add_argument("--code", type=Path, action="append", help="a checkout whose santorini report to measure")
    parser.add_argument("--keep", type=Path, help="play the tournaments into this folder (reused if there)")
    args = parser.parse_args()
    codes = [c.resolve() for c in args.code or [ROOT]]
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        print(f"{'tournament':<11} {'games':>5} {'turns':>5}  {'checkout':<24} {'archive':>7} {'sgn':>6} "
              f"{'report':>6} {'games/':>6} {'block':>6} {'report s':>8}  (bytes a game)")
        for name in args.only:
            folder = base / name
            if not (folder / "games.msgpack").exists():
                run(["tournament", *TOURNAMENTS[name], "-j", "2", "--out", str(folder)], ROOT)
            count, turns = games_in(folder)
            for code in codes:
                out = Path(tmp) / f"{name}-report"
                subprocess.run(["rm", "-rf", str(out)], check=True)
                started = time.perf_counter()
                run(["report", str(folder), "--out", str(out)], code)
                took = time.perf_counter() - started
                blocks = sorted((out / "games").iterdir())
                first = blocks[0]
                in_first = min(count, 100)
                print(f"{name:<11} {count:>5} {turns:>5.1f}  {str(code)[-24:]:<24} "
                      f"{(folder / 'games.msgpack').stat().st_size / count:>7.0f} "
                      f"{(folder / 'games.sgn').stat().st_size / count:>6.0f} "
                      f"{(out / 'report.html').stat().st_size / count:>6.0f} "
                      f"{sum(b.stat().st_size for b in blocks) / count:>6.0f} "
                      f"{first.stat().st_size / in_first:>6.0f} {took:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
