#!/usr/bin/env python3
"""Tournament throughput and referee memory with instant engines.

Plays round-robins of two canned engines (``tools/canned_engine.py``: zero thinking, a fixed
legal game) through the real tournament runner (local backend, records fsync'd to a temporary
folder) and prints, at concurrency 1, 2 and 8: turns per second, the referee's CPU per turn
(when this process played the games: not with a pool of referee processes), and the scaling
against concurrency 1.  Then the referee's resident memory per concurrent game:
RSS sampled while 64 games run at once (engines sleep 20 ms a turn so the games overlap), minus
the RSS while one runs, divided by 63.

Targets (issue 4): throughput at concurrency 2 >= 80% of twice concurrency 1 on two cores;
under 2 MB of referee memory per concurrent game at concurrency 64.  The run also prints the
machine's own ceiling (``machine_ceiling.py``: how much faster two CPU-bound processes run at once
than one), because a virtual machine's two vCPUs may not be two full cores, and the scaling at
concurrency 2 as a share of that ceiling.

2,000 games a run by default: a pool of referee processes takes a few tenths of a second to start,
which dominated shorter runs (400 games are 2 s of play at concurrency 1, and the start and the
last games' tail then weigh on concurrency 2 alone).

With ``--affinity`` (``santorini tournament --affinity``), concurrency 1 and 2 run pinned: each
game's referee process and its engines on one CPU of their own (concurrency 8 exceeds the CPUs and
runs unpinned).

    python tools/bench_tournament.py [--games 2000] [--repeat 2] [--backend processes|local|dask] [--affinity]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import bench_referee
import machine_ceiling
import trio

from santorini_server.records import GameRecord, iter_archive
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.pool import pin_to, usable_cpus
from santorini_server.tournament.runner import run_tournament

CANNED = Path(__file__).resolve().parent / "canned_engine.py"


def _rss_kb(pid: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb() -> int:
    """The referee's resident memory: this process plus its referee worker processes (not the
    engines, not the guards)."""
    total = _rss_kb("self")
    for pid in Path("/proc").iterdir():
        if pid.name.isdigit():
            try:
                cmdline = (pid / "cmdline").read_bytes()
            except OSError:
                continue
            if b"santorini_server.tournament.pool_worker" in cmdline and b"guard.py" not in cmdline:
                total += _rss_kb(pid.name)
    return total


def settings(script: Path, games: int, concurrency: int, sleep_ms: int = 0, kind: str = "c") -> Settings:
    argv = bench_referee.canned_argv(script, kind, *([str(sleep_ms)] if sleep_ms else []))
    engine = "cmd=" + " arg=".join(argv)
    return Settings(
        engines=[engine + " name=A", engine + " name=B"],
        games=games,
        tc="60+1",
        concurrency=concurrency,
        rating_interval=10**6,
    )


BACKEND = "local"
AFFINITY = False


async def run(config: TournamentConfig, out: Path, sample: list[int] | None = None) -> tuple[float, float | None, int]:
    """Wall time, this process's CPU time (None when referee processes of a pool played the
    games: their CPU is not ours to read), and turns played."""
    files = TournamentFiles(out)
    backend = None
    if BACKEND == "dask":
        from santorini_server.backends.dask_backend import DaskBackend

        backend = DaskBackend(config, None)
    elif BACKEND == "processes" and config.concurrency > 1:
        from santorini_server.tournament.pool import default_processes, local_backend

        cpus = usable_cpus()
        if AFFINITY and config.concurrency <= len(cpus):
            backend = local_backend(config, config.concurrency, cpus=cpus[: config.concurrency])
        else:
            backend = local_backend(config, default_processes(config.concurrency))
    everywhere = os.sched_getaffinity(0)
    if AFFINITY and backend is None and config.concurrency == 1:
        pin_to(usable_cpus()[0])  # as `santorini tournament --affinity -j 1` does, until this run ends
    wall0, cpu0 = time.perf_counter(), time.process_time()
    async with trio.open_nursery() as nursery:
        if sample is not None:
            async def sampler() -> None:
                while True:
                    sample.append(rss_kb())
                    await trio.sleep(0.05)
            nursery.start_soon(sampler)
        await run_tournament(config, files, backend=backend, emit=lambda line: None)
        nursery.cancel_scope.cancel()
    os.sched_setaffinity(0, everywhere)
    files.close()
    turns = await trio.to_thread.run_sync(_turns, out / "games.msgpack")
    cpu = None if backend is not None else time.process_time() - cpu0
    return time.perf_counter() - wall0, cpu, turns


def _turns(archive: Path) -> int:
    """Turns played in ``archive``, read a game at a time."""
    with open(archive, "rb") as f:
        return sum(len(r.turns) for r in iter_archive(f) if isinstance(r, GameRecord))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per run (default 2000)")
    parser.add_argument("--engine", choices=["c", "python"], default="c", help="the canned engine's language (default c)")
    parser.add_argument("--backend", choices=["local", "processes", "dask"], default="processes",
                        help="local: one referee process; processes: one per core (the CLI default); dask: a local cluster")
    parser.add_argument("--no-memory", action="store_true", help="skip the concurrency-64 memory measurement")
    parser.add_argument("--affinity", action="store_true", help="pin each game's referee process and engines to a CPU")
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs per concurrency, alternating 1, 2, 8 (default 2): this machine's speed drifts by a "
                             "quarter from one second to the next, so medians of alternating runs")
    args = parser.parse_args()
    global BACKEND, AFFINITY
    BACKEND, AFFINITY = args.backend, args.affinity
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "game.txt"
        n = bench_referee.make_script(script)
        print(f"canned game of {n} turns; {args.games} games per run; {args.engine} canned engines; {args.backend} backend"
              + ("; --affinity" if args.affinity else ""))
        rates: dict[int, list[float]] = {1: [], 2: [], 8: []}
        cpus: dict[int, list[float]] = {1: [], 2: [], 8: []}
        for rep in range(args.repeat):  # alternating, so that the machine's drift falls on every concurrency alike
            for concurrency in (1, 2, 8):
                config = TournamentConfig.from_settings(settings(script, args.games, concurrency, kind=args.engine))
                wall, cpu, turns = trio.run(run, config, Path(tmp) / f"c{concurrency}-{rep}")
                rates[concurrency].append(turns / wall)
                if cpu is not None:
                    cpus[concurrency].append(cpu / turns * 1e6)
        base = statistics.median(rates[1])
        for concurrency in (1, 2, 8):
            rate = statistics.median(rates[concurrency])
            cpu_text = (f"referee CPU {statistics.median(cpus[concurrency]):6.1f} us/turn" if cpus[concurrency]
                        else "referee CPU    n/a (a pool)")
            print(f"concurrency {concurrency}: {rate:8.0f} turns/s  {cpu_text}  scaling {rate / base:4.2f}x of concurrency 1"
                  + (f"  (runs: {', '.join(f'{r:.0f}' for r in rates[concurrency])})" if args.repeat > 1 else ""))
        scaling = {c: statistics.median(rates[c]) / base for c in rates}
        pairs = sorted(b / a for a, b in zip(rates[1], rates[2], strict=True))
        one, two, ceiling = machine_ceiling.cpu_ceiling()
        p_one, p_two, p_ceiling = machine_ceiling.pingpong_ceiling()
        print(f"concurrency 2 over the concurrency 1 run before it, per repetition: {', '.join(f'{x:.2f}x' for x in pairs)}")
        print(f"machine ceiling: one CPU-bound process {one:.2f} s, two at once {two:.2f} s: "
              f"{ceiling:.2f}x (2.00 = two full cores); ping-pong pairs {p_one:.2f} s, two at once {p_two:.2f} s: "
              f"{p_ceiling:.2f}x; concurrency 2 reached {scaling[2]:.2f}x, {scaling[2] / ceiling:.0%} of the CPU ceiling")
        if args.no_memory:
            return
        mems: dict[int, int] = {}
        for concurrency in (1, 64):
            config = TournamentConfig.from_settings(settings(script, 128 if concurrency > 1 else 2, concurrency, sleep_ms=20))
            samples: list[int] = []
            trio.run(run, config, Path(tmp) / f"m{concurrency}", samples)
            mems[concurrency] = sorted(samples)[len(samples) * 9 // 10]  # 90th percentile while running
        per_game = (mems[64] - mems[1]) / 63 / 1024
        print(f"referee RSS: {mems[1] / 1024:.1f} MB with 1 game, {mems[64] / 1024:.1f} MB with 64 at once: "
              f"{per_game:.2f} MB per concurrent game")


if __name__ == "__main__":
    main()
