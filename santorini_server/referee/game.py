"""One game between started engines, one per seat: a thin trio driver of the adjudicator.

Theory of operation.  Every engine is readied at once (``newgame`` + ``isready`` to each, then
every ``readyok``); with two seats the first failure in seat order forfeits the game, with more
each failure is its seat's (the adjudicator rules it at that seat's next turn).  Then the loop asks the
:class:`~santorini_server.adjudicator.Adjudicator` what to send, sends it with
``Engine.think`` and tells it what happened -- an answer, a resignation, an engine failure, or
the deadline passing -- until it returns the outcome.  No rule, clock or wording decision is
made here.  One cancel scope spans the game; ``Engine.think`` arms it with the mover's deadline
when it has to wait, so the per-turn path creates no new scope.  A deadline that fires is a
time loss; the engine is then told ``stop`` and given a bounded time to answer, outside the
scope.  Nothing an engine does raises out of :func:`play_game`.

Three seats: when a turn (or a missed deadline) eliminates a seat, the loop leaves the scope,
sends that engine its ``result`` and goes on with a fresh scope; the adjudicator asks an
eliminated seat nothing more.  At the end every engine not told yet gets the placings.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Protocol

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

__all__ = ["play_game", "play_seated", "ask_engine", "rule_missed_deadline", "forfeit", "record_date", "GameObserver"]


class GameObserver(Protocol):
    """Watches one game as it is played (the server's live dashboard, SPEC.md section 17.3).

    Each method is called synchronously from the game's own task, right after the adjudicator
    has ruled, so it must not block or await: it reads the adjudicator and returns.  A game
    played without an observer pays one ``is None`` test per turn.
    """

    def started(self, adjudicator: Adjudicator, names: Sequence[str]) -> None:
        """The game begins (before its engines are readied)."""

    def step(self, adjudicator: Adjudicator) -> None:
        """The adjudicator has ruled on one reply (usually a turn played: compare its turn count)."""

    def over(self, report: GameReport) -> None:
        """The game has ended (not called for a game cancelled from outside)."""


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


async def play_game(engines: Sequence[Engine], setup: GameSetup, *, observer: GameObserver | None = None) -> GameReport:
    """Play one game; ``engines[0]`` is player 1, one engine per seat.  Never raises for engine
    misbehaviour.

    Cancellation from outside (Ctrl-C, a tournament abort) propagates; the caller records the
    game as aborted if it wants to.

    Raises:
        ValueError: not one engine per seat of the setup's game.
    """
    adjudicator = Adjudicator(setup)
    if len(engines) != adjudicator.nseats:
        raise ValueError(f"{len(engines)} engines for a {adjudicator.nseats}-seat game")
    names = [e.name for e in engines]
    if observer is not None:
        observer.started(adjudicator, names)
    return await play_seated(adjudicator, dict(enumerate(engines)), names, observer=observer)


async def play_seated(
    adjudicator: Adjudicator, engines: dict[int, Engine], names: Sequence[str], *, observer: GameObserver | None = None
) -> GameReport:
    """:func:`play_game` from a fresh adjudicator that may already have been told of seats that
    forfeited (an engine that could not be started); ``engines`` has an engine for every other seat.
    ``observer`` (already told the game started) is told of every ruling and of the end.
    """
    setup = adjudicator.setup
    gods = adjudicator.position.gods
    n = adjudicator.nseats
    # Every engine gets ready at once.  Two seats: the first failure in seat order decides the
    # game.  More: each failure is that seat's (SPEC.md section 15.2), and the game goes on.
    # Every engine that was asked is waited for, so none is left with an unanswered isready.
    asked: list[tuple[int, float]] = []
    for seat, engine in engines.items():
        try:
            asked.append((seat, await engine.send_new_game(gods)))
        except EngineFailure as failure:
            forfeit(adjudicator, seat, failure)
            if adjudicator.outcome is not None:
                break
    for seat, since in asked:
        try:
            await engines[seat].until_ready(since)
        except EngineFailure as failure:
            if adjudicator.outcome is None:
                forfeit(adjudicator, seat, failure)
    step = adjudicator.next_request()
    told: set[int] = set()  # seats whose engine has had its result (three seats: eliminated ones)
    live = live_games()
    live[0] += 1
    try:
        while isinstance(step, Request):
            deadline = trio.CancelScope()
            with deadline:
                if n != 3:
                    while isinstance(step, Request):
                        step = await ask_engine(engines[step.seat], adjudicator, step, deadline=deadline, ping=setup.ping)
                        if observer is not None:
                            observer.step(adjudicator)
                else:  # a turn may eliminate a seat: its engine is told before the game goes on
                    out = len(adjudicator.eliminations)
                    while isinstance(step, Request) and len(adjudicator.eliminations) == out:
                        step = await ask_engine(engines[step.seat], adjudicator, step, deadline=deadline, ping=setup.ping)
                        if observer is not None:
                            observer.step(adjudicator)
            if deadline.cancelled_caught:  # the deadline fired during this request's turn
                assert isinstance(step, Request)
                step = await rule_missed_deadline(engines[step.seat], adjudicator)
                if observer is not None:
                    observer.step(adjudicator)
            if isinstance(step, Request):
                await _tell_eliminated(engines, adjudicator, told)
    finally:
        live[0] -= 1
    assert isinstance(step, Outcome)
    if step.winner is not None:
        if n == 2:
            for engine in engines.values():
                await engine.send_result(step.result, step.termination)
        else:
            for seat, engine in engines.items():
                if seat not in told:
                    await engine.send_result(step.placings, step.termination)
    report = adjudicator.report(names, date=record_date())
    if observer is not None:
        observer.over(report)
    return report


async def _tell_eliminated(engines: dict[int, Engine], adjudicator: Adjudicator, told: set[int]) -> None:
    """Three seats: send each newly eliminated engine its ``result`` (its own place, the others
    not decided yet); it is asked nothing more this game."""
    for elimination in adjudicator.eliminations:
        seat = elimination.seat
        if seat not in told:
            told.add(seat)
            if seat in engines:
                await engines[seat].send_result(elimination.notice(adjudicator.nseats), elimination.termination)
