#!/usr/bin/env python3
"""Where the referee's turn goes: CPU microseconds per turn, layer by layer (issue 28's table).

Each layer is timed alone over the same scripted game (``bench_fastchess.santorini_script``,
86 turns), with this process's CPU clock, pinned to core 0:

* codec: ``position``+``go`` encoded, one ``bestmove`` line decoded (``SeiConnection``);
* adjudicator: ``next_request`` + ``receive(Answer)``, which holds the rules check (``Position.play``)
  and the clock (``charge``, ``allowance_ms``, the ``go`` line's clocks), each also timed alone;
* record: ``Adjudicator.report`` at the end of a game, per turn;
* syscalls: a bare ``write`` + ``poll`` + ``read`` round trip with the canned C engine (the
  kernel's part of a turn, charged to the referee's process);
* per-game work: ``newgame`` + ``isready`` + ``readyok`` through the real channel, per turn;
* the whole game loop (``play_game`` with two canned C engines); what it costs beyond the layers
  above is trio and the referee's glue (``Engine.think``, ``EngineChannel.receive``...).

* a bare checking loop: the same game through the least a Python referee that checks every turn
  does (the position line grown by one turn, write, ``poll``, read, ``Position.play``, the clock's
  subtraction), with no codec state, adjudicator objects or trio: what CPython itself costs, so
  the game loop's excess over it is the architecture's, not the language's.

``match`` and ``tournament`` add their per-game sinks on top: ``bench_fastchess.py`` prints their
CPU per ply, whose difference from the game loop's is that part.

    python tools/turn_budget.py [--games 200]
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trio
from bench_fastchess import PLIES, santorini_script
from canned import canned_argv

from santorini_server.adjudicator import Adjudicator, Answer, GameSetup, parse_tc
from santorini_server.referee import Engine, play_game
from santorini_server.referee.engine_spec import EngineSpec
from santorini_server.rules import Position
from santorini_server.sei import NEED_DATA, IsReady, NewGame, Sei, SeiConnection

TC = parse_tc("60+1")


def per_turn(fn: Callable[[], int], reps: int) -> float:
    """Median over 5 runs of ``fn``'s CPU time per turn (``fn`` plays ``reps`` games, returns turns)."""
    runs = []
    for _ in range(5):
        start = time.process_time()
        turns = fn()
        runs.append((time.process_time() - start) / turns * 1e6)
    return statistics.median(runs)


def codec(script: list[str], games: int) -> int:
    for _ in range(games):
        conn = SeiConnection()
        conn.send(Sei(version=1))
        conn.receive_data(b"seiok 1\n")
        conn.next_event()
        adjudicator = Adjudicator(GameSetup(tcs=(TC, TC)))
        requests = []  # made before the timed part: the codec's work is send + parse only
        step = adjudicator.next_request()
        for stn in script:
            requests.append(step)
            step = adjudicator.receive(Answer(stn, 1.0, None))
        conn.send(NewGame(gods=("mortal", "mortal")))
        conn.send(IsReady())
        conn.receive_data(b"readyok\n")
        conn.next_event()
        start = time.process_time()
        for request, stn in zip(requests, script, strict=True):
            conn.send(request.position)  # type: ignore[union-attr]
            conn.send(request.go)  # type: ignore[union-attr]
            conn.receive_data(f"bestmove {stn}\n".encode())
            conn.next_event()
            assert conn.next_event() is NEED_DATA
        codec.spent += time.process_time() - start  # type: ignore[attr-defined]
    return games * len(script)


def adjudicate(script: list[str], games: int) -> int:
    for _ in range(games):
        adjudicator = Adjudicator(GameSetup(tcs=(TC, TC)))
        adjudicator.next_request()
        for stn in script:
            adjudicator.receive(Answer(stn, 1.0, None))
    return games * len(script)


def rules(script: list[str], games: int) -> int:
    for _ in range(games):
        pos = Position.start()
        for stn in script:
            pos = pos.play(stn).position
    return games * len(script)


def clock(script: list[str], games: int) -> int:
    for _ in range(games):
        clocks = GameSetup(tcs=(TC, TC)).clocks(2)
        for k in range(len(script)):
            c = clocks[k % 2]
            c.allowance_ms()
            _ = clocks[0].wire_ms, clocks[1].wire_ms  # the go line reads both
            c.charge(1.0)
    return games * len(script)


def record(script: list[str], games: int) -> int:
    adjudicator = Adjudicator(GameSetup(tcs=(TC, TC)))
    adjudicator.next_request()
    for stn in script:
        adjudicator.receive(Answer(stn, 1.0, None))
    for _ in range(games):
        adjudicator.report(("A", "B"), date="2026.01.01")
    return games * len(script)


