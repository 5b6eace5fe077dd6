"""An instant SEI engine for two, three and four seats: answers every ``go`` with the first legal turn.

It declares ``feature players 2 3 4`` unless told otherwise.  Behaviour switches (argv):
``players=2`` declares only those seat counts (``players=`` declares none: no feature line),
``sleep=MS`` sleeps before each answer, ``illegal`` answers an illegal turn at its first play
turn, ``crash=N`` exits with code 3 at its Nth ``go`` (``crash=0``: at ``newgame``), ``hang``
never answers ``go`` (nor ``stop``), ``log=PATH`` appends every line it reads to PATH (tests read
what the referee asked), ``marker=X`` is ignored (it tags the process for tests).  Stdlib + the
rules core only.
"""

from __future__ import annotations

import sys
import time

from santorini_server.rules import Position


def main() -> None:
    args = dict(a.partition("=")[::2] for a in sys.argv[1:])
    sleep = float(args.get("sleep", 0) or 0) / 1000
    crash_at = int(args["crash"]) if "crash" in args else None
    players = args.get("players", "2 3 4").replace(",", " ")
    log = open(args["log"], "a", encoding="utf-8") if "log" in args else None
    out = sys.stdout
    gos = 0
    gods: tuple[str, ...] = ("mortal", "mortal")
    pos = Position.start(gods)
    for line in sys.stdin:
        if log is not None:
            log.write(line)
            log.flush()
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "sei":
            feature = f"feature players {players}\n" if players.strip() else ""
            out.write(
                "id name nseat\nid author tests\n"
                "gods apollo artemis athena atlas demeter hephaestus hermes minotaur pan prometheus\n"
                f"{feature}seiok 1\n"
            )
        elif cmd == "isready":
            out.write("readyok\n")
        elif cmd == "newgame":
            if crash_at == 0:
                sys.exit(3)
            gods = tuple(words[2].split("/"))
        elif cmd == "position":
            if words[1] == "startpos":
                pos, rest = Position.start(gods), words[2:]
            else:
                pos, rest = Position.from_sps(words[2]), words[3:]
            for turn in rest[1:]:  # after an elimination the referee sends the SPS then
                pos = pos.play(turn).position
        elif cmd == "go":
            gos += 1
            if crash_at is not None and gos >= crash_at:
                sys.exit(3)
            if "hang" in args:
                continue
            if sleep:
                time.sleep(sleep)
            turns = pos.legal_turns()
            if not pos.is_placement and "illegal" in args:
                out.write("bestmove a1-a1+a1\n")
            else:
                out.write(f"info depth 1 score cp 5 nodes {len(turns)}\nbestmove {turns[0]}\n")
        elif cmd == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
