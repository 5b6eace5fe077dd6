"""The rules core: positions and their text forms (SPS, STN), legal complete turns, perft,
and why a turn is refused (``explain``).

Pure: no I/O, no trio, nothing from the rest of the referee (``tests/test_layers.py`` holds the
import graph to that).
"""

from .errors import (
    IllegalTurnError,
    InvalidPositionError,
    MalformedPositionError,
    MalformedTurnError,
    NotationError,
)
from .explain import Explanation, explain_turn, rejection
from .gods import EXTRA_SIMPLE_GODS, GODS, MORTAL, SEAT_COUNTS, SIMPLE_GODS, check_gods, check_matchup, ruleset_of
from .movegen import WIN_CLIMB, WIN_NONE, WIN_PAN
from .perft import divide, perft
from .position import Position, Transition, parse_sps
from .sps import START_SPS, format_sps
from .squares import SQUARE_NAMES, Square, parse_square, square_name
from .stn import TurnText, canonical_stn, format_stn, parse_stn, respell_stn

__all__ = [
    "IllegalTurnError",
    "InvalidPositionError",
    "MalformedPositionError",
    "MalformedTurnError",
    "NotationError",
    "Explanation",
    "explain_turn",
    "rejection",
    "EXTRA_SIMPLE_GODS",
    "GODS",
    "MORTAL",
    "SEAT_COUNTS",
    "SIMPLE_GODS",
    "check_gods",
    "check_matchup",
    "ruleset_of",
    "WIN_CLIMB",
    "WIN_NONE",
    "WIN_PAN",
    "divide",
    "perft",
    "Position",
    "Transition",
    "parse_sps",
    "START_SPS",
    "format_sps",
    "SQUARE_NAMES",
    "Square",
    "parse_square",
    "square_name",
    "TurnText",
    "canonical_stn",
    "format_stn",
    "parse_stn",
    "respell_stn",
]
