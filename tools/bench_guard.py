#!/usr/bin/env python3
"""What the process guard costs per engine: start time and memory, with and without it.

    python tools/bench_guard.py [--starts 20] [--engines 16] [--engine random|cat]

An engine is started ``--starts`` times one after another, each time until it has answered the
SEI handshake (``sei`` -> ``seiok``; with ``--engine cat`` the echo of one line): under its guard
(SPEC.md section 5.4, as the referee starts every engine) and as a bare child process (no guard,
no lifeline: what the guard's start adds).  Then ``--engines`` engines are started at once, both
ways, and the memory of each process is read from ``/proc``: RSS (resident pages, shared ones
counted in every process) and PSS (each shared page divided among the processes that map it,
so the sum over processes is what they take from the machine).  Prints the medians and the
totals; the guards' share is the cost a shared guard would save.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path

import trio

from santorini_server.process.transport import open_engine_process
from santorini_server.referee.engine_spec import bundled_argv


def memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of ``pid`` in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="ascii").splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Pss"):
            values[name] = int(rest.split()[0]) / 1024
    return values["Rss"], values["Pss"]


async def until(receive: Callable[[], Awaitable[bytes]], marker: bytes) -> None:
    """Read until ``marker`` has arrived (at most 10 s)."""
    seen = b""
    with trio.fail_after(10):
        while marker not in seen:
            chunk = await receive()
            if not chunk:
                raise SystemExit(f"the engine closed its output before {marker!r}")
            seen += chunk


class Guarded:
    """Engines started as the referee starts them: each under its guard."""

    def __init__(self, argv: Sequence[str], hello: bytes, marker: bytes) -> None:
        self.argv, self.hello, self.marker = argv, hello, marker

    async def start(self, stack: AsyncExitStack) -> tuple[int, ...]:
        engine = await stack.enter_async_context(open_engine_process(self.argv, quit_bytes=b"quit\n"))
        await engine.send_all(self.hello)
        await until(engine.receive_some, self.marker)
        assert engine.engine_pid is not None
        return engine.guard_pid, engine.engine_pid


class Bare:
    """Engines started as plain child processes: no guard, no lifeline."""

    def __init__(self, argv: Sequence[str], hello: bytes, marker: bytes) -> None:
        self.argv, self.hello, self.marker = argv, hello, marker

    async def start(self, stack: AsyncExitStack) -> tuple[int, ...]:
        proc = await trio.lowlevel.open_process(
            list(self.argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )

        async def close() -> None:
            assert proc.stdin is not None
            with trio.move_on_after(5):
                await proc.stdin.aclose()
                await proc.wait()
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

        stack.push_async_callback(close)
        assert proc.stdin is not None
        assert proc.stdout is not None
        await proc.stdin.send_all(self.hello)
        await until(proc.stdout.receive_some, self.marker)
        return (proc.pid,)


async def start_times(way: Guarded | Bare, count: int) -> list[float]:
    """Milliseconds from start to the handshake's answer, ``count`` starts one after another."""
    times = []
    for _ in range(count):
        async with AsyncExitStack() as stack:
            began = time.perf_counter()
            await way.start(stack)
            times.append((time.perf_counter() - began) * 1000)
    return times


async def at_once(way: Guarded | Bare, count: int) -> tuple[float, list[tuple[float, float]], list[tuple[float, float]]]:
    """Start ``count`` engines at once: the wall time (ms) until all answered, and the (RSS, PSS)
    of each guard and of each engine."""
    pids: list[tuple[int, ...]] = []
    all_started, done = trio.Event(), trio.Event()

    async def one() -> None:  # each engine's context lives in the task that opened it
        async with AsyncExitStack() as stack:
            pids.append(await way.start(stack))
            if len(pids) == count:
                all_started.set()
            await done.wait()

    async with trio.open_nursery() as nursery:
        began = time.perf_counter()
        for _ in range(count):
            nursery.start_soon(one)
        await all_started.wait()
        wall = (time.perf_counter() - began) * 1000
        guards = [memory(found[0]) for found in pids if len(found) == 2]
        engines = [memory(found[-1]) for found in pids]
        done.set()
    return wall, guards, engines


def line(name: str, values: list[float], unit: str) -> str:
    return f"{name}: median {statistics.median(values):.1f} {unit} (min {min(values):.1f}, max {max(values):.1f})"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--engines", type=int, default=16)
    parser.add_argument("--engine", choices=("random", "cat"), default="random")
    args = parser.parse_args()
    if args.engine == "cat":
        argv, hello, marker = ["cat"], b"hello\n", b"hello\n"
    else:
        argv, hello, marker = bundled_argv("random"), b"sei\n", b"seiok"
    print(f"engine {' '.join(argv)}, {os.cpu_count()} cores")
    ways: dict[str, Guarded | Bare] = {"guarded": Guarded(argv, hello, marker), "bare": Bare(argv, hello, marker)}
    starts = {name: await start_times(way, args.starts) for name, way in ways.items()}
    for name, times in starts.items():
        print(line(f"start to handshake, {name}", times, "ms"))
    print(f"the guard adds {statistics.median(starts['guarded']) - statistics.median(starts['bare']):.1f} ms a start")
    for name, way in ways.items():
        wall, guards, engines = await at_once(way, args.engines)
        print(f"{args.engines} engines at once, {name}: all answered in {wall:.0f} ms; engines RSS "
              f"{sum(r for r, _ in engines):.0f} MB, PSS {sum(p for _, p in engines):.0f} MB in all")
        if guards:
            print(line("  a guard's RSS", [r for r, _ in guards], "MB"))
            print(line("  a guard's PSS", [p for _, p in guards], "MB"))
            print(f"  the {len(guards)} guards: RSS {sum(r for r, _ in guards):.0f} MB, PSS {sum(p for _, p in guards):.0f} MB")


if __name__ == "__main__":
    trio.run(main)
