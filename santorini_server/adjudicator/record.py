"""A game's record as the referee writes it: the tags, each turn with its telemetry, cut details."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import Elimination as RecordedElimination
from ..records import GameRecord, TurnRecord
from ..records.game import MAX_COUNT, clean_text
from ..rules import Position, ruleset_of
from ..sei.messages import Info
from .outcome import Outcome
from .setup import GameSetup

__all__ = ["MAX_DETAIL", "cut_detail", "score_text", "turn_record", "make_record"]

#: Longest engine text kept in a termination detail (an illegal turn can be megabytes).
MAX_DETAIL = 120


def cut_detail(text: str) -> str:
    """Foreign text (an engine's turn, a failure message) made storable and at most one short line."""
    text = clean_text(text)
    return text if len(text) <= MAX_DETAIL else text[:MAX_DETAIL] + f"... ({len(text)} chars)"


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
        return TurnRecord(stn, time_ms)
    return TurnRecord(stn, time_ms, score_text(info), _count(info.depth), _count(info.nodes))


#: The Date tag of a record whose driver did not say when it was played (PGN's convention).
UNKNOWN_DATE = "????.??.??"


def make_record(
    setup: GameSetup,
    names: Sequence[str],
    outcome: Outcome,
    turns: Iterable[TurnRecord] = (),
    *,
    date: str = UNKNOWN_DATE,
) -> GameRecord:
    """The game's record with every tag the referee writes (SPEC.md sections 13.1 and 15), and with
    three seats the seats that left while the game went on (the record's eliminations).

    ``names`` has one name per seat (Player1, Player2, and Player3/Player4 with more seats).
    ``date`` is the Date tag, ``YYYY.MM.DD``: the driver reads the calendar, this layer reads no clock.
    """
    gods = Position.from_sps(setup.opening).gods if setup.opening else setup.gods
    tcs = setup.seat_tcs(len(gods))
    return GameRecord.build(
        event=setup.event,
        site=setup.site,
        date=date,
        round=setup.round,
        player1=names[0],
        player2=names[1],
        player3=names[2] if len(gods) > 2 else None,
        player4=names[3] if len(gods) > 3 else None,
        gods="/".join(gods),
        ruleset=ruleset_of(*gods),
        start=setup.opening or "startpos",
        time_control=str(tcs[0]) if all(tc == tcs[0] for tc in tcs) else " | ".join(str(tc) for tc in tcs),
        result=outcome.result,
        termination=outcome.termination.value,
        termination_detail=outcome.detail,
        opening=setup.opening,
        game_number=setup.game_number,
        turns=turns,
        eliminations=[
            RecordedElimination(e.turns, e.seat + 1, e.termination.value, e.detail or None) for e in outcome.eliminated
        ],
    )
