#!/usr/bin/env python3
"""Make ``docs/dashboard.png``, the README's picture: the dashboard's page of a real run.

Starts ``santorini serve`` on a fresh data directory with two bundled bots, submits a match under
SPRT between two greedy bots through the job API, waits for it to finish and photographs its page in headless Chromium
(Debian's, through the tests' harness).

    python tools/dashboard_screenshot.py [--out docs/dashboard.png] [--rounds 12]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.browser: the one harness

from bench_pages import serve

from santorini_server.server.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/dashboard.png"))
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()

    from tests.browser import launch

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        with Store(data, create=True) as store:
            store.add_local_bot("greedy", "greedy")
            store.add_local_bot("greedy-b", "greedy")
            store.add_remote_bot("mybot")
        process, url = serve(data)
        try:
            token = (data / "admin.token").read_text().strip()
            body = {"engines": ["greedy", "greedy-b"], "rounds": args.rounds, "tc": "5+0.05", "gods": "apollo/pan,atlas/minotaur",
                    "sprt": "elo0=0 elo1=50", "event": "greedy vs greedy-b, SPRT"}
            run = httpx.post(f"{url}/api/runs", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30).json()["id"]
            deadline = time.monotonic() + 300
            while httpx.get(f"{url}/api/runs/{run}", timeout=30).json()["state"] != "finished":
                if time.monotonic() > deadline:
                    raise SystemExit("the run did not finish in 300 s")
                time.sleep(0.5)
            browser = launch()
            try:
                browser.driver.get(f"{url}/runs/{run}")
                browser.screenshot(args.out)
            finally:
                browser.driver.quit()
        finally:
            process.terminate()
            process.wait(30)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
