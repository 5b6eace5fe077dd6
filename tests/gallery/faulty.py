"""A compliant SEI engine with switchable faults, for the ``santorini check`` tests.

Without arguments it follows every rule that ``santorini check`` tests: a search thread (so
``isready`` and ``stop`` are answered while searching), clocks read for the side to move,
``infinite`` searches until ``stop``, exactly one ``bestmove`` per ``go``, ``legalmoves`` and
``perft``, exit on ``quit`` and on EOF.  It plays a winning turn when there is one, else the
first legal turn.  Each argument switches on one fault:

``late-ready``      answers ``isready`` only after the running search has ended
``double-bestmove`` sends two ``bestmove`` lines after ``stop``
``no-stop``         never ends a ``go infinite`` search (ignores ``stop``)
``ignore-quit``     ignores ``quit`` (still exits on EOF)
``illegal``         answers every ``go`` with ``a1-a1+a1``
``ignore-moves``    ignores the ``moves`` part of ``position``
``p1-clock``        budgets with ``p1time`` whatever side is to move
``early-infinite``  answers ``go infinite`` at once instead of waiting for ``stop``
``bad-info``        sends ``info depth x`` lines
``bad-gods``        lists ``zeus`` among its gods
``crash-infinite``  exits with code 3 on ``go infinite``
``no-error``        accepts unknown gods silently (no ``error unsupported god``)
``mute-legalmoves`` claims ``feature legalmoves`` but never answers ``legalmoves``
``error-perft``     answers ``perft`` with ``error``
``two-seats``       declares no ``feature players`` (two seats only; else it plays 2, 3 and 4)
``keep-eliminated`` replays ``moves`` without eliminating a three-seat seat that has no turn
``ignore-athena``   reads every ``athena[up]`` as plain ``athena``
``athena-once``     drops a sent ``athena[up]`` after the first turn of ``moves`` (binds one seat only)
``athena-team``     with four seats, takes Athena's teammate as bound by her tag too (resigns if so stuck)

Stdlib + the rules core only.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading

from santorini_server.rules import GODS, Position, perft

FAULTS = frozenset(
    [
        "late-ready", "double-bestmove", "no-stop", "ignore-quit", "illegal", "ignore-moves", "p1-clock", "early-infinite",
        "bad-info", "bad-gods", "crash-infinite", "no-error", "mute-legalmoves", "error-perft",
        "two-seats", "keep-eliminated", "ignore-athena", "athena-once", "athena-team",
    ]
)


def climbs(pos: Position, turn: str) -> bool:
    """Whether ``turn``'s move goes up (read from the SPS board: rows 5..1, files a..e)."""
    rows = pos.sps().split(";")[1].split("/")

    def level(square: str) -> int:
        return int(rows[5 - int(square[1])]["abcde".index(square[0])])

    return level(turn[3:5]) > level(turn[:2])


