"""A bot built on the helper (``santorini_engines.sei_bot``) that plays the seat counts named on
its command line (``seats_bot.py 2 3 4``; none: the helper's default, two only).

Its ``choose`` reports what the helper gave it in one ``info string``: the seat to move, the
number of seats, every seat's clock and its own budget, then plays the first legal turn.
"""

from __future__ import annotations

import sys
import threading

from santorini_engines.sei_bot import Info, Limits, run_bot
from santorini_server.rules import Position


def choose(position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
    seats = range(1, position.nseats + 1)
    clocks = " ".join(f"{limits.time(s)}+{limits.inc(s)}" for s in seats)
    info(f"string seat {position.player} of {position.nseats} clocks {clocks} budget {limits.budget_for(position.player)}")
    return position.legal_turns()[0]


def main() -> None:
    players = tuple(int(a) for a in sys.argv[1:])
    raise SystemExit(run_bot(choose, name="Seats", author="tests", **({"players": players} if players else {})))


if __name__ == "__main__":
    main()
