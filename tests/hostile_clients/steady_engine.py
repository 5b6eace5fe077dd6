"""An engine for the siege's match in flight: a random legal turn after a steady 20 ms, so that a
game lasts about a second and the match goes on through the whole suite (instant engines would
play thousands of games, and the daemon's memory would then follow the games, not the attacks)."""

from __future__ import annotations

import random
import sys
import threading

from santorini_engines.sei_bot import Info, Limits, run_bot
from santorini_server.rules import Position

THINK = 0.02


def choose(position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
    stop.wait(THINK)
    return random.choice(position.legal_turns())


if __name__ == "__main__":
    sys.exit(run_bot(choose, name="steady", author="the hostile-client suite"))
