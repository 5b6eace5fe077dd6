#!/usr/bin/env python3
"""The live dashboard's figures (SPEC.md section 17.3): latency to the browser, viewers' cost.

A real daemon (``santorini serve`` on free ports) plays runs between local bundled bots while

(a) Chromium shows the live list ``/live`` and the home page ``/`` (each a small board per game,
    brought up to date every turn) and one live game page: each page records, per turn,
    ``performance.timeOrigin + performance.now()`` right after its DOM update minus the referee's
    wall-clock time of the ruling, which the turn event carries (``t``, ``time.time()``; same
    machine, same clock).  Printed: p50/p99 in ms.
(b) 0, 20 and 200 WebSocket viewers (trio-websocket clients in this process, each reading every
    message) follow ``home``, which hears every turn of every game: the referee's time per turn,
    and the daemon's RSS with the 200 viewers connected against none.  The referee's time is timed
    from outside the daemon: every engine runs behind ``tools/timed_relay.py``, which logs when its
    ``bestmove`` left and when its ``go`` came, and a turn's referee time is from one engine's
    ``bestmove`` to the other's ``go`` (reading and judging the answer, recording it, telling the
    hub, writing the next request; plus two pipe hops, alike in every phase).  The engines are
    ``alphabeta`` at 2+0.05 (``--instant``: ``random`` and ``greedy``, which answer at once).

    python tools/bench_live.py [--games 20] [--viewers 200]

Target (issue 16): p99 turn-to-DOM under 100 ms; 200 viewers: RSS growth under 50 MB, per-turn
time unchanged within noise.  The phases alternate 0/20/200/0/20/200/... so drift shows, and the
interval of each difference is a bootstrap over phases and the turns within them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil
import trio
from trio_websocket import open_websocket_url

from tests.browser import available, launch
from tests.dashboard_daemon import open_websocket_from
from tests.test_server_serve import Daemon, santorini


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def median_difference_interval(a: list[list[float]], b: list[list[float]], rounds: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of median(a) - median(b), each a list of phases of turn times:
    "unchanged within noise" when it holds 0.  Phases are resampled, then turns within each, so
    the interval holds the drift between phases alike (two 0-viewer phases of one run differ by as
    much as a tenth of a millisecond on this machine), not only the spread within one."""
    rng = random.Random(1)

    def resample(phases: list[list[float]]) -> float:
        return statistics.median([x for phase in rng.choices(phases, k=len(phases)) for x in rng.choices(phase, k=len(phase))])

    diffs = sorted(resample(a) - resample(b) for _ in range(rounds))
    return diffs[int(0.025 * rounds)], diffs[int(0.975 * rounds)]


def submit(daemon: Daemon, admin: str, engines: list[str], rounds: int, tc: str) -> int:
    response = daemon.http.post(
        "/api/runs", json={"engines": engines, "rounds": rounds, "tc": tc, "concurrency": 1},
        headers={"Authorization": f"Bearer {admin}"},
    )
    response.raise_for_status()
    return int(response.json()["id"])


def wait_run(daemon: Daemon, run_id: int) -> None:
    while daemon.http.get(f"/api/runs/{run_id}").json()["state"] not in ("finished", "cancelled"):
        time.sleep(0.05)


