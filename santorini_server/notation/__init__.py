"""Notation: SPS positions and STN turns (protocol.md sections 2 and 3). Pure: no I/O."""

from .errors import (
    IllegalTurnError,
    InvalidPositionError,
    MalformedPositionError,
    MalformedTurnError,
    NotationError,
)
from .sps import START_SPS, format_sps, parse_sps, position_problems
from .stn import TurnText, canonical_stn, format_stn, match_turn, parse_stn

__all__ = [
    "IllegalTurnError",
    "InvalidPositionError",
    "MalformedPositionError",
    "MalformedTurnError",
    "NotationError",
    "START_SPS",
    "format_sps",
    "parse_sps",
    "position_problems",
    "TurnText",
    "canonical_stn",
    "format_stn",
    "match_turn",
    "parse_stn",
]
