"""How a game ended: who won, the termination tag, a precise one-line detail, and every seat's place.

The reason text follows cutechess-cli's wording where tools parse it: OpenBench and fishtest
count crashes by "disconnect"/"stalls", time losses by "on time" and illegal moves by "illegal".

Games of three and four seats (SPEC.md section 15) also say where each seat finished
(:attr:`Outcome.placings`, 1 = first) and, with three seats, which seats left the game before its
end and why (:class:`Elimination`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..termination import Termination

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..records import GameRecord

__all__ = ["Outcome", "Elimination", "placings_text"]


@dataclass(frozen=True, slots=True)
class Elimination:
    """A seat that left a three-seat game (SPEC.md section 15.2): no complete turn, or a fault."""

    seat: int
    """0 for seat 1, 1 for seat 2, 2 for seat 3 (as :class:`~.events.Request` counts seats)."""
    termination: Termination
    detail: str
    placing: int
    """Its final place: one more than the seats still in after it left (3, then 2)."""
    turns: int
    """How many turns had been played when it left (where the record places it)."""

    def notice(self, nseats: int) -> tuple[int | None, ...]:
        """The placings its engine is told (SEI ``result``): its own place, the others not decided."""
        return tuple(self.placing if s == self.seat else None for s in range(nseats))


@dataclass(frozen=True, slots=True)
class Outcome:
    """``winner`` is a seat number 1..N (None: aborted); ``detail`` is precise and one line.

    With four seats ``winner`` is a seat of the winning team: the one whose turn won, or, when
    the other team lost, the winning team's first seat (1 or 2); :attr:`placings` names both.
    """

    winner: int | None
    termination: Termination
    detail: str = ""
    placings: tuple[int, ...] = ()
    """One place per seat in seat order, 1 = first (SPEC.md section 15.2); given for three and
    four seats, derived for two ((1, 2) or (2, 1)); empty when aborted."""
    decider: int | None = None
    """Three and four seats: the seat (1..N) whose winning turn, lost turn or fault ended the game."""
    eliminated: tuple[Elimination, ...] = ()
    """Three seats: the seats that left before the end, in order (not the decider; an aborted
    game's too)."""

    def __post_init__(self) -> None:
        if not self.placings and self.winner is not None:
            object.__setattr__(self, "placings", (1, 2) if self.winner == 1 else (2, 1))

    @classmethod
    def from_record(cls, record: GameRecord) -> Outcome:
        """The outcome a game record states (records carry it in Result/Termination tags)."""
        termination, detail = Termination(record.termination), record.termination_detail or ""
        placings = record.placings
        if placings is None:
            return cls(None, termination, detail)
        return cls(placings.index(1) + 1, termination, detail, placings if len(placings) > 2 else ())

    @property
    def nseats(self) -> int:
        """Seats in the game (0 for an aborted game)."""
        return len(self.placings)

    @property
    def result(self) -> str:
        """``1-0``, ``0-1``, placings such as ``1-3-2`` or ``2-1-2-1`` (three and four seats), or
        ``*`` (aborted)."""
        if self.winner is None:
            return "*"
        if len(self.placings) > 2:
            return placings_text(self.placings)
        return "1-0" if self.winner == 1 else "0-1"

    def reason(self, names: Sequence[str]) -> str:
        """cutechess-style reason for the ``Finished game`` line, e.g. ``B loses on time by 37 ms``.

        Three seats name the winner and every seat that left before (``A wins by climbing to
        level 3 (out before: B loses on time by 37 ms)``); four seats name both teams.
        """
        if self.winner is None:
            return f"game aborted{': ' + self.detail if self.detail else ''}"
        t, d = self.termination, self.detail
        if len(self.placings) <= 2:
            winner, loser = names[self.winner - 1], names[2 - self.winner]
            return _win_phrase(winner, t) or _loss_phrase(loser, t, d)
        decider = self.decider or self.winner
        phrase = _win_phrase(names[decider - 1], t) or _loss_phrase(names[decider - 1], t, d)
        if len(self.placings) == 4:
            team = list(dict.fromkeys(names[s] for s, p in enumerate(self.placings) if p == 1))
            if len(team) > 1:
                return f"{phrase}: {' and '.join(team)} win"
            return phrase if t in _WINS else f"{phrase}: {team[0]} wins"  # never "A wins by ...: A wins"
        if t not in _WINS:
            phrase += f", so {names[self.winner - 1]} wins as the last player in"
        if self.eliminated:
            before = "; ".join(_loss_phrase(names[e.seat], e.termination, e.detail) for e in self.eliminated)
            phrase += f" (out before: {before})"
        return phrase


def placings_text(placings: Sequence[int | None]) -> str:
    """Placings as SGN and SEI write them: ``1-3-2``; a place not decided yet is ``*``."""
    return "-".join("*" if p is None else str(p) for p in placings)


_WINS = frozenset({Termination.CLIMB, Termination.PAN_DROP})


def _win_phrase(winner: str, t: Termination) -> str | None:
    if t is Termination.CLIMB:
        return f"{winner} wins by climbing to level 3"
    if t is Termination.PAN_DROP:
        return f"{winner} wins by Pan's drop"
    return None


def _loss_phrase(loser: str, t: Termination, d: str) -> str:
    """What the seat that lost (or left) did, in cutechess's words."""
    return {
        Termination.NO_MOVES: f"{loser} has no legal turn",
        Termination.RESIGN: f"{loser} resigns",
        Termination.TIME: f"{loser} loses on time{' ' + d if d else ''}",
        Termination.ILLEGAL: f"{loser} makes an illegal turn{': ' + d if d else ''}",
        Termination.CRASH: f"{loser} disconnects{': ' + d if d else ''}",
        Termination.STALL: f"{loser}'s connection stalls{': ' + d if d else ''}",
        Termination.ENGINE_ERROR: f"{loser} engine error{': ' + d if d else ''}",
        Termination.LIMIT: f"{loser} disconnects: resource limit{': ' + d if d else ''}",
    }.get(t, f"{t}: {d}")
