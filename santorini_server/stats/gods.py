"""What the games say about the gods (SPEC.md section 19.6): a matrix of god against god for two
seats, placings per god for three and four, and a Bradley-Terry rating per god.

Theory of operation.  :class:`GodStats` folds each game into counters keyed by gods (one cell per
ordered pair of gods, one row per god), so it reads a records file of any length in flat memory,
like the standings.  The engines are not in the counts: a god's score is its seat's score,
whoever played it, which measures the god when each engine plays both sides of every matchup (the
referee's pairs do: each opening and gods list is played twice with the engines swapped).

Two seats, cell (row ``a``, column ``b``): the games between ``a`` and ``b`` in either seat, the
row god's score (win 1, loss 0; Santorini has no draws), its 95 % Wilson interval (exact enough at
a handful of games, never outside 0-100 %), and the seat-1 advantage: the score of whoever sat in
seat 1 in those games, minus 50 %.  A god against itself (the base game) has score 50 % by
definition; its cell says only the seat-1 advantage.  The god ratings are
:func:`~santorini_server.stats.bradley_terry.joint_ratings_from_counts` with gods for engines, and
each pairing's rating is the difference of its two gods' (with its 95 % error, from the fit's
covariance).

Three and four seats: per god, the games, how often it placed first, second, third, and its
points share (:class:`~santorini_server.stats.placings.NSeatGame` points over the most a seat can
score; 50 % is the field's average).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .bradley_terry import JointRatings, joint_ratings_from_counts
from .elo import Z95
from .placings import NSeatGame

__all__ = ["GodCell", "GodPlacings", "GodStats", "wilson_interval", "format_god_matrix", "god_stats_json"]


def wilson_interval(points: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``points / games`` (``(0, 1)`` with no games)."""
    if games <= 0:
        return 0.0, 1.0
    p = points / games
    denominator = 1.0 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class GodCell:
    """Games between the row god and the column god (two seats), either seat order."""

    games: int = 0
    points: float = 0.0
    """The row god's points."""
    seat1_points: float = 0.0
    """Points of whoever sat in seat 1."""

    @property
    def score(self) -> float:
        return self.points / self.games if self.games else 0.5

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.points, self.games)

    @property
    def seat1_advantage(self) -> float:
        """Seat 1's score in these games minus 50 % (as a fraction)."""
        return self.seat1_points / self.games - 0.5 if self.games else 0.0


@dataclass
class GodPlacings:
    """One god's three- or four-seat games: how many, each placing's count, its points."""

    games: int = 0
    placings: dict[int, int] = field(default_factory=dict)
    points: float = 0.0
    max_points: float = 0.0

    @property
    def share(self) -> float:
        """Points over the most it could have scored (50 %: the field's average)."""
        return self.points / self.max_points if self.max_points else 0.0


class GodStats:
    """Counters of the scored games by gods; :meth:`add` one game at a time."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, str], GodCell] = {}
        self.nseat: dict[int, dict[str, GodPlacings]] = {}
        self.games = 0
        self.seat1_points = 0.0
        self.two_seat_games = 0

    def add(self, gods: Sequence[str], placings: Sequence[int] | None) -> None:
        """Count one game: its gods in seat order and its placings (1 = first; None: unscored, skipped)."""
        if placings is None:
            return
        gods = tuple(gods)
        self.games += 1
        if len(gods) == 2:
            p1 = 1.0 if placings[0] < placings[1] else 0.0 if placings[0] > placings[1] else 0.5
            self.two_seat_games += 1
            self.seat1_points += p1
            a, b = gods
            if a == b:
                cell = self.cells.setdefault((a, a), GodCell())
                cell.games += 1
                cell.points += 0.5
                cell.seat1_points += p1
                return
            for row, col, points in ((a, b, p1), (b, a, 1.0 - p1)):
                cell = self.cells.setdefault((row, col), GodCell())
                cell.games += 1
                cell.points += points
                cell.seat1_points += p1
            return
        game = NSeatGame(1, tuple(f"seat{s}" for s in range(len(gods))), tuple(placings))
        table = self.nseat.setdefault(len(gods), {})
        for seat, god in enumerate(gods):
            tally = table.setdefault(god, GodPlacings())
            tally.games += 1
            tally.placings[placings[seat]] = tally.placings.get(placings[seat], 0) + 1
            tally.points += game.points(seat) or 0.0
            tally.max_points += game.max_points

    def gods(self) -> list[str]:
        """The gods of the two-seat games, sorted (``mortal`` first)."""
        names = {g for pair in self.cells for g in pair}
        return sorted(names, key=lambda g: (g != "mortal", g))

    def ratings(self) -> JointRatings | None:
        """A Bradley-Terry rating per god from the two-seat games between different gods (None: none)."""
        points = {pair: cell.points for pair, cell in self.cells.items() if pair[0] != pair[1]}
        meetings = {pair: cell.games for pair, cell in self.cells.items() if pair[0] != pair[1]}
        if not meetings:
            return None
        return joint_ratings_from_counts(self.gods(), points, meetings)

    @property
    def seat1_advantage(self) -> float:
        """Seat 1's score over every two-seat game minus 50 % (as a fraction)."""
        return self.seat1_points / self.two_seat_games - 0.5 if self.two_seat_games else 0.0

    def state(self) -> list[Any]:
        """Plain data (msgpack-able) that :meth:`from_state` makes the same counters of: a run's
        report saves them with its state, so a resume goes on counting."""
        return [
            [[a, b, c.games, c.points, c.seat1_points] for (a, b), c in self.cells.items()],
            [[seats, god, t.games, sorted(t.placings.items()), t.points, t.max_points]
             for seats, table in self.nseat.items() for god, t in table.items()],
            self.games, self.seat1_points, self.two_seat_games,
        ]

    @classmethod
    def from_state(cls, state: Sequence[Any]) -> GodStats:
        """The counters :meth:`state` describes.

        Raises:
            ValueError: ``state`` is not such a description.
        """
        stats = cls()
        try:
            cells, nseat, games, seat1_points, two_seat_games = state
            for a, b, n, points, seat1 in cells:
                stats.cells[str(a), str(b)] = GodCell(int(n), float(points), float(seat1))
            for seats, god, n, placings, points, max_points in nseat:
                stats.nseat.setdefault(int(seats), {})[str(god)] = GodPlacings(
                    int(n), {int(k): int(v) for k, v in placings}, float(points), float(max_points))
            stats.games, stats.seat1_points, stats.two_seat_games = int(games), float(seat1_points), int(two_seat_games)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a god statistics state: {exc}") from None
        return stats


