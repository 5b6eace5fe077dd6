"""Live standings of a tournament of any number of engines, for games of 2, 3 or 4 seats.

``Standings`` counts finished games (no I/O) and renders the text the runner prints: for two
seats cutechess's ``Score of`` line, fastchess's results block, a ranking table and a
crosstable; for three and four seats the placings ranking with Weng-Lin ratings (``placings``,
``weng_lin``).  Every string is a deterministic function of the recorded games, whatever order
they finished in.

Theory of operation.  Each game is folded into counters as it is recorded and then forgotten, so a
game costs the same to record and a query the same to answer after ten games or a million, and
the memory does not grow with the games:

* per engine and per ordered pair of engines: wins, draws, losses, unscored games, games by
  termination tag, losses by tag (two seats); scored games, seats, placings, points (N seats);
* game pairs (two seats): fastchess and OpenBench treat games ``2k-1`` and ``2k`` (1-based
  schedule numbers) as one colour-swapped pair, as the referee's scheduler numbers them.  The
  first game of a pair to finish waits (games finish out of order under concurrency) and counts
  as an incomplete pair; when its partner arrives the pair is folded into the pentanomial
  counters (per engine and per ordered pair) and both games are forgotten;
* the joint Bradley-Terry rating needs only the points and games of each ordered pair
  (``bradley_terry.joint_ratings_from_counts``), and the SPRT only the pentanomial counts;
* Weng-Lin ratings (N seats) depend on the order games are rated in: game-number order.  A game
  is rated once every lower number is recorded; the games above a gap wait, and a query rates
  them on a copy.  At most :data:`REORDER_WINDOW` games wait: beyond that the lowest waits no
  more (the gap is passed), and a game below it is rated when it arrives, after the higher
  numbers.  The figures equal rating every game in number order unless a game finishes more
  than :data:`REORDER_WINDOW` games after a later-numbered one (a permanent gap, such as a
  game lost to a failing worker, only makes the waiting games rate at the window's end, which
  is the same order).

Game numbers: ``record`` takes the schedule number (default: the count of recorded games plus
one); a number recorded twice is refused.  Recorded numbers are kept as ranges, which stay few
whatever the count (games finish near schedule order).
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .bradley_terry import DEFAULT_PRIOR, JointRating, JointRatings, format_joint_columns, joint_ratings_from_counts
from .elo import (
    EloEstimate,
    _fixed,
    format_elo_pm,
    format_los,
    format_nelo_pm,
    pentanomial_elo,
    trinomial_elo,
)
from .placings import SEAT_COUNTS, NSeatGame
from .sprt import SprtConfig, format_llr_line, llr_pentanomial, llr_trinomial
from .weng_lin import WENG_LIN_MU, WENG_LIN_SIGMA, WengLinRating, weng_lin_model, weng_lin_update

if TYPE_CHECKING:
    from openskill.models import PlackettLuce

__all__ = [
    "DRAW",
    "REORDER_WINDOW",
    "EngineTally",
    "NSeatRankingRow",
    "ScoredGame",
    "PairCounts",
    "RankingRow",
    "Standings",
    "format_results_block",
    "format_score_line",
    "pair_counts",
]

DRAW = 0
"""``winner`` value for a drawn game: Santorini has none, but an adjudication rule may."""

REORDER_WINDOW = 1000
"""Most games (three and four seats) that wait for a lower-numbered game before they are rated."""


@dataclass(frozen=True)
class ScoredGame:
    """One finished two-seat game as the standings score it: who played and who won (the full game is a
    ``records.GameRecord``).  ``winner``: 1 or 2 (player1/player2 won), 0 draw, None not scored
    (aborted or interrupted: counted per termination, excluded from W/D/L)."""

    number: int
    player1: str
    player2: str
    winner: int | None
    termination: str = ""

    def points_for(self, name: str) -> float | None:
        """Points ``name`` scored (1, 0.5, 0), or None if the game was not scored."""
        if self.winner is None:
            return None
        if self.winner == DRAW:
            return 0.5
        won = self.player1 if self.winner == 1 else self.player2
        return 1.0 if won == name else 0.0


@dataclass(frozen=True)
class PairCounts:
    """Pentanomial counts of one engine over complete colour-swapped pairs.

    ``ptnml[k]``: pairs in which the engine scored ``k/2`` of 2 points.
    Bucket 2 splits into ``wl`` (one win, one loss) and ``dd`` (two draws).
    ``incomplete``: pairs with a missing or unscored game, left out.
    """

    ptnml: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    wl: int = 0
    dd: int = 0
    incomplete: int = 0

    @property
    def pairs(self) -> int:
        return sum(self.ptnml)


_WL, _DD, _INCOMPLETE = 5, 6, 7
"""Slots of a pair tally after the five pentanomial buckets."""


def _pair_slots(pair: Sequence[ScoredGame], name: str) -> tuple[int, ...]:
    """The slots of a pair tally that ``name``'s games of one pair number count in: its
    pentanomial bucket (and ``_WL`` or ``_DD`` for one point of two), or ``_INCOMPLETE`` when a
    game is missing or unscored or the two games are not between the same engines."""
    if len(pair) != 2 or {pair[0].player1, pair[0].player2} != {pair[1].player1, pair[1].player2}:
        return (_INCOMPLETE,)
    first, second = pair[0].points_for(name), pair[1].points_for(name)
    if first is None or second is None:
        return (_INCOMPLETE,)
    total = first + second
    if total == 1.0:
        return (2, _DD if first == 0.5 else _WL)
    return (round(total * 2),)


def _pair_counts_of(slots: Sequence[int]) -> PairCounts:
    return PairCounts((slots[0], slots[1], slots[2], slots[3], slots[4]), slots[_WL], slots[_DD], slots[_INCOMPLETE])


def pair_counts(games: Iterable[ScoredGame], name: str, opponent: str | None = None) -> PairCounts:
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
    slots = [0] * 8
    for pair in by_pair.values():
        for slot in _pair_slots(pair, name):
            slots[slot] += 1
    return _pair_counts_of(slots)


@dataclass(frozen=True)
class EngineTally:
    """One engine's record.  ``games`` counts scored games only; ``unscored`` the rest.

    ``terminations``: every game the engine took part in, by termination tag.  ``losses_by``: two
    seats, the games it lost by tag (e.g. its time forfeits); N seats, its seats' exits by tag
    (eliminations and team losses the game reported).  ``seats``: seats it filled in scored
    games (more than ``games`` when it filled both seats of a 4-seat team); ``placings[k]``:
    seats it finished in place ``k + 1``; ``points``: see ``placings``; ``max_points``: what
    those seats could have scored.  ``wins``/``draws``/``losses``: two seats, its games; N seats,
    the seats it placed first and the others (no draws).
    """

    name: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    unscored: int = 0
    terminations: dict[str, int] = field(default_factory=dict)
    losses_by: dict[str, int] = field(default_factory=dict)
    games: int = 0
    seats: int = 0
    placings: tuple[int, ...] = ()
    points: float = 0.0
    max_points: float = 0.0

    @property
    def score(self) -> float:
        """Share of the points its games (seats) could have scored; 0.5 with no games (neutral, never nan)."""
        return self.points / self.max_points if self.max_points else 0.5


NSeatTally = EngineTally
"""The tally of standings of three and four seats (the same record)."""


@dataclass(frozen=True)
class RankingRow:
    """``estimate``: the engine's Elo against the field it met; ``joint``: its joint
    (Bradley-Terry) rating when the ranking was asked for one."""

    rank: int
    name: str
    estimate: EloEstimate
    tally: EngineTally
    pairs: PairCounts | None
    joint: JointRating | None = None


@dataclass(frozen=True)
class NSeatRankingRow:
    """A row of the ranking of three and four seats: the engine's Weng-Lin ``rating``."""

    rank: int
    name: str
    rating: WengLinRating
    tally: EngineTally


