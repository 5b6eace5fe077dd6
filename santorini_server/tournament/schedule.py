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
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..rules.gods import SIMPLE_GODS, check_gods, check_matchup

__all__ = [
    "ScheduledGame",
    "build_schedule",
    "parse_gods_list",
    "parse_teams",
    "set_size",
    "draw_gods",
    "instance_names",
    "ALL_MATCHUPS",
    "PLAYER_COUNTS",
    "MAX_GAMES",
    "SchedulePlan",
    "plan_schedule",
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
#: API, and of the schedule's total.  The schedule is a list made whole before the first game
#: (and again by each referee process of the pool): a million games take about 1.2 s and 200 MB
#: a process with the runner's index of them; ten times that would be seconds and gigabytes
#: before the first game, for a run that would never end.
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


def instance_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """A name per seat for the engine *process* that plays it: the engine's name, and ``name~2``
    for its second seat in one game (four seats, a team of one engine): each seat has a process
    of its own, and engine pools key running engines by name.  Records keep the engines' names."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}~{seen[name]}")
    return tuple(out)


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


def draw_gods(seed: int, index: int, players: int) -> tuple[str, ...]:
    """The gods of set ``index`` of the cycle under ``--gods all`` with three or four seats:
    distinct gods of the eight-god pool, in seat order, from a generator seeded by both."""
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


def _encounters(
    n: int, fmt: str, seeds: int, players: int, teams: tuple[tuple[int, int], ...] | None
) -> tuple[int, Callable[[], Iterable[tuple[int, ...]]]]:
    """How many encounters the tournament has, and what lists them: the count first, so that a
    schedule too large (:data:`MAX_GAMES`) is refused before anything is made."""
    if players != 2 and fmt != "round-robin":
        raise ValueError(f"--format {fmt} is for two-seat tournaments; three and four seats play round-robin")
    if players == 3:
        if n < 3:
            raise ValueError(f"a three-seat tournament needs at least 3 engines, got {n}")
        return math.comb(n, 3), lambda: itertools.combinations(range(n), 3)
    if players == 4:
        sides = teams if teams is not None else tuple((i, i) for i in range(n))
        return math.comb(len(sides), 2), lambda: ((*a, *b) for a, b in itertools.combinations(sides, 2))
    if fmt == "round-robin":
        return math.comb(n, 2), lambda: itertools.combinations(range(n), 2)
    if fmt == "gauntlet":
        if not 1 <= seeds < n:
            raise ValueError(f"a gauntlet needs 1 <= seeds < engines, got {seeds} seeds and {n} engines")
        return seeds * (n - seeds), lambda: ((s, o) for s in range(seeds) for o in range(seeds, n))
    raise ValueError(f"unknown tournament format {fmt!r} (round-robin or gauntlet)")


def _seatings(encounter: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The seat orders of one set: engine index per seat."""
    if len(encounter) == 2:
        a, b = encounter
        return [(a, b), (b, a)]
    if len(encounter) == 3:
        return list(itertools.permutations(encounter))
    a1, a2, b1, b2 = encounter  # team A = (a1, a2), team B = (b1, b2); a team holds seats 1+3 or 2+4
    return [(a1, b1, a2, b2), (b1, a1, b2, a2)]


def plan_schedule(
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
) -> SchedulePlan:
    """The tournament's schedule checked and counted, built only when asked (:meth:`SchedulePlan.build`):
    a view of a run's standings needs its total, not a million games (120 MB).

    Args:
        games: games per encounter per round, a multiple of the set (:func:`set_size`: 2, or 6
            with three seats).  Default: one set per condition (gods x opening).
        matchups: god lists, or None with three or four seats: a seeded draw per set.
        order: ``sequential`` or ``random`` (conditions shuffled with ``seed``).
        players: seats per game (2, 3 or 4).
        teams: four seats: the teams (engine indices); default: each engine a team of itself.
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
    conditions = [(g, o) for o in openings for g in gods_list]
    if order == "random":
        random.Random(seed).shuffle(conditions)
    elif order != "sequential":
        raise ValueError(f"unknown opening order {order!r} (sequential or random)")
    size = set_size(players)
    per_encounter = size * len(conditions) if games is None else games
    if per_encounter < size or per_encounter % size:
        what = {
            2: "even (pairs)", 3: "a multiple of 6 (every seat order of a group)", 4: "even (the teams change sides)",
        }[players]
        raise ValueError(f"games per encounter must be positive and {what}, got {per_encounter}")
    count, listing = _encounters(engines, fmt, seeds, players, teams)
    total = rounds * count * per_encounter
    if total > MAX_GAMES:
        raise ValueError(
            f"the schedule would have {total:,} games ({rounds:,} round{'s' * (rounds != 1)} x {count:,} "
            f"encounter{'s' * (count != 1)} x {per_encounter:,} games); "
            f"a tournament has at most {MAX_GAMES:,}"
        )

    def build() -> list[ScheduledGame]:
        # each encounter's seat orders made once: every game of the encounter shares them
        seatings = [_seatings(encounter) for encounter in listing()]
        schedule: list[ScheduledGame] = []
        sets = per_encounter // size
        for rnd in range(1, rounds + 1):
            for orders in seatings:
                for k in range(sets):
                    # every encounter gets the same conditions (fair); later rounds continue the cycle
                    index = (rnd - 1) * sets + k
                    gods, opening = conditions[index % len(conditions)]
                    if gods is None:
                        gods = draw_gods(seed, index, players)
                    for seats in orders:
                        schedule.append(ScheduledGame(len(schedule) + 1, seats, gods, opening, rnd))
        return schedule

    return SchedulePlan(total, build)


@dataclass(frozen=True)
class SchedulePlan:
    """A checked schedule: its number of games, and what builds it."""

    total: int
    build: Callable[[], list[ScheduledGame]]


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
) -> list[ScheduledGame]:
    """Every game of the tournament in playing order (:func:`plan_schedule`, built)."""
    return plan_schedule(
        engines, fmt=fmt, seeds=seeds, rounds=rounds, games=games, matchups=matchups, openings=openings, order=order,
        seed=seed, players=players, teams=teams,
    ).build()
