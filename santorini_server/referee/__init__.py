"""The referee: engines over SEI (trio shell), clocks, one adjudicated game, matches."""

from ..adjudicator import GameReport, GameSetup
from .engine import Engine, EngineFailure, EngineInfo, seats_refusal
from .engine_spec import BUNDLED_NAMES, EngineSpec, parse_engine_spec
from .game import play_game

__all__ = [
    "Engine",
    "EngineFailure",
    "EngineInfo",
    "seats_refusal",
    "BUNDLED_NAMES",
    "EngineSpec",
    "parse_engine_spec",
    "GameReport",
    "GameSetup",
    "play_game",
]
