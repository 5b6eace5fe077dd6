"""Games over several referee processes on this machine: the local backend, one per core.

Theory of operation.  One trio process referees a few thousand turns a second; with fast
engines the referee itself becomes the bottleneck of a parallel tournament.  This backend
starts ``processes`` worker processes (``python -m santorini_server.tournament.pool_worker``)
under the process layer's guard, so they die with the coordinator even on ``kill -9`` (and
their engines with them: each engine's own guard holds a lifeline from its worker).  Each worker
rebuilds the same :class:`TournamentConfig` from the settings (the same parsers, so the same
schedule) and plays the games the coordinator assigns it with the ordinary local workers
(:meth:`LocalBackend.serve`).  The wire is a line protocol on the worker's stdin/stdout:

======================  ================================================================
coordinator -> worker   first line: JSON ``{"settings": ..., "workers": k, "cpu": C,
                        "observe": B}``; then ``play N`` per assigned game; EOF = stop
worker -> coordinator   ``started N`` when a game starts; ``record LEN`` then LEN bytes of a
                        msgpack record payload (``records.encode_record``) when it ends;
                        with ``observe``, ``progress LEN`` then LEN bytes of a game's
                        progress (:mod:`santorini_server.referee.progress`): its start,
                        each turn, its end
======================  ================================================================

A worker plays at most ``k`` games at once (its share of ``--concurrency``); games are handed
out one at a time to whichever worker has room, so the work balances itself.  Each worker also
holds one game queued behind those it plays, so that it starts its next game the moment one
ends instead of waiting a round trip to the coordinator (record, decode, dispatch, wake-up):
with instant engines that wait held concurrency 2 to 1.13x of concurrency 1, and the queue
brought it to 1.6x (``tools/bench_tournament.py``, on a day when one referee process played
6,800 turns a second; on a day when it plays 12,000, the coordinator's 0.9 ms of CPU a game
(decoding, writing and indexing the record) weighs more against two cores: 1.3x to 1.4x).
Near the end of the schedule no game is queued, so none waits behind a busy worker while
another is idle.  With ``--affinity`` each worker plays one game and ``cpu`` is a CPU of its
own: the worker pins itself to it before it starts an engine, and its engines inherit the pin
(:func:`pin_to`).  A worker that dies loses the games it held
(playing or queued): they come back as :class:`LostGame` (``--resume`` replays them).

The daemon plays its runs between local bots here too, so that its pages and live viewers never
delay a turn: it passes ``observe`` (each game's progress goes to a sink of its live hub) and
``stop`` (its drain: once set, no game is handed out, and none is queued in a worker before, so
a drain starts no new game).
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Awaitable, Callable
from functools import partial

import trio

from ..process import EngineGone, EngineProcess, run_engine
from ..records import GameRecord, decode_record
from ..referee import progress
from ..referee.progress import GameSink
from .config import TournamentConfig
from .runner import LostGame
from .schedule import Games, Schedule, ScheduledGame

__all__ = [
    "ProcessPoolBackend", "MAX_RECORD_BYTES", "WireReader", "default_processes", "local_backend", "usable_cpus", "pin_to",
]

#: Largest record a worker may send (a game is at most ~100 turns: kilobytes).
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: Largest progress message (a turn: about 100 bytes).
MAX_PROGRESS_BYTES = 64 * 1024
#: On cancellation, how long a worker gets after EOF before SIGTERM: its games are abandoned
#: either way, and Ctrl-C must stop the run promptly.
WORKER_STOP_GRACE = 0.2


class WireReader:
    """The framing of the pool's wire, for both ends: lines, and payloads of a given length."""

    def __init__(self, receive_some: Callable[[], Awaitable[bytes]], max_line: int | None = None) -> None:
        self._receive_some = receive_some
        self._max_line = max_line
        self._buffer = bytearray()

    async def _more(self) -> bool:
        data = await self._receive_some()
        self._buffer += data
        return bool(data)

    async def line(self) -> bytes | None:
        """The next line without its LF; None at EOF.

        Raises:
            ValueError: a line longer than ``max_line``.
        """
        while b"\n" not in self._buffer:
            if self._max_line is not None and len(self._buffer) > self._max_line:
                raise ValueError(f"a control line over {self._max_line} bytes")
            if not await self._more():
                return None
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer[:] = rest
        return line

    async def exactly(self, n: int) -> bytes | None:
        """The next ``n`` bytes; None at EOF before them."""
        while len(self._buffer) < n:
            if not await self._more():
                return None
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out


