"""The referee: engines over SEI (trio shell), clocks, one adjudicated game, matches."""

from .engine import Engine, EngineFailure, EngineInfo
from .engine_spec import BUNDLED_NAMES, EngineSpec, parse_engine_spec
from .game import GameReport, GameSetup, play_game
from .outcome import TERMINATIONS, Outcome
from .timecontrol import Clock, TimeControl, parse_tc

__all__ = [
    "Engine",
    "EngineFailure",
    "EngineInfo",
    "BUNDLED_NAMES",
    "EngineSpec",
    "parse_engine_spec",
    "GameReport",
    "GameSetup",
    "play_game",
    "TERMINATIONS",
    "Outcome",
    "Clock",
    "TimeControl",
    "parse_tc",
]
