"""The tournament schedule: which engines play which game, with which gods and opening (pure).

Theory of operation.  A tournament is a list of *encounters* (the engines that meet: every pair
for a two-seat round-robin, each seed against each other engine for a gauntlet, every group of
three engines for three seats, every pair of teams for four seats).  Each encounter plays
``games`` games per round, in *sets*: the games of a set share the conditions (gods and opening)
and differ only in who sits where, so each engine plays each seat of every condition.

* Two seats: a set is a *pair*, the engines swapping seats (cutechess ``-repeat``, fastchess's
  game pairs).  Pairs are numbered consecutively, so games ``2k-1`` and ``2k`` are one pair: the
  pentanomial statistics and tools such as OpenBench rely on that numbering.
* Three seats: a set is the 6 seat orders of the group (SPEC.md section 10.1).
* Four seats: a set is 2 games, the teams changing sides (a team holds seats 1 and 3, or 2 and
  4).  By default a team is one engine in both of its seats; ``--teams a+b,c+d`` pairs engines.

Gods of three and four seats are god powers, one per seat, never ``mortal`` and never twice.
Given as ``a/b/c`` lists they cycle over the sets like two-seat matchups; ``all`` (and the
default) draws each set's gods from the eight-god pool with a generator seeded by ``--seed``
and the set's place in the cycle, so every encounter gets the same draws (fair) and the
schedule stays a pure function of the configuration and the seed, which is what makes
``--resume`` replay exactly the unfinished games.

The schedule is never listed: :class:`Schedule` holds the settings that define it and computes
game ``n`` by arithmetic (which round, encounter, set and seat order ``n`` falls in; the
encounter is unranked from the combinations of engines), so a million-game schedule is a few
hundred bytes in every process that holds the configuration, and the first game starts at once.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Container, Iterator, Sequence, Sized
from dataclasses import dataclass
from typing import Protocol, overload, runtime_checkable

from ..rules.gods import SIMPLE_GODS, check_gods, check_matchup

__all__ = [
    "ScheduledGame",
    "Schedule",
    "Pending",
    "Games",
    "build_schedule",
    "parse_gods_list",
    "parse_teams",
    "set_size",
    "draw_gods",
    "ALL_MATCHUPS",
    "PLAYER_COUNTS",
    "MAX_GAMES",
]

#: ``--gods all``: every ordered pair of different gods of santorini-simple-gods-v1's pool
#: (Hermes and Prometheus must be named explicitly, SPEC.md section 1.1).
ALL_MATCHUPS: tuple[tuple[str, str], ...] = tuple(
    (a, b) for a, b in itertools.product(SIMPLE_GODS, SIMPLE_GODS) if a != b
)
#: Seats a tournament's games may have (``--players``).
PLAYER_COUNTS = (2, 3, 4)
#: The most games one tournament (or server run) may schedule (SPEC.md section 10.1): the bound of
#: ``--rounds`` and ``--games``, of those settings in a TOML file, a ``tournament.json`` and the job
#: API, and of the schedule's total.  The schedule itself is computed game by game
#: (:class:`Schedule`), so the bound is not its memory: it keeps a run one that can end (a
#: million games of instant engines take the better part of a day), the runner's bitset of
#: finished games (125 KB at the bound) and the report's row per game (some 165 MB) in reason.
MAX_GAMES = 1_000_000
#: ``matchups`` meaning "draw each set's gods from the pool" (``--gods all`` with three or four
#: seats, the default there).
DRAW = None

Matchups = tuple[tuple[str, ...], ...] | None
"""God lists cycled over the sets, or None: a seeded draw per set (three and four seats)."""


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule; ``seats`` indexes the tournament's engine list, seat order."""

    number: int
    seats: tuple[int, ...]
    gods: tuple[str, ...]
    opening: str | None
    round: int

    @property
    def player1(self) -> int:
        return self.seats[0]

    @property
    def player2(self) -> int:
        return self.seats[1]

    @property
    def nseats(self) -> int:
        return len(self.seats)

    @property
    def pair(self) -> int:
        """1-based pair number (two seats): games 2k-1 and 2k form pair k."""
        return (self.number + 1) // 2


def set_size(players: int) -> int:
    """Games in a set: 2 (two seats, pairs), 6 (three seats: every seat order), 2 (four: sides)."""
    return 6 if players == 3 else 2


