"""The greedy engine: one turn of lookahead with a static evaluation.

It plays a winning turn when there is one, never hands the opponent an immediate win if it can
avoid it, and otherwise takes the turn whose successor scores best under
:func:`santorini_engines.evaluation.evaluate` (heights, room to climb, threats, centrality,
proximity).  Ties are broken at random (option ``Seed``, 0 = from the clock) so that repeated
games differ.

With three or four seats (SPEC.md section 15) the same ply is seen from the mover's side: its
own workers (with four seats its team's) against every opponent's, scored by
:func:`~santorini_engines.evaluation.evaluate_for`; a turn after which an opponent could win on
the board it leaves scores as a loss (with three seats either opponent, as both move before the
mover's next turn; with four the next seat, as the teammate moves before the other opponent).
"""

from __future__ import annotations

import random
import threading

from santorini_server.rules import Position
from santorini_server.rules.movegen import generate

from .evaluation import WIN_SCORE, evaluate, evaluate_for, immediate_win, seat_wins
from .sei_bot import Info, Limits, Option, run_bot

__all__ = ["main", "choose", "score_turns"]

_rng = random.Random()
SEED = Option("Seed", "spin", default=0, min=0, max=2**31 - 1)
SEED.on_change = lambda value: _rng.seed(value or None)


def score_turns(position: Position) -> list[tuple[int, str]]:
    """Every legal turn with its one-ply score for the side to move (higher is better)."""
    if len(position.gods) != 2:
        return _score_turns_n(position)
    opp_god = position.gods[1 - position.to_move]
    scored = []
    for raw in generate(position):
        if raw.win:
            scored.append((WIN_SCORE, raw.stn))
            continue
        h1, h2, h3, domes, mine, theirs, up = raw.state
        if immediate_win(h1, h2, h3, domes, theirs, mine, opp_god, up):
            scored.append((-WIN_SCORE, raw.stn))
        else:
            scored.append((-evaluate(h1, h2, h3, domes, theirs, mine, up), raw.stn))
    return scored


def _score_turns_n(position: Position) -> list[tuple[int, str]]:
    """:func:`score_turns` for three and four seats (a successor ``Position`` per turn)."""
    me = position.to_move
    nseats = len(position.gods)
    scored = []
    for raw in generate(position):
        if raw.win:
            scored.append((WIN_SCORE, raw.stn))
            continue
        child = position.successor(raw.state)
        threats = child.live_seats if nseats == 3 else (child.to_move,)
        if any(seat_wins(child, seat) for seat in threats if seat != me):
            scored.append((-WIN_SCORE, raw.stn))
        else:
            scored.append((evaluate_for(child, me), raw.stn))
    return scored


def choose(position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
    """The best-scoring turn after one ply (a random one among equals)."""
    scored = score_turns(position)
    best = max(score for score, _ in scored)
    turn = _rng.choice([stn for score, stn in scored if score == best])
    shown = "win 1" if best == WIN_SCORE else "win -1" if best == -WIN_SCORE else f"cp {best}"
    info(f"depth 1 nodes {len(scored)} score {shown} pv {turn}")
    return turn


def main() -> None:
    """Serve SEI on stdin/stdout."""
    _rng.seed(SEED.value or None)
    raise SystemExit(run_bot(choose, name="Greedy", author="santorini-server", options=[SEED], players=(2, 3, 4)))


if __name__ == "__main__":
    main()
