#!/usr/bin/env python3
"""Differential check of our legal-turn sets against santorini-ai's ``next_moves`` (SPEC.md section 20.5).

For every god both implement (ours are a subset of its) and the base game, random games are played
from the empty board (the other seat's god drawn among the rest and mortal), and every position
where that god is to move is checked, up to ``--positions`` per god: our legal turns against the
program's ``next_moves``, turn by turn through :func:`action_key` (what both notations say alike:
Artemis' path and the order of two builds are not in it), and, for each turn both list, the
position after it (:func:`state_key`).  Every disagreement is printed with the position in both
notations (SPS and FEN) and classified: a *known* santorini-ai omission (SPEC.md section 20.5 says
why our rules are the right ones) or *unexplained*.  The exit status is 1 when any is unexplained.

It also times the adapter's own work per turn (position to FEN, one answer's JSON read, its
actions to STN, our rules' check of it): the target is under 1 ms.

    python tools/rules_diff.py --binary /work/ext/santorini-ai/target/release/uci [--positions 3000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from santorini_server.adapters.common import ForeignEngineError, ForeignProcess
from santorini_server.adapters.santorini_ai_notation import (
    GODS,
    action_key,
    fen_of,
    state_key,
    turn_key,
    turn_of_actions,
)
from santorini_server.rules import Position, parse_square

#: How long the program may take to list a position's turns (it takes milliseconds).
NEXT_MOVES_TIMEOUT_S = 30.0
#: Positions a random game may give before it is abandoned (games end within 100 turns anyway).
MAX_PLIES = 200


@dataclass
class Disagreement:
    god: str
    kind: str  # "ours only", "theirs only", "next state"
    cause: str  # a known cause's name, or "unexplained"
    sps: str
    fen: str
    ours: list[str]
    theirs: list[Any]


@dataclass
class Tally:
    positions: int = 0
    turns: int = 0
    causes: Counter[str] = field(default_factory=Counter)


def next_moves(proc: ForeignProcess, fen: str) -> list[dict[str, Any]]:
    proc.send(f"next_moves {fen}")
    line = proc.expect(lambda text: text.startswith('{"type":"next_moves"'), NEXT_MOVES_TIMEOUT_S)
    answer = json.loads(line)
    if answer.get("original_str") != fen:
        raise ForeignEngineError(f"next_moves answered for {answer.get('original_str')!r}, asked {fen!r}")
    states: list[dict[str, Any]] = answer["next_states"]
    return states


def artemis_omission(pos: Position, stn: str, their_keys: set[str]) -> bool:
    """SPEC.md section 20.5: santorini-ai lists one Artemis move per final square and outcome, and
    where a winning path reaches a level-3 square it omits the non-winning turns ending there (a
    second step from level 3 to level 3, with a build)."""
    if pos.gods[pos.to_move] != "artemis" or "+" not in stn:
        return False
    squares = stn.split("+")[0].split("-")
    if pos.level(parse_square(squares[-1])) != 3:
        return False
    return turn_key(pos, f"{squares[0]}-{squares[-1]}") in their_keys  # the winning move there


def minotaur_win_state(pos: Position, stn: str) -> bool:
    """SPEC.md section 20.5: after a Minotaur's winning push santorini-ai's next state lacks the push."""
    return pos.gods[pos.to_move] == "minotaur" and "x" in stn and "+" not in stn


def compare(proc: ForeignProcess, pos: Position, god: str, costs: list[float]) -> tuple[int, list[Disagreement]]:
    fen = fen_of(pos)
    theirs = next_moves(proc, fen)
    ours = pos.transitions()
    found: list[Disagreement] = []

    def report(kind: str, cause: str, our_turns: list[str], their_actions: list[Any]) -> None:
        found.append(Disagreement(god, kind, cause, pos.sps(), fen, our_turns, their_actions))

    if not ours:
        if not (len(theirs) == 1 and theirs[0]["actions"] == [{"type": "no_moves"}]):
            report("theirs only", "unexplained", [], [t["actions"] for t in theirs[:5]])
        return 0, found
    mover = pos.to_move
    our_keys: dict[str, list[tuple[str, str]]] = {}
    for tr in ours:
        after = fen_of(tr.position)
        if tr.win:
            after = _won(after, mover)
        our_keys.setdefault(turn_key(pos, tr.stn), []).append((tr.stn, state_key(after, mover)))
    their_keys: dict[str, set[str]] = {}
    states: dict[str, str] = {}  # the program lists a turn once per order of its actions: one state, many lines
    for entry in theirs:
        after = entry["next_state"]
        if after not in states:
            states[after] = state_key(after, mover)
        their_keys.setdefault(action_key(pos, entry["actions"]), set()).add(states[after])
    for key, turns in our_keys.items():
        if key not in their_keys:
            stns = [stn for stn, _ in turns]
            cause = "artemis-level3" if all(artemis_omission(pos, s, set(their_keys)) for s in stns) else "unexplained"
            report("ours only", cause, stns, [])
            continue
        ours_after = {state for _, state in turns}
        if not ours_after & their_keys[key]:
            stns = [stn for stn, _ in turns]
            cause = "minotaur-win-push" if all(minotaur_win_state(pos, s) for s in stns) else "unexplained"
            report("next state", cause, stns, sorted(their_keys[key]))
    for key in their_keys.keys() - our_keys.keys():
        example = next(e["actions"] for e in theirs if action_key(pos, e["actions"]) == key)
        report("theirs only", "unexplained", [], [example])
    # the adapter's own work for one answer: FEN out, its best_move line in (as the program
    # writes it), actions to STN, our check; CPU time of this thread, so a busy machine's
    # preemptions are not counted
    entry = theirs[0]
    line = json.dumps(
        {"type": "best_move", "original_str": fen, "start_state": fen, "next_state": entry["next_state"],
         "trigger": "stop_flag", "meta": {"score": 0, "calculated_depth": 9, "nodes_visited": 123456,
         "elapsed_seconds": 0.1, "actions": entry["actions"], "action_str": "A1>B2^C3"}},
        separators=(",", ":"),
    )  # fmt: skip
    start = time.thread_time()
    fen_of(pos)
    answer = json.loads(line)
    try:
        pos.play(turn_of_actions(pos, answer["meta"]["actions"]))
    except ValueError:
        pass
    costs.append(time.thread_time() - start)
    return len(ours), found


def _won(fen: str, mover: int) -> str:
    parts = fen.split("/")
    parts[2 + mover] = "#" + parts[2 + mover]
    return "/".join(parts)


def sample(god: str, count: int, rng: random.Random) -> list[Position]:
    """``count`` positions with ``god`` to move, from random games (``mortal``: the base game)."""
    out: list[Position] = []
    others = [g for g in GODS if g not in (god, "mortal")] + ["mortal"]
    while len(out) < count:
        if god == "mortal":
            gods = ("mortal", "mortal")
        else:
            other = rng.choice(others)
            gods = (god, other) if rng.random() < 0.5 else (other, god)
        pos = Position.start(gods)
        for _ in range(MAX_PLIES):
            if pos.gods[pos.to_move] == god and len(out) < count:
                out.append(pos)
            transitions = pos.transitions()
            if not transitions:
                break
            tr = rng.choice(transitions)
            if tr.win:
                break
            pos = tr.position
    return out


def start(binary: str) -> ForeignProcess:
    proc = ForeignProcess([binary])
    proc.expect(lambda line: line.startswith('{"type":"started"'), 30.0)
    return proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True, help="santorini-ai's built uci program")
    parser.add_argument("--positions", type=int, default=3000, help="positions per god (default 3000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gods", default=",".join(GODS), help="comma-separated (default: all shared, and mortal)")
    parser.add_argument("--show", type=int, default=3, help="disagreements printed per god and cause")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    proc = start(args.binary)
    costs: list[float] = []
    tallies: dict[str, Tally] = {}
    unexplained = 0
    started = time.monotonic()
    try:
        for god in args.gods.split(","):
            tally = tallies.setdefault(god, Tally())
            shown: Counter[str] = Counter()
            for pos in sample(god, args.positions, rng):
                try:
                    turns, found = compare(proc, pos, god, costs)
                except ForeignEngineError as exc:  # the program hung or died: say where, and go on
                    print(f"{god} no answer [program-failure]: SPS {pos.sps()}  FEN {fen_of(pos)}: {exc}", flush=True)
                    tally.causes["program-failure"] += 1
                    proc.close(wait=False)
                    proc = start(args.binary)
                    continue
                tally.positions += 1
                tally.turns += turns
                for d in found:
                    tally.causes[d.cause] += 1
                    unexplained += d.cause == "unexplained"
                    if shown[d.cause] < args.show:
                        shown[d.cause] += 1
                        print(f"{god} {d.kind} [{d.cause}]: SPS {d.sps}  FEN {d.fen}")
                        print(f"    ours {d.ours}  theirs {json.dumps(d.theirs)[:300]}")
            causes = ", ".join(f"{n} {cause}" for cause, n in sorted(tally.causes.items())) or "none"
            print(f"{god:<11} {tally.positions:>6} positions {tally.turns:>9,} turns  disagreements: {causes}", flush=True)
    finally:
        proc.close()
    us = sorted(c * 1e6 for c in costs)
    print(
        f"total {sum(t.positions for t in tallies.values()):,} positions in {time.monotonic() - started:.0f} s; "
        f"unexplained disagreements: {unexplained}"
    )
    if us:
        p99 = us[int(len(us) * 0.99)]
        print(f"adapter CPU per turn (FEN, JSON, to STN, check): median {statistics.median(us):.0f} us, p99 {p99:.0f} us")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
