#!/usr/bin/env python3
"""Benchmark the tournament report: a 1,000- and a 10,000-game archive -> report.html, timed in
Python and opened in headless Chromium (Debian's, through the tests' harness).

Games are random legal base games (``bench_replay.random_game``): ``--distinct`` of them are
generated and dealt round-robin to eight engines as many times as needed (the report's cost
depends on the number of games, not on which).  For each size it prints the time to build and
render the page (what a tournament pays at each rewrite), its size, the time to write the
viewer files (``--viewer-games`` at most: the viewer replays every game), and the time until the
page is interactive in Chromium (``window.reportReady``: the game list drawn, in ms since
navigation start; median of ``--runs``).  Targets (issue 14): a 1,000-game report interactive in
under 2 s; a 10,000-game archive's report opening in under 2 s.

    python tools/bench_report.py [--sizes 1000 10000] [--runs 5] [--distinct 500] [--viewer-games 1000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.browser: the one harness

from bench_replay import random_game

from santorini_server.records import GameRecord
from santorini_server.tournament.report import ReportInfo, build_report
from santorini_server.tournament.report_files import REPORT, ReportWriter
from santorini_server.tournament.report_page import render_report

ENGINES = tuple(f"engine-{k}" for k in range(1, 9))
PAIRS = [(a, b) for a in ENGINES for b in ENGINES if a != b]


def dealt(games: list[GameRecord], count: int) -> list[tuple[int, GameRecord]]:
    """``count`` numbered games: the distinct ones again and again, each time between the next
    ordered pair of engines (so every engine meets every other, on both sides)."""
    out = []
    for number in range(1, count + 1):
        base = games[(number - 1) % len(games)]
        p1, p2 = PAIRS[(number - 1) % len(PAIRS)]
        names = {"Player1": p1, "Player2": p2, "GameNumber": str(number)}
        out.append((number, GameRecord(tuple((n, names.get(n, v)) for n, v in base.tags), base.turns)))
    return out


REPORT_READY = "return window.reportReady"
VIEWER_READY = "return performance.getEntriesByName('viewer-drawn')[0].startTime"


def open_times(path: Path, runs: int, ready_script: str = REPORT_READY, fragment: str = "") -> tuple[float, float]:
    """Median (ms) of: the page interactive (``ready_script``'s time since navigation start),
    and ``driver.get``'s wall time."""
    from tests.browser import available, launch

    if not available():
        raise SystemExit("needs Chromium: apt-get install chromium chromium-driver")
    browser = launch()
    ready, wall = [], []
    try:
        for _ in range(runs):
            browser.driver.get("about:blank")
            t0 = time.perf_counter()
            browser.open(path, fragment)
            wall.append((time.perf_counter() - t0) * 1000)
            ready.append(float(browser.js(ready_script)))
            errors = browser.console_errors()
            if errors:
                raise SystemExit(f"console errors: {errors}")
            if browser.network_requests(allowed=path.parent):
                raise SystemExit(f"network requests: {browser.network_requests(allowed=path.parent)}")
    finally:
        browser.driver.quit()
    return statistics.median(ready), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--distinct", type=int, default=500)
    parser.add_argument("--viewer-games", type=int, default=1000,
                        help="write the viewer files for archives up to this many games (the viewer replays each)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    distinct = [random_game(rng, i) for i in range(1, args.distinct + 1)]
    turns = sum(len(g.turns) for g in distinct) / len(distinct)
    print(f"generated {args.distinct} random games ({turns:.0f} turns each on average) in {time.perf_counter() - t0:.1f} s")
    failed = False
    for size in args.sizes:
        games = dealt(distinct, size)
        info = ReportInfo("bench", ENGINES, 2, "10+0.1", "mortal/mortal", size)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            t0 = time.perf_counter()
            html = render_report(build_report(info, games))
            t_render = time.perf_counter() - t0
            viewer_note = "viewer files not written (--viewer-games)"
            if size <= args.viewer_games:
                writer = ReportWriter(folder, info)
                for number, record in games:
                    writer.add(record, number)
                t0 = time.perf_counter()
                writer.write_now()
                t_all = time.perf_counter() - t0
                files = sorted((folder / "games").iterdir())
                mb = sum(f.stat().st_size for f in files) / 1e6
                viewer_note = f"report + {len(files)} viewer files ({mb:.1f} MB) written in {t_all:.1f} s"
                v_ready, v_wall = open_times(files[0], args.runs, VIEWER_READY, "#game=50")
                viewer_note += (f"; a viewer file ({files[0].stat().st_size / 1e6:.1f} MB, 100 games) drawn at "
                                f"{v_ready:.0f} ms, load {v_wall:.0f} ms wall")
            else:
                (folder / REPORT).write_text(html)
            ready, wall = open_times(folder / REPORT, args.runs)
            size_kb = (folder / REPORT).stat().st_size / 1024
            print(f"{size:>6} games: report.html {size_kb:.0f} KB, built and rendered in {t_render * 1000:.0f} ms; "
                  f"{viewer_note}")
            print(f"        Chromium (median of {args.runs}): interactive at {ready:.0f} ms, "
                  f"load {wall:.0f} ms wall (driver round trip included)")
            if ready >= 2000:
                print(f"SLOW: {ready:.0f} ms is over the 2 s target", file=sys.stderr)
                failed = True
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
