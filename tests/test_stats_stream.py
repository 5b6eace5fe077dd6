"""The counting standings give what recounting every game gave, byte for byte.

The oracle below is the standings as they were before they kept counters: every query recounted
the list of recorded games (kept here only as the reference).  Random game sets of two, three and
four seats, arriving out of order, with unscored games and incomplete pairs, go into both, and
every rendering is compared: score lines, results blocks (with and without SPRT), SPRT lines,
rankings, crosstables, tallies, pair counts, Weng-Lin and joint ratings, termination tables.
"""

# ruff: noqa: E501

from __future__ import annotations

import gc
import math
import random
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

import santorini_server.stats.standings as standings_module
from santorini_server.stats.bradley_terry import (
    _ELO_PER_NATURAL,
    DEFAULT_PRIOR,
    JointRating,
    JointRatings,
    _anchored_covariance,
    _estimable,
    _fit,
    _information,
    format_joint_columns,
)
from santorini_server.stats.elo import Z95, _fixed, pentanomial_elo, trinomial_elo
from santorini_server.stats.placings import SEAT_COUNTS, NSeatGame
from santorini_server.stats.sprt import SprtConfig, format_llr_line, llr_pentanomial
from santorini_server.stats.standings import (
    DRAW,
    PairCounts,
    RankingRow,
    ScoredGame,
    Standings,
    format_results_block,
    format_score_line,
)
from santorini_server.stats.weng_lin import WengLinRating, weng_lin_ratings
from santorini_server.tournament.scoring import LOSS_COLUMNS, termination_table

# --------------------------------------------------------------------------- the oracle: recounting every game


def old_joint_ratings(games: Iterable[ScoredGame], engines: Sequence[str] = (), *, prior: float = DEFAULT_PRIOR) -> JointRatings:
    """Fit every engine of ``engines`` and of ``games`` (unscored games are left out).

    Raises:
        ValueError: a negative or non-finite ``prior``, or ``prior = 0`` when the maximum-likelihood
            estimate does not exist (some engines scored every point, or none, against the rest).
    """
    if not (math.isfinite(prior) and prior >= 0.0):
        raise ValueError(f"prior must be a finite number >= 0, not {prior!r}")
    names: list[str] = list(dict.fromkeys(engines))
    scored = [g for g in games if g.winner is not None]
    for g in scored:
        for name in (g.player1, g.player2):
            if name not in names:
                names.append(name)
    played = [name for name in names if any(name in (g.player1, g.player2) for g in scored)]
    index = {name: i for i, name in enumerate(played)}
    n = len(played)
    wins = [[0.0] * n for _ in range(n)]  # wins[i][j]: points i scored against j
    meetings = [[0.0] * n for _ in range(n)]
    for g in scored:
        i, j = index[g.player1], index[g.player2]
        first = g.points_for(g.player1) or 0.0
        wins[i][j] += first
        wins[j][i] += 1.0 - first
        meetings[i][j] += 1.0
        meetings[j][i] += 1.0
    if prior == 0.0 and not _estimable(wins):
        raise ValueError("no finite ratings without a prior: some engines scored every point, or none, against the rest")
    theta = _fit(wins, meetings, prior)
    covariance = _anchored_covariance(_information(theta, meetings, prior), prior)
    mean = sum(theta) / n if n else 0.0
    points = [sum(row) for row in wins]
    counts = [int(sum(row)) for row in meetings]
    ratings = []
    for name in names:
        if name not in index:
            ratings.append(JointRating(name, 0.0, 0.0, 0, 0.0, defined=False))
            continue
        i = index[name]
        sd = math.sqrt(max(covariance[i][i], 0.0))
        ratings.append(JointRating(name, (theta[i] - mean) * _ELO_PER_NATURAL, Z95 * sd * _ELO_PER_NATURAL, counts[i], points[i]))
    scale = _ELO_PER_NATURAL**2
    return JointRatings(tuple(ratings), prior, tuple(tuple(v * scale for v in row) for row in covariance))