def parse_gods_list(text: str, players: int = 2) -> Matchups:
    """``apollo/pan,athena/mortal`` or ``all`` for two seats; ``a/b/c[,...]`` (three seats),
    ``a/b/c/d[,...]`` (four) or ``all`` (a seeded draw per set, also the default there).

    Raises:
        ValueError: a one-line message naming the bad part.
    """
    text = text.strip()
    if players not in PLAYER_COUNTS:
        raise ValueError(f"--players must be 2, 3 or 4, got {players}")
    if players == 2:
        if text == "all":
            return ALL_MATCHUPS
        if not text:
            return (("mortal", "mortal"),)
    elif text in ("all", ""):
        return DRAW
    example = {2: "apollo/pan", 3: "apollo/athena/pan", 4: "apollo/artemis/athena/pan"}[players]
    matchups: list[tuple[str, ...]] = []
    for part in text.split(","):
        gods = tuple(g.strip() for g in part.strip().split("/"))
        if len(gods) != players:
            raise ValueError(f"bad gods {part.strip()!r}: a {players}-seat game needs {players} gods, e.g. {example}, or 'all'")
        try:
            check_matchup(*gods) if players == 2 else check_gods(gods)
        except ValueError as exc:
            raise ValueError(f"bad gods {part.strip()!r}: {exc}") from None
        matchups.append(gods)
    return tuple(matchups)


@functools.lru_cache(maxsize=4096)
def draw_gods(seed: int, index: int, players: int) -> tuple[str, ...]:
    """The gods of set ``index`` of the cycle under ``--gods all`` with three or four seats:
    distinct gods of the eight-god pool, in seat order, from a generator seeded by both.
    Cached (bounded): every encounter of a round draws the same sets, and a draw costs ~16 us."""
    return tuple(random.Random(f"santorini-gods/{seed}/{index}/{players}").sample(SIMPLE_GODS, players))


def parse_teams(text: str, names: list[str]) -> tuple[tuple[int, int], ...]:
    """``a+b,c+d``: teams of two engines named in ``names`` (the same engine twice is allowed).

    Raises:
        ValueError: a one-line message: a part that is not ``x+y``, an unknown name, an engine
            in two teams, fewer than two teams.
    """
    teams: list[tuple[int, int]] = []
    where: dict[int, str] = {}
    for part in text.split(","):
        part = part.strip()
        members = [m.strip() for m in part.split("+")]
        if len(members) != 2 or not all(members):
            raise ValueError(f"bad team {part!r} in --teams: expected two engine names joined by '+', e.g. a+b")
        team = []
        for member in members:
            if member not in names:
                raise ValueError(f"--teams: no engine named {member!r} (engines: {', '.join(names)})")
            team.append(names.index(member))
        for index in set(team):
            if index in where:
                raise ValueError(
                    f"--teams: {names[index]} is in two teams ({where[index]} and {part}); an engine plays for one team"
                )
            where[index] = part
        teams.append((team[0], team[1]))
    if len(teams) < 2:
        raise ValueError(f"--teams needs at least two teams, got {len(teams)}")
    return tuple(teams)


def _encounter_count(n: int, fmt: str, seeds: int, players: int, teams: tuple[tuple[int, int], ...] | None) -> int:
    """How many encounters the tournament has (checking the format against the seats), counted,
    not listed: a schedule too large (:data:`MAX_GAMES`) is refused before anything is made."""
    if players != 2 and fmt != "round-robin":
        raise ValueError(f"--format {fmt} is for two-seat tournaments; three and four seats play round-robin")
    if players == 3:
        if n < 3:
            raise ValueError(f"a three-seat tournament needs at least 3 engines, got {n}")
        return math.comb(n, 3)
    if players == 4:
        return math.comb(len(teams) if teams is not None else n, 2)
    if fmt == "round-robin":
        return math.comb(n, 2)
    if fmt == "gauntlet":
        if not 1 <= seeds < n:
            raise ValueError(f"a gauntlet needs 1 <= seeds < engines, got {seeds} seeds and {n} engines")
        return seeds * (n - seeds)
    raise ValueError(f"unknown tournament format {fmt!r} (round-robin or gauntlet)")