def format_score_line(name_a: str, name_b: str, wins: int, losses: int, draws: int) -> str:
    """cutechess's ``Score of A vs B: W - L - D  [0.512] N`` (two spaces before ``[``)."""
    n = wins + losses + draws
    score = "n/a" if n == 0 else f"{(wins + 0.5 * draws) / n:.3f}"
    return f"Score of {name_a} vs {name_b}: {wins} - {losses} - {draws}  [{score}] {n}"


def _ratio_text(num: int, den: int) -> str:
    return "n/a" if den == 0 else f"{num / den:.2f}"


_RULE = "-" * 50


def format_results_block(
    first: str,
    second: str,
    wins: int,
    losses: int,
    draws: int,
    pairs: PairCounts | None = None,
    details: str = "",
    sprt: SprtConfig | None = None,
) -> str:
    """fastchess's interval block for ``first`` against ``second``.

    With ``pairs`` holding at least one complete pair, Elo/LOS/SPRT use the
    pentanomial model and the block shows PairsRatio and ``Ptnml(0-2)``;
    otherwise the trinomial model.  Undefined values print as ``n/a``.
    ``WL/DD Ratio`` is omitted when there is no DD pair (always, for
    Santorini), where fastchess would print ``inf`` or ``nan``.
    """
    penta = pairs is not None and pairs.pairs > 0
    est = pentanomial_elo(pairs.ptnml) if penta and pairs else trinomial_elo(wins, draws, losses)
    games = wins + losses + draws
    points = wins + 0.5 * draws
    header = f"Results of {first} vs {second}" + (f" ({details})" if details else "") + ":"
    lines = [_RULE, header, f"Elo: {format_elo_pm(est)}, nElo: {format_nelo_pm(est)}"]
    draw_ratio = "n/a" if est.samples == 0 else f"{_fixed(est.draw_ratio * 100.0, 2)} %"
    stats = f"LOS: {format_los(est)}, DrawRatio: {draw_ratio}"
    if penta and pairs:
        p = pairs.ptnml
        stats += f", PairsRatio: {_ratio_text(p[3] + p[4], p[0] + p[1])}"
    lines.append(stats)
    pct = "n/a" if games == 0 else f"{_fixed(points / games * 100.0, 2)} %"
    lines.append(
        f"Games: {games}, Wins: {wins}, Losses: {losses}, Draws: {draws}, Points: {points:.1f} ({pct})"
    )
    if penta and pairs:
        p = pairs.ptnml
        line = f"Ptnml(0-2): [{p[0]}, {p[1]}, {p[2]}, {p[3]}, {p[4]}]"
        if pairs.dd:
            line += f", WL/DD Ratio: {pairs.wl / pairs.dd:.2f}"
        lines.append(line)
    if sprt is not None:
        llr = llr_pentanomial(pairs.ptnml, sprt) if penta and pairs else llr_trinomial(wins, draws, losses, sprt)
        lines.append(format_llr_line(llr, sprt))
    lines.append(_RULE)
    return "\n".join(lines) + "\n"