def latency(daemon: Daemon, admin: str) -> None:
    if not available():
        print("(a) skipped: needs Chromium (apt-get install chromium chromium-driver)")
        return
    browser = launch()
    try:
        home = browser.driver.current_window_handle
        browser.driver.get(daemon.url + "/")
        browser.driver.switch_to.new_window("tab")
        listing = browser.driver.current_window_handle
        browser.driver.get(daemon.url + "/live")
        run_id = submit(daemon, admin, ["a1", "a2"], 1, "3+0.05")
        browser.driver.switch_to.new_window("tab")
        game_tab = browser.driver.current_window_handle
        game_page: list[float] = []
        deadline = time.monotonic() + 30
        browser.driver.switch_to.window(listing)
        while not (href := browser.js("var a = document.querySelector('#live-games a'); return a && a.getAttribute('href');")):
            assert time.monotonic() < deadline, "no live game appeared"
            time.sleep(0.05)
        browser.driver.switch_to.window(game_tab)
        browser.driver.get(daemon.url + href)
        while browser.js("return document.body.dataset.state;") == "live":
            game_page = browser.js("return window.liveLatencies || [];") or game_page
            time.sleep(0.05)
        wait_run(daemon, run_id)
        browser.driver.switch_to.window(listing)
        listed = browser.js("return window.liveLatencies;")
        browser.driver.switch_to.window(home)
        homed = browser.js("return window.liveLatencies;")
        for name, values in (("live game page", game_page), ("/live list (every game)", listed), ("home page /", homed)):
            if values:
                print(f"(a) turn-to-DOM, {name}: {len(values)} turns, p50 {pct(values, 0.5):.1f} ms, "
                      f"p99 {pct(values, 0.99):.1f} ms, max {max(values):.1f} ms")
    finally:
        browser.driver.quit()


def referee_times(log: Path, since: int) -> list[float]:
    """The referee's time of each turn (ms) logged by ``timed_relay.py`` after byte ``since`` of ``log``:
    from a ``bestmove`` to the next logged line when that is the other engine's ``go``."""
    events = []
    with log.open("rb") as file:
        file.seek(since)
        for line in file:
            pid, word, at = line.split()
            events.append((float(at), pid, word))
    events.sort()
    return [(b[0] - a[0]) * 1000 for a, b in itertools.pairwise(events)
            if a[2] == b"bestmove" and b[2] == b"go" and a[1] != b[1]]


