"""What a game is played with: gods, opening, each seat's time control and margin, record tags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .clock import TimeControl

__all__ = ["GameSetup", "SeatSpec"]


class SeatSpec(Protocol):
    """The part of an engine spec a game's setup reads (``EngineSpec`` has it)."""

    @property
    def tc(self) -> TimeControl | None: ...

    @property
    def timemargin_ms(self) -> int: ...


def _default_tcs() -> tuple[TimeControl, TimeControl]:
    return TimeControl(10_000, 100), TimeControl(10_000, 100)


@dataclass(frozen=True)
class GameSetup:
    """What a game is played with; the players are passed separately (engines outlive games)."""

    gods: tuple[str, ...] = ("mortal", "mortal")
    """Player 1's and player 2's gods (an ``opening`` brings its own)."""
    opening: str | None = None
    """An SPS to start from (None: the empty board, SEI ``startpos``)."""
    tcs: tuple[TimeControl, TimeControl] = field(default_factory=_default_tcs)
    """Player 1's and player 2's time controls."""
    margins: tuple[int, int] = (0, 0)
    """Each seat's ``timemargin`` in ms: how far below zero its clock may go before it loses."""
    ping: bool = False
    """Add an ``isready`` sync before every ``go`` (off the clock), for engines that parse slowly."""
    event: str = "?"
    site: str = "local"
    round: str = "1"
    game_number: int | None = None

    @classmethod
    def for_specs(cls, specs: tuple[SeatSpec, SeatSpec], tc: TimeControl, **fields: Any) -> GameSetup:
        """A setup where each engine's own ``tc=``/``timemargin=`` overrides the game's ``tc``."""
        return cls(
            tcs=(specs[0].tc or tc, specs[1].tc or tc),
            margins=(specs[0].timemargin_ms, specs[1].timemargin_ms),
            **fields,
        )