class _Counts:
    """One engine's (or one ordered pair's) counters, updated as games are recorded."""

    __slots__ = (
        "draws",
        "games",
        "losses",
        "losses_by",
        "max_points",
        "places",
        "points",
        "seats",
        "terminations",
        "unscored",
        "wins",
    )  # fmt: skip

    def __init__(self) -> None:
        self.wins = self.draws = self.losses = self.unscored = self.games = self.seats = 0
        self.terminations: dict[str, int] = {}
        self.losses_by: dict[str, int] = {}
        self.places: list[int] = []
        self.points = self.max_points = 0.0

    def add_two_seat(self, game: ScoredGame, name: str) -> None:
        self.terminations[game.termination] = self.terminations.get(game.termination, 0) + 1
        points = game.points_for(name)
        if points is None:
            self.unscored += 1
        elif points == 1.0:
            self.wins += 1
        elif points == 0.5:
            self.draws += 1
        else:
            self.losses += 1
            self.losses_by[game.termination] = self.losses_by.get(game.termination, 0) + 1

    def add_seats(self, game: NSeatGame, name: str) -> None:
        mine = [s for s, engine in enumerate(game.seats) if engine == name]
        self.terminations[game.termination] = self.terminations.get(game.termination, 0) + 1
        for s in mine:
            if game.exits and game.exits[s]:
                self.losses_by[game.exits[s]] = self.losses_by.get(game.exits[s], 0) + 1
        if game.placings is None:
            self.unscored += 1
            return
        self.games += 1
        for s in mine:
            self.seats += 1
            place = game.placings[s]
            if len(self.places) < place:
                self.places.extend([0] * (place - len(self.places)))
            self.places[place - 1] += 1
            self.points += game.points(s) or 0.0
            self.max_points += game.max_points

    def state(self) -> list[object]:
        """The counters as plain values (see :meth:`Standings.state`)."""
        return [self.wins, self.draws, self.losses, self.unscored, self.games, self.seats, dict(self.terminations),
                dict(self.losses_by), list(self.places), self.points, self.max_points]

    @classmethod
    def from_state(cls, value: object) -> _Counts:
        w, d, lost, unscored, games, seats, terminations, losses_by, places, points, max_points = _list(value, 11)
        counts = cls()
        counts.wins, counts.draws, counts.losses = _count(w), _count(d), _count(lost)
        counts.unscored, counts.games, counts.seats = _count(unscored), _count(games), _count(seats)
        counts.terminations, counts.losses_by = _tags(terminations), _tags(losses_by)
        counts.places = [_count(c) for c in _list(places)]
        counts.points, counts.max_points = _number(points), _number(max_points)
        return counts

    def two_seat_tally(self, name: str) -> EngineTally:
        games = self.wins + self.draws + self.losses
        return EngineTally(
            name, self.wins, self.draws, self.losses, self.unscored,
            dict(sorted(self.terminations.items())), dict(sorted(self.losses_by.items())),
            games, games, (self.wins + self.draws, self.losses), self.wins + 0.5 * self.draws, float(games),
        )  # fmt: skip

    def seats_tally(self, name: str, places: int) -> EngineTally:
        placings = tuple(self.places) + (0,) * (places - len(self.places))
        wins = placings[0]
        return EngineTally(
            name, wins, 0, self.seats - wins, self.unscored,
            dict(sorted(self.terminations.items())), dict(sorted(self.losses_by.items())),
            self.games, self.seats, placings, self.points, self.max_points,
        )  # fmt: skip