class RawEngine:
    """The canned engine behind bare pipes: a chunk written, the answer waited for in ``poll``
    and read, as a referee without an event loop would."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.w, self.r = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self.r, False)
        self.poller = select.poll()
        self.poller.register(self.r, select.POLLIN)

    def ask(self, data: bytes) -> bytes:
        """Write ``data``; the first chunk the engine answers with."""
        os.write(self.w, data)
        while True:
            try:
                return os.read(self.r, 65536)
            except BlockingIOError:
                self.poller.poll(1000)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def syscalls(argv: list[str], rounds: int) -> float:
    """CPU per bare round trip (write, poll, read) with the canned engine, pinned like us."""
    engine = RawEngine(argv)
    start = time.process_time()
    for _ in range(rounds):
        engine.ask(b"go\n")
    spent = time.process_time() - start
    engine.close()
    return spent / rounds * 1e6


def bare_loop(argv: list[str], script: list[str], games: int) -> float:
    """CPU per turn of the least a Python referee that checks every turn can do: the position
    line grown by one turn, one write, ``poll``, one read, the ``bestmove`` split off, the turn
    played by the rules core (``Position.play``), the clock's subtraction; no codec state, no
    adjudicator objects, no trio.  What ``play_game`` costs beyond it is the architecture's."""
    engine = RawEngine(argv)
    engine.ask(b"sei 1\n")  # the canned engine's id and seiok come in one write
    runs = []
    for _ in range(5):
        start, turns = time.process_time(), 0
        for _ in range(games):
            pos = Position.start()
            line = "position startpos moves"
            clocks = [60000.0, 60000.0]
            for k in range(len(script)):
                go = f"go p1time {int(clocks[0])} p2time {int(clocks[1])} p1inc 1000 p2inc 1000"
                data = engine.ask(f"{line}\n{go}\n".encode())
                stn = data.split(b"\n", 1)[0].split(b" ", 2)[1].decode()
                pos = pos.play(stn).position
                line += " " + stn
                clocks[k % 2] += 1000 - 1.0
                turns += 1
        runs.append((time.process_time() - start) / turns * 1e6)
    engine.close()
    return statistics.median(runs)


async def game_loop(argv: list[str], games: int) -> tuple[float, float]:
    """CPU per turn of ``play_game``, and of ``newgame``+``readyok`` per turn."""
    async with trio.open_nursery() as nursery:
        a = await Engine.start(nursery, EngineSpec(name="A", argv=tuple(argv)))
        b = await Engine.start(nursery, EngineSpec(name="B", argv=tuple(argv)))
        for _ in range(3):
            await play_game((a, b), GameSetup(tcs=(TC, TC)))
        loops, news = [], []
        for _ in range(5):
            start, turns = time.process_time(), 0
            for _ in range(games):
                turns += len((await play_game((a, b), GameSetup(tcs=(TC, TC)))).record.turns)
            loops.append((time.process_time() - start) / turns * 1e6)
            start = time.process_time()
            for _ in range(games):
                await a.new_game(("mortal", "mortal"))
                await b.new_game(("mortal", "mortal"))
            news.append((time.process_time() - start) / turns * 1e6)
        await a.aclose()
        await b.aclose()
    return statistics.median(loops), statistics.median(news)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per timed run (default 200)")
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})
    script = santorini_script(PLIES)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.txt"
        path.write_text(" ".join(script) + "\n")
        argv = canned_argv(path)
        codec.spent = 0.0  # type: ignore[attr-defined]
        codec(script, args.games)
        codec_us = codec.spent / (args.games * len(script)) * 1e6  # type: ignore[attr-defined]
        adjudicator_us = per_turn(lambda: adjudicate(script, args.games), args.games)
        rules_us = per_turn(lambda: rules(script, args.games), args.games)
        clock_us = per_turn(lambda: clock(script, args.games), args.games)
        record_us = per_turn(lambda: record(script, args.games), args.games)
        sys_us = statistics.median(syscalls(argv, 5000) for _ in range(5))
        loop_us, newgame_us = trio.run(game_loop, argv, args.games)
        bare_us = bare_loop(argv, script, args.games)
    rest = loop_us - codec_us - adjudicator_us - record_us - sys_us - newgame_us
    rows = [
        ("syscalls (write, poll, read: one round trip)", sys_us),
        ("codec (position+go out, bestmove in)", codec_us),
        ("adjudicator (next_request + receive), of which:", adjudicator_us),
        ("    rules check (Position.play)", rules_us),
        ("    clock (allowance, go's clocks, charge)", clock_us),
        ("record (report at the game's end)", record_us),
        ("per game: newgame + isready + readyok", newgame_us),
        ("trio and the referee's glue (the rest)", rest),
        ("the game loop (play_game), all of it", loop_us),
        ("a bare checking loop (no codec, adjudicator, trio)", bare_us),
    ]
    print(f"CPU us per turn, pinned to core 0, {PLIES}-turn scripted games, canned C engines")
    for label, us in rows:
        print(f"  {label:52s} {us:6.1f}")


if __name__ == "__main__":
    main()
