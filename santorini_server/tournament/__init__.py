"""Tournaments: schedules, parallel games, durable records, resume, live standings."""

from .config import Settings, TournamentConfig
from .runner import Interrupted, TournamentResult, run_tournament
from .schedule import ScheduledGame, build_schedule

__all__ = ["Settings", "TournamentConfig", "Interrupted", "TournamentResult", "run_tournament", "ScheduledGame", "build_schedule"]