class _Numbers:
    """A set of positive game numbers kept as sorted disjoint ranges ``[first, last]``."""

    def __init__(self) -> None:
        self._firsts: list[int] = []
        self._lasts: list[int] = []

    def __contains__(self, number: int) -> bool:
        i = bisect.bisect_right(self._firsts, number) - 1
        return i >= 0 and number <= self._lasts[i]

    def add(self, number: int) -> None:
        """Add a number not in the set."""
        i = bisect.bisect_right(self._firsts, number)  # ranges before i start at or below number
        joins_left = i > 0 and self._lasts[i - 1] == number - 1
        joins_right = i < len(self._firsts) and self._firsts[i] == number + 1
        if joins_left and joins_right:
            self._lasts[i - 1] = self._lasts[i]
            del self._firsts[i], self._lasts[i]
        elif joins_left:
            self._lasts[i - 1] = number
        elif joins_right:
            self._firsts[i] = number
        else:
            self._firsts.insert(i, number)
            self._lasts.insert(i, number)

    @property
    def ranges(self) -> int:
        return len(self._firsts)

    def state(self) -> list[list[int]]:
        return [list(self._firsts), list(self._lasts)]

    @classmethod
    def from_state(cls, value: object) -> _Numbers:
        firsts, lasts = (_list(v) for v in _list(value, 2))
        numbers = cls()
        numbers._firsts, numbers._lasts = [_count(n) for n in firsts], [_count(n) for n in lasts]
        if len(firsts) != len(lasts) or any(
            not 1 <= f <= last for f, last in zip(numbers._firsts, numbers._lasts, strict=True)
        ) or any(a + 1 >= b for a, b in zip(numbers._lasts, numbers._firsts[1:], strict=False)):
            raise ValueError("game numbers are not sorted disjoint ranges")
        return numbers


def _list(value: object, length: int | None = None) -> list[object]:
    """``value`` as a list (a state read back), of ``length`` items when given."""
    if not isinstance(value, list | tuple) or (length is not None and len(value) != length):
        raise ValueError(f"expected a list{f' of {length}' if length is not None else ''}, got {value!r:.40}")
    return list(value)


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError(f"expected a count, got {value!r:.40}")
    return value


