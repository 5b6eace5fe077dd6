"""The random engine: a uniformly random legal turn (the baseline every bot must beat).

It plays two, three and four seats alike (``Position.legal_turns`` knows whose turn it is).

Option ``Seed`` (spin, default 0): 0 seeds from the clock, any other value makes games
reproducible; setting it (or starting a new game) reseeds.
"""

from __future__ import annotations

import random
import threading

from santorini_server.rules import Position

from .sei_bot import Info, Limits, Option, run_bot

__all__ = ["main", "choose"]

_rng = random.Random()
SEED = Option("Seed", "spin", default=0, min=0, max=2**31 - 1)


def _reseed(value: object = None) -> None:
    _rng.seed(SEED.value or None)


SEED.on_change = _reseed


def choose(position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
    """Any legal turn, each with the same probability."""
    turns = position.legal_turns()
    info(f"string {len(turns)} legal turns")
    return _rng.choice(turns)


def main() -> None:
    """Serve SEI on stdin/stdout."""
    _reseed()
    raise SystemExit(
        run_bot(choose, name="Random", author="santorini-server", options=[SEED], on_newgame=lambda gods: None,
                players=(2, 3, 4))
    )


if __name__ == "__main__":
    main()
