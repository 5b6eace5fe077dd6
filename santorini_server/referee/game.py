"""One adjudicated game between two started engines: the referee's per-turn loop.

Theory of operation.  The loop asks the side to move for a turn (``position`` and ``go`` in one
write), checks the answer against the rules (``Position.play``: parse, normalise, match), charges
the clock and moves on, until a win, a side with no complete turn, or a failure.  One cancel
scope spans the game; ``Engine.think`` arms it with the mover's deadline when it has to wait,
so the per-turn path creates no new scope.  Each turn's request is a ``position`` with the
moves so far and a ``go`` with both clocks, made trusted (their values come from the rules core
and the clocks).  A deadline that fires is a time loss; the engine is then told ``stop`` and given a bounded time
to answer, outside the scope.  Everything an engine does wrong becomes an
``Outcome`` with a precise detail; nothing an engine does raises out of :func:`play_game`.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any

import trio

from ..notation import IllegalTurnError, MalformedTurnError
from ..records import GameRecord, TurnRecord
from ..records.game import MAX_COUNT, clean_text
from ..rules import Position, ruleset_of
from ..sei import Go, Info
from ..sei import Position as PositionCommand
from .engine import Engine, EngineFailure, live_games
from .engine_spec import EngineSpec
from .outcome import Outcome
from .timecontrol import Clock, TimeControl

__all__ = ["GameSetup", "GameReport", "play_game", "make_record", "score_text", "turn_record"]

#: Longest engine text kept in a termination detail (an illegal turn can be megabytes).
MAX_DETAIL = 120


@dataclass(frozen=True)
class GameSetup:
    """What a game is played with; the engines are passed separately (they outlive games)."""

    gods: tuple[str, str] = ("mortal", "mortal")
    opening: str | None = None
    """An SPS to start from (None: the empty board, SEI ``startpos``)."""
    tcs: tuple[TimeControl, TimeControl] = field(default_factory=lambda: (TimeControl(10_000, 100), TimeControl(10_000, 100)))
    margins: tuple[int, int] = (0, 0)
    ping: bool = False
    """Add an ``isready`` sync before every ``go`` (off the clock), for engines that parse slowly."""
    event: str = "?"
    site: str = "local"
    round: str = "1"
    game_number: int | None = None

    @classmethod
    def for_specs(cls, specs: tuple[EngineSpec, EngineSpec], tc: TimeControl, **fields: Any) -> "GameSetup":
        """A setup where each engine's own ``tc=``/``timemargin=`` overrides the game's ``tc``."""
        return cls(
            tcs=(specs[0].tc or tc, specs[1].tc or tc),
            margins=(specs[0].timemargin_ms, specs[1].timemargin_ms),
            **fields,
        )


@dataclass
class GameReport:
    """The finished game: its outcome, its record, and what the engines' clocks said."""

    outcome: Outcome
    record: GameRecord
    final_position: Position | None
    """Where the game ended (None for a game forfeited before it began)."""
    engine_seconds: float = 0.0
    """Sum of the charged thinking times (for overhead measurements)."""

    @property
    def final_sps(self) -> str:
        """The final position's SPS ("" if none), formatted on demand."""
        return "" if self.final_position is None else self.final_position.sps()


def _cut(text: str) -> str:
    text = clean_text(text)
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL] + f"... ({len(text)} chars)"


def make_record(
    setup: GameSetup, names: tuple[str, str], outcome: Outcome, turns: list[TurnRecord] | tuple[TurnRecord, ...] = ()
) -> GameRecord:
    """The game's record with every tag the referee writes (protocol.md section 5)."""
    gods = Position.from_sps(setup.opening).gods if setup.opening else setup.gods
    tc1, tc2 = setup.tcs
    return GameRecord.build(
        event=setup.event,
        site=setup.site,
        date=datetime.date.today().strftime("%Y.%m.%d"),
        round=setup.round,
        player1=names[0],
        player2=names[1],
        gods="/".join(gods),
        ruleset=ruleset_of(*gods),
        start=setup.opening or "startpos",
        time_control=str(tc1) if tc1 == tc2 else f"{tc1} | {tc2}",
        result=outcome.result,
        termination=outcome.termination,
        termination_detail=outcome.detail,
        opening=setup.opening,
        game_number=setup.game_number,
        turns=turns,
    )


def score_text(info: Info | None) -> str | None:
    """An ``info`` score as the record writes it: ``+21``, ``-3``, ``0``, ``win/1``, ``-win/3``.

    None without a score, or for one too large for a record (the codec reads up to 20 digits).
    """
    if info is None:
        return None
    if info.score_win is not None:
        n = info.score_win
        return f"{'-' if n < 0 else ''}win/{abs(n)}" if abs(n) <= MAX_COUNT else None
    if info.score_cp is not None:
        n = info.score_cp
        if abs(n) > MAX_COUNT:
            return None
        return f"{n:+d}" if n else "0"
    return None


def _count(value: int | None) -> int | None:
    return value if value is None or value <= MAX_COUNT else None


