"""A game analysed by an engine: every turn scored before and after, its best turn, loss and mark.

Theory of operation (SPEC.md section 18.3).  The record is replayed by the rules core, and the
engine searches every position a turn was played in (one ``play`` each, so the search that
gives the score also gives the best turn).  The score *before* a turn is that search's, from
the mover's side.  The score *after* it, from the mover's side, is:

* a won game (the turn climbed, or left the next side without a turn): ``win/1``;
* two seats, and four (the next mover is always on the other team): the next position's score,
  negated;
* three seats (the next seat is not the mover's only opponent, so no score of its search is
  the mover's): the mover's own score at its next turn, or its placing when it has none.

The loss is the drop of the mover's win probability (``records.analysis``) from before to after,
0 when the turn played is the engine's best.  The annotations and tags go into a copy of the
record (``annotate``), which is all ``santorini analyse`` writes.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from ..records import GameRecord
from ..records.analysis import (
    ANALYSIS_TAG,
    DEFAULT_SCALE,
    Score,
    TurnAnalysis,
    accuracy,
    accuracy_tag,
    mark_of,
    win_probability,
    with_annotation,
)
from ..records.replay import replay_record
from ..rules import Position
from .simple import SimpleEngine
from .types import Limit

__all__ = ["GameAnalysis", "analyse_record", "annotate", "limit_text", "WON"]

WON = Score(win=1)
LOST = Score(win=-1)


@dataclass(frozen=True)
class GameAnalysis:
    """One game's analysis: per turn (in record order) and per seat."""

    turns: tuple[TurnAnalysis, ...]
    seats: tuple[int, ...]
    """The seat (1-based) that played each turn."""
    accuracies: tuple[float | None, ...]
    """Per seat, seat 1 first (None for a seat with no analysed turn)."""

    def marks(self, seat: int) -> dict[str, int]:
        """How many turns of ``seat`` earned each mark."""
        counts = {"inaccuracy": 0, "mistake": 0, "blunder": 0}
        for s, t in zip(self.seats, self.turns, strict=True):
            if s == seat and t.mark is not None:
                counts[t.mark] += 1
        return counts


def limit_text(limit: Limit) -> str:
    """``depth=3``, ``nodes=20000``, ``movetime=100`` (ms): how the Analysis tag names the limit."""
    parts = []
    if limit.depth is not None:
        parts.append(f"depth={limit.depth}")
    if limit.nodes is not None:
        parts.append(f"nodes={limit.nodes}")
    if limit.time is not None:
        parts.append(f"movetime={round(limit.time * 1000)}")
    return " ".join(parts) or "infinite"


def _search(engine: SimpleEngine, pos: Position, limit: Limit, game: object) -> tuple[Score, str | None]:
    result = engine.play(pos, limit, game=game)
    info = result.info
    if result.turn is None:
        return (info.score if info is not None and info.score is not None else LOST), None
    return (info.score if info is not None and info.score is not None else Score(cp=0)), result.turn


def analyse_record(
    engine: SimpleEngine, record: GameRecord, limit: Limit, *, scale: float = DEFAULT_SCALE
) -> GameAnalysis:
    """Search every position of ``record`` with ``engine`` and judge each turn.

    Raises:
        ValueError: the record does not replay (one line: its first problem).
        EngineError: the engine failed.
    """
    replay = replay_record(record)
    if replay.problems:
        p = replay.problems[0]
        raise ValueError(p.reason if p.turn_index is None else f"turn {p.turn_index} ({p.move}): {p.reason}")
    if not replay.complete:
        raise ValueError("the record does not replay")
    positions, transitions = replay.positions, replay.transitions
    n = len(transitions)
    game = object()  # one newgame per record
    searched: list[tuple[Score, str | None] | None] = []
    for i, pos in enumerate(positions[: n + 1]):
        over = i == n and (bool(n and transitions[-1].win) or pos.is_lost())
        searched.append(None if over else _search(engine, pos, limit, game))
    nseats = positions[0].nseats
    placings = record.placings
    seats = tuple(positions[i].player for i in range(n))
    turns: list[TurnAnalysis] = []
    for i, t in enumerate(transitions):
        here = searched[i]
        assert here is not None
        before, best = here
        mover = seats[i]
        nxt = searched[i + 1]
        if t.win or (i + 1 == n and nxt is None):
            after = WON
        elif nseats != 3:
            assert nxt is not None
            after = nxt[0].negated()
        else:
            later = next((searched[j] for j in range(i + 1, n) if seats[j] == mover), None)
            placed_first = placings is not None and placings[mover - 1] == 1
            after = later[0] if later is not None else WON if placed_first else LOST
        drop = win_probability(before, scale) - win_probability(after, scale)
        loss = 0.0 if best == t.stn else max(0.0, drop) * 100
        turns.append(TurnAnalysis(before, after, best, round(loss, 1), mark_of(round(loss, 1))))
    accuracies = tuple(
        accuracy([a.loss for s, a in zip(seats, turns, strict=True) if s == seat]) for seat in range(1, nseats + 1)
    )
    return GameAnalysis(tuple(turns), seats, accuracies)


def annotate(record: GameRecord, analysis: GameAnalysis, engine_name: str, limit: Limit, scale: float) -> GameRecord:
    """A copy of ``record`` with each turn's annotation in its comment and the game's tags:
    ``Analysis`` (engine, limit, scale) and ``PlayerNAccuracy`` (an earlier analysis's are replaced)."""
    turns = tuple(
        msgspec.structs.replace(t, comment=with_annotation(t.comment, a))
        for t, a in zip(record.turns, analysis.turns, strict=True)
    )
    ours = {ANALYSIS_TAG, *(accuracy_tag(s) for s in range(1, 5))}
    tags = [(k, v) for k, v in record.tags if k not in ours]
    tags.append((ANALYSIS_TAG, f"{engine_name} {limit_text(limit)} scale={scale:g}"))
    for seat, acc in enumerate(analysis.accuracies, 1):
        if acc is not None:
            tags.append((accuracy_tag(seat), f"{acc:.1f}"))
    return GameRecord(tuple(tags), turns, record.eliminations)

