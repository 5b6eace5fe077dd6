"""Live standings for tournaments of 3- or 4-seat games: placings, points, Weng-Lin ratings.

``NSeatStandings`` accumulates finished games (no I/O) and renders the ranking table the runner
prints, in the layout of the two-seat table (``standings.Standings.format_ranking``).  Every
string is a deterministic function of the recorded games, whatever order they finished in.
Points and placings: ``placings``; ratings: ``weng_lin``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .elo import _fixed
from .placings import SEAT_COUNTS, NSeatGame
from .weng_lin import WengLinRating, weng_lin_ratings

__all__ = ["NSeatRankingRow", "NSeatStandings", "NSeatTally"]


@dataclass(frozen=True)
class NSeatTally:
    """One engine's record over scored games.

    ``games``: scored games it played; ``seats``: seats it filled in them (more than ``games``
    when it filled both seats of a 4-seat team); ``placings[k]``: seats it finished in place
    ``k + 1``; ``points``: see ``placings``; ``max_points``: what those seats could have scored;
    ``unscored``: games not scored; ``terminations``: every game it took part in, by the game's
    tag; ``losses_by``: its seats' exits by tag (eliminations and team losses the game reported).
    """

    name: str
    games: int = 0
    seats: int = 0
    placings: tuple[int, ...] = ()
    points: float = 0.0
    max_points: float = 0.0
    unscored: int = 0
    terminations: dict[str, int] = field(default_factory=dict)
    losses_by: dict[str, int] = field(default_factory=dict)

    @property
    def score(self) -> float:
        """Share of the points its seats could have scored; 0.5 with no games (never nan)."""
        return self.points / self.max_points if self.max_points else 0.5


@dataclass(frozen=True)
class NSeatRankingRow:
    rank: int
    name: str
    rating: WengLinRating
    tally: NSeatTally


class NSeatStandings:
    """Accumulates N-seat games; every query is recomputed from the recorded games.

    ``seat_count`` (2, 3 or 4), when given, sets the placing columns before any game is recorded
    (3 places for 3 seats, 2 for 4 seats: teams).
    """

    def __init__(self, seat_count: int | None = None) -> None:
        if seat_count is not None and seat_count not in SEAT_COUNTS:
            raise ValueError(f"a game has 2, 3 or 4 seats, not {seat_count}")
        self._places = 0 if seat_count is None else 2 if seat_count == 4 else seat_count
        self._games: list[NSeatGame] = []
        self._numbers: set[int] = set()
        self._engines: list[str] = []

    def add_engine(self, name: str) -> None:
        """Register an engine so it is listed before it has played."""
        if name not in self._engines:
            self._engines.append(name)

    def record(
        self,
        seats: tuple[str, ...],
        placings: tuple[int, ...] | None,
        termination: str = "",
        game_number: int | None = None,
        exits: tuple[str, ...] = (),
    ) -> NSeatGame:
        """Add one finished game (see ``NSeatGame``).  ``game_number`` (1-based schedule number)
        defaults to the count of recorded games plus one.

        Raises:
            ValueError: an invalid game (``NSeatGame``), or a game number already recorded.
        """
        number = len(self._games) + 1 if game_number is None else game_number
        if number in self._numbers:
            raise ValueError(f"game {number} is already recorded")
        game = NSeatGame(number, tuple(seats), None if placings is None else tuple(placings), termination, tuple(exits))
        self._games.append(game)
        self._numbers.add(number)
        for name in seats:
            self.add_engine(name)
        return game

    @property
    def games(self) -> tuple[NSeatGame, ...]:
        """In order of game number."""
        return tuple(sorted(self._games, key=lambda g: g.number))

    @property
    def engines(self) -> tuple[str, ...]:
        """Engines in order of registration or first appearance."""
        return tuple(self._engines)

    @property
    def place_count(self) -> int:
        """Places a game can award: the most sides of any recorded game or of ``seat_count``."""
        return max([self._places, *(g.side_count for g in self._games)])

    def tally(self, name: str) -> NSeatTally:
        places = [0] * max(self.place_count, 1)
        games = seats = unscored = 0
        points = max_points = 0.0
        terminations: dict[str, int] = {}
        losses_by: dict[str, int] = {}
        for g in self._games:
            mine = [s for s, engine in enumerate(g.seats) if engine == name]
            if not mine:
                continue
            terminations[g.termination] = terminations.get(g.termination, 0) + 1
            for s in mine:
                if g.exits and g.exits[s]:
                    losses_by[g.exits[s]] = losses_by.get(g.exits[s], 0) + 1
            if g.placings is None:
                unscored += 1
                continue
            games += 1
            for s in mine:
                seats += 1
                places[g.placings[s] - 1] += 1
                points += g.points(s) or 0.0
                max_points += g.max_points
        return NSeatTally(
            name, games, seats, tuple(places), points, max_points, unscored,
            dict(sorted(terminations.items())), dict(sorted(losses_by.items())),
        )  # fmt: skip

    def ratings(self) -> dict[str, WengLinRating]:
        """Weng-Lin ratings of every engine (``weng_lin.weng_lin_ratings``), in engine order."""
        return weng_lin_ratings(self._games, self._engines)

    def ranking(self) -> list[NSeatRankingRow]:
        """Best first: by ordinal (``mu - 3 sigma``), then score, then name (deterministic)."""
        ratings = self.ratings()
        rows = [(ratings[name], self.tally(name)) for name in self._engines]
        rows.sort(key=lambda r: (-r[0].ordinal, -r[1].score, r[0].name))
        return [NSeatRankingRow(i + 1, rating.name, rating, tally) for i, (rating, tally) in enumerate(rows)]

    def format_ranking(self) -> str:
        """The ranking table: Rank, Name, mu, sigma, Ordinal, Games, Points, Score, 1st, 2nd[, 3rd].

        Score is points over the points its seats could have scored (50 % = the field's average);
        a ``Seats`` column follows Games when an engine filled both seats of a team.
        """
        rows = self.ranking()
        width = max([25] + [len(r.name) for r in rows])
        places = self.place_count or 1
        show_seats = any(r.tally.seats != r.tally.games for r in rows)
        head = f"{'Rank':<4} {'Name':<{width}} {'mu':>10} {'sigma':>10} {'Ordinal':>10} {'Games':>10}"
        head += f" {'Seats':>10}" if show_seats else ""
        head += f" {'Points':>10} {'Score':>10}" + "".join(f" {_ordinal_text(k + 1):>10}" for k in range(places))
        out = [head]
        for r in rows:
            t = r.tally
            score = f"{_fixed(t.score * 100.0, 1)}%" if t.games else "n/a"
            line = (
                f"{r.rank:>4} {r.name:<{width}} {_fixed(r.rating.mu, 2):>10} {_fixed(r.rating.sigma, 2):>10} "
                f"{_fixed(r.rating.ordinal, 2):>10} {t.games:>10}"
            )
            line += f" {t.seats:>10}" if show_seats else ""
            counts = list(t.placings) + [0] * (places - len(t.placings))
            line += f" {_fixed(t.points, 1):>10} {score:>10}" + "".join(f" {c:>10}" for c in counts[:places])
            out.append(line)
        return "\n".join(out) + "\n"


def _ordinal_text(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")
