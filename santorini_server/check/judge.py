"""Judging one turn of ``santorini check``: the answer to a ``go``, ruled by the game adjudicator.

``check`` decides nothing about a turn itself: the :class:`~santorini_server.adjudicator.Adjudicator`
that rules every match game rules each checked turn too (time loss, resignation, illegal or
malformed turn), from the checked position with the clocks the ``go`` stated and the referee's
lag grace.  This module only words the ruling for a bot author.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..adjudicator import Adjudicator, GameSetup, Outcome, Resignation, TimeControl
from ..adjudicator import Answer as TurnAnswer
from ..rules import Position, rejection
from ..sei import BestMove, Go, PositionCommand, Resign
from ..termination import Termination
from .report import Verdict
from .session import Answer, Session, ms, quote

__all__ = ["CLOCK_GRACE", "TURN_GO", "TURN_GO_3", "TURN_GO_4", "after", "judge", "mover_clock", "play"]

CLOCK_GRACE = 0.1
"""Lag forgiven on a clock (or past a ``movetime``) before a turn counts as a time loss: the
referee's ``timemargin``, given to the adjudicator as each seat's margin."""
TURN_GO = Go(p1time=1000, p2time=1000, p1inc=10, p2inc=10)
"""The clock for ordinary turn checks: blitz, so a run stays short, and a real clock to honour."""
TURN_GO_3 = Go(p1time=1000, p2time=1000, p3time=1000, p1inc=10, p2inc=10, p3inc=10)
TURN_GO_4 = Go(p1time=1000, p2time=1000, p3time=1000, p4time=1000, p1inc=10, p2inc=10, p3inc=10, p4inc=10)
"""The same clock for every seat of a three- or four-seat check."""
_TURN_GOS = {2: TURN_GO, 3: TURN_GO_3, 4: TURN_GO_4}


def _time_control(go: Go | None, player: int) -> TimeControl:
    """The time control a ``go`` states for ``player`` (1..4): its clock, a movetime, or none."""
    if go is None:
        return TimeControl()
    clock = getattr(go, f"p{player}time")
    if clock is not None:
        return TimeControl(base_ms=clock, inc_ms=getattr(go, f"p{player}inc") or 0)
    return TimeControl(movetime_ms=go.movetime, depth=go.depth, nodes=go.nodes)


def _limit(pos: Position, go: Go | None) -> str:
    """The mover's limit in words, for a time-loss reason."""
    clock = mover_clock(pos, go) if go is not None else None
    if clock is not None:
        return f"with {ms(clock)} on its clock"
    if go is not None and go.movetime is not None:
        return f"over movetime {go.movetime} + {ms(CLOCK_GRACE)} grace"
    return "past the referee's hard deadline"


def judge(pos: Position, answer: Answer, go: Go | None = None) -> tuple[Verdict, str | None]:
    """The verdict on one ``go``'s answer in ``pos`` and the canonical turn (None if there is none).

    ``go`` is what the engine was asked under (None: no limit, as after ``go infinite`` + ``stop``).
    """
    if answer.errors:
        return ("fail", f"engine sent error {quote(answer.errors[0])}"), None
    clock = mover_clock(pos, go) if go is not None else None
    if answer.move is None:
        waited = f"no bestmove within {ms(answer.bound)}"
        return ("fail", waited + (f" ({ms(clock)} on its clock)" if clock is not None else "")), None
    grace = round(CLOCK_GRACE * 1000)
    seats = range(1, pos.nseats + 1)
    setup = GameSetup(opening=pos.sps(), tcs=tuple(_time_control(go, p) for p in seats), margins=(grace,) * pos.nseats)
    adjudicator = Adjudicator(setup)
    adjudicator.next_request()
    elapsed_ms = answer.elapsed * 1000
    event = (
        Resignation(elapsed_ms=elapsed_ms)
        if isinstance(answer.move, Resign)
        else TurnAnswer(turn=answer.move.turn, elapsed_ms=elapsed_ms)
    )
    ruling = adjudicator.receive(event)
    if not adjudicator.moves:
        # the turn was lost: two and four seats end the game, three seats eliminate the mover
        lost = ruling.termination if isinstance(ruling, Outcome) else adjudicator.eliminations[-1].termination
        return (_fail_reason(pos, answer, go, lost)), None
    stn = adjudicator.moves[-1]
    turn = event.turn if isinstance(event, TurnAnswer) else stn
    spelling = "" if stn == turn else f" (accepted spelling of {stn})"
    return ("pass", f"bestmove {turn}{spelling} in {ms(answer.elapsed)}"), stn


def _fail_reason(pos: Position, answer: Answer, go: Go | None, termination: Termination) -> Verdict:
    """A lost turn in a bot author's words (the ruling, ``termination``, is the adjudicator's)."""
    if termination is Termination.TIME:
        return "fail", f"bestmove after {ms(answer.elapsed)} {_limit(pos, go)} (time loss)"
    if termination is Termination.RESIGN:
        return "fail", f"resigned in a position with {pos.count_turns()} legal turns"
    assert isinstance(answer.move, BestMove)  # the one answer left that can lose: a refused turn
    return "fail", f"bestmove rejected: {rejection(pos, answer.move.turn)}"  # the turn, the position, why


def mover_clock(pos: Position, go: Go) -> float | None:
    """The clock ``go`` gives the seat to move in ``pos``, in seconds (None without one)."""
    clock_ms: int | None = getattr(go, f"p{pos.player}time")
    return None if clock_ms is None else clock_ms / 1000


async def play(s: Session, pos: Position, command: PositionCommand, go: Go | None = None) -> tuple[Verdict, str | None]:
    """One turn under ``go``'s clock (None: :data:`TURN_GO` for the seat count): ask, wait up to
    1.5x the clock, judge."""
    go = go or _TURN_GOS[pos.nseats]
    clock = mover_clock(pos, go)
    bound = s.timeout if clock is None else clock * 1.5 + 0.2
    answer = await s.ask(command, go, bound, pos)
    return judge(pos, answer, go)


def after(start: Position, moves: Sequence[str]) -> Position:
    """The position after ``moves`` (all legal) from ``start``; a three-seat seat with no complete
    turn is eliminated on the way, as an engine replaying ``moves`` must (SPEC.md section 15.5)."""
    pos = start
    for turn in moves:
        if pos.nseats == 3 and pos.is_lost():
            left = pos.eliminate()
            assert left is not None, "moves go on after the last seat standing"
            pos = left
        pos = pos.play(turn).position
    return pos
