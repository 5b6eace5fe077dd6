"""One game between two started engines: a thin trio driver of the adjudicator.

Theory of operation.  Both engines are readied at once (``newgame`` + ``isready`` to each, then
both ``readyok``s); the first failure in seat order forfeits the game.  Then the loop asks the
:class:`~santorini_server.adjudicator.Adjudicator` what to send, sends it with
``Engine.think`` and tells it what happened -- an answer, a resignation, an engine failure, or
the deadline passing -- until it returns the outcome.  No rule, clock or wording decision is
made here.  One cancel scope spans the game; ``Engine.think`` arms it with the mover's deadline
when it has to wait, so the per-turn path creates no new scope.  A deadline that fires is a
time loss; the engine is then told ``stop`` and given a bounded time to answer, outside the
scope.  Nothing an engine does raises out of :func:`play_game`.
"""

from __future__ import annotations

import datetime

import trio

from ..adjudicator import (
    Adjudicator,
    Answer,
    Forfeit,
    GameReport,
    GameSetup,
    NoReply,
    Outcome,
    Request,
    Resignation,
)
from ..termination import Termination
from .engine import Engine, EngineFailure, live_games

__all__ = ["play_game", "ask_engine", "rule_missed_deadline", "forfeit", "record_date"]


def record_date() -> str:
    """Today as a record's Date tag (the adjudicator reads no calendar: its drivers do)."""
    today = datetime.date.today()
    return f"{today.year:04d}.{today.month:02d}.{today.day:02d}"  # strftime costs 5x as much, every game


def forfeit(adjudicator: Adjudicator, seat: int, failure: EngineFailure) -> Outcome | Request:
    """Tell the adjudicator that ``seat``'s engine failed (``failure.kind`` is its tag)."""
    return adjudicator.receive(Forfeit(seat=seat, kind=Termination(failure.kind), detail=failure.detail))


async def ask_engine(
    engine: Engine, adjudicator: Adjudicator, request: Request, *, deadline: trio.CancelScope, ping: bool = False
) -> Request | Outcome:
    """One engine turn: send ``request``, wait, and tell the adjudicator what came back.

    ``deadline`` is armed with the request's allowance while this waits; if it fires, this
    does not return (the scope is cancelled): the caller then calls :func:`rule_missed_deadline`.
    """
    try:
        reply = await engine.think(
            request.position, request.go, deadline=deadline, allowance=request.allowance_ms / 1000, ping=ping
        )
    except EngineFailure as failure:
        return forfeit(adjudicator, request.seat, failure)
    elapsed_ms = reply.elapsed * 1000
    if reply.turn is None:
        return adjudicator.receive(Resignation(elapsed_ms=elapsed_ms))
    return adjudicator.receive(Answer(reply.turn, elapsed_ms, reply.info))


async def rule_missed_deadline(engine: Engine, adjudicator: Adjudicator) -> Request | Outcome:
    """The mover's deadline fired: charge what it used (which overruns), then ``stop`` its search."""
    step = adjudicator.receive(NoReply(elapsed_ms=(trio.current_time() - engine.turn_started) * 1000))
    await engine.stop_search()
    return step


async def play_game(engines: tuple[Engine, Engine], setup: GameSetup) -> GameReport:
    """Play one game; ``engines[0]`` is player 1.  Never raises for engine misbehaviour.

    Cancellation from outside (Ctrl-C, a tournament abort) propagates; the caller records the
    game as aborted if it wants to.
    """
    adjudicator = Adjudicator(setup)
    gods = adjudicator.position.gods
    # Both engines get ready at once; the first failure in seat order decides the game, and
    # every engine that was asked is waited for, so none is left with an unanswered isready.
    asked: list[float] = []
    for seat, engine in enumerate(engines):
        try:
            asked.append(await engine.send_new_game(gods))
        except EngineFailure as failure:
            forfeit(adjudicator, seat, failure)
            break
    for seat, since in enumerate(asked):
        try:
            await engines[seat].until_ready(since)
        except EngineFailure as failure:
            if adjudicator.outcome is None:
                forfeit(adjudicator, seat, failure)
    step = adjudicator.next_request()
    deadline = trio.CancelScope()
    live = live_games()
    live[0] += 1
    try:
        with deadline:
            while isinstance(step, Request):
                step = await ask_engine(engines[step.seat], adjudicator, step, deadline=deadline, ping=setup.ping)
    finally:
        live[0] -= 1
    if deadline.cancelled_caught:  # the deadline fired during this request's turn
        assert isinstance(step, Request)
        step = await rule_missed_deadline(engines[step.seat], adjudicator)
    assert isinstance(step, Outcome)
    if step.winner is not None:
        for engine in engines:
            await engine.send_result(step.result, step.termination)
    return adjudicator.report((engines[0].name, engines[1].name), date=record_date())
