"""How a game ended: who won, the termination tag, and a precise one-line detail.

The reason text follows cutechess-cli's wording where tools parse it: OpenBench and fishtest
count crashes by "disconnect"/"stalls", time losses by "on time" and illegal moves by "illegal".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..termination import Termination

if TYPE_CHECKING:
    from ..records import GameRecord

__all__ = ["Outcome"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """``winner`` is 1 or 2 (None: aborted); ``detail`` is precise and one line."""

    winner: int | None
    termination: Termination
    detail: str = ""

    @classmethod
    def from_record(cls, record: GameRecord) -> Outcome:
        """The outcome a game record states (records carry it in Result/Termination tags)."""
        winner = {"1-0": 1, "0-1": 2}.get(record.result)
        return cls(winner, Termination(record.termination), record.termination_detail or "")

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``*`` (aborted)."""
        return {1: "1-0", 2: "0-1"}.get(self.winner or 0, "*")

    def reason(self, names: tuple[str, str]) -> str:
        """cutechess-style reason for the ``Finished game`` line, e.g. ``B loses on time by 37 ms``."""
        if self.winner is None:
            return f"game aborted{': ' + self.detail if self.detail else ''}"
        winner, loser = names[self.winner - 1], names[2 - self.winner]
        t, d = self.termination, self.detail
        return {
            Termination.CLIMB: f"{winner} wins by climbing to level 3",
            Termination.PAN_DROP: f"{winner} wins by Pan's drop",
            Termination.NO_MOVES: f"{loser} has no legal turn",
            Termination.RESIGN: f"{loser} resigns",
            Termination.TIME: f"{loser} loses on time{' ' + d if d else ''}",
            Termination.ILLEGAL: f"{loser} makes an illegal turn{': ' + d if d else ''}",
            Termination.CRASH: f"{loser} disconnects{': ' + d if d else ''}",
            Termination.STALL: f"{loser}'s connection stalls{': ' + d if d else ''}",
            Termination.ENGINE_ERROR: f"{loser} engine error{': ' + d if d else ''}",
            Termination.LIMIT: f"{loser} disconnects: resource limit{': ' + d if d else ''}",
        }.get(t, f"{t}: {d}")
