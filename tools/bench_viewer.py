#!/usr/bin/env python3
"""Benchmark the game viewer: the HTML size of a 60-turn game and its first render in Chromium.

Builds a 60-turn two-seat game (random legal turns of Hermes against a mortal, with telemetry on
every turn), writes its viewer page with ``santorini_server.viewer.write_viewer``, then opens it
``--runs`` times from its file URL in headless Chromium (tests/browser.py: Debian's chromium and
chromedriver) and prints the median of

* ``drawn``: navigation start to the page's ``viewer-drawn`` performance mark, set when the board,
  the top-down helper and the panels of the first position are in the document;
* ``first paint``: navigation start to Chromium's first contentful paint.

Targets (issue 14): under 150 KB and a first render under 300 ms.  ``--screenshot PNG`` also
saves a picture of the generated sixty-turn game. The README's ``docs/viewer.png`` shows a real
game instead: ``santorini match greedy alphabeta --gods athena/minotaur --games 1 --out g.sgn``,
``santorini replay g.sgn --html g.html``, opened at turn 8 with the top-down helper on (``t``).

    python tools/bench_viewer.py [--runs 7] [--screenshot viewer.png]

Run it from the repository root (it uses the tests' game generator and browser harness).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from santorini_server.records import GameRecord
from santorini_server.viewer import write_viewer
from tests.browser import available, launch
from tests.viewer_games import god_game

TURNS = 60


def sixty_turn_game() -> GameRecord:
    """The first seeded Hermes game that lasts 60 turns, cut there (an unfinished game, ``*``)."""
    for seed in range(0, 2000, 7):
        record = god_game("hermes", seed).record
        if len(record.turns) >= TURNS:
            tags = tuple((n, "*" if n == "Result" else "aborted" if n == "Termination" else v) for n, v in record.tags)
            return GameRecord(tags, record.turns[:TURNS])
    raise SystemExit("no 60-turn game found")


TIMES = """
var nav = performance.getEntriesByType('navigation')[0];
var drawn = performance.getEntriesByName('viewer-drawn')[0];
var paint = performance.getEntriesByName('first-contentful-paint')[0];
return [drawn ? drawn.startTime - nav.startTime : null, paint ? paint.startTime - nav.startTime : null];
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--screenshot", type=Path, help="also save a screenshot of the viewer here (PNG)")
    args = parser.parse_args()
    record = sixty_turn_game()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "game.html"
        write_viewer([record], page)
        size = page.stat().st_size
        print(f"HTML of a {len(record.turns)}-turn game: {size:,} bytes ({size / 1024:.1f} KiB; target < 150 KB)")
        if not available():
            print("first render: skipped (needs Chromium: apt-get install chromium chromium-driver)")
            return 0
        browser = launch()
        try:
            drawn, painted = [], []
            for _ in range(args.runs):
                browser.driver.get("about:blank")
                browser.open(page)
                deadline = time.monotonic() + 5
                times = browser.js(TIMES)
                while None in times and time.monotonic() < deadline:
                    time.sleep(0.02)
                    times = browser.js(TIMES)
                drawn.append(times[0])
                painted.append(times[1])
            print(f"first render, median of {args.runs}: drawn {statistics.median(drawn):.0f} ms, "
                  f"first paint {statistics.median(painted):.0f} ms (target < 300 ms; all drawn: "
                  + ", ".join(f"{t:.0f}" for t in drawn) + ")")
            if args.screenshot is not None:
                browser.driver.set_window_size(1280, 760)
                browser.open(page, "#turn=37")
                browser.js("document.getElementById('toggle-top').click()")
                browser.screenshot(args.screenshot)
                print(f"screenshot: {args.screenshot}")
        finally:
            browser.driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