def _combination(k: int, n: int, r: int) -> tuple[int, ...]:
    """The ``k``-th (0-based) ``r``-combination of ``range(n)`` in :func:`itertools.combinations`
    order, without listing those before it: each element is the largest ``a`` such that the
    combinations (of the rest) beginning below ``a`` number at most ``k``, found by bisection,
    so O(r log n) :func:`math.comb` calls."""
    out = []
    low = 0  # the smallest element this position may hold
    for left in range(r, 0, -1):
        total = math.comb(n - low, left)  # combinations of range(low, n); those beginning below a: total - C(n - a, left)
        lo, hi = low, n - left
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if total - math.comb(n - mid, left) <= k:
                lo = mid
            else:
                hi = mid - 1
        k -= total - math.comb(n - lo, left)
        out.append(lo)
        low = lo + 1
    return tuple(out)


def _seatings(encounter: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The seat orders of one set: engine index per seat."""
    if len(encounter) == 2:
        a, b = encounter
        return [(a, b), (b, a)]
    if len(encounter) == 3:
        return list(itertools.permutations(encounter))
    a1, a2, b1, b2 = encounter  # team A = (a1, a2), team B = (b1, b2); a team holds seats 1+3 or 2+4
    return [(a1, b1, a2, b2), (b1, a1, b2, a2)]


@dataclass(frozen=True, slots=True, repr=False)
class Schedule(Sequence[ScheduledGame]):
    """Every game of a tournament, in playing order, made only when asked for (O(1) memory).

    What defines the games, not the games: the encounters are unranked from the combinations of
    the engines (or of the teams) by number, and the conditions (gods x opening) by index, so a
    game costs O(log engines) arithmetic whichever it is.  Two things are held whole, both
    bounded by the settings rather than by the games: the teams, and under ``--order random``
    the shuffled order of the conditions (one int per gods list x opening).  Frozen and small,
    it pickles with the :class:`TournamentConfig` a pool worker or Dask ships.  Equal schedules
    have equal settings (normalized: what does not change the games is left out), so equal games.

    ``len``, ``iter`` (playing order), :meth:`game` (by 1-based number), ``schedule[i]`` (0-based,
    and slices: a list), ``game in schedule`` (O(1)) and :meth:`games_from` (those not yet done).
    """

    engines: int
    players: int
    fmt: str
    seeds: int
    teams: tuple[tuple[int, int], ...] | None
    rounds: int
    encounters: int
    per_encounter: int
    """Games per encounter per round, a multiple of :func:`set_size`."""
    matchups: tuple[tuple[str, ...] | None, ...]
    """God lists cycled over the sets; ``(None,)``: a seeded draw per set."""
    openings: tuple[str | None, ...]
    shuffle: tuple[int, ...] | None
    """``--order random``: condition ``i`` of the cycle is condition ``shuffle[i]`` of the
    sequential order (gods lists within openings); None: sequential."""
    seed: int
    """The draw's seed (0 when nothing is drawn)."""
    paired: bool = False
    """Conditions are ``matchups[i]`` with ``openings[i]`` (``--openings bundled``: each matchup
    its own suite) instead of every gods list with every opening."""

    def __len__(self) -> int:
        return self.rounds * self.encounters * self.per_encounter

    def __repr__(self) -> str:
        return (
            f"<Schedule of {len(self):,} games: {self.rounds:,} round{'s' * (self.rounds != 1)} x "
            f"{self.encounters:,} encounter{'s' * (self.encounters != 1)} x {self.per_encounter:,} games, "
            f"{self.players} seats>"
        )

    @property
    def numbers(self) -> range:
        """The game numbers, 1 to ``len``: ``n in schedule.numbers`` checks a number in O(1)."""
        return range(1, len(self) + 1)

    def game(self, number: int) -> ScheduledGame:
        """Game ``number`` (1-based), computed.

        Raises:
            ValueError: ``number`` is not in 1..len.
        """
        if not isinstance(number, int) or not 1 <= number <= len(self):
            raise ValueError(f"no game {number!r} in a schedule of {len(self):,} games")
        size = set_size(self.players)
        sets = self.per_encounter // size
        rest, seat = divmod(number - 1, size)  # the place in the set
        rest, k = divmod(rest, sets)  # the set in the encounter
        rnd, encounter = divmod(rest, self.encounters)
        gods, opening = self._condition(rnd * sets + k)
        return ScheduledGame(number, _seatings(self._encounter(encounter))[seat], gods, opening, rnd + 1)

    @overload
    def __getitem__(self, index: int) -> ScheduledGame: ...

    @overload
    def __getitem__(self, index: slice) -> list[ScheduledGame]: ...

    def __getitem__(self, index: int | slice) -> ScheduledGame | list[ScheduledGame]:
        """0-based, like the list the schedule once was; a slice is a list of the games it picks."""
        if isinstance(index, slice):
            return [self.game(n) for n in self.numbers[index]]
        if not -len(self) <= index < len(self):
            raise IndexError(f"schedule index {index} out of range ({len(self):,} games)")
        return self.game(index % len(self) + 1)

    def __contains__(self, game: object) -> bool:
        return isinstance(game, ScheduledGame) and game.number in self.numbers and self.game(game.number) == game

    def __iter__(self) -> Iterator[ScheduledGame]:
        return self._games(None)

    def games_from(self, done: Container[int]) -> Pending:
        """The games whose number is not in ``done`` (e.g. the runner's bitset of recorded games),
        in playing order, made as the iteration reaches them."""
        return Pending(self, done)

    def _encounter(self, index: int) -> tuple[int, ...]:
        """Encounter ``index`` (0-based) of a round, engine per place, as the old listing had it:
        combinations of the engines (or of the teams: team A's two engines, then B's), or each
        seed against each other engine for a gauntlet."""
        if self.players == 4:
            a, b = _combination(index, self.engines if self.teams is None else len(self.teams), 2)
            if self.teams is None:
                return (a, a, b, b)
            return (*self.teams[a], *self.teams[b])
        if self.fmt == "gauntlet":
            seed, other = divmod(index, self.engines - self.seeds)
            return (seed, self.seeds + other)
        return _combination(index, self.engines, self.players)

    def _listing(self) -> Iterator[tuple[int, ...]]:
        """The encounters of a round in order, listed (what :meth:`_encounter` unranks: the tests
        hold the two to the same games), so that iterating costs no unranking."""
        if self.players == 4:
            sides = self.teams if self.teams is not None else tuple((i, i) for i in range(self.engines))
            return ((*a, *b) for a, b in itertools.combinations(sides, 2))
        if self.fmt == "gauntlet":
            return ((s, o) for s in range(self.seeds) for o in range(self.seeds, self.engines))
        return itertools.combinations(range(self.engines), self.players)

    def _condition(self, index: int) -> tuple[tuple[str, ...], str | None]:
        """The gods and opening of set ``index`` of the cycle (rounds continue it; a draw is
        seeded with ``index`` itself, so each set of the cycle has its own)."""
        place = index % (len(self.openings) if self.paired else len(self.matchups) * len(self.openings))
        if self.shuffle is not None:
            place = self.shuffle[place]
        opening, gods = (place, place) if self.paired else divmod(place, len(self.matchups))
        listed = self.matchups[gods]
        return (draw_gods(self.seed, index, self.players) if listed is None else listed), self.openings[opening]

    def _games(self, skip: Container[int] | None) -> Iterator[ScheduledGame]:
        """The games in playing order, but those whose number is in ``skip`` (read as each game is
        reached); an encounter's seat orders and a set's conditions are made once for its games."""
        size = set_size(self.players)
        sets = self.per_encounter // size
        number = 0
        for rnd in range(self.rounds):
            for encounter in self._listing():
                orders = _seatings(encounter)
                for k in range(sets):
                    if skip is not None and all(number + s + 1 in skip for s in range(size)):
                        number += size
                        continue
                    gods, opening = self._condition(rnd * sets + k)
                    for seats in orders:
                        number += 1
                        if skip is None or number not in skip:
                            yield ScheduledGame(number, seats, gods, opening, rnd + 1)


@runtime_checkable
class Done(Protocol):
    """Games done that can list the numbers missing from them (the runner's bitset), so that a
    resume near the end of a million games does not test each number."""

    def __contains__(self, number: object) -> bool: ...

    def __len__(self) -> int: ...

    def missing(self, total: int) -> Iterator[int]:
        """The numbers 1..``total`` not done, ascending, read as the iteration reaches them."""
        ...


class Pending:
    """The games of a :class:`Schedule` not in ``done``, in playing order, made as reached.

    ``len`` is counted when it is made (nothing to count when ``done`` is empty; with a
    :class:`Done`, from the numbers it lists missing, else a test of each number); the iteration
    reads ``done`` as it reaches each game, so only games already handed out may be added
    meanwhile (the runner adds a game when its record comes back).
    """

    __slots__ = ("_count", "done", "schedule")

    def __init__(self, schedule: Schedule, done: Container[int]) -> None:
        self.schedule = schedule
        self.done = done
        if isinstance(done, Sized) and not len(done):
            self._count = len(schedule)
        elif isinstance(done, Done):
            self._count = sum(1 for _ in done.missing(len(schedule)))
        else:
            self._count = sum(1 for n in schedule.numbers if n not in done)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[ScheduledGame]:
        if isinstance(self.done, Done) and len(self.done):  # made one at a time from the numbers missing
            return (self.schedule.game(n) for n in self.done.missing(len(self.schedule)))
        return self.schedule._games(self.done)

    def __repr__(self) -> str:
        return f"<{self._count:,} pending games of {self.schedule!r}>"


class Games(Protocol):
    """What a backend plays: games in playing order and how many (a list, a :class:`Schedule`,
    or its :meth:`Schedule.games_from`, which make each game as the iteration reaches it)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[ScheduledGame]: ...


def build_schedule(
    engines: int,
    *,
    fmt: str = "round-robin",
    seeds: int = 1,
    rounds: int = 1,
    games: int | None = None,
    matchups: Matchups = (("mortal", "mortal"),),
    openings: tuple[str | None, ...] = (None,),
    order: str = "sequential",
    seed: int = 0,
    players: int = 2,
    teams: tuple[tuple[int, int], ...] | None = None,
    paired: bool = False,
) -> Schedule:
    """Every game of the tournament in playing order (a :class:`Schedule`: computed as asked).

    Args:
        games: games per encounter per round, a multiple of the set (:func:`set_size`: 2, or 6
            with three seats).  Default: one set per condition (gods x opening).
        matchups: god lists, or None with three or four seats: a seeded draw per set.
        order: ``sequential`` or ``random`` (conditions shuffled with ``seed``).
        players: seats per game (2, 3 or 4).
        teams: four seats: the teams (engine indices); default: each engine a team of itself.
        paired: ``matchups`` and ``openings`` are zipped (one opening per gods list, as
            ``--openings bundled`` gives them), not crossed.
    """
    if players not in PLAYER_COUNTS:
        raise ValueError(f"--players must be 2, 3 or 4, got {players}")
    if engines < 2:
        raise ValueError(f"a tournament needs at least 2 engines, got {engines}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    if matchups is DRAW and players == 2:
        raise ValueError("a two-seat tournament names its god matchups (or 'all')")
    if teams is not None and players != 4:
        raise ValueError("--teams is for four-seat tournaments (--players 4)")
    gods_list: tuple[tuple[str, ...] | None, ...] = (None,) if matchups is DRAW else matchups
    if paired and len(gods_list) != len(openings):
        raise ValueError(f"paired conditions need one gods list per opening, got {len(gods_list)} and {len(openings)}")
    conditions = len(openings) if paired else len(gods_list) * len(openings)
    shuffle: list[int] | None = None
    if order == "random":
        # shuffling the indices permutes them as the conditions themselves were shuffled
        shuffle = list(range(conditions))
        random.Random(seed).shuffle(shuffle)
    elif order != "sequential":
        raise ValueError(f"unknown opening order {order!r} (sequential or random)")
    size = set_size(players)
    per_encounter = size * conditions if games is None else games
    if per_encounter < size or per_encounter % size:
        what = {
            2: "even (pairs)", 3: "a multiple of 6 (every seat order of a group)", 4: "even (the teams change sides)",
        }[players]
        raise ValueError(f"games per encounter must be positive and {what}, got {per_encounter}")
    count = _encounter_count(engines, fmt, seeds, players, teams)
    total = rounds * count * per_encounter
    if total > MAX_GAMES:
        raise ValueError(
            f"the schedule would have {total:,} games ({rounds:,} round{'s' * (rounds != 1)} x {count:,} "
            f"encounter{'s' * (count != 1)} x {per_encounter:,} games); "
            f"a tournament has at most {MAX_GAMES:,}"
        )
    gauntlet = players == 2 and fmt == "gauntlet"
    return Schedule(
        engines=engines,
        players=players,
        fmt="gauntlet" if gauntlet else "round-robin",
        seeds=seeds if gauntlet else 0,
        teams=teams,
        rounds=rounds,
        encounters=count,
        per_encounter=per_encounter,
        matchups=gods_list,
        openings=tuple(openings),
        shuffle=None if shuffle is None or shuffle == sorted(shuffle) else tuple(shuffle),
        seed=seed if DRAW in gods_list else 0,
        paired=paired,
    )