def _pct(x: float) -> str:
    return f"{100 * x:.0f}"


def format_god_matrix(stats: GodStats) -> str:
    """The terminal's text: the matrix (row god's score %, games, interval, seat-1 advantage), the
    god ratings, and the placings tables of three and four seats."""
    lines: list[str] = []
    gods = stats.gods()
    if gods:
        lines.append(f"Two seats: {stats.two_seat_games} games, seat 1 scores {_pct(stats.seat1_advantage + 0.5)}%")
        width = max(len(g) for g in gods)
        lines.append("Score % of the row god against the column god:")
        lines.append(" " * (width + 2) + "".join(f"{g[:5]:>6}" for g in gods))
        for a in gods:
            scores = "".join(
                f"{'-' if a == b or (a, b) not in stats.cells else _pct(stats.cells[a, b].score):>6}" for b in gods
            )
            lines.append(f"  {a:<{width}}{scores}")
        ratings = stats.ratings()
        lines.append("Each matchup: games, the first god's score [95% interval], seat 1's advantage, "
                     "the Bradley-Terry rating difference:")
        for (a, b), cell in sorted(stats.cells.items()):
            if a > b:
                continue
            lo, hi = cell.interval
            s1 = f"seat 1 {100 * cell.seat1_advantage:+.0f} points of %"
            if a == b or ratings is None:
                lines.append(f"  {a} vs {b}: {cell.games} games, {s1}")
            else:
                diff, error = ratings.difference(a, b)
                lines.append(f"  {a} vs {b}: {cell.games} games, {a} {_pct(cell.score)}% [{_pct(lo)}-{_pct(hi)}], {s1}, "
                             f"Elo {diff:+.0f} +/- {error:.0f}")
        if ratings is not None:
            lines.append("God ratings (Bradley-Terry, Elo, 95% interval):")
            for r in sorted((r for r in ratings.ratings if r.defined), key=lambda r: -r.elo):
                lines.append(f"  {r.name:<{width}}  {r.elo:+7.1f} +/- {r.error95:.1f}  ({r.games} games)")
    for seats, table in sorted(stats.nseat.items()):
        places = 2 if seats == 4 else seats
        lines.append(f"{seats} seats: placings per god (points share %):")
        for god, row in sorted(table.items(), key=lambda kv: -kv[1].share):
            counts = " ".join(f"{k}:{row.placings.get(k, 0)}" for k in range(1, places + 1))
            lines.append(f"  {god:<10}  {row.games} games  {counts}  share {_pct(row.share)}%")
    if not lines:
        lines.append("No scored games.")
    return "\n".join(lines)


def god_stats_json(stats: GodStats) -> dict[str, object]:
    """The same figures as data (``santorini stats --gods --json``, the report, the dashboard)."""
    ratings = stats.ratings()
    return {
        "games": stats.games,
        "two_seat": {
            "games": stats.two_seat_games,
            "seat1_score": stats.seat1_advantage + 0.5 if stats.two_seat_games else None,
            "gods": stats.gods(),
            "cells": [
                {"row": a, "column": b, "games": c.games, "score": c.score, "interval": list(c.interval),
                 "seat1_advantage": c.seat1_advantage}
                for (a, b), c in sorted(stats.cells.items())
            ],
            "pairings": [] if ratings is None else [
                {"first": a, "second": b, "elo": ratings.difference(a, b)[0], "error95": ratings.difference(a, b)[1]}
                for (a, b) in sorted(stats.cells) if a < b
            ],
            "ratings": [] if ratings is None else [
                {"god": r.name, "elo": r.elo, "error95": r.error95, "games": r.games}
                for r in ratings.ratings if r.defined
            ],
        },
        "placings": {
            str(seats): [
                {"god": god, "games": row.games, "placings": {str(k): v for k, v in sorted(row.placings.items())},
                 "share": row.share}
                for god, row in sorted(table.items())
            ]
            for seats, table in sorted(stats.nseat.items())
        },
    }