def old_pair_counts(games: Iterable[ScoredGame], name: str, opponent: str | None = None) -> PairCounts:
    """Group ``name``'s games into pairs ``(2k-1, 2k)`` and count pentanomial buckets.

    Only pairs where both games exist, both are scored, and both are between
    the same two engines count (with ``opponent`` set, only pairs against it).
    """
    by_pair: dict[int, list[ScoredGame]] = {}
    for g in games:
        if name not in (g.player1, g.player2):
            continue
        if opponent is not None and opponent not in (g.player1, g.player2):
            continue
        by_pair.setdefault((g.number + 1) // 2, []).append(g)
    buckets = [0, 0, 0, 0, 0]
    wl = dd = incomplete = 0
    for key in sorted(by_pair):
        pair = by_pair[key]
        if len(pair) != 2 or {pair[0].player1, pair[0].player2} != {pair[1].player1, pair[1].player2}:
            incomplete += 1
            continue
        points = [g.points_for(name) for g in pair]
        if points[0] is None or points[1] is None:
            incomplete += 1
            continue
        total = points[0] + points[1]
        buckets[round(total * 2)] += 1
        if total == 1.0:
            if points[0] == 0.5:
                dd += 1
            else:
                wl += 1
    return PairCounts((buckets[0], buckets[1], buckets[2], buckets[3], buckets[4]), wl, dd, incomplete)



@dataclass(frozen=True)
class OldEngineTally:
    """One engine's record.  ``games`` counts scored games only; ``unscored`` the rest.

    ``terminations``: every game the engine took part in, by termination tag.
    ``losses_by``: the games it lost, by tag (e.g. its time forfeits).
    """

    name: str
    wins: int
    draws: int
    losses: int
    unscored: int
    terminations: dict[str, int] = field(default_factory=dict)
    losses_by: dict[str, int] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per scored game, 0.5 with no games (neutral, never nan)."""
        return self.points / self.games if self.games else 0.5



def _tally(games: Sequence[ScoredGame], name: str, opponent: str | None = None) -> OldEngineTally:
    wins = draws = losses = unscored = 0
    terminations: dict[str, int] = {}
    losses_by: dict[str, int] = {}
    for g in games:
        if name not in (g.player1, g.player2):
            continue
        if opponent is not None and opponent not in (g.player1, g.player2):
            continue
        terminations[g.termination] = terminations.get(g.termination, 0) + 1
        pts = g.points_for(name)
        if pts is None:
            unscored += 1
        elif pts == 1.0:
            wins += 1
        elif pts == 0.5:
            draws += 1
        else:
            losses += 1
            losses_by[g.termination] = losses_by.get(g.termination, 0) + 1
    return OldEngineTally(
        name,
        wins,
        draws,
        losses,
        unscored,
        dict(sorted(terminations.items())),
        dict(sorted(losses_by.items())),
    )


class OldStandings:
    """Accumulates games; every query is recomputed from the recorded games."""

    def __init__(self) -> None:
        self._games: list[ScoredGame] = []
        self._engines: list[str] = []

    def add_engine(self, name: str) -> None:
        """Register an engine so it is listed before it has played."""
        if name not in self._engines:
            self._engines.append(name)

    def record(
        self,
        player1: str,
        player2: str,
        winner: int | None,
        termination: str = "",
        game_number: int | None = None,
    ) -> ScoredGame:
        """Add one finished game.  ``game_number`` (1-based schedule number)
        defaults to the count of recorded games."""
        if player1 == player2:
            raise ValueError("an engine cannot play itself")
        if winner not in (None, DRAW, 1, 2):
            raise ValueError(f"winner must be 1, 2, 0 (draw) or None, not {winner!r}")
        number = len(self._games) + 1 if game_number is None else game_number
        if number < 1:
            raise ValueError("game numbers start at 1")
        game = ScoredGame(number, player1, player2, winner, termination)
        self._games.append(game)
        self.add_engine(player1)
        self.add_engine(player2)
        return game

    @property
    def games(self) -> tuple[ScoredGame, ...]:
        return tuple(self._games)

    @property
    def engines(self) -> tuple[str, ...]:
        """Engines in order of first appearance."""
        return tuple(self._engines)

    def tally(self, name: str) -> OldEngineTally:
        return _tally(self._games, name)

    def head_to_head(self, name: str, opponent: str) -> OldEngineTally:
        """``name``'s record in games against ``opponent`` only."""
        return _tally(self._games, name, opponent)

    def pairs(self, name: str, opponent: str | None = None) -> PairCounts:
        return old_pair_counts(self._games, name, opponent)

    def score_line(self, name_a: str, name_b: str) -> str:
        t = self.head_to_head(name_a, name_b)
        return format_score_line(name_a, name_b, t.wins, t.losses, t.draws)

    def results_block(
        self, first: str, second: str, details: str = "", sprt: SprtConfig | None = None
    ) -> str:
        t = self.head_to_head(first, second)
        return format_results_block(
            first, second, t.wins, t.losses, t.draws, self.pairs(first, second), details, sprt
        )

    def joint_ratings(self, prior: float = DEFAULT_PRIOR) -> JointRatings:
        """The joint Bradley-Terry rating of every engine over all games (``bradley_terry``)."""
        return old_joint_ratings(self._games, self._engines, prior=prior)

    def ranking(self, penta: bool = True, joint: bool = False) -> list[RankingRow]:
        """Each engine's Elo against the field it met, best first.

        The estimate uses all of the engine's games (pentanomial over its
        complete pairs when ``penta`` and it has any, else W/D/L).  With ``joint``
        each row also carries the joint rating, and rows sort by it.  Ties break
        by score, then name, so the order is deterministic.
        """
        fit = self.joint_ratings() if joint else None
        rows = []
        for name in self._engines:
            tally = self.tally(name)
            pc = self.pairs(name) if penta else None
            if pc is not None and pc.pairs > 0:
                est = pentanomial_elo(pc.ptnml)
            else:
                pc = None
                est = trinomial_elo(tally.wins, tally.draws, tally.losses)
            rows.append(RankingRow(0, name, est, tally, pc, fit[name] if fit else None))
        rows.sort(key=lambda r: (-(r.joint.elo if r.joint else r.estimate.elo), -r.tally.score, r.name))
        return [RankingRow(i + 1, r.name, r.estimate, r.tally, r.pairs, r.joint) for i, r in enumerate(rows)]

    def format_ranking(self, penta: bool = True, joint: bool = False) -> str:
        """fastchess-style table: Rank, Name, Elo, +/-, nElo, +/-, Games, Score, Draw[, Ptnml(0-2)].

        Draw is the drawn-game share (trinomial) or the 1-of-2-points pair share (pentanomial).
        With ``joint``, Elo and +/- are the joint rating (mean 0, 95 % interval), finite for an
        engine that won or lost every game, where the per-engine Elo prints ``n/a``; nElo stays
        the per-engine figure.
        """
        rows = self.ranking(penta, joint)
        width = max([25] + [len(r.name) for r in rows])
        head = (
            f"{'Rank':<4} {'Name':<{width}} {'Elo':>10} {'+/-':>10} {'nElo':>10} {'+/-':>10} "
            f"{'Games':>10} {'Score':>10} {'Draw':>10}"
        )
        out = [head + (f" {'Ptnml(0-2)':>20}" if penta else "")]
        for r in rows:
            e = r.estimate
            if e.defined:
                nums = [_fixed(e.elo, 2), _fixed(e.error95, 2), _fixed(e.nelo, 2), _fixed(e.nelo_error95, 2)]
            else:
                nums = ["n/a"] * 4
            if r.joint is not None:
                nums[0], nums[1] = format_joint_columns(r.joint)
            score = f"{_fixed(r.tally.score * 100.0, 1)}%" if r.tally.games else "n/a"
            draw = f"{_fixed(e.draw_ratio * 100.0, 1)}%" if e.samples else "n/a"
            ptnml = ""
            if r.pairs is not None:
                p = r.pairs.ptnml
                ptnml = f"[{p[0]}, {p[1]}, {p[2]}, {p[3]}, {p[4]}]"
            out.append(
                f"{r.rank:>4} {r.name:<{width}} {nums[0]:>10} {nums[1]:>10} {nums[2]:>10} {nums[3]:>10} "
                f"{r.tally.games:>10} {score:>10} {draw:>10} {ptnml:>20}".rstrip()
            )
        return "\n".join(out) + "\n"

    def crosstable(self, penta: bool = True, joint: bool = False) -> str:
        """Points scored by each row engine against each column engine, ``points/games``.

        Rows and columns follow the ranking (``ranking(penta, joint)``); ``-`` on the
        diagonal, ``.`` for engines that have not met.
        """
        names = [r.name for r in self.ranking(penta, joint)]
        cells: list[list[str]] = []
        for a in names:
            row = []
            for b in names:
                if a == b:
                    row.append("-")
                    continue
                t = self.head_to_head(a, b)
                row.append(f"{_points_text(t.points)}/{t.games}" if t.games else ".")
            cells.append(row)
        totals = []
        for a in names:
            t = self.tally(a)
            totals.append(f"{_points_text(t.points)}/{t.games}")
        name_w = max([4] + [len(n) for n in names])
        col_w = [max([len(names[j])] + [len(cells[i][j]) for i in range(len(names))]) for j in range(len(names))]
        score_w = max([5] + [len(s) for s in totals])
        head = f"{'#':>2}  {'Name':<{name_w}}  {'Score':>{score_w}}"
        for j, n in enumerate(names):
            head += f"  {n:>{col_w[j]}}"
        out = [head]
        for i, a in enumerate(names):
            line = f"{i + 1:>2}  {a:<{name_w}}  {totals[i]:>{score_w}}"
            for j in range(len(names)):
                line += f"  {cells[i][j]:>{col_w[j]}}"
            out.append(line)
        return "\n".join(out) + "\n"


def _points_text(points: float) -> str:
    return f"{points:.1f}"


@dataclass(frozen=True)
class OldNSeatTally:
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
class OldNSeatRankingRow:
    rank: int
    name: str
    rating: WengLinRating
    tally: OldNSeatTally


class OldNSeatStandings:
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

    def tally(self, name: str) -> OldNSeatTally:
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
        return OldNSeatTally(
            name, games, seats, tuple(places), points, max_points, unscored,
            dict(sorted(terminations.items())), dict(sorted(losses_by.items())),
        )  # fmt: skip

    def ratings(self) -> dict[str, WengLinRating]:
        """Weng-Lin ratings of every engine (``weng_lin.weng_lin_ratings``), in engine order."""
        return weng_lin_ratings(self._games, self._engines)

    def ranking(self) -> list[OldNSeatRankingRow]:
        """Best first: by ordinal (``mu - 3 sigma``), then score, then name (deterministic)."""
        ratings = self.ratings()
        rows = [(ratings[name], self.tally(name)) for name in self._engines]
        rows.sort(key=lambda r: (-r[0].ordinal, -r[1].score, r[0].name))
        return [OldNSeatRankingRow(i + 1, rating.name, rating, tally) for i, (rating, tally) in enumerate(rows)]

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
        head += f" {'Points':>10} {'Score':>10}" + "".join(f" {_old_ordinal_text(k + 1):>10}" for k in range(places))
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


def _old_ordinal_text(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def old_termination_table(standings: OldStandings | OldNSeatStandings, names: list[str]) -> str:
    """The losses table as it was made from the recounted tallies."""
    tags = [t.value for t in LOSS_COLUMNS]
    width = max(len(n) for n in [*names, "Engine"])
    lines = [f"{'Engine':<{width}}  {'W':>5} {'L':>5}  losses: " + " ".join(f"{t:>12}" for t in tags)]
    for name in names:
        if isinstance(standings, OldStandings):
            t = standings.tally(name)
            wins, lost, by = t.wins, t.losses, t.losses_by
        else:
            n = standings.tally(name)
            wins = n.placings[0] if n.placings else 0
            lost, by = n.seats - wins, n.losses_by
        losses = " ".join(f"{by.get(tag, 0):>12}" for tag in tags)
        lines.append(f"{name:<{width}}  {wins:>5} {lost:>5}          {losses}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- random game sets

_G = TypeVar("_G")

TAGS = ("climb", "no-moves", "time", "illegal", "crash", "aborted", "resign", "adjudicated")


def two_seat_games(rng: random.Random, pairs: int, engines: Sequence[str]) -> list[ScoredGame]:
    """Colour-swapped pairs ``(2k-1, 2k)``, some with a draw, an unscored game, a missing second
    game (incomplete), or a second game between other engines."""

    def winner() -> int | None:
        return rng.choice([1, 2, 1, 2, 1, 2, 1, 2, DRAW, None])

    games = []
    for k in range(1, pairs + 1):
        a, b = rng.sample(list(engines), 2)
        games.append(ScoredGame(2 * k - 1, a, b, winner(), rng.choice(TAGS)))
        kind = rng.random()
        if kind < 0.1:
            continue  # its partner never arrives
        if kind < 0.2:
            c, d = rng.sample(list(engines), 2)
            games.append(ScoredGame(2 * k, c, d, winner(), rng.choice(TAGS)))
        else:
            games.append(ScoredGame(2 * k, b, a, winner(), rng.choice(TAGS)))
    return games


_THREE = [(1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1), (1, 2, 2), (2, 1, 2), (2, 2, 1), (1, 1, 1)]
_FOUR = [(1, 2, 1, 2), (2, 1, 2, 1), (1, 1, 1, 1)]


def nseat_games(rng: random.Random, count: int, engines: Sequence[str], seat_counts: Sequence[int]) -> list[NSeatGame]:
    """Games of the given seat counts with random placings (ties too), some unscored, some exits,
    some numbers missing; four seats mix teams of two engines and teams of one."""
    games = []
    for number in range(1, count + 1):
        if rng.random() < 0.05:
            continue
        seats = rng.choice(seat_counts)
        if seats == 4 and rng.random() < 0.3:
            a, b = rng.sample(list(engines), 2)
            names: tuple[str, ...] = (a, b, a, b)
        else:
            names = tuple(rng.sample(list(engines), seats))
        placings: tuple[int, ...] | None
        if rng.random() < 0.1:
            placings = None
        elif seats == 2:
            placings = rng.choice([(1, 2), (2, 1), (1, 1)])
        else:
            placings = rng.choice(_THREE if seats == 3 else _FOUR)
        exits = tuple(rng.choice(("", "", "time", "crash", "no-moves")) for _ in names) if rng.random() < 0.7 else ()
        games.append(NSeatGame(number, names, placings, rng.choice(TAGS), exits))
    return games


def arrival(rng: random.Random, games: list[_G], spread: int | None) -> list[_G]:
    """Games in finishing order: fully shuffled (``spread`` None), or each at most about
    ``spread`` places from its number's place (concurrency)."""
    if spread is None:
        out = list(games)
        rng.shuffle(out)
        return out
    keyed = sorted(((i + rng.uniform(0, spread), g) for i, g in enumerate(games)), key=lambda kv: kv[0])
    return [g for _, g in keyed]


SPRTS = (SprtConfig(0, 5), SprtConfig(-3, 1, 0.1, 0.05, model="logistic"))


def two_seat_pair(games: Iterable[ScoredGame], engines: Sequence[str], numbered: bool = True) -> tuple[OldStandings, Standings]:
    old, new = OldStandings(), Standings()
    for name in engines:
        old.add_engine(name)
        new.add_engine(name)
    for g in games:
        number = g.number if numbered else None
        old.record(g.player1, g.player2, g.winner, g.termination, number)
        new.record(g.player1, g.player2, g.winner, g.termination, number)
    return old, new


def assert_two_seat_alike(old: OldStandings, new: Standings) -> None:
    assert new.engines == old.engines
    names = list(old.engines)
    for a in names:
        t, u = old.tally(a), new.tally(a)
        assert (u.wins, u.draws, u.losses, u.unscored, u.games, u.points, u.score) == (t.wins, t.draws, t.losses, t.unscored, t.games, t.points, t.score)
        assert (u.terminations, u.losses_by) == (t.terminations, t.losses_by)
        assert list(u.terminations) == list(t.terminations) and list(u.losses_by) == list(t.losses_by)
        assert new.pairs(a) == old.pairs(a)
        for b in names:
            if a == b:
                continue
            h, k = old.head_to_head(a, b), new.head_to_head(a, b)
            assert (k.wins, k.draws, k.losses, k.unscored, k.terminations, k.losses_by) == (h.wins, h.draws, h.losses, h.unscored, h.terminations, h.losses_by)
            assert new.pairs(a, b) == old.pairs(a, b)
            assert new.score_line(a, b) == old.score_line(a, b)
            assert new.results_block(a, b, "10+0.1, random") == old.results_block(a, b, "10+0.1, random")
            for cfg in SPRTS:
                assert new.results_block(a, b, sprt=cfg) == old.results_block(a, b, sprt=cfg)
                llr_old = format_llr_line(llr_pentanomial(old.pairs(a, b).ptnml, cfg), cfg)
                assert format_llr_line(llr_pentanomial(new.pairs(a, b).ptnml, cfg), cfg) == llr_old
    for penta in (True, False):
        for joint in (True, False):
            assert new.format_ranking(penta, joint) == old.format_ranking(penta, joint)
            assert new.crosstable(penta, joint) == old.crosstable(penta, joint)
            assert [(r.rank, r.name, r.estimate, r.pairs, r.joint) for r in new.ranking(penta, joint)] == [
                (r.rank, r.name, r.estimate, r.pairs, r.joint) for r in old.ranking(penta, joint)
            ]
    assert new.joint_ratings() == old.joint_ratings()
    assert termination_table(new, names) == old_termination_table(old, names)


def nseat_pair(games: Iterable[NSeatGame], engines: Sequence[str], seats: int | None) -> tuple[OldNSeatStandings, Standings]:
    old, new = OldNSeatStandings(seats), Standings(seats)
    for name in engines:
        old.add_engine(name)
        new.add_engine(name)
    for g in games:
        old.record(g.seats, g.placings, g.termination, g.number, g.exits)
        new.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
    return old, new


def assert_nseat_alike(old: OldNSeatStandings, new: Standings) -> None:
    assert new.engines == old.engines
    assert new.place_count == old.place_count
    names = list(old.engines)
    for a in names:
        t, u = old.tally(a), new.tally(a)
        assert (u.games, u.seats, u.placings, u.points, u.max_points, u.unscored, u.score) == (t.games, t.seats, t.placings, t.points, t.max_points, t.unscored, t.score)
        assert (u.terminations, u.losses_by) == (t.terminations, t.losses_by)
        assert list(u.terminations) == list(t.terminations) and list(u.losses_by) == list(t.losses_by)
    assert new.ratings() == old.ratings()
    assert list(new.ratings()) == list(old.ratings())
    assert [(r.rank, r.name, r.rating) for r in new.rating_ranking()] == [(r.rank, r.name, r.rating) for r in old.ranking()]
    assert new.format_ranking() == old.format_ranking()
    assert new.crosstable() == ""
    assert termination_table(new, names) == old_termination_table(old, names)


# --------------------------------------------------------------------------- the comparisons


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("spread", [None, 0, 6])
def test_two_seats_print_what_recounting_printed(seed: int, spread: int | None) -> None:
    rng = random.Random(seed)
    engines = ["alpha", "beta", "gamma", "delta", "an engine with a long name"][: 2 + seed % 4]
    games = two_seat_games(rng, 40 + 10 * seed, engines)
    listed = [*engines[:1], "idle"] if seed % 2 else []  # registered first; one never plays
    old, new = two_seat_pair(arrival(rng, games, spread), listed)
    assert_two_seat_alike(old, new)
    assert new.waiting <= len(games) - 2 * sum(1 for g in games if g.number % 2 == 0)


def test_two_seats_numbered_by_arrival_alike() -> None:
    rng = random.Random(99)
    games = two_seat_games(rng, 30, ["a", "b", "c"])
    old, new = two_seat_pair(games, [], numbered=False)
    assert_two_seat_alike(old, new)


def test_a_match_of_two_alike_at_every_step() -> None:
    """The runner asks for the pair's LLR after each game: alike after each arrival."""
    rng = random.Random(5)
    games = arrival(rng, two_seat_games(rng, 60, ["base", "dev"]), 5)
    old, new = OldStandings(), Standings()
    cfg = SPRTS[0]
    for g in games:
        old.record(g.player1, g.player2, g.winner, g.termination, g.number)
        new.record(g.player1, g.player2, g.winner, g.termination, g.number)
        assert new.pairs("base", "dev") == old.pairs("base", "dev")
        assert new.results_block("dev", "base", sprt=cfg) == old.results_block("dev", "base", sprt=cfg)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("seats", [3, 4])
@pytest.mark.parametrize("spread", [None, 0, 8])
def test_three_and_four_seats_print_what_recounting_printed(seed: int, seats: int, spread: int | None) -> None:
    rng = random.Random(seed * 10 + seats)
    engines = ["alpha", "beta", "gamma", "delta", "epsilon"][: seats + seed % 2]
    games = nseat_games(rng, 30 + 5 * seed, engines, [seats])
    old, new = nseat_pair(arrival(rng, games, spread), ["zeta"] if seed % 3 == 0 else [], seats)
    assert_nseat_alike(old, new)
    assert new.waiting == 0 or any(n not in {g.number for g in games} for n in range(1, len(games) + 1))


def test_mixed_seat_counts_alike() -> None:
    rng = random.Random(3)
    games = nseat_games(rng, 60, ["a", "b", "c", "d"], [2, 3, 4])
    old, new = nseat_pair(arrival(rng, games, None), [], None)
    assert_nseat_alike(old, new)


def test_a_game_later_than_the_window_is_rated_on_arrival(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past :data:`REORDER_WINDOW` waiting games the gap is passed: the late game is rated last,
    as if it had the highest number; games within the window keep number order."""
    monkeypatch.setattr(standings_module, "REORDER_WINDOW", 5)
    rng = random.Random(11)
    games = [NSeatGame(i, g.seats, g.placings) for i, g in enumerate(nseat_games(rng, 40, ["a", "b", "c"], [3]), 1)]
    late, rest = games[0], games[1:]
    new = Standings(3)
    for g in [*arrival(rng, rest, 3), late]:
        new.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
    assert new.waiting == 0
    moved = [*rest, NSeatGame(games[-1].number + 1, late.seats, late.placings)]
    assert new.ratings() == weng_lin_ratings(moved, new.engines)
    assert new.ratings() != weng_lin_ratings(games, new.engines)  # the documented difference
    # within the window, number order whatever the arrival
    ordered = Standings(3)
    for g in arrival(rng, games, 3):
        ordered.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
    assert ordered.ratings() == weng_lin_ratings(games, ordered.engines)


def test_completed_pairs_are_forgotten() -> None:
    """Memory does not grow with the games: only the waiting half of a pair is held."""
    s = Standings()
    for k in range(1, 2001):
        s.record("a", "b", 1, "climb", 2 * k)  # second games first
        assert s.waiting == 1
        s.record("b", "a", 2, "climb", 2 * k - 1)
        assert s.waiting == 0
    assert s.pairs("a", "b").ptnml == (0, 0, 0, 0, 2000) and s.played == 4000
    assert s._numbers.ranges == 1


def test_game_numbers_twice_are_refused_in_both_kinds() -> None:
    s = Standings()
    s.record("a", "b", 1, game_number=3)
    with pytest.raises(ValueError, match="game 3 is already recorded"):
        s.record("b", "a", 1, game_number=3)
    assert s.record("b", "a", 1).number == 2  # default: the count plus one
    with pytest.raises(ValueError, match="game 2 is already recorded"):
        s.record_game(("a", "b"), (1, 2), game_number=2)
    n = Standings(3)
    n.record_game(("a", "b", "c"), (1, 2, 3), game_number=5)
    with pytest.raises(ValueError, match="game 5 is already recorded"):
        n.record_game(("a", "b", "c"), (1, 2, 3), game_number=5)


def test_pair_counts_and_joint_ratings_of_a_game_list_agree_with_the_counters() -> None:
    """The functions over a list of games (``pair_counts``, ``joint_ratings``) are the counters' figures."""
    from santorini_server.stats.bradley_terry import joint_ratings
    from santorini_server.stats.standings import pair_counts

    rng = random.Random(21)
    engines = ["a", "b", "c"]
    games = two_seat_games(rng, 50, engines)
    old, new = two_seat_pair(arrival(rng, games, None), [])
    for a in engines:
        assert pair_counts(games, a) == new.pairs(a) == old.pairs(a)
        for b in engines:
            if a != b:
                assert pair_counts(games, a, b) == new.pairs(a, b)
    order = new.engines  # the order of first appearance: the fit's order
    assert joint_ratings(games, order) == new.joint_ratings() == old_joint_ratings(games, order)
    for prior in (0.5, 7.0):
        assert joint_ratings(games, order, prior=prior) == new.joint_ratings(prior) == old_joint_ratings(games, order, prior=prior)


def test_one_type_for_every_seat_count() -> None:
    from santorini_server.stats import nseat_standings

    assert nseat_standings.NSeatStandings is Standings
    assert nseat_standings.NSeatTally is standings_module.EngineTally
    two = Standings()
    assert two.seats == 2 and two.crosstable() == " #  Name  Score\n"
    game = two.record_game(("a", "b"), (2, 1), "time", 1)  # a two-seat game by placings: record's game
    assert game.number == 1 and two.tally("b").wins == 1 and two.tally("a").losses_by == {"time": 1}
    two.record_game(("b", "a"), (1, 1), "adjudicated", 2)
    two.record_game(("a", "b"), None, "aborted", 3)
    assert (two.tally("a").draws, two.tally("a").unscored, two.pairs("a", "b").ptnml) == (1, 1, (0, 1, 0, 0, 0))
    with pytest.raises(ValueError, match="a 3-seat game in standings of two seats"):
        two.record_game(("a", "b", "c"), (1, 2, 3))
    with pytest.raises(ValueError, match="rate by Elo"):
        two.ratings()
    three = Standings(3)
    with pytest.raises(ValueError, match="a two-seat game in standings of 3 seats: use record_game"):
        three.record("a", "b", 1)
    with pytest.raises(ValueError, match="any number of seats"):
        Standings(None).record("a", "b", 1)
    with pytest.raises(ValueError, match="not 5"):
        Standings(5)
    assert three.crosstable() == "" and three.format_ranking().split()[-3:] == ["1st", "2nd", "3rd"]


def _memory_growth(standings: Standings, record: Callable[[Standings, int], None], first: int, last: int) -> int:
    """Bytes the process holds more after recording games ``first + 1 .. last`` than after ``1 .. first``."""
    tracemalloc.start()
    try:
        for number in range(1, first + 1):
            record(standings, number)
        gc.collect()  # openskill's temporaries hold cycles: freed by the collector, not on return
        before = tracemalloc.get_traced_memory()[0]
        for number in range(first + 1, last + 1):
            record(standings, number)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_memory_stays_flat_as_games_are_recorded() -> None:
    """Nothing is kept per game: 5,000 more two-seat games (pairs completing out of order) and
    400 more three-seat games leave the memory where it was (a list of the games would hold
    hundreds of kilobytes)."""
    rng = random.Random(8)

    def two(s: Standings, number: int) -> None:
        swapped = number + (1 if number % 2 else -1)  # each pair's second game first
        s.record("x", "y", rng.choice([1, 2, None]), rng.choice(TAGS), swapped)

    def three(s: Standings, number: int) -> None:
        s.record_game(rng.sample(["a", "b", "c", "d"], 3), rng.choice(_THREE), rng.choice(TAGS), number)

    assert _memory_growth(Standings(), two, 1_000, 6_000) < 16_000
    assert _memory_growth(Standings(3), three, 200, 600) < 16_000


def test_queries_read_counters_not_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query costs the same after 10 games or a million: none reads a game's points again
    (the runner asks for the pair's LLR after every game, the table every --rating-interval)."""
    reads = {"two": 0, "n": 0}
    points_for, points = ScoredGame.points_for, NSeatGame.points

    def counted_points_for(self: ScoredGame, name: str) -> float | None:
        reads["two"] += 1
        return points_for(self, name)

    def counted_points(self: NSeatGame, seat: int) -> float | None:
        reads["n"] += 1
        return points(self, seat)

    monkeypatch.setattr(ScoredGame, "points_for", counted_points_for)
    monkeypatch.setattr(NSeatGame, "points", counted_points)
    rng = random.Random(4)
    two = two_seat_pair(two_seat_games(rng, 100, ["a", "b", "c"]), [])[1]
    reads["two"] = 0
    cfg = SPRTS[0]
    for a, b in (("a", "b"), ("b", "c")):
        llr_pentanomial(two.pairs(a, b).ptnml, cfg)
        two.results_block(a, b, sprt=cfg)
        two.score_line(a, b)
    two.format_ranking(joint=True)
    two.crosstable(joint=True)
    assert termination_table(two, list(two.engines))
    assert reads["two"] == 0
    three = Standings(3)
    for g in nseat_games(rng, 60, ["a", "b", "c", "d"], [3]):
        three.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
    reads["n"] = 0
    three.format_ranking()
    assert termination_table(three, list(three.engines))
    assert reads["n"] == 0
