"""What a game is played with: gods, opening, each seat's time control and margin, record tags."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from .clock import Clock, TimeControl

__all__ = ["GameSetup", "SeatSpec"]

_T = TypeVar("_T")


class SeatSpec(Protocol):
    """The part of an engine spec a game's setup reads (``EngineSpec`` has it)."""

    @property
    def tc(self) -> TimeControl | None: ...

    @property
    def timemargin_ms(self) -> int: ...


def _default_tcs() -> tuple[TimeControl, ...]:
    return TimeControl(10_000, 100), TimeControl(10_000, 100)


@dataclass(frozen=True)
class GameSetup:
    """What a game is played with; the players are passed separately (engines outlive games).

    ``tcs`` and ``margins`` hold one value per seat, in seat order.  Values that are all the same
    (the defaults among them) serve a game of any seat count, so a two-seat setup such as
    ``tcs=(tc, tc)`` also plays a three- or four-seat opening.
    """

    gods: tuple[str, ...] = ("mortal", "mortal")
    """One god per seat, in seat order (an ``opening`` brings its own)."""
    opening: str | None = None
    """An SPS to start from (None: the empty board, SEI ``startpos``)."""
    tcs: tuple[TimeControl, ...] = field(default_factory=_default_tcs)
    """Each seat's time control."""
    margins: tuple[int, ...] = (0, 0)
    """Each seat's ``timemargin`` in ms: how far below zero its clock may go before it loses."""
    ping: bool = False
    """Add an ``isready`` sync before every ``go`` (off the clock), for engines that parse slowly."""
    event: str = "?"
    site: str = "local"
    round: str = "1"
    game_number: int | None = None

    @classmethod
    def for_specs(cls, specs: Sequence[SeatSpec], tc: TimeControl, **fields: Any) -> GameSetup:
        """A setup where each engine's own ``tc=``/``timemargin=`` overrides the game's ``tc``
        (``specs`` in seat order, one per seat)."""
        return cls(
            tcs=tuple(spec.tc or tc for spec in specs),
            margins=tuple(spec.timemargin_ms for spec in specs),
            **fields,
        )

    def seat_tcs(self, seats: int) -> tuple[TimeControl, ...]:
        """Each seat's time control in a ``seats``-seat game.

        Raises:
            ValueError: ``tcs`` holds different values, but not one per seat.
        """
        return _per_seat(self.tcs, seats, "time controls")

    def clocks(self, seats: int) -> tuple[Clock, ...]:
        """A full clock per seat of a ``seats``-seat game.

        Raises:
            ValueError: ``tcs`` or ``margins`` hold different values, but not one per seat.
        """
        margins = _per_seat(self.margins, seats, "margins")
        return tuple(Clock(tc, margin) for tc, margin in zip(self.seat_tcs(seats), margins, strict=True))


def _per_seat(values: tuple[_T, ...], seats: int, what: str) -> tuple[_T, ...]:
    if len(values) == seats:
        return values
    if values and all(v == values[0] for v in values):
        return (values[0],) * seats
    raise ValueError(f"{len(values)} different {what} for a {seats}-seat game: give one per seat")
