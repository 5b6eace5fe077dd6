#!/usr/bin/env python3
"""Play a match between two bundled engines and print the score (a measuring tool, not the referee).

A tiny blocking referee: engines are subprocesses speaking SEI, driven by the referee's own
adjudicator (which checks every turn and keeps the Fischer clocks, SPEC.md section 4.5); the
stopwatch runs with ``time.monotonic`` from the flushed ``go`` to the ``bestmove`` line, and the
mover loses below ``-grace``.  Colours alternate: engine A is player 1 in odd-numbered games.  With
``--concurrency N`` N games run at once, each worker owning one process per engine (engines are
reused across games with ``newgame``, as the referee does, and restarted after a crash).

    python tools/engine_duel.py alphabeta greedy --games 100 --tc 2+0.02 --concurrency 2
    python tools/engine_duel.py greedy random --games 100 --tc 2+0.02 --gods apollo/minotaur
"""

from __future__ import annotations

import argparse
import collections
import queue
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from santorini_server.adjudicator import (
    Adjudicator,
    Answer,
    Forfeit,
    GameSetup,
    NoReply,
    Outcome,
    Request,
    Resignation,
    TimeControl,
)
from santorini_server.referee.engine_spec import BUNDLED_NAMES, bundled_argv
from santorini_server.sei import Go, PositionCommand
from santorini_server.sei._writers import write_command
from santorini_server.termination import Termination

#: Allowance for process scheduling and pipes before a clock below zero counts as a loss
#: (cutechess/fastchess ``timemargin``).
DEFAULT_GRACE_MS = 50
#: Start-up and ``isready`` waits (the referee's own: 10 s / 30 s).
STARTUP_TIMEOUT = 10.0
READY_TIMEOUT = 30.0


