"""A stand-in for PaMeirelles/cpp-santorini (branch cyan) that speaks its interface exactly.

Written from the engine's ``interface.cpp`` (issue 29): ``isready`` -> ``readyok``; ``position``
followed by 51 characters (25 squares a1, b1, ... e1, a2, ... e5, each a height digit and
``G``/``B``/``N``, then ``0`` gray to move or ``1`` blue) -> ``Position set.`` or a parse error on
stderr; ``go gtime MS btime MS`` -> ``bestmove <from><to><build>``, a winning climb with its
from square as the build, and ``bestmove `` (nothing after it) with no move; any other line ->
``Unknown command: ...`` on stderr; ``quit``.  Moves come from the referee's rules core over the
position this file decodes itself (its own square order, not the adapter's).

``FAKE_CPP_SCRIPT`` names a file of behaviours, one a line, each search taking the first (the
adapter starts a process per search): ``legal`` (the default: a winning move if any, else the
first), ``empty``, ``illegal`` (a well-formed move that is not legal), ``garbage``, ``crash``
(exits without an answer), ``second`` (the second legal move).  ``FAKE_CPP_LOG`` names a file
every received line is appended to, with the process id; ``FAKE_CPP_START_DELAY`` seconds pass
before a process reads its input.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time

from santorini_server.rules import Position

FILES = "abcde"


def log(line: str) -> None:
    path = os.environ.get("FAKE_CPP_LOG")
    if path:
        with open(path, "a") as f:
            f.write(f"{os.getpid()} {line}\n")


def next_behaviour() -> str:
    path = os.environ.get("FAKE_CPP_SCRIPT")
    if not path or not os.path.exists(path):
        return "legal"
    with open(path, "r+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = f.read().splitlines()
        f.seek(0)
        f.truncate()
        f.write("".join(line + "\n" for line in lines[1:]))
    return lines[0].strip() if lines else "legal"


def parse(text: str) -> Position:
    """The engine's 51 characters as our position (its errors, as it words them)."""
    if len(text) != 51:
        raise ValueError(f"Invalid position: Expected length 50, but got {len(text)}")
    rows: list[list[str]] = [[], [], [], [], []]  # rank 1 first
    gray: list[str] = []
    blue: list[str] = []
    for i in range(25):
        height, mark = text[2 * i], text[2 * i + 1]
        if height not in "01234":
            raise ValueError(f"Invalid position: Block height at index {i} is {height}, expected between 0 and 4")
        square = f"{FILES[i % 5]}{i // 5 + 1}"
        rows[i // 5].append(height)
        if mark == "G":
            gray.append(square)
        elif mark == "B":
            blue.append(square)
        elif mark != "N":
            raise ValueError(f"Invalid position: Unexpected character '{mark}' at position {2 * i + 1}")
    if len(gray) != 2 or len(blue) != 2:
        raise ValueError("Invalid position: Expected 2 gray and 2 blue workers")
    if text[50] not in "01":
        raise ValueError(f"Invalid turn: '{text[50]}' expected '0' or '1'")
    board = "/".join("".join(rows[r]) for r in (4, 3, 2, 1, 0))
    side = "1" if text[50] == "0" else "2"
    return Position.from_sps(f"mortal/mortal;{board};{','.join(sorted(gray))}/{','.join(sorted(blue))};{side};5")


def answer(position: Position, behaviour: str) -> str:
    moves = position.transitions()
    if behaviour == "empty" or not moves:
        return ""
    if behaviour == "garbage":
        return "zz9"
    if behaviour == "illegal":
        mine = position.sides()[0]
        src = next(f"{FILES[sq % 5]}{5 - sq // 5}" for sq in range(25) if mine >> sq & 1)
        far = "e5" if src[0] in "ab" else "a1"  # two or more squares away: no worker moves there
        return f"{src}{far}{src}"
    wins = [t for t in moves if t.win]
    chosen = wins[0] if wins else moves[1 if behaviour == "second" and len(moves) > 1 else 0]
    src, rest = chosen.stn.split("-", 1)
    dst, _, build = rest.partition("+")
    return f"{src}{dst}{build or src}"  # the engine names its from square as a win's build


def main() -> None:
    time.sleep(float(os.environ.get("FAKE_CPP_START_DELAY", "0")))  # a slow start (a loaded machine)
    position: Position | None = None
    for raw in sys.stdin:
        command = raw.rstrip("\n")
        log(command)
        if command == "quit":
            return
        if command == "isready":
            print("readyok", flush=True)
        elif command.startswith("position "):
            try:
                position = parse(command[9:])
                print("Position set.", flush=True)
            except ValueError as exc:
                print(f"Error parsing position: {exc}", file=sys.stderr, flush=True)
        elif command.startswith("go"):
            behaviour = next_behaviour()
            if behaviour == "crash":
                os._exit(3)
            assert position is not None, "go before position"
            print(f"bestmove {answer(position, behaviour)}", flush=True)
        else:
            print(f"Unknown command: {command}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
