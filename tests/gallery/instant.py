"""An instant SEI engine: answers every ``go`` at once with the first legal turn.

Behaviour switches (argv): ``sleep=MS`` sleeps that long before each answer (clock tests),
``resign`` resigns at its first play turn, ``illegal`` answers an illegal turn at its first play
turn, ``crash=N`` exits with code 3 at its Nth ``go``.  Stdlib + the rules core only.
"""

from __future__ import annotations

import sys
import time

from santorini_server.rules import Position


def main() -> None:
    args = dict(a.partition("=")[::2] for a in sys.argv[1:])
    sleep = float(args.get("sleep", 0) or 0) / 1000
    crash_at = int(args.get("crash", 0) or 0)
    out = sys.stdout
    gos = 0
    pos = Position.start()
    gods = ("mortal", "mortal")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "sei":
            out.write(
                "id name instant\nid author tests\n"
                "gods apollo artemis athena atlas demeter hephaestus hermes minotaur pan prometheus\nseiok 1\n"
            )
        elif cmd == "isready":
            out.write("readyok\n")
        elif cmd == "newgame":
            gods = tuple(words[2].split("/"))  # type: ignore[assignment]
        elif cmd == "position":
            if words[1] == "startpos":
                pos, rest = Position.start(gods), words[2:]  # type: ignore[arg-type]
            else:
                pos, rest = Position.from_sps(words[2]), words[3:]
            for turn in rest[1:]:
                pos = pos.play(turn).position
        elif cmd == "go":
            gos += 1
            if crash_at and gos >= crash_at:
                sys.exit(3)
            if sleep:
                time.sleep(sleep)
            turns = pos.legal_turns()
            if not pos.is_placement and "resign" in args:
                out.write("bestmove resign\n")
            elif not pos.is_placement and "illegal" in args:
                out.write("bestmove a1-a1+a1\n")
            else:
                out.write(f"info depth 1 score cp 5 nodes {len(turns)}\nbestmove {turns[0]}\n")
        elif cmd == "quit":
            return
        out.flush()


if __name__ == "__main__":
    main()