class EngineProcess:
    """One engine subprocess with a reader thread feeding a queue of stdout lines."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.send("sei 1")
        if self.wait_for("seiok", STARTUP_TIMEOUT) is None:
            raise RuntimeError(f"{name}: no seiok within {STARTUP_TIMEOUT} s")

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # EOF

    def send(self, line: str) -> None:
        """Write one command line (a broken pipe shows up as EOF on the reading side)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def wait_for(self, word: str, timeout: float) -> str | None:
        """The next line starting with ``word`` (others are dropped); None on timeout or EOF."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                return None
            if line is None:
                self.lines.put(None)
                return None
            if line.split(" ", 1)[0] == word:
                return line

    def close(self) -> None:
        """``quit``, then kill if it does not exit within a second."""
        self.send("quit")
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class GameResult:
    winner: int  # 0: player 1, 1: player 2
    reason: str
    turns: int


def _line(command: PositionCommand | Go) -> str:
    return write_command(command).decode("ascii").rstrip("\n")


def play_game(
    engines: list[EngineProcess], gods: tuple[str, str], base_ms: int, inc_ms: int, grace_ms: int
) -> GameResult:
    """One game from the empty board; ``engines[0]`` is player 1.

    A blocking driver of the referee's adjudicator: it sends what the adjudicator asks for and
    reports what came back; the adjudicator keeps the clocks and rules on every answer.
    """
    tc = TimeControl(base_ms, inc_ms)
    adjudicator = Adjudicator(GameSetup(gods=gods, tcs=(tc, tc), margins=(grace_ms, grace_ms)))
    step: Request | Outcome = adjudicator.next_request()
    for seat, engine in enumerate(engines):
        engine.send(f"newgame gods {gods[0]}/{gods[1]}")
        engine.send("isready")
        if engine.wait_for("readyok", READY_TIMEOUT) is None and adjudicator.outcome is None:
            step = adjudicator.receive(Forfeit(seat=seat, kind=Termination.STALL, detail="no readyok"))
    while isinstance(step, Request):
        engine = engines[step.seat]
        engine.send(_line(step.position))
        engine.send("isready")  # keeps parsing off the clock (SPEC.md section 4.5)
        if engine.wait_for("readyok", READY_TIMEOUT) is None:
            step = adjudicator.receive(Forfeit(seat=step.seat, kind=Termination.CRASH, detail="no readyok"))
            break
        engine.send(_line(step.go))
        start = time.monotonic()
        line = engine.wait_for("bestmove", step.allowance_ms / 1000 + 0.05)
        elapsed_ms = (time.monotonic() - start) * 1000
        if line is None and engine.proc.poll() is not None:
            step = adjudicator.receive(Forfeit(seat=step.seat, kind=Termination.CRASH, detail="exited"))
        elif line is None:
            step = adjudicator.receive(NoReply(elapsed_ms=elapsed_ms))
        elif line.split()[1:] == ["resign"]:
            step = adjudicator.receive(Resignation(elapsed_ms=elapsed_ms))
        else:
            step = adjudicator.receive(Answer(turn=line.partition(" ")[2], elapsed_ms=elapsed_ms))
    assert isinstance(step, Outcome)
    assert step.winner is not None
    if step.termination is Termination.TIME:
        engines[2 - step.winner].close()  # its late bestmove must not answer the next game's go: restart it
    return GameResult(step.winner - 1, step.termination.value, len(adjudicator.moves))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine_a", choices=sorted(BUNDLED_NAMES))
    parser.add_argument("engine_b", choices=sorted(BUNDLED_NAMES))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--tc", default="2+0.02", help="Fischer time control: base+increment, seconds")
    parser.add_argument("--gods", default="mortal/mortal", help="player 1 god / player 2 god")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--grace-ms", type=int, default=DEFAULT_GRACE_MS)
    args = parser.parse_args()
    base_s, _, inc_s = args.tc.partition("+")
    base_ms, inc_ms = int(float(base_s) * 1000), int(float(inc_s or 0) * 1000)
    g1, _, g2 = args.gods.partition("/")
    gods = (g1, g2 or g1)

    names = (args.engine_a, args.engine_b)
    lock = threading.Lock()
    wins = [0, 0]
    by_colour = [[0, 0], [0, 0]]  # by_colour[engine][colour] = games won as that player
    reasons: collections.Counter[str] = collections.Counter()
    next_game = iter(range(1, args.games + 1))
    started = time.monotonic()

    def worker() -> None:
        procs: dict[int, EngineProcess] = {}
        try:
            while True:
                with lock:
                    number = next(next_game, None)
                if number is None:
                    return
                for i in (0, 1):
                    if i not in procs or procs[i].proc.poll() is not None:
                        procs[i] = EngineProcess(names[i], bundled_argv(names[i]))
                order = [0, 1] if number % 2 == 1 else [1, 0]  # order[p] = engine playing player p+1
                result = play_game([procs[order[0]], procs[order[1]]], gods, base_ms, inc_ms, args.grace_ms)
                winner = order[result.winner]
                for engine in procs.values():
                    engine.send(f"result {'1-0' if result.winner == 0 else '0-1'} {result.reason}")
                with lock:
                    wins[winner] += 1
                    by_colour[winner][result.winner] += 1
                    reasons[result.reason] += 1
                    print(
                        f"game {number}: {names[order[0]]} (P1) vs {names[order[1]]} (P2): "
                        f"{'1-0' if result.winner == 0 else '0-1'} {result.reason}, {result.turns} turns; "
                        f"score {names[0]} {wins[0]} - {wins[1]} {names[1]}",
                        flush=True,
                    )
        finally:
            for engine in procs.values():
                engine.close()

    with ThreadPoolExecutor(max_workers=max(1, args.concurrency)) as pool:
        futures = [pool.submit(worker) for _ in range(max(1, args.concurrency))]
        for future in futures:
            future.result()
    played = wins[0] + wins[1]
    rate = 100 * wins[0] / played if played else 0.0
    print(f"{names[0]} vs {names[1]}, {played} games at {args.tc}, gods {gods[0]}/{gods[1]}, "
          f"{time.monotonic() - started:.0f} s")
    print(f"{names[0]}: W {wins[0]} L {wins[1]} ({rate:.1f}%); as P1 {by_colour[0][0]}, as P2 {by_colour[0][1]}")
    print("terminations: " + ", ".join(f"{k} {v}" for k, v in reasons.most_common()))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
