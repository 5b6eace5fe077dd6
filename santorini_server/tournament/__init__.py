"""Tournaments: schedules, parallel games, durable records, resume, live standings.

The names below load on first use (PEP 562): importing ``santorini_server.tournament.config``
must not load the runner, its report page and Jinja2 (the server imports the settings at start,
and starts in under a second).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import Settings, TournamentConfig
    from .runner import Interrupted, TournamentResult, run_tournament
    from .schedule import ScheduledGame, build_schedule

__all__ = ["Settings", "TournamentConfig", "Interrupted", "TournamentResult", "run_tournament", "ScheduledGame", "build_schedule"]

_MODULES = {
    "Settings": "config", "TournamentConfig": "config", "Interrupted": "runner", "TournamentResult": "runner",
    "run_tournament": "runner", "ScheduledGame": "schedule", "build_schedule": "schedule",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_MODULES[name]}", __name__), name)
