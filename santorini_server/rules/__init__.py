"""The rules core: positions, legal complete turns, perft. Pure: no I/O, no trio."""

from .gods import EXTRA_SIMPLE_GODS, GODS, MORTAL, SIMPLE_GODS, check_matchup, ruleset_of
from .movegen import WIN_CLIMB, WIN_NONE, WIN_PAN
from .perft import divide, perft
from .position import Position, Transition
from .squares import SQUARE_NAMES, Square, parse_square, square_name

__all__ = [
    "EXTRA_SIMPLE_GODS",
    "GODS",
    "MORTAL",
    "SIMPLE_GODS",
    "check_matchup",
    "ruleset_of",
    "WIN_CLIMB",
    "WIN_NONE",
    "WIN_PAN",
    "divide",
    "perft",
    "Position",
    "Transition",
    "SQUARE_NAMES",
    "Square",
    "parse_square",
    "square_name",
]
