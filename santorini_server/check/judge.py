"""Judging one turn of ``santorini check``: the answer to a ``go`` against the rules and the clock.

Kept apart from the checks on purpose: this is the one place where ``check`` decides what a
reply means for a game (time loss, resignation, illegal turn), so it can be switched onto the
game adjudicator without touching the checks.  Turns are judged by the rules core exactly as in a
game (``Position.play``: parse, normalise, match).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import NotationError, Position
from ..sei import Go, PositionCommand, Resign
from .report import Verdict
from .session import Answer, Session, ms, quote

__all__ = ["CLOCK_GRACE", "TURN_GO", "after", "judge", "mover_clock", "play"]

CLOCK_GRACE = 0.1
"""Lag forgiven on a clock before a turn counts as a time loss (the referee's ``timemargin``)."""
TURN_GO = Go(p1time=1000, p2time=1000, p1inc=10, p2inc=10)
"""The clock for ordinary turn checks: blitz, so a run stays short, and a real clock to honour."""


def judge(pos: Position, answer: Answer, *, clock: float | None = None) -> tuple[Verdict, str | None]:
    """The verdict on one ``go``'s answer and the canonical turn (None if there is none).

    ``clock`` is the mover's time in seconds: taking longer (plus the grace) is a time loss.
    """
    if answer.errors:
        return ("fail", f"engine sent error {quote(answer.errors[0])}"), None
    if answer.move is None:
        waited = f"no bestmove within {ms(answer.bound)}"
        return ("fail", waited + (f" ({ms(clock)} on its clock)" if clock is not None else "")), None
    if isinstance(answer.move, Resign):
        return ("fail", f"resigned in a position with {pos.count_turns()} legal turns"), None
    turn = answer.move.turn
    try:
        transition = pos.play(turn)
    except NotationError as exc:
        return ("fail", f"bestmove rejected: {exc}"), None
    if clock is not None and answer.elapsed > clock + CLOCK_GRACE:
        return ("fail", f"bestmove after {ms(answer.elapsed)} with {ms(clock)} on its clock (time loss)"), None
    spelling = "" if transition.stn == turn else f" (accepted spelling of {transition.stn})"
    return ("pass", f"bestmove {turn}{spelling} in {ms(answer.elapsed)}"), transition.stn


def mover_clock(pos: Position, go: Go) -> float | None:
    """The clock ``go`` gives the side to move in ``pos``, in seconds (None without one)."""
    clock_ms = go.p1time if pos.player == 1 else go.p2time
    return None if clock_ms is None else clock_ms / 1000


async def play(s: Session, pos: Position, command: PositionCommand, go: Go = TURN_GO) -> tuple[Verdict, str | None]:
    """One turn under ``go``'s clock: ask, wait up to 1.5x the clock, judge."""
    clock = mover_clock(pos, go)
    bound = s.timeout if clock is None else clock * 1.5 + 0.2
    answer = await s.ask(command, go, bound, pos)
    return judge(pos, answer, clock=clock)


def after(start: Position, moves: Sequence[str]) -> Position:
    """The position after ``moves`` (all legal) from ``start``."""
    pos = start
    for turn in moves:
        pos = pos.play(turn).position
    return pos