def _number(value: object) -> float:
    if type(value) not in (int, float):
        raise ValueError(f"expected a number, got {value!r:.40}")
    return float(value)  # type: ignore[arg-type]


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a text, got {value!r:.40}")
    return value


def _tags(value: object) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a table of counts, got {value!r:.40}")
    return {_text(k): _count(v) for k, v in value.items()}


def _game_state(game: NSeatGame) -> list[object]:
    return [game.number, list(game.seats), None if game.placings is None else list(game.placings), game.termination,
            list(game.exits)]


def _game_from_state(value: object) -> NSeatGame:
    number, seats, placings, termination, exits = _list(value, 5)
    return NSeatGame(_count(number), tuple(_text(s) for s in _list(seats)),
                     None if placings is None else tuple(_count(p) for p in _list(placings)), _text(termination),
                     tuple(_text(e) for e in _list(exits)))


class Standings:
    """Counts games of ``seats`` seats (2, 3 or 4; None: any, each game by its own count).

    Two seats: ``record`` a game, then the Elo queries (``tally``, ``pairs``, ``ranking``,
    ``crosstable``...).  Three and four seats: ``record_game``, then ``tally``, ``ratings`` and
    ``rating_ranking``; ``format_ranking`` gives each kind's table.  ``seats`` also sets the
    placing columns before any game is recorded (3 places for 3 seats, 2 for 4 seats: teams).
    """

    def __init__(self, seats: int | None = 2) -> None:
        if seats is not None and seats not in SEAT_COUNTS:
            raise ValueError(f"a game has 2, 3 or 4 seats, not {seats}")
        self._seats = seats
        self._places = 0 if seats is None else 2 if seats == 4 else seats
        self._sides = 0
        self._engines: list[str] = []
        self._numbers = _Numbers()
        self._count = 0
        self._tallies: dict[str, _Counts] = {}
        # two seats
        self._versus: dict[tuple[str, str], _Counts] = {}
        self._pairs: dict[str, list[int]] = {}
        self._pairs_versus: dict[tuple[str, str], list[int]] = {}
        self._waiting_pairs: dict[int, ScoredGame] = {}
        # three and four seats: the Weng-Lin ratings of the games up to _next - 1, and the games above
        self._beliefs: dict[str, tuple[float, float]] = {}
        self._rated: dict[str, int] = {}
        self._next = 1
        self._waiting: dict[int, NSeatGame | None] = {}
        self._waiting_order: list[int] = []
        self._model: PlackettLuce | None = None

    @property
    def seats(self) -> int | None:
        """Seats per game (None: any)."""
        return self._seats

    def add_engine(self, name: str) -> None:
        """Register an engine so it is listed before it has played."""
        if name not in self._tallies:
            self._engines.append(name)
            self._tallies[name] = _Counts()

    def _number(self, game_number: int | None) -> int:
        number = self._count + 1 if game_number is None else game_number
        if number < 1:
            raise ValueError("game numbers start at 1")
        if number in self._numbers:
            raise ValueError(f"game {number} is already recorded")
        return number

    def record(
        self,
        player1: str,
        player2: str,
        winner: int | None,
        termination: str = "",
        game_number: int | None = None,
    ) -> ScoredGame:
        """Add one finished two-seat game.  ``game_number`` (1-based schedule number)
        defaults to the count of recorded games plus one.

        Raises:
            ValueError: standings of other seat counts, an engine against itself, a winner other
                than 1, 2, 0 (draw) or None, a game number below 1 or already recorded.
        """
        if self._seats != 2:
            raise ValueError(f"a two-seat game in standings of {self._seats or 'any number of'} seats: use record_game")
        if player1 == player2:
            raise ValueError("an engine cannot play itself")
        if winner not in (None, DRAW, 1, 2):
            raise ValueError(f"winner must be 1, 2, 0 (draw) or None, not {winner!r}")
        game = ScoredGame(self._number(game_number), player1, player2, winner, termination)
        self._numbers.add(game.number)
        self._count += 1
        self._sides = 2
        for name, opponent in ((player1, player2), (player2, player1)):
            self.add_engine(name)
            self._tallies[name].add_two_seat(game, name)
            versus = self._versus.get((name, opponent))
            if versus is None:
                versus = self._versus[name, opponent] = _Counts()
            versus.add_two_seat(game, name)
        partner = self._waiting_pairs.pop((game.number + 1) // 2, None)
        if partner is None:
            self._waiting_pairs[(game.number + 1) // 2] = game
            self._count_pair((game,), 1)
        else:
            self._count_pair((partner,), -1)
            self._count_pair((partner, game), 1)
        return game

    def _count_pair(self, games: tuple[ScoredGame, ...], sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) what the games of one pair number count for each
        engine in them, overall and against each opponent (as ``pair_counts`` groups them)."""
        for name in dict.fromkeys(n for g in games for n in (g.player1, g.player2)):
            mine = [g for g in games if name in (g.player1, g.player2)]
            slots = self._pairs.setdefault(name, [0] * 8)
            for slot in _pair_slots(mine, name):
                slots[slot] += sign
            for opponent in dict.fromkeys(n for g in mine for n in (g.player1, g.player2) if n != name):
                slots = self._pairs_versus.setdefault((name, opponent), [0] * 8)
                for slot in _pair_slots([g for g in mine if opponent in (g.player1, g.player2)], name):
                    slots[slot] += sign

    def record_game(
        self,
        seats: Sequence[str],
        placings: Sequence[int] | None,
        termination: str = "",
        game_number: int | None = None,
        exits: Sequence[str] = (),
    ) -> NSeatGame:
        """Add one finished game of any seat count (see ``NSeatGame``); in two-seat standings it is
        ``record``'s game (``exits`` unused).  ``game_number`` as for ``record``.

        Raises:
            ValueError: an invalid game (``NSeatGame``), a game of another seat count in two-seat
                standings, or a game number already recorded.
        """
        number = self._number(game_number)
        game = NSeatGame(number, tuple(seats), None if placings is None else tuple(placings), termination, tuple(exits))
        if self._seats == 2:
            if len(game.seats) != 2:
                raise ValueError(f"a {len(game.seats)}-seat game in standings of two seats")
            p = game.placings
            winner = None if p is None else DRAW if p[0] == p[1] else 1 if p[0] < p[1] else 2
            self.record(game.seats[0], game.seats[1], winner, termination, number)
            return game
        self._numbers.add(number)
        self._count += 1
        self._sides = max(self._sides, game.side_count)
        for name in game.seats:
            self.add_engine(name)
        for name in dict.fromkeys(game.seats):
            self._tallies[name].add_seats(game, name)
        self._rate(game)
        return game

    # ----------------------------------------------------------------------- Weng-Lin, in number order

    def _rate(self, game: NSeatGame) -> None:
        if game.number < self._next:  # later than the window: rated on arrival
            self._fold(game, self._beliefs, self._rated)
            return
        self._waiting[game.number] = game if game.scored else None
        heapq.heappush(self._waiting_order, game.number)
        while self._waiting_order and (
            self._waiting_order[0] == self._next or len(self._waiting) > REORDER_WINDOW
        ):
            number = heapq.heappop(self._waiting_order)
            waiting = self._waiting.pop(number)
            if waiting is not None:
                self._fold(waiting, self._beliefs, self._rated)
            self._next = number + 1

    def _fold(self, game: NSeatGame, beliefs: dict[str, tuple[float, float]], rated: dict[str, int]) -> None:
        self._model = self._model or weng_lin_model()
        updated = weng_lin_update(beliefs, game, self._model)
        beliefs.update(updated)
        for name in updated:
            rated[name] = rated.get(name, 0) + 1

    @property
    def waiting(self) -> int:
        """Games held back: halves of two-seat pairs whose partner has not arrived, and games of
        three and four seats waiting for a lower number to be rated."""
        return len(self._waiting_pairs) + len(self._waiting)

    # ----------------------------------------------------------------------- a snapshot

    def state(self) -> dict[str, object]:
        """Everything counted, as plain values (dicts with text keys, lists, numbers, texts,
        None) that msgpack or JSON can hold: :meth:`from_state` gives back standings that count on
        and render exactly as these do.  Its size grows with the engines (squared: the pairs), the
        number ranges and the games held back (:attr:`waiting`), not with the games counted."""
        return {
            "seats": self._seats,
            "places": self._places,
            "sides": self._sides,
            "engines": list(self._engines),
            "numbers": self._numbers.state(),
            "count": self._count,
            "tallies": [self._tallies[name].state() for name in self._engines],
            "versus": [[a, b, counts.state()] for (a, b), counts in self._versus.items()],
            "pairs": [[name, list(slots)] for name, slots in self._pairs.items()],
            "pairs_versus": [[a, b, list(slots)] for (a, b), slots in self._pairs_versus.items()],
            "waiting_pairs": [[g.number, g.player1, g.player2, g.winner, g.termination]
                              for g in self._waiting_pairs.values()],
            "beliefs": [[name, mu, sigma] for name, (mu, sigma) in self._beliefs.items()],
            "rated": [[name, n] for name, n in self._rated.items()],
            "next": self._next,
            "waiting": [_game_state(game) if game is not None else [number] for number, game in self._waiting.items()],
        }

    @classmethod
    def from_state(cls, value: object) -> Standings:
        """The standings :meth:`state` gave ``value`` for.

        Raises:
            ValueError: ``value`` is not such a state (one line).
        """
        try:
            return cls._from_state(value)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a state of standings: {exc}") from None

    @classmethod
    def _from_state(cls, value: object) -> Standings:
        if not isinstance(value, dict):
            raise ValueError(f"expected a table, got {value!r:.40}")
        seats = value["seats"]
        standings = cls(None if seats is None else _count(seats))
        standings._places, standings._sides = _count(value["places"]), _count(value["sides"])
        engines = [_text(name) for name in _list(value["engines"])]
        tallies = _list(value["tallies"], len(engines))
        standings._engines = engines
        standings._tallies = {name: _Counts.from_state(t) for name, t in zip(engines, tallies, strict=True)}
        standings._numbers = _Numbers.from_state(value["numbers"])
        standings._count = _count(value["count"])
        for item in _list(value["versus"]):
            a, b, counts = _list(item, 3)
            standings._versus[_text(a), _text(b)] = _Counts.from_state(counts)
        for item in _list(value["pairs"]):
            name, slots = _list(item, 2)
            standings._pairs[_text(name)] = [_count(n) for n in _list(slots, 8)]
        for item in _list(value["pairs_versus"]):
            a, b, slots = _list(item, 3)
            standings._pairs_versus[_text(a), _text(b)] = [_count(n) for n in _list(slots, 8)]
        for item in _list(value["waiting_pairs"]):
            number, p1, p2, winner, termination = _list(item, 5)
            if winner not in (None, DRAW, 1, 2):
                raise ValueError(f"winner {winner!r:.20}")
            half = ScoredGame(_count(number), _text(p1), _text(p2), winner, _text(termination))
            standings._waiting_pairs[(half.number + 1) // 2] = half
        for item in _list(value["beliefs"]):
            name, mu, sigma = _list(item, 3)
            standings._beliefs[_text(name)] = (_number(mu), _number(sigma))
        for item in _list(value["rated"]):
            name, n = _list(item, 2)
            standings._rated[_text(name)] = _count(n)
        standings._next = _count(value["next"])
        for item in _list(value["waiting"]):  # a game, or [number] for an unscored one
            held = _game_from_state(item) if len(_list(item)) != 1 else None
            standings._waiting[held.number if held is not None else _count(_list(item)[0])] = held
        standings._waiting_order = sorted(standings._waiting)  # a sorted list is a heap
        return standings

    # ----------------------------------------------------------------------- queries

    def recorded(self, number: int) -> bool:
        """Whether game ``number`` is counted already (a resumed run's archive may hold a game twice)."""
        return number in self._numbers

    @property
    def engines(self) -> tuple[str, ...]:
        """Engines in order of registration or first appearance."""
        return tuple(self._engines)

    @property
    def played(self) -> int:
        """Games recorded."""
        return self._count

    @property
    def place_count(self) -> int:
        """Places a game can award: the most sides of any recorded game or of ``seats``."""
        return max(self._places, self._sides)

    def tally(self, name: str) -> EngineTally:
        counts = self._tallies.get(name) or _Counts()
        if self._seats == 2:
            return counts.two_seat_tally(name)
        return counts.seats_tally(name, max(self.place_count, 1))

    def head_to_head(self, name: str, opponent: str) -> EngineTally:
        """``name``'s record in two-seat games against ``opponent`` only."""
        return (self._versus.get((name, opponent)) or _Counts()).two_seat_tally(name)

    def pairs(self, name: str, opponent: str | None = None) -> PairCounts:
        """``name``'s pentanomial counts (two seats), against ``opponent`` only when given."""
        slots = self._pairs.get(name) if opponent is None else self._pairs_versus.get((name, opponent))
        return _pair_counts_of(slots or [0] * 8)

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
        """The joint Bradley-Terry rating of every engine over all two-seat games (``bradley_terry``)."""
        points = {pair: c.wins + 0.5 * c.draws for pair, c in self._versus.items()}
        meetings = {pair: c.wins + c.draws + c.losses for pair, c in self._versus.items()}
        return joint_ratings_from_counts(self._engines, points, meetings, prior=prior)

    def ranking(self, penta: bool = True, joint: bool = False) -> list[RankingRow]:
        """Each engine's Elo against the field it met, best first (two seats).

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

    def ratings(self) -> dict[str, WengLinRating]:
        """Weng-Lin ratings of every engine (``weng_lin``), in engine order: the games of
        three and four seats rated in number order (see the module's notes).

        Raises:
            ValueError: two-seat standings (they rate by Elo).
        """
        if self._seats == 2:
            raise ValueError("two-seat standings rate by Elo, not Weng-Lin")

        beliefs, rated = dict(self._beliefs), dict(self._rated)
        for number in sorted(self._waiting):
            waiting = self._waiting[number]
            if waiting is not None:
                self._fold(waiting, beliefs, rated)
        prior = (WENG_LIN_MU, WENG_LIN_SIGMA)
        return {name: WengLinRating(name, *beliefs.get(name, prior), rated.get(name, 0)) for name in self._engines}

    def rating_ranking(self) -> list[NSeatRankingRow]:
        """Three and four seats, best first: by ordinal (``mu - 3 sigma``), then score, then name."""
        ratings = self.ratings()
        rows = [(ratings[name], self.tally(name)) for name in self._engines]
        rows.sort(key=lambda r: (-r[0].ordinal, -r[1].score, r[0].name))
        return [NSeatRankingRow(i + 1, rating.name, rating, tally) for i, (rating, tally) in enumerate(rows)]

    def format_ranking(self, penta: bool = True, joint: bool = False) -> str:
        """Two seats, a fastchess-style table: Rank, Name, Elo, +/-, nElo, +/-, Games, Score, Draw[, Ptnml(0-2)].

        Draw is the drawn-game share (trinomial) or the 1-of-2-points pair share (pentanomial).
        With ``joint``, Elo and +/- are the joint rating (mean 0, 95 % interval), finite for an
        engine that won or lost every game, where the per-engine Elo prints ``n/a``; nElo stays
        the per-engine figure.  Three and four seats: ``_format_placings`` (``penta`` and
        ``joint`` do not apply).
        """
        if self._seats != 2:
            return self._format_placings()
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

    def _format_placings(self) -> str:
        """The ranking table of three and four seats: Rank, Name, mu, sigma, Ordinal, Games, Points,
        Score, 1st, 2nd[, 3rd].

        Score is points over the points its seats could have scored (50 % = the field's average);
        a ``Seats`` column follows Games when an engine filled both seats of a team.
        """
        rows = self.rating_ranking()
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

    def crosstable(self, penta: bool = True, joint: bool = False) -> str:
        """Points scored by each row engine against each column engine, ``points/games`` (two
        seats; empty for three and four seats, which rank by placings).

        Rows and columns follow the ranking (``ranking(penta, joint)``); ``-`` on the
        diagonal, ``.`` for engines that have not met.
        """
        if self._seats != 2:
            return ""
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


def _ordinal_text(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")
