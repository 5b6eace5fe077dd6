"""What the adjudicator asks for (:class:`Request`) and what a driver tells it it observed (events).

Values, h11 style: immutable ``msgspec.Struct`` instances (slotted, with constructors written in
C; the two made every turn, :class:`Request` and :class:`Answer`, also take their fields in
order).  Times are milliseconds the driver measured (the adjudicator never reads a clock); texts
are what the engine or the person sent, unchecked.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from ..sei.messages import Go, Info, PositionCommand
from ..termination import Termination

__all__ = ["Request", "Answer", "Resignation", "NoReply", "Forfeit", "Abort", "Event"]


class Request(msgspec.Struct, frozen=True):
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


class Answer(msgspec.Struct, frozen=True):
    """The mover sent a turn (``bestmove <turn>``, or a person typed it)."""

    turn: str
    elapsed_ms: float
    """From the end of the request's write to the arrival of the answer."""
    info: Info | None = None
    """The engine's last ``info`` of the search (its telemetry goes into the record)."""


class Resignation(msgspec.Struct, frozen=True, kw_only=True):
    """The mover resigned (``bestmove resign``, or a person typed ``resign``)."""

    elapsed_ms: float


class NoReply(msgspec.Struct, frozen=True, kw_only=True):
    """The request's deadline passed with no answer; ``elapsed_ms`` is how long it has been."""

    elapsed_ms: float


class Forfeit(msgspec.Struct, frozen=True, kw_only=True):
    """``seat``'s engine failed: it could not be started or readied, or it failed its turn.

    ``kind`` is the tag the failure earns (the engine channel's ``EngineFailure.kind``).
    """

    seat: int
    kind: Termination
    detail: str


class Abort(msgspec.Struct, frozen=True, kw_only=True):
    """The game stops without a winner (Ctrl-C, shutdown, a person quitting)."""

    detail: str = "the game was interrupted"


Event: TypeAlias = Answer | Resignation | NoReply | Forfeit | Abort
