"""What the adjudicator asks for (:class:`Request`) and what a driver tells it it observed (events).

Values, h11 style: immutable.  The two made every turn (:class:`Request`, :class:`Answer`) are
named tuples, the cheapest immutable record (a frozen dataclass sets each field through
``object.__setattr__``, about 0.4 us a field here); the others are frozen, slotted, keyword-only
dataclasses.  Times are milliseconds the driver measured (the adjudicator never reads a clock);
texts are what the engine or the person sent, unchecked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeAlias

from ..sei.messages import Go, Info, PositionCommand
from ..termination import Termination

__all__ = ["Request", "Answer", "Resignation", "NoReply", "Forfeit", "Abort", "Event"]


class Request(NamedTuple):
    """Ask ``seat`` for a turn: send ``position`` then ``go``, and wait at most ``allowance_ms``."""

    seat: int
    """0 for player 1, 1 for player 2."""
    position: PositionCommand
    """The game so far: ``startpos`` or the opening's SPS, and every turn played since."""
    go: Go
    """Both clocks as they stand (never negative), the increments and the mover's own limits."""
    allowance_ms: float
    """How long the mover may think, from the end of the write, before it has lost on time
    (``math.inf`` for a person: a human's clock is charged, never enforced)."""


class Answer(NamedTuple):
    """The mover sent a turn (``bestmove <turn>``, or a person typed it)."""

    turn: str
    elapsed_ms: float
    """From the end of the request's write to the arrival of the answer."""
    info: Info | None = None
    """The engine's last ``info`` of the search (its telemetry goes into the record)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Resignation:
    """The mover resigned (``bestmove resign``, or a person typed ``resign``)."""

    elapsed_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class NoReply:
    """The request's deadline passed with no answer; ``elapsed_ms`` is how long it has been."""

    elapsed_ms: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Forfeit:
    """``seat``'s engine failed: it could not be started or readied, or it failed its turn.

    ``kind`` is the tag the failure earns (the engine channel's ``EngineFailure.kind``).
    """

    seat: int
    kind: Termination
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort:
    """The game stops without a winner (Ctrl-C, shutdown, a person quitting)."""

    detail: str = "the game was interrupted"


Event: TypeAlias = Answer | Resignation | NoReply | Forfeit | Abort