class Bot:
    def __init__(self, faults: set[str]) -> None:
        self.faults = faults
        self.lock = threading.Lock()
        self.gods: tuple[str, str] = ("mortal", "mortal")
        self.pos: Position | None = Position.start()
        self.stop = threading.Event()
        self.worker: threading.Thread | None = None
        self.searching = False
        self.pending_ready = 0

    def send(self, *lines: str) -> None:
        with self.lock:
            self._write(*lines)

    def _write(self, *lines: str) -> None:
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()

    def choose(self, pos: Position) -> str:
        if "illegal" in self.faults:
            return "a1-a1+a1"
        transitions = pos.transitions()
        if "athena-team" in self.faults and pos.nseats == 4 and pos.athena_up and pos.gods[(pos.to_move + 2) % 4] == "athena":
            transitions = [t for t in transitions if not climbs(pos, t.stn)]
        if not transitions:
            return "resign"
        wins = [t.stn for t in transitions if t.win]
        return wins[0] if wins else transitions[0].stn

    def search(self, pos: Position, budget: float | None, infinite: bool) -> None:
        answer = self.choose(pos)
        if "bad-info" in self.faults:
            self.send("info depth x nodes 5")
        else:
            self.send(f"info depth 1 nodes 10 score cp 0 pv {answer}" if answer != "resign" else "info depth 1")
        if infinite or budget is None:
            self.stop.wait()
            if "no-stop" in self.faults:
                return  # never answers; the referee has to kill it
        else:
            self.stop.wait(budget)
        with self.lock:
            self.searching = False
            self._write(f"bestmove {answer}")
            if "double-bestmove" in self.faults and self.stop.is_set():
                self._write(f"bestmove {answer}")
            for _ in range(self.pending_ready):
                self._write("readyok")
            self.pending_ready = 0

    def go(self, words: list[str]) -> None:
        args: dict[str, int] = {}
        infinite = "infinite" in words
        for key, value in itertools.pairwise(words[1:]):
            if value.isdigit():
                args[key] = int(value)
        if infinite and "crash-infinite" in self.faults:
            os._exit(3)
        if infinite and "early-infinite" in self.faults:
            infinite = False
            args["movetime"] = 1
        pos = self.pos or Position.start(self.gods)
        budget: float | None = None
        mover = "p1" if "p1-clock" in self.faults else f"p{pos.player}"
        if f"{mover}time" in args:
            budget = args[f"{mover}time"] / 1000 / 40
        if "movetime" in args:
            budget = min(budget or 1e9, args["movetime"] / 1000 / 2)
        if "depth" in args or "nodes" in args:
            budget = 0.0
        self.stop = threading.Event()
        self.searching = True
        self.worker = threading.Thread(target=self.search, args=(pos, budget, infinite), daemon=True)
        self.worker.start()

    def position(self, words: list[str]) -> None:
        try:
            if words[1] == "startpos":
                pos, rest = Position.start(self.gods), words[2:]
            else:
                sps = words[2].replace("[up]", "") if "ignore-athena" in self.faults else words[2]
                pos, rest = Position.from_sps(sps), words[3:]
            if "ignore-moves" not in self.faults:
                for n, turn in enumerate(rest[1:]):
                    if pos.nseats == 3 and "keep-eliminated" not in self.faults and pos.is_lost():
                        pos = pos.eliminate() or pos  # a seat with no turn leaves (SPEC.md section 15.5)
                    pos = pos.play(turn).position
                    if n == 0 and "athena-once" in self.faults and "[up]" in words[2]:
                        pos = Position.from_sps(pos.sps().replace("[up]", ""))
        except Exception as exc:  # report, never crash
            self.pos = None
            self.send(f"error position: {exc}")
            return
        self.pos = pos

    def handle(self, line: str) -> bool:
        words = line.split()
        if not words:
            return True
        cmd = words[0]
        if cmd == "sei":
            gods = [g for g in GODS if g != "mortal"] + (["zeus"] if "bad-gods" in self.faults else [])
            self.send(
                " ".join(["id name faulty", *sorted(self.faults)]),
                "id author tests",
                "option name Hash type spin default 16 min 1 max 64",
                "option name Style type combo default fast var fast var slow",
                "gods " + " ".join(gods),
                "feature legalmoves perft",
                *([] if "two-seats" in self.faults else ["feature players 2 3 4"]),
                "seiok 1",
            )
        elif cmd == "isready":
            with self.lock:
                if self.searching and "late-ready" in self.faults:
                    self.pending_ready += 1
                else:
                    self._write("readyok")
        elif cmd == "newgame":
            gods = tuple(words[2].split("/")) if len(words) > 2 else ("mortal", "mortal")
            bad = [g for g in gods if g not in GODS]
            if bad and "no-error" not in self.faults:
                self.send(f"error unsupported god {bad[0]}")
            elif not bad:
                self.gods = gods  # type: ignore[assignment]
        elif cmd == "position":
            self.position(words)
        elif cmd == "go":
            self.go(words)
        elif cmd == "stop":
            self.stop.set()
        elif cmd == "legalmoves" and "mute-legalmoves" in self.faults:
            pass
        elif cmd == "perft" and "error-perft" in self.faults:
            self.send("error perft is not implemented")
        elif cmd == "legalmoves":
            turns = sorted(self.pos.legal_turns()) if self.pos else []
            self.send(" ".join(["legalmoves", str(len(turns)), *turns]))
        elif cmd == "perft":
            depth = int(words[1])
            self.send(f"perft {depth} {perft(self.pos, depth) if self.pos else 0}")
        elif cmd == "quit":
            return "ignore-quit" in self.faults
        elif cmd in ("setoption", "result", "debug"):
            pass
        else:
            self.send(f"info string unknown command {line.strip()}")
        return True


def main() -> None:
    faults = set(sys.argv[1:])
    unknown = faults - FAULTS
    if unknown:
        sys.exit(f"unknown fault(s): {', '.join(sorted(unknown))}")
    bot = Bot(faults)
    for line in sys.stdin:
        if not bot.handle(line):
            break
    bot.stop.set()
    sys.exit(0)


if __name__ == "__main__":
    main()
