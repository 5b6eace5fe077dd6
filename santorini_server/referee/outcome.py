"""How a game ended: the termination tags (protocol.md 4.5 and 5) and the human reason text.

The reason text follows cutechess-cli's wording where tools parse it: OpenBench and fishtest
count crashes by "disconnect"/"stalls", time losses by "on time" and illegal moves by "illegal"
(runner-anchors.md section 6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..records import GameRecord

__all__ = ["Outcome", "TERMINATIONS"]

#: Every termination tag, with what it means (SPEC.md repeats this table).
TERMINATIONS: dict[str, str] = {
    "climb": "the winner moved a worker up onto level 3",
    "pan-drop": "the winner (Pan) moved a worker down two or more levels",
    "no-moves": "the loser had no complete turn at the start of its turn",
    "resign": "the loser answered bestmove resign",
    "time": "the loser's clock went below -timemargin (or movetime + timemargin passed)",
    "illegal": "the loser sent a turn that is not STN or not a legal complete turn",
    "crash": "the loser's process exited, closed its output or could not be started",
    "stall": "the loser did not answer a bounded wait (seiok, readyok, a write)",
    "engine-error": "the loser answered error, or broke the SEI sequencing rules",
    "limit": "the loser's process broke its resource limit (limit.cpu or limit.memory)",
    "aborted": "the game was interrupted (Ctrl-C, shutdown); not scored",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """``winner`` is 1 or 2 (None: aborted); ``detail`` is precise and one line."""

    winner: int | None
    termination: str
    detail: str = ""

    @classmethod
    def from_record(cls, record: "GameRecord") -> "Outcome":
        """The outcome a game record states (records carry it in Result/Termination tags)."""
        winner = {"1-0": 1, "0-1": 2}.get(record.result)
        return cls(winner, record.termination, record.termination_detail or "")

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
            "climb": f"{winner} wins by climbing to level 3",
            "pan-drop": f"{winner} wins by Pan's drop",
            "no-moves": f"{loser} has no legal turn",
            "resign": f"{loser} resigns",
            "time": f"{loser} loses on time{' ' + d if d else ''}",
            "illegal": f"{loser} makes an illegal turn{': ' + d if d else ''}",
            "crash": f"{loser} disconnects{': ' + d if d else ''}",
            "stall": f"{loser}'s connection stalls{': ' + d if d else ''}",
            "engine-error": f"{loser} engine error{': ' + d if d else ''}",
            "limit": f"{loser} disconnects: resource limit{': ' + d if d else ''}",
        }.get(t, f"{t}: {d}")