def turn_record(stn: str, time_ms: int, info: Info | None) -> TurnRecord:
    """The record of a checked turn with the engine's telemetry (values a record cannot hold,
    such as a 20-digit node count, are left out rather than failing the game)."""
    if info is None:
        return TurnRecord._trusted(stn, time_ms, None, None, None)
    return TurnRecord._trusted(stn, time_ms, score_text(info), _count(info.depth), _count(info.nodes))


def _go(clocks: list[Clock], tc: TimeControl, mover: int) -> Go:
    """The ``go`` line: both clocks (never negative on the wire) and the mover's own limits."""
    c1, c2 = clocks
    return Go._trusted(
        c1.wire_ms,
        c2.wire_ms,
        c1.tc.inc_ms if c1.tc.base_ms is not None else None,
        c2.tc.inc_ms if c2.tc.base_ms is not None else None,
        clocks[mover].movestogo,
        tc.movetime_ms,
        tc.depth,
        tc.nodes,
    )


async def play_game(engines: tuple[Engine, Engine], setup: GameSetup) -> GameReport:
    """Play one game; ``engines[0]`` is player 1.  Never raises for engine misbehaviour.

    Cancellation from outside (Ctrl-C, a tournament abort) propagates; the caller records the
    game as aborted if it wants to.
    """
    start = Position.from_sps(setup.opening) if setup.opening else Position.start(setup.gods)
    gods = start.gods
    pos = start
    # Each checked turn's facts (canonical STN, ms charged, telemetry); made into records once
    # the game is over (measured: building a record between two turns, with cold caches, cost
    # the turn 0.5-1 us more than building them all at the end).
    played: list[tuple[str, int, Info | None]] = []
    clocks = [Clock(tc, margin) for tc, margin in zip(setup.tcs, setup.margins)]
    outcome: Outcome | None = None
    engine_seconds = 0.0
    # Both engines get ready at once; the first failure in seat order decides the game, and
    # every engine that was asked is waited for, so none is left with an unanswered isready.
    asked: list[float] = []
    for side, engine in enumerate(engines):
        try:
            asked.append(await engine.send_new_game(gods))
        except EngineFailure as failure:
            outcome = Outcome(2 - side, failure.kind, _cut(failure.detail))
            break
    for side, since in enumerate(asked):
        try:
            await engines[side].until_ready(since)
        except EngineFailure as failure:
            if outcome is None:
                outcome = Outcome(2 - side, failure.kind, _cut(failure.detail))
    deadline = trio.CancelScope()
    mover = pos.to_move
    ping = setup.ping
    moves: list[str] = []  # canonical STN from the rules core: trusted by the position command
    live = live_games()
    live[0] += 1
    try:
        with deadline:
            while outcome is None:
                if pos.is_lost():
                    outcome = Outcome(2 - pos.to_move, "no-moves", f"player {pos.player} has no complete turn")
                    break
                mover = pos.to_move
                clock = clocks[mover]
                try:
                    reply = await engines[mover].think(
                        PositionCommand._trusted(setup.opening, tuple(moves)),
                        _go(clocks, clock.tc, mover),
                        ping=ping,
                        deadline=deadline,
                        allowance=clock.allowance_ms() / 1000,
                    )
                except EngineFailure as failure:
                    outcome = Outcome(2 - mover, failure.kind, _cut(failure.detail))
                    break
                elapsed_ms = reply.elapsed * 1000
                engine_seconds += reply.elapsed
                overrun = clock.charge(elapsed_ms)
                if overrun is not None:
                    outcome = Outcome(2 - mover, "time", f"by {math.ceil(overrun)} ms")
                    break
                if reply.turn is None:
                    outcome = Outcome(2 - mover, "resign", "bestmove resign")
                    break
                try:
                    transition = pos.play(reply.turn)
                except (MalformedTurnError, IllegalTurnError) as exc:
                    kind = "malformed " if isinstance(exc, MalformedTurnError) else ""
                    outcome = Outcome(2 - mover, "illegal", f"{kind}{_cut(repr(reply.turn))}")
                    break
                played.append((transition.stn, round(elapsed_ms), reply.info))
                moves.append(transition.stn)
                pos = transition.position
                if transition.win:
                    outcome = Outcome(mover + 1, transition.termination or "climb", "")
    finally:
        live[0] -= 1
    if deadline.cancelled_caught:
        # the deadline fired during the mover's turn: charge what it used, which overruns
        elapsed_ms = (trio.current_time() - engines[mover].turn_started) * 1000
        overrun = clocks[mover].charge(elapsed_ms) or 0.0
        outcome = Outcome(2 - mover, "time", f"by {max(1, math.ceil(overrun))} ms (no reply by the deadline)")
        await engines[mover].stop_search()
    assert outcome is not None
    for engine in engines:
        if outcome.winner is not None:
            await engine.send_result(outcome.result, outcome.termination)
    turns = [turn_record(stn, ms, info) for stn, ms, info in played]
    record = make_record(setup, (engines[0].name, engines[1].name), outcome, turns)
    return GameReport(outcome, record, pos, engine_seconds)

