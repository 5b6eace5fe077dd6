#!/usr/bin/env python3
"""The hostile-client suite at full scale: every attack of ``tests/hostile_clients`` against a real
``santorini serve`` on loopback, with a match of two remote bots in flight, and what the daemon
looked like after each.

    python tools/bench_hostile.py                 # 10,000 failed logins, a 5,000-connection flood for a minute, ...
    python tools/bench_hostile.py --quick         # the CI's scale
    python tools/bench_hostile.py --fuzz 5000     # then the property-based fuzzer, 5,000 examples a property

Prints, per attack, its own figures (connections, how many the daemon refused or kept, a real
bot's login time during a flood, ...) and the daemon's afterwards: the best of five ``GET
/api/bots`` in ms, games of the match played during the attack, resident memory before and
after; at the end the memory against the start, and how the match's games ended (no ``time``).
Every request goes to 127.0.0.0/8; every attack is bounded in count and time.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile_clients import attacks  # noqa: E402
from tests.hostile_clients.attacks import BENCH, CI, Scale  # noqa: E402
from tests.hostile_clients.harness import Siege  # noqa: E402


def _attacks(siege: Siege, scale: Scale) -> list[tuple[str, object]]:
    bots, http, legit = siege.bot_address, siege.http_address, siege.tokens["legit"]

    async def real_bot() -> float:
        return await attacks.legit_login(bots, "legit", legit)

    async def reader() -> float:
        return siege.api_ms() / 1000

    return [
        ("failed logins", partial(attacks.failed_logins, bots, scale)),
        ("login storm", partial(attacks.login_storm, bots, scale, legit)),
        ("bot-port flood", partial(attacks.flood, bots, scale.flood, scale.flood_hold, real_bot)),
        ("HTTP flood", partial(attacks.flood, http, scale.http_flood, scale.flood_hold, reader)),
        ("bot-port slowloris", partial(attacks.slowloris_bots, bots, scale)),
        ("HTTP slowloris", partial(attacks.slowloris_http, http, scale, 10.0)),
        ("1 MB lines", partial(attacks.long_lines, bots, http, legit)),
        ("garbage", partial(attacks.garbage, bots, http, scale)),
        ("WebSocket flood", partial(attacks.websocket_flood, http, scale)),
        ("unfinished WebSocket messages", partial(attacks.websocket_unfinished, http, scale, siege.rss)),
        ("hostile bodies", partial(attacks.bodies, http, siege.admin)),
        ("id forms", partial(attacks.id_forms, http, siege.admin)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the CI's scale instead of the benchmark's")
    parser.add_argument("--fuzz", type=int, default=0, metavar="N", help="then fuzz with N examples a property")
    args = parser.parse_args()
    scale = CI if args.quick else BENCH
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the flood's sockets, and the daemon's (inherited)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        siege = Siege.start(Path(tmp))
        try:
            print(f"daemon pid {siege.pid}: {siege.rss_start:.1f} MB at the start; open files up to {hard}")
            print(f"{'attack':32} {'took':>7} {'api ms':>7} {'games':>6} {'MB before':>9} {'MB after':>9}  figures")
            for name, attack in _attacks(siege, scale):
                before = siege.rss()
                started = time.monotonic()
                try:
                    figures = trio.run(attack)  # type: ignore[arg-type]
                    health = siege.health(name, before)
                except AssertionError as exc:
                    failures += 1
                    print(f"{name:32} FAILED: {str(exc).splitlines()[0][:200]}")
                    continue
                took = time.monotonic() - started
                print(
                    f"{name:32} {took:6.1f}s {health.api_ms:7.1f} {health.games_after - health.games_before:6d} "
                    f"{health.rss_before:9.1f} {health.rss_after:9.1f}  {attacks.fmt(figures)}"  # type: ignore[arg-type]
                )
            if args.fuzz:
                started = time.monotonic()
                fuzz = subprocess.run(
                    [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                     str(ROOT / "tests" / "hostile_clients" / "test_fuzz_daemon.py")],
                    env={**os.environ, "SANTORINI_FUZZ_EXAMPLES": str(args.fuzz)}, cwd=ROOT, capture_output=True, text=True,
                )
                summary = fuzz.stdout.strip().splitlines()[-1] if fuzz.stdout.strip() else fuzz.stderr[-300:]
                took = time.monotonic() - started
                print(f"fuzzing, {args.fuzz} examples a property (its own daemon): {summary} in {took:.0f} s")
                failures += fuzz.returncode != 0
            end = siege.rss()
            grown = end - siege.rss_start
            print(f"memory after every attack: {end:.1f} MB, {grown:+.1f} MB from the start (target: within 20 MB)")
            ended = siege.close()
            print(f"the match in flight: {sum(ended.values())} games, ended by {ended}; drained with status 0, no process left")
            for detail in siege.unusual_endings():
                print(f"  {detail}")
        except BaseException:
            siege.kill()
            raise
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
