#!/usr/bin/env python3
"""The bot port with many idle remote bots: the gateway's memory, and a game's cost per turn
meanwhile.

This process runs the gateway; a child process logs in ``--bots`` bots over loopback TCP (each
one connection that answers the handshake and ``isready``, then stays idle).  Printed: this
process's RSS before and after they connect (and per bot), and the median wall time per turn of
games between two instant remote bots, without the idle bots and then with them.

    python tools/bench_idle_bots.py [--bots 1000] [--games 10]
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import statistics
import sys
import tempfile
from pathlib import Path

import structlog
import trio
from bench_referee import make_script
from bench_remote import TOKEN

from santorini_server.adjudicator import parse_tc
from santorini_server.referee import GameSetup, play_game
from santorini_server.server.gateway import Gateway, GatewayLimits, serve_bots
from santorini_server.server.remote_engine import RemoteEngine


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def idle_bots(port: int, count: int) -> None:
    """The child: ``count`` bots that log in, answer the handshake and pings, then wait."""

    async def one(i: int) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(f"login idle{i} {TOKEN}\n".encode())
        buffer = b""
        while True:
            data = await stream.receive_some(4096)
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.startswith(b"sei"):
                    await stream.send_all(b"id name idle\nseiok 1\n")
                elif line.startswith(b"isready"):
                    await stream.send_all(b"readyok\n")
                elif line.startswith(b"quit"):
                    return

    async with trio.open_nursery() as nursery:
        for i in range(count):
            nursery.start_soon(one, i)
            if i % 50 == 49:
                await trio.sleep(0.05)  # the accept backlog


class _Auth:
    def authenticate(self, name: str, token: str) -> bool:
        return hmac.compare_digest(hashlib.sha256(token.encode()).digest(), hashlib.sha256(TOKEN.encode()).digest())


async def games(gateway: Gateway, count: int) -> float:
    a = await RemoteEngine.take(gateway.registry, "A")
    b = await RemoteEngine.take(gateway.registry, "B")
    tc = parse_tc("60+1")
    per_turn = []
    for _ in range(count):
        started = trio.current_time()
        report = await play_game((a, b), GameSetup(tcs=(tc, tc)))
        per_turn.append((trio.current_time() - started) / len(report.record.turns))
    a.release()
    b.release()
    return statistics.median(per_turn)


async def measure(script: Path, bots: int, count: int) -> None:
    # all the idle bots log in from 127.0.0.1, 50 at a time: lift the per-address cap on pending logins
    gateway = Gateway(_Auth(), limits=GatewayLimits(max_connections=bots + 100, max_pending_per_address=bots + 100))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(serve_bots, gateway, 0)
        port = listeners[0].socket.getsockname()[1]
        floor = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        argv = [sys.executable, str(Path(__file__).parent / "bench_remote.py"), "--bot", str(script)]
        players = [await trio.lowlevel.open_process([*argv, str(floor.socket.getsockname()[1]), str(port), n]) for n in "AB"]
        for _ in players:
            await (await floor.accept()).aclose()  # no floor here: the bots go straight on to log in
        while sorted(gateway.registry.available()) != ["A", "B"]:  # noqa: ASYNC110 (the registry has no event)
            await trio.sleep(0.01)
        quiet = await games(gateway, count)
        before = rss_mb()
        child = await trio.lowlevel.open_process([sys.executable, __file__, "--idle", str(port), str(bots)])
        with trio.fail_after(120):
            while len(gateway.registry.available()) < bots + 2:  # noqa: ASYNC110 (the registry has no event)
                await trio.sleep(0.1)
        after = rss_mb()
        busy = await games(gateway, count)
        print(f"gateway RSS: {before:.1f} MB with 2 bots, {after:.1f} MB with {bots + 2} "
              f"({(after - before) * 1024 / bots:.1f} kB per idle bot)")
        print(f"per turn (wall, median of {count} games): {quiet * 1e6:.1f} us alone, "
              f"{busy * 1e6:.1f} us beside {bots} idle bots")
        child.kill()
        for player in players:
            player.kill()
        nursery.cancel_scope.cancel()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--idle":
        trio.run(idle_bots, int(sys.argv[2]), int(sys.argv[3]))
        return
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))  # warnings and up only
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.txt"
        make_script(script)
        trio.run(measure, script, args.bots, args.games)


if __name__ == "__main__":
    main()
