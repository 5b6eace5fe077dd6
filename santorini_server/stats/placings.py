"""One finished game of 2, 3 or 4 seats as the N-seat standings score it, and its points.

A game is the engines in seat order and one placing per seat (1 = first; SPEC.md section 12.7):
3 seats ``(1, 3, 2)`` (seat 1 won, seat 3 second) or ``(1, 2, 2)`` (seats 2 and 3 were both
still in when seat 1 won: a tie), 4 seats ``(2, 1, 2, 1)`` (the team of seats 2 and 4 won),
2 seats ``(1, 2)`` / ``(2, 1)``.

A *side* is what finishes as one: a seat in 2- and 3-seat games, a team in 4-seat games
(seats 1 and 3, seats 2 and 4).  An engine may fill both seats of a team, never two sides.

Points (pairwise, so ties share): a seat scores 1 for every opposing side that placed below
its own side and 1/2 for every opposing side that tied with it.

* 2 seats: a win 1, a loss 0 (a draw 1/2 each), as in the two-seat standings;
* 3 seats: first 2, second 1, third 0; a tie for second gives each 1/2; all three tied, 1 each;
* 4 seats: every seat of the winning team 1, of the losing team 0.

A side can score at most ``sides - 1`` per game, so ``points / (seats * (sides - 1))`` is a
score share where 50 % is the field's average in every format.  A seat, not a game, is the
unit: an engine that fills both seats of a team plays two seats of that game and scores for
each, as two engines would (the Weng-Lin rating treats it the same way).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NSeatGame", "SEAT_COUNTS"]

SEAT_COUNTS = (2, 3, 4)
"""The seat counts a game may have."""


@dataclass(frozen=True)
class NSeatGame:
    """A finished game: ``number`` (1-based schedule number: the rating reads games in this
    order), ``seats`` (engine name per seat, seat order), ``placings`` (one per seat, 1 = first;
    None: not scored, e.g. aborted or interrupted), ``termination`` (the game's tag), ``exits``
    (optional, per seat: the tag by which that seat left or lost, e.g. ``time`` for a 3-seat
    engine eliminated on time, ``""`` for a seat that did not; empty when unknown).

    Raises:
        ValueError: a seat count other than 2, 3 or 4; placings or exits of another length;
            a placing outside ``1..sides``; 4 seats whose teammates place differently; an
            engine on two sides.
    """

    number: int
    seats: tuple[str, ...]
    placings: tuple[int, ...] | None
    termination: str = ""
    exits: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.seats)
        if n not in SEAT_COUNTS:
            raise ValueError(f"a game has 2, 3 or 4 seats, not {n}")
        if self.number < 1:
            raise ValueError("game numbers start at 1")
        if self.exits and len(self.exits) != n:
            raise ValueError(f"{len(self.exits)} exits for {n} seats")
        for side in range(self.side_count):
            for other in range(side + 1, self.side_count):
                shared = set(self.side_members(side)) & set(self.side_members(other))
                if shared:
                    raise ValueError(f"game {self.number}: {sorted(shared)[0]} plays on two sides")
        if self.placings is None:
            return
        if len(self.placings) != n:
            raise ValueError(f"game {self.number}: {len(self.placings)} placings for {n} seats")
        for placing in self.placings:
            if not 1 <= placing <= self.side_count:
                raise ValueError(f"game {self.number}: placing {placing} is not in 1..{self.side_count}")
        if n == 4 and (self.placings[0] != self.placings[2] or self.placings[1] != self.placings[3]):
            raise ValueError(f"game {self.number}: teammates place alike in 4 seats, not {self.placings}")

    @property
    def side_count(self) -> int:
        """Seats in 2- and 3-seat games, teams (2) in 4-seat games."""
        return 2 if len(self.seats) == 4 else len(self.seats)

    def side_of(self, seat: int) -> int:
        """The side (0-based) of seat index ``seat`` (0-based): its team in 4 seats."""
        return seat % 2 if len(self.seats) == 4 else seat

    def side_seats(self, side: int) -> tuple[int, ...]:
        """Seat indices (0-based) of ``side``, in seat order."""
        return tuple(s for s in range(len(self.seats)) if self.side_of(s) == side)

    def side_members(self, side: int) -> tuple[str, ...]:
        """Engine per seat of ``side`` (the same name twice when one engine fills a team)."""
        return tuple(self.seats[s] for s in self.side_seats(side))

    @property
    def scored(self) -> bool:
        return self.placings is not None

    def points(self, seat: int) -> float | None:
        """Points of seat index ``seat``: 1 per opposing side placed below, 1/2 per side tied;
        None for an unscored game."""
        if self.placings is None:
            return None
        mine = self.placings[seat]
        side = self.side_of(seat)
        total = 0.0
        for other in range(self.side_count):
            if other == side:
                continue
            theirs = self.placings[self.side_seats(other)[0]]
            total += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        return total

    @property
    def max_points(self) -> float:
        """Most points one seat can score: one per opposing side."""
        return float(self.side_count - 1)
