#!/usr/bin/env python3
"""A stand-in for JPricey/santorini-ai's ``uci`` program, speaking its interface (SPEC.md section 20.2).

Written from the program's source (``uci/src/main.rs``, ``santorini_core/src/fen.rs``,
``uci_types.rs``, the gods' ``move_to_actions``), independently of the adapter's notation module, so
the tests of the adapter test a translation against a second reading of the interface:

* prints ``{"type":"started"}`` first; one command a line; errors go to stderr as ``Error: ...``;
* ``set_position FEN``: a ``best_move`` line at once (trigger ``seed``), another (``improvement``) a
  moment later, and on ``stop`` the last one (``stop_flag``); ``stop`` with no search is an error;
* ``next_moves FEN``: every legal turn's actions and next state, in the program's spellings:
  placement as two ``place_worker`` (both orders listed), no build after a winning climb, an Artemis
  move to her final square only, Atlas' low dome as ``build`` then ``dome``, Demeter's two builds
  and Hermes' two moves in both orders; a Minotaur's *winning* push reports the next state without
  the push, the pushed worker still on its square (as the program does);
* ``ping`` -> ``pong``; ``quit``.

The turn it plays is a winning one if there is one, else one drawn with a seed from the FEN.  The
environment variable ``FAKE_SAI_MODE`` makes it misbehave: ``illegal`` (moves a worker two squares
away), ``noturn`` (a best move whose actions are ``no_moves``), ``silent`` (no best move at all),
``crash`` (exits on ``set_position``), ``selfstop`` (ends each search by itself: ``end_of_line``).
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time

from santorini_server.rules import Position, parse_stn

MODE = os.environ.get("FAKE_SAI_MODE", "")
NAMES = [f + r for r in "54321" for f in "ABCDE"]  # the program's Square enum: A5, B5, ... E1
GODS = ("mortal", "apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "hermes", "minotaur", "pan", "prometheus")


def emit(obj: object) -> None:
    print(json.dumps(obj, separators=(",", ":")), flush=True)


def read_fen(fen: str) -> Position:
    heights, side, p1, p2 = fen.split("/")
    if len(heights) != 25 or side not in ("1", "2"):
        raise ValueError("Height map must be exactly 25 characters")
    gods, workers, up = [], [], False
    for seat, section in enumerate((p1, p2)):
        head, _, squares = section.partition(":")
        name, _, data = head.partition("[")
        if name not in GODS:
            raise ValueError(f"Failed to parse god name {name}")
        gods.append(name)
        workers.append(sum(1 << NAMES.index(s) for s in squares.split(",") if s))
        up = up or (name == "athena" and data == "^]" and seat != int(side) - 1)
    levels = {i: int(c) for i, c in enumerate(heights) if c != "4"}
    domes = sum(1 << i for i, c in enumerate(heights) if c == "4")
    return Position(
        gods=tuple(gods),
        heights=levels,
        domes=domes,
        workers=tuple(workers),
        to_move=int(side) - 1,
        athena_up=up and all(workers),
    )


def write_fen(pos: Position, winner: int | None, workers: tuple[int, ...] | None = None) -> str:
    heights = "".join(str(pos.level(i)) for i in range(25))
    out = [heights, str(pos.to_move + 1)]
    for seat, god in enumerate(pos.gods):
        mark = "#" if winner == seat else ""
        data = "[^]" if god == "athena" and pos.athena_up else ""
        mask = (workers or pos.workers)[seat]
        squares = [NAMES[i] for i in range(25) if mask >> i & 1]
        out.append(mark + god + data + (":" + ",".join(squares) if squares else ""))
    return "/".join(out)


def idx(name: str) -> int:
    return NAMES.index(name.upper())


def spellings(pos: Position, stn: str) -> list[list[dict]]:
    """Every action list the program lists for our turn ``stn``."""
    t = parse_stn(stn)
    god = pos.gods[pos.to_move]
    if t.place:
        a, b = (n.upper() for n in t.place)
        return [[{"type": "place_worker", "value": x}, {"type": "place_worker", "value": y}] for x, y in ((a, b), (b, a))]
    builds: list[dict] = []
    for sq, dome in t.builds:
        builds.append({"type": "build", "value": sq.upper()})
        if dome:
            builds.append({"type": "dome", "value": sq.upper()})
    if t.frm is None:  # Hermes builds without moving
        return [builds]
    meta = None
    if t.op == "x":
        frm, to = idx(t.frm), idx(t.to)
        beyond = (2 * (to // 5) - frm // 5) * 5 + 2 * (to % 5) - frm % 5  # the Minotaur's push: straight on
        dest = frm if god == "apollo" else beyond
        meta = {"type": "move_enemy_worker", "value": {"from": t.to.upper(), "to": NAMES[dest]}}
    move = [
        {"type": "select_worker", "value": t.frm.upper()},
        {"type": "move_worker", "value": {"dest": (t.to2 or t.to).upper(), "meta": meta}},
    ]
    pre = [{"type": "build", "value": t.pre.upper()}] if t.pre else []
    if t.frm_b:
        second = [
            {"type": "select_worker", "value": t.frm_b.upper()},
            {"type": "move_worker", "value": {"dest": t.to_b.upper(), "meta": None}},
        ]
        return [move + second + builds, second + move + builds]
    if god == "demeter" and len(builds) == 2:
        return [move + builds, move + builds[::-1]]
    return [pre + move + builds]


def children(pos: Position) -> list[tuple[str, list[dict], str]]:
    """(our STN, one action list, next-state FEN) for every spelling of every legal turn."""
    out = []
    seen: set[tuple[str, str]] = set()
    for tr in pos.transitions():
        workers = None
        if tr.win and pos.gods[pos.to_move] == "minotaur" and "x" in tr.stn:
            workers = without_push(pos, tr.stn)
        fen = write_fen(tr.position, pos.to_move if tr.win else None, workers)
        for actions in spellings(pos, tr.stn):
            key = (json.dumps(actions), fen)
            if pos.gods[pos.to_move] == "artemis" and key in seen:
                continue  # one Artemis move per final square and build
            seen.add(key)
            out.append((tr.stn, actions, fen))
    if not out:  # no turn: the program lists one "no_moves", the opponent marked the winner
        out.append(("", [{"type": "no_moves"}], write_fen(pos, 1 - pos.to_move)))
    return out


def without_push(pos: Position, stn: str) -> tuple[int, int]:
    """The workers the program reports after a Minotaur's winning push: the pushed one has not
    moved (it shares its square with the Minotaur)."""
    t = parse_stn(stn)
    mine, theirs = pos.workers[pos.to_move], pos.workers[1 - pos.to_move]
    frm, to = idx(t.frm), idx(t.to)
    mine = mine & ~(1 << frm) | 1 << to
    return (mine, theirs) if pos.to_move == 0 else (theirs, mine)


class Search:
    def __init__(self, fen: str, pos: Position) -> None:
        self.fen, self.pos = fen, pos
        self.stopped = threading.Event()
        self.lock = threading.Lock()
        found = children(pos)
        wins = [c for c in found if "#" in c[2]]
        rng = random.Random(fen)
        self.choice = wins[0] if wins else rng.choice(found)  # (our side never asks with no turn)
        self.done = False

    def line(self, trigger: str, depth: int) -> dict:
        stn, actions, next_fen = self.choice
        if MODE == "illegal":
            frm = next(a["value"] for a in actions if a["type"] in ("select_worker", "place_worker"))
            far = NAMES[(idx(frm) + 12) % 25]
            actions = [{"type": "select_worker", "value": frm}, {"type": "move_worker", "value": {"dest": far, "meta": None}}]
        elif MODE == "noturn":
            actions = [{"type": "no_moves"}]
        return {
            "type": "best_move",
            "original_str": self.fen,
            "start_state": self.fen,
            "next_state": next_fen,
            "trigger": trigger,
            "meta": {
                "score": 0,
                "calculated_depth": depth,
                "nodes_visited": 100 * depth,
                "elapsed_seconds": 0.0,
                "actions": actions,
                "action_str": stn,
            },
        }

    def run(self) -> None:
        if MODE == "silent":
            return
        emit(self.line("seed", 0))
        if MODE == "selfstop":
            with self.lock:
                self.done = True
                emit(self.line("end_of_line", 1))
            return
        for depth in range(1, 4):
            if self.stopped.wait(0.005):
                break
            emit(self.line("improvement", depth))

    def stop(self) -> None:
        self.stopped.set()
        with self.lock:
            if not self.done:
                self.done = True
                threading.Timer(0.002, lambda: emit(self.line("stop_flag", 3))).start()


def main() -> None:
    emit({"type": "started"})
    search: Search | None = None
    for raw in sys.stdin:
        parts = raw.split()
        if not parts:
            print("empty command", flush=True)
            continue
        cmd, args = parts[0], parts[1:]
        try:
            if cmd == "quit":
                return
            if cmd == "ping":
                print("pong", flush=True)
            elif cmd == "stop":
                if search is None or MODE == "silent":
                    raise ValueError("Attempted to stop, but no active execution")
                search.stop()
                search = None
            elif cmd in ("set_position", "next_moves"):
                if len(args) != 1:
                    raise ValueError(f"{cmd} should be followed by a single FEN string")
                pos = read_fen(args[0])
                if cmd == "next_moves":
                    emit(
                        {
                            "type": "next_moves",
                            "original_str": args[0],
                            "start_state": args[0],
                            "next_states": [{"next_state": f, "actions": a} for _, a, f in children(pos)],
                        }
                    )
                    continue
                if MODE == "crash":
                    os._exit(3)
                if search is not None:
                    search.stop()
                search = Search(args[0], pos)
                threading.Thread(target=search.run, daemon=True).start()
            else:
                raise ValueError(f"Skipping unknown command: {raw.strip()}")
        except ValueError as exc:
            print(f"Error: {exc}", file=sys.stderr, flush=True)
        time.sleep(0)


if __name__ == "__main__":
    main()
