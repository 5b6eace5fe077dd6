"""How a game ended: the one list of termination tags (SPEC.md section 4.6).

The same tags are the SGN ``Termination`` tag, the reason of the SEI ``result`` notice and the
adjudicator's verdict, so they are defined once, here, at the top of the package: the records,
the SEI codec and the adjudicator all import this module and nothing else of each other.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Termination", "WINS_BY_RULE"]


class Termination(StrEnum):
    """A termination tag; each member is the tag's text (``Termination.PAN_DROP == "pan-drop"``).

    What each means is :attr:`meaning` (one table, below the class).
    """

    CLIMB = "climb"
    PAN_DROP = "pan-drop"
    NO_MOVES = "no-moves"
    RESIGN = "resign"
    TIME = "time"
    ILLEGAL = "illegal"
    CRASH = "crash"
    STALL = "stall"
    ENGINE_ERROR = "engine-error"
    LIMIT = "limit"
    ABORTED = "aborted"

    @property
    def meaning(self) -> str:
        """What the tag means, one line (SPEC.md section 4.6's table says the same)."""
        return _MEANINGS[self]

    @property
    def decisive(self) -> bool:
        """The game has a winner (every tag but ``aborted``): the tags a SEI ``result`` may carry."""
        return self is not Termination.ABORTED


_MEANINGS: dict[Termination, str] = {
    Termination.CLIMB: "the winner moved a worker up onto level 3",
    Termination.PAN_DROP: "the winner (Pan) moved a worker down two or more levels",
    Termination.NO_MOVES: "the loser had no complete turn at the start of its turn",
    Termination.RESIGN: "the loser answered bestmove resign",
    Termination.TIME: "the loser's clock went below -timemargin (or movetime + timemargin passed)",
    Termination.ILLEGAL: "the loser sent a turn that is not STN or not a legal complete turn",
    Termination.CRASH: "the loser's process exited, closed its output or could not be started",
    Termination.STALL: "the loser did not answer a bounded wait (seiok, readyok, a write)",
    Termination.ENGINE_ERROR: "the loser answered error, or broke the SEI sequencing rules",
    Termination.LIMIT: "the loser's process broke its resource limit (limit.cpu or limit.memory)",
    Termination.ABORTED: "the game was interrupted (Ctrl-C, shutdown); not scored",
}

#: Terminations decided by a winning turn (the rest are decided by engine behaviour).
WINS_BY_RULE: frozenset[Termination] = frozenset({Termination.CLIMB, Termination.PAN_DROP})

