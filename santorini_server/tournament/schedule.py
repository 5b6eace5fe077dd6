"""The tournament schedule: which engines play which game, with which gods and opening (pure).

Theory of operation.  A tournament is a list of *encounters* (two engines: every pair for a
round-robin, each seed against each other engine for a gauntlet).  Each encounter plays
``games`` games per round, in *pairs*: the two games of a pair share the conditions (god matchup
and opening) and swap the engines' seats, so each engine plays each side of every condition
(cutechess ``-repeat``, fastchess's game pairs).  Pairs are numbered consecutively, so games
``2k-1`` and ``2k`` are one pair: the pentanomial statistics and tools such as OpenBench rely on
that numbering.  The schedule is a pure function of the configuration and the seed, which is
what makes ``--resume`` replay exactly the unfinished games.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from ..rules.gods import SIMPLE_GODS, check_matchup

__all__ = ["ScheduledGame", "build_schedule", "parse_gods_list", "ALL_MATCHUPS"]

#: ``--gods all``: every ordered pair of different gods of santorini-simple-gods-v1's pool
#: (Hermes and Prometheus must be named explicitly, SPEC.md section 1.1).
ALL_MATCHUPS: tuple[tuple[str, str], ...] = tuple(
    (a, b) for a, b in itertools.product(SIMPLE_GODS, SIMPLE_GODS) if a != b
)


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule; ``player1``/``player2`` index the tournament's engine list."""

    number: int
    player1: int
    player2: int
    gods: tuple[str, ...]
    opening: str | None
    round: int

    @property
    def pair(self) -> int:
        """1-based pair number: games 2k-1 and 2k form pair k."""
        return (self.number + 1) // 2


def parse_gods_list(text: str) -> tuple[tuple[str, str], ...]:
    """``apollo/pan,athena/mortal`` or ``all``.  Raises ValueError with a one-line message."""
    if text.strip() == "all":
        return ALL_MATCHUPS
    matchups = []
    for part in text.split(","):
        gods = part.strip().split("/")
        if len(gods) != 2:
            raise ValueError(f"bad god matchup {part!r}: expected g1/g2, e.g. apollo/pan, or 'all'")
        check_matchup(gods[0], gods[1])
        matchups.append((gods[0], gods[1]))
    return tuple(matchups)


def _encounters(n: int, fmt: str, seeds: int) -> list[tuple[int, int]]:
    if fmt == "round-robin":
        return list(itertools.combinations(range(n), 2))
    if fmt == "gauntlet":
        if not 1 <= seeds < n:
            raise ValueError(f"a gauntlet needs 1 <= seeds < engines, got {seeds} seeds and {n} engines")
        return [(s, o) for s in range(seeds) for o in range(seeds, n)]
    raise ValueError(f"unknown tournament format {fmt!r} (round-robin or gauntlet)")


def build_schedule(
    engines: int,
    *,
    fmt: str = "round-robin",
    seeds: int = 1,
    rounds: int = 1,
    games: int | None = None,
    matchups: tuple[tuple[str, str], ...] = (("mortal", "mortal"),),
    openings: tuple[str | None, ...] = (None,),
    order: str = "sequential",
    seed: int = 0,
) -> list[ScheduledGame]:
    """Every game of the tournament in playing order.

    Args:
        games: games per encounter per round; even (pairs).  Default: two per condition (each
            god matchup x opening played from both sides).
        order: ``sequential`` or ``random`` (conditions shuffled with ``seed``).
    """
    if engines < 2:
        raise ValueError(f"a tournament needs at least 2 engines, got {engines}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    conditions = [(g, o) for o in openings for g in matchups]
    if order == "random":
        random.Random(seed).shuffle(conditions)
    elif order != "sequential":
        raise ValueError(f"unknown opening order {order!r} (sequential or random)")
    per_encounter = 2 * len(conditions) if games is None else games
    if per_encounter < 2 or per_encounter % 2:
        raise ValueError(f"games per encounter must be a positive even number (pairs), got {per_encounter}")
    schedule: list[ScheduledGame] = []
    pairs = per_encounter // 2
    for rnd in range(1, rounds + 1):
        for a, b in _encounters(engines, fmt, seeds):
            for k in range(pairs):
                # every encounter gets the same conditions (fair); later rounds continue the cycle
                gods, opening = conditions[((rnd - 1) * pairs + k) % len(conditions)]
                n = len(schedule) + 1
                schedule.append(ScheduledGame(n, a, b, gods, opening, rnd))
                schedule.append(ScheduledGame(n + 1, b, a, gods, opening, rnd))
    return schedule