async def phase(
    daemon: Daemon, admin: str, viewers: int, games: int, engines: list[str], tc: str, log: Path, since: int
) -> dict[str, Any]:
    """Play a run of ``games`` with ``viewers`` on home; per-turn figures (the relays' log from byte
    ``since``), RSS and CPU."""
    ws = daemon.url.replace("http://", "ws://") + "/ws"
    process = psutil.Process(daemon.process.pid)
    rss_before = process.memory_info().rss
    received = [0] * viewers
    connected = trio.Semaphore(0)
    done = trio.Event()

    async def viewer(i: int) -> None:
        # from 127.0.0.2 up, 10 a address: the daemon takes at most 16 WebSockets from one address
        async with open_websocket_from(ws + "?topic=home", f"127.0.0.{2 + i // 10}", message_queue_size=1024) as socket:
            connected.release()
            with trio.move_on_after(600):
                while not done.is_set():
                    await socket.get_message()
                    received[i] += 1

    gaps: list[float] = []
    async with trio.open_nursery() as nursery:
        for i in range(viewers):
            nursery.start_soon(viewer, i)
        for _ in range(viewers):
            await connected.acquire()
        await trio.sleep(0.5)
        rss_with = process.memory_info().rss
        me = psutil.Process()
        cpu0 = (process.cpu_times(), me.cpu_times(), time.monotonic(), sum(received))
        async with open_websocket_url(ws + "?topic=home") as watch:
            json.loads(await watch.get_message())
            run_id = await trio.to_thread.run_sync(submit, daemon, admin, engines, games // 2, tc)
            last_turn: dict[str, float] = {}
            finished = 0
            while finished < games:
                data = json.loads(await watch.get_message())
                for event in data if isinstance(data, list) else [data]:
                    if event.get("run") == run_id and event["type"] == "started":
                        last_turn[event["game"]] = math.nan
                    elif event["type"] == "turn" and event["game"] in last_turn:
                        gap = (event["t"] - last_turn[event["game"]]) * 1000
                        last_turn[event["game"]] = event["t"]
                        if not math.isnan(gap):  # from one ruling to the next: the engine's time + the referee's
                            gaps.append(gap)
                    elif event.get("run") == run_id and event["type"] == "over":
                        finished += 1
        await trio.to_thread.run_sync(wait_run, daemon, run_id)
        cpu1 = (process.cpu_times(), me.cpu_times(), time.monotonic(), sum(received))
        done.set()
        nursery.cancel_scope.cancel()
    wall = cpu1[2] - cpu0[2]
    return {
        "gaps": gaps, "overheads": referee_times(log, since), "rss_before": rss_before, "rss_with": rss_with,
        "daemon_cpu": (sum(cpu1[0][:2]) - sum(cpu0[0][:2])) / wall,
        "daemon_sys": (cpu1[0][1] - cpu0[0][1]) / wall, "viewers_cpu": (sum(cpu1[1][:2]) - sum(cpu0[1][:2])) / wall,
        "messages": (cpu1[3] - cpu0[3]) / wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="games per phase (default 20)")
    parser.add_argument("--viewers", type=int, default=200, help="viewers of the big phase (default 200)")
    parser.add_argument("--no-browser", action="store_true", help="skip (a)")
    parser.add_argument("--tc", default="2+0.05", help="time control of (b/c)'s alphabeta games (default 2+0.05)")
    parser.add_argument("--instant", action="store_true", help="(b/c) with random vs greedy, which answer at once")
    parser.add_argument("--phases", default="0,20,V,0,20,V,0,20,V", help="viewers per phase, V for --viewers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        log = Path(tmp) / "relay.log"
        relay = Path(__file__).resolve().parent / "timed_relay.py"
        for name, module in (("r", "random_engine"), ("g", "greedy"), ("a1", "alphabeta"), ("a2", "alphabeta")):
            argv = [sys.executable, str(relay), str(log), sys.executable, "-m", f"santorini_engines.{module}"]
            santorini("bot", "add", name, "--local", "cmd=" + " arg=".join(argv), data=data)
        daemon = Daemon(data)
        # The viewers are browsers on other machines; here their clients share the daemon's two
        # cores, so this process (not the daemon and its engines, started already) yields to them.
        os.nice(19)
        admin = (data / "admin.token").read_text().strip()
        try:
            if not args.no_browser:
                latency(daemon, admin)
            engines, tc = (["r", "g"], "10+0.1") if args.instant else (["a1", "a2"], args.tc)
            results: dict[int, list[list[float]]] = {}
            for viewers in [args.viewers if v == "V" else int(v) for v in args.phases.split(",")]:
                since = log.stat().st_size if log.exists() else 0
                got = trio.run(phase, daemon, admin, viewers, args.games, engines, tc, log, since)
                results.setdefault(viewers, []).append(got["overheads"])
                print(f"    {viewers:3d} viewers: turn to turn p50 {pct(got['gaps'], .5):.2f} ms; referee's time "
                      f"(bestmove to go) p50 {pct(got['overheads'], .5):.2f} p90 {pct(got['overheads'], .9):.2f} ms over "
                      f"{len(got['overheads'])} turns; daemon RSS {got['rss_before'] / 2**20:.1f} MB, "
                      f"{got['rss_with'] / 2**20:.1f} MB "
                      f"with the viewers (+{(got['rss_with'] - got['rss_before']) / 2**20:.1f} MB); CPU daemon "
                      f"{got['daemon_cpu']:.2f} s/s ({got['daemon_sys']:.2f} system), "
                      f"viewers {got['viewers_cpu']:.2f} s/s; {got['messages']:.0f} messages/s")
            least = min(results)  # 0 unless --phases has none
            base = statistics.median([x for phase in results[least] for x in phase])
            for viewers in sorted(results):
                pooled = [x for phase in results[viewers] for x in phase]
                median = statistics.median(pooled)
                low, high = median_difference_interval(results[viewers], results[least])
                phases = ", ".join(f"{statistics.median(phase):.2f}" for phase in results[viewers])
                print(f"(b/c) {viewers:3d} viewers on home: the referee's time per turn, median {median:.2f} ms "
                      f"({median / base:.2f}x of {least} viewers; {median - base:+.2f} ms, 95% interval {low:+.2f} to "
                      f"{high:+.2f}), p90 {pct(pooled, .9):.2f} ms, {len(pooled)} turns; phase medians {phases}")
        finally:
            daemon.stop()


if __name__ == "__main__":
    main()
