#!/usr/bin/env python3
"""Referee overhead per turn with instant remote bots over loopback TCP, against the floor of a
bare trio TCP round trip between two processes, in the same run.

1. floor: each bot process (a zero-work canned SEI bot speaking TCP itself, no bridge) first
   connects to a plain trio listener in this process, which writes ``go`` lines and reads the
   one-line answers with trio's standard stream calls (``send_all``, ``receive_some``); median
   round trip.  Then the same process logs in to the bot port.
2. referee: whole games between two such bots through the gateway, ``RemoteEngine`` and the real
   referee (``play_game``: position+go in one write over TCP, parse, rules check, clock, record).
   Per turn: game wall time / turns; the bots' own CPU time (/proc/PID/schedstat); the
   overhead, wall minus the bots' time.  Ratio = overhead / floor (target <= 2).

    python tools/bench_remote.py [--games 20]
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog
import trio
from bench_referee import make_script, run_ns

from santorini_server.adjudicator import parse_tc
from santorini_server.referee import GameSetup, play_game
from santorini_server.server.gateway import Gateway, serve_bots
from santorini_server.server.remote_engine import RemoteEngine

TOKEN = "t" * 43


def bot(script_path: str, floor_port: int, bot_port: int, name: str) -> None:
    """The bot process: answer the floor's ``go`` lines, then play SEI on the bot port."""
    with open(script_path) as f:
        script = f.read().split()
    with socket.create_connection(("127.0.0.1", floor_port)) as floor:
        floor.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = floor.makefile("rb")
        while line := reader.readline():
            floor.sendall(b"bestmove " + script[0].encode() + b"\n")
    conn = socket.create_connection(("127.0.0.1", bot_port))
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn.sendall(f"login {name} {TOKEN}\n".encode())
    reader = conn.makefile("rb")
    moves = 0
    while line := reader.readline():
        if line.startswith(b"position"):
            words = line.split()
            moves = len(words) - 3 if b"moves" in words else 0
        elif line.startswith(b"go"):
            conn.sendall(b"bestmove " + script[moves].encode() + b"\n")
        elif line.startswith(b"isready"):
            conn.sendall(b"readyok\n")
        elif line.startswith(b"sei"):
            conn.sendall(b"id name canned\nseiok 1\n")
        elif line.startswith(b"quit"):
            break


class _Auth:
    def authenticate(self, name: str, token: str) -> bool:
        return hmac.compare_digest(hashlib.sha256(token.encode()).digest(), hashlib.sha256(TOKEN.encode()).digest())


async def measure(script: Path, games: int) -> None:
    gateway = Gateway(_Auth())
    floor: list[float] = []
    per_turn: list[float] = []
    overhead: list[float] = []
    async with trio.open_nursery() as nursery:
        bot_listeners = await nursery.start(serve_bots, gateway, 0)
        bot_port = bot_listeners[0].socket.getsockname()[1]
        floor_listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
        floor_port = floor_listener.socket.getsockname()[1]
        argv = [sys.executable, __file__, "--bot", str(script), str(floor_port), str(bot_port)]
        procs = [await trio.lowlevel.open_process([*argv, name]) for name in ("A", "B")]
        for _ in procs:
            stream = await floor_listener.accept()
            for _ in range(200):
                started = trio.current_time()
                await stream.send_all(b"go\n")
                buffer = b""
                while not buffer.endswith(b"\n"):
                    buffer += await stream.receive_some(4096)
                floor.append(trio.current_time() - started)
            await stream.aclose()
        with trio.fail_after(30):
            while sorted(gateway.registry.available()) != ["A", "B"]:  # noqa: ASYNC110 (the registry has no event)
                await trio.sleep(0.01)
        a = await RemoteEngine.take(gateway.registry, "A")
        b = await RemoteEngine.take(gateway.registry, "B")
        pids = [p.pid for p in procs]
        tc = parse_tc("60+1")
        cpu = 0.0
        turns = 0
        for _ in range(games):
            cpu0 = time.process_time()
            before = sum(map(run_ns, pids))
            started = trio.current_time()
            report = await play_game((a, b), GameSetup(tcs=(tc, tc)))
            wall = trio.current_time() - started
            bots = (sum(map(run_ns, pids)) - before) / 1e9
            cpu += time.process_time() - cpu0
            n = len(report.record.turns)
            turns += n
            per_turn.append(wall / n)
            overhead.append((wall - bots) / n)
            assert report.record.termination == "climb", report.record.termination
        a.release()
        b.release()
        nursery.cancel_scope.cancel()
    cpu_per_turn = cpu / turns
    for proc in procs:
        with trio.fail_after(10):
            await proc.wait()
    f, w, o = statistics.median(floor), statistics.median(per_turn), statistics.median(overhead)
    print(f"floor: bare trio TCP round trip between two processes, median {f * 1e6:.1f} us ({len(floor)} round trips)")
    print(f"referee: per turn (wall) median {w * 1e6:.1f} us, overhead (wall - bots' CPU) {o * 1e6:.1f} us ({games} games)")
    print(f"referee CPU per turn {cpu_per_turn * 1e6:.1f} us")
    print(f"ratio overhead/floor {o / f:.2f} (target <= 2), wall/floor {w / f:.2f}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--bot":
        bot(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        return
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))  # warnings and up only
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "script.txt"
        make_script(script)
        trio.run(measure, script, args.games)


if __name__ == "__main__":
    main()