class _WorkerLink:
    """The coordinator's end of one worker process: assignment, reading, accounting."""

    def __init__(
        self,
        process: EngineProcess,
        capacity: int,
        schedule: Schedule,
        *,
        queue: bool = True,
        observe: Callable[[ScheduledGame], GameSink] | None = None,
    ) -> None:
        self.process = process
        self.capacity = capacity
        self.room = trio.Semaphore(capacity + queue)  # its games, and one queued behind them (see play)
        self.held: set[int] = set()
        self.schedule = schedule
        self.wire = WireReader(process.receive_some, max_line=4096)
        self.dead = False
        self.observe = observe
        self.sinks: dict[int, GameSink] = {}
        """The sink of each game whose progress is coming."""

    async def assign(self, game: ScheduledGame) -> bool:
        """Hand ``game`` to this worker; False if the worker is gone (the game stays unplayed)."""
        self.held.add(game.number)
        try:
            await self.process.send_all(f"play {game.number}\n".encode())
        except (EngineGone, trio.BrokenResourceError, trio.ClosedResourceError):
            self.held.discard(game.number)
            self.dead = True
            return False
        return True

    async def pump(
        self,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
        on_dead: Callable[[_WorkerLink], None],
    ) -> None:
        """Forward what the worker says until it ends; then report the games it still held."""
        async with results:
            try:
                await self._pump(results, started)
            finally:
                self.dead = True
                on_dead(self)

    async def _pump(
        self,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None:
        reason = "the worker process ended"
        try:
            while True:
                raw = await self.wire.line()
                if raw is None:
                    break
                line = raw.decode("ascii", "replace")
                word, _, arg = line.partition(" ")
                if word == "started" and arg.isdigit() and int(arg) in self.schedule.numbers:
                    started(self.schedule.game(int(arg)))
                elif word == "record" and arg.isdigit() and int(arg) <= MAX_RECORD_BYTES:
                    payload = await self.wire.exactly(int(arg))
                    if payload is None:
                        break
                    record = decode_record(payload)
                    self.held.discard(record.game_number or 0)
                    self.sinks.pop(record.game_number or 0, None)
                    self.room.release()
                    await results.send(record)
                elif word == "progress" and self.observe is not None and arg.isdigit() and int(arg) <= MAX_PROGRESS_BYTES:
                    payload = await self.wire.exactly(int(arg))
                    if payload is None:
                        break
                    self._tell(progress.decode(payload))
                else:
                    reason = f"the worker process said {line[:80]!r}"
                    break
        except ValueError as exc:
            reason = f"the worker process broke its protocol: {exc}"
        with trio.CancelScope(shield=True), trio.move_on_after(2):
            status = await self.process.wait()
            reason = f"{reason} ({status.describe()})"
        self.dead = True
        self.sinks.clear()
        for number in sorted(self.held):
            await results.send(LostGame(self.schedule.game(number), reason))
        self.held.clear()

    def _tell(self, event: progress.Progress) -> None:
        """Hand a game's progress to its sink (made when the game begins)."""
        assert self.observe is not None
        number = event.number
        if type(event) is progress.Begin:
            if number not in self.held:
                raise ValueError(f"progress of game {number}, which it does not hold")
            self.sinks[number] = self.observe(self.schedule.game(number))
        sink = self.sinks.get(number)
        if sink is None:
            raise ValueError(f"progress of game {number} before its start")
        progress.tell(sink, event)


class ProcessPoolBackend:
    """The local backend spread over ``processes`` referee processes (see module docstring)."""

    def __init__(
        self,
        config: TournamentConfig,
        processes: int,
        *,
        cpus: list[int] | None = None,
        observe: Callable[[ScheduledGame], GameSink] | None = None,
        stop: trio.Event | None = None,
    ) -> None:
        if processes < 1:
            raise ValueError(f"`processes` must be at least 1, got {processes}")
        self.config = config
        self.processes = min(processes, config.concurrency)
        if cpus is not None and len(cpus) < self.processes:
            raise ValueError(f"{self.processes} referee processes to pin, but only {len(cpus)} CPUs")
        self.cpus = cpus
        """With ``--affinity``: worker ``i`` and its engines run on ``cpus[i]`` only."""
        self.observe = observe
        """The sink of each game's progress (the daemon's live hub), or None."""
        self.stop = stop
        """Once set, no more games are handed out (the daemon's drain); with it, none is queued."""

    async def play(
        self,
        games: Games,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None:
        config = self.config
        each, extra = divmod(config.concurrency, self.processes)
        shares = [each + (1 if i < extra else 0) for i in range(self.processes)]
        async with trio.open_nursery() as nursery, results:
            links: list[_WorkerLink] = []
            for index, share in enumerate(shares):
                # on cancellation (Ctrl-C, SPRT stop) the worker gets EOF then SIGTERM at once:
                # its games are abandoned anyway, and its engines die with it (their guards)
                process: EngineProcess = await nursery.start(
                    partial(
                        run_engine,
                        [sys.executable, "-m", "santorini_server.tournament.pool_worker"],
                        quit_bytes=b"",
                        quit_grace=WORKER_STOP_GRACE,
                    )
                )
                cpu = self.cpus[index] if self.cpus is not None else None
                hello = {"settings": config.settings.to_json(), "workers": share, "cpu": cpu, "observe": self.observe is not None}
                await process.send_all(json.dumps(hello).encode() + b"\n")
                links.append(_WorkerLink(process, share, config.schedule, queue=self.stop is None, observe=self.observe))
            async with trio.open_nursery() as pumps:
                # free slots of live workers; a dying worker also posts itself once, so a
                # dispatcher waiting here wakes up and sees it dead
                # (each worker: its games' slots, the queued game's, and its death notice)
                free_send, free_recv = trio.open_memory_channel[_WorkerLink](sum(shares) + 2 * len(links))
                for link in links:
                    pumps.start_soon(link.pump, results.clone(), started, free_send.send_nowait)

                async def offer(link: _WorkerLink) -> None:
                    while True:  # announce each free slot of this worker
                        await link.room.acquire()
                        await free_send.send(link)

                async with trio.open_nursery() as offers:
                    for link in links:
                        offers.start_soon(offer, link)
                    pending = iter(games)  # made as handed out; the rest is lost below if every worker ends
                    for index, game in enumerate(pending):
                        assigned = False
                        while not assigned and not all(link.dead for link in links):
                            link = await free_recv.receive()
                            if self.stop is not None and self.stop.is_set():
                                break
                            if link.dead:
                                continue
                            if len(link.held) >= link.capacity and len(games) - index <= sum(shares):
                                # the offer of a busy worker's queue: near the end a game queued
                                # there could wait while another worker idles; the offer lapses
                                continue
                            assigned = await link.assign(game)
                        if self.stop is not None and self.stop.is_set():
                            break
                        if not assigned:  # every worker is gone: nothing left to play on
                            for lost in itertools.chain((game,), pending):
                                await results.send(LostGame(lost, "every worker process has ended"))
                            break
                    offers.cancel_scope.cancel()
                for link in links:  # no more games: EOF tells each worker to finish and exit
                    if not link.dead:
                        await link.process.close_input()


def default_processes(concurrency: int, debug: bool = False) -> int:
    """Referee processes for the local backend: one per core while the games fit the cores.

    With fast engines one referee process is the bottleneck, so games are spread over a process
    per core.  When --concurrency exceeds the cores (--force-concurrency) engines already compete
    for the CPU, and several referee processes would compete with them at the moment a reply
    arrives, which is when the clock is read: there one referee process keeps clocks fairest
    (measured: bench_time_forfeits.py at concurrency 8 on 2 cores, 0 forfeits in 1,000 games
    with one referee process, 3 with two).  --debug logs from this process only.
    """
    cores = os.cpu_count() or 1
    if debug or concurrency > cores:
        return 1
    return max(1, min(concurrency, cores))


def local_backend(config: TournamentConfig, processes: int, *, cpus: list[int] | None = None) -> ProcessPoolBackend | None:
    """The local backend with ``processes`` referee processes: a pool, or None (the caller's
    own process plays the games) for one.  ``cpus``: pin the pool's workers, one CPU each."""
    return ProcessPoolBackend(config, processes, cpus=cpus) if processes > 1 else None


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (``taskset`` and cgroup cpusets narrow them), in order."""
    return sorted(os.sched_getaffinity(0))


def pin_to(cpu: int) -> None:
    """Run this process, and every process it starts from now on, on ``cpu`` only.

    Why ``--affinity`` pays with fast engines: a turn is a write that wakes the engine and a
    read that waits for its reply.  When the referee and its engines share one CPU, the wake-up
    is a local run-queue insertion; across CPUs it is an interprocessor interrupt, which a
    virtual machine makes expensive, and the scheduler also migrates processes between CPUs.
    Engines that search with several threads are confined too: leave it off for them.
    """
    os.sched_setaffinity(0, {cpu})
