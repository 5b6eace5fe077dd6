"""The three- and four-seat checks of ``santorini check`` (SPEC.md sections 7 and 15).

They run only for the seat counts an engine declares (``feature players 2 3 4`` or a subset;
without the line it plays two seats only, and these checks are reported as not applicable).
Each position below was written with the rules core and has the property its docstring claims;
``tests/test_check_nseat.py`` asserts every one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..rules import Position
from ..sei import Go, PositionCommand
from .judge import after, play
from .report import Verdict
from .session import Session, ms

__all__ = [
    "ATHENA_3_SPS",
    "ATHENA_4_SPS",
    "CLOCK_P3_SPS",
    "CLOCK_P4_SPS",
    "ELIMINATED_MOVES",
    "ELIMINATED_SPS",
    "GODS_3",
    "GODS_4",
    "TEAMMATE_SPS",
    "SEAT_CHECKS",
]

GODS_3 = ("apollo", "minotaur", "pan")
"""The gods of the three-seat checks: Apollo and the Minotaur displace opponents, Pan wins low."""
GODS_4 = ("apollo", "athena", "minotaur", "pan")
"""The gods of the four-seat checks (SPEC.md 15.6 case D): Athena on team B (seats 2 and 4)."""

ELIMINATED_SPS = "apollo/minotaur/pan;00040/00044/00000/44444/00440;b4,c4/x/b1,e1;3;5"
"""Case C after seat 2 left (``x``): seat 3's b1 worker was hemmed in by seat 2's worker on a1;
with that seat gone its one turn is ``b1-a1+b1``."""
ELIMINATED_MOVES = ("a1,d1", "a3,d2", "b1,c1", "d1xd2+e1", "d1-c2+b2", "c1-b2+b3", "a1xb2+a2", "a3xb2+a2", "d2-c3+b4")
"""From ``startpos``: after the eighth turn seat 3 (Pan, on a1 and b1) has no complete turn and
is eliminated; seat 1 plays ``d2-c3+b4``; seat 2 is to move with 60 turns (its workers on b2 and
c2 may use a1 and b1 now; an engine that kept seat 3 cannot even replay seat 1's turn)."""
ATHENA_3_SPS = "athena[up]/pan/minotaur;04010/44040/00000/14044/00040;c3,c4/a1,e1/a5,e5;2;9"
"""Athena (seat 1) moved up: seat 2 may not move up (4 turns, all ``a1-b1``); after its turn seat
3 is still bound (4 turns, all ``e5-e4``, where it would have 7 with ``e5-d5`` going up)."""
TEAMMATE_SPS = "apollo/athena/minotaur/pan;04010/44040/00000/14044/00040;a1,e1/a5,e5;3;5"
"""Four seats, seat 3 (team A, whose workers seat 1 placed) to move: team A's e1 worker is boxed
in, so every turn moves the a1 worker (8 turns)."""
ATHENA_4_SPS = "apollo/athena[up]/minotaur/pan;04010/44044/00000/14044/00040;a1,e1/a5,e5;3;5"
"""Athena (seat 2) moved up: seat 3 (other team) is bound (4 turns, all ``a1-b1``); after its
turn seat 4, her teammate, is not, and every turn it has goes up (``e5-d5``, 3 turns): an engine
that binds the teammate finds nothing to play."""
CLOCK_P3_SPS = "apollo/minotaur/pan;00040/04044/04000/04440/00000;c3,e5/a1,d3/a5,c4;3;6"
"""Case A with seat 3 to move (11 turns): its clock is ``p3time``."""
CLOCK_P4_SPS = "apollo/athena/minotaur/pan;04010/44040/00000/14044/00040;a1,e1/a5,e5;4;5"
"""Case D with seat 4 to move (8 turns): its clock is ``p4time``."""

SeatCheck = Callable[[Session], Awaitable[Verdict]]

SHORT_CLOCK = 1000
LONG_CLOCK = 60000
"""The seat to move gets 1 s, every other seat 60 s: an engine budgeting with another seat's
clock overruns its own."""


def _unmet(s: Session, seats: int, gods: tuple[str, ...]) -> str | None:
    """Why a ``seats``-seat check with ``gods`` does not apply (None: it does)."""
    if not s.info.plays(seats):
        declared = " ".join(map(str, sorted(s.info.declared_players)))
        return f"no 'feature players {seats}'" + (f" (declares {declared})" if declared else " (plays two seats only)")
    missing = [g for g in gods if g not in s.info.gods]
    if missing:
        return f"the engine does not claim {missing[0]}"
    return None


async def _players(s: Session) -> Verdict:
    if not s.info.declared_players:
        return "pass", "two seats only (no 'feature players' line)"
    if 2 not in s.info.declared_players:
        return "warn", f"feature players {' '.join(map(str, sorted(s.info.declared_players)))} without 2"
    return "pass", f"plays {', '.join(map(str, sorted(s.info.players)))} seats"


def _newgame(gods: tuple[str, ...]) -> SeatCheck:
    async def check(s: Session) -> Verdict:
        unmet = _unmet(s, len(gods), gods)
        if unmet:
            return "skip", unmet
        s.game_gods = None
        started = s.now()
        await s.ensure_game(gods)
        return "pass", f"newgame gods {'/'.join(gods)}: readyok in {ms(s.now() - started)}"

    return check


async def _turns(s: Session, start: Position, moves: tuple[str, ...], count: int, *, startpos: bool = False) -> Verdict:
    """``count`` turns from ``start`` after ``moves``, each sent as that start plus the turns so far."""
    await s.ensure_game(start.gods)
    played = list(moves)
    turns: list[str] = []
    for _ in range(count):
        pos = after(start, played)
        command = PositionCommand(moves=tuple(played)) if startpos else PositionCommand(sps=start.sps(), moves=tuple(played))
        (status, reason), turn = await play(s, pos, command)
        if turn is None:
            where = "" if pos.sps() in reason else f" (in {pos.sps()})"
            return status, f"seat {pos.player} of {pos.nseats}: {reason}{where}"
        played.append(turn)
        turns.append(f"seat {pos.player} {turn}")
    return "pass", "legal: " + ", ".join(turns)


async def _eliminated_sps(s: Session) -> Verdict:
    if unmet := _unmet(s, 3, GODS_3):
        return "skip", unmet
    return await _turns(s, Position.from_sps(ELIMINATED_SPS), (), 1)


async def _eliminated_moves(s: Session) -> Verdict:
    if unmet := _unmet(s, 3, GODS_3):
        return "skip", unmet
    return await _turns(s, Position.start(GODS_3), ELIMINATED_MOVES, 1, startpos=True)


async def _athena_3(s: Session) -> Verdict:
    """Athena's tag binds both seats after her, not only the next one."""
    if unmet := _unmet(s, 3, ("athena", "pan", "minotaur")):
        return "skip", unmet
    return await _turns(s, Position.from_sps(ATHENA_3_SPS), (), 2)


async def _teammate_4(s: Session) -> Verdict:
    if unmet := _unmet(s, 4, GODS_4):
        return "skip", unmet
    return await _turns(s, Position.from_sps(TEAMMATE_SPS), (), 1)


async def _athena_4(s: Session) -> Verdict:
    """Athena binds the other team's two seats, never her teammate."""
    if unmet := _unmet(s, 4, GODS_4):
        return "skip", unmet
    return await _turns(s, Position.from_sps(ATHENA_4_SPS), (), 2)


def _clock(sps: str) -> SeatCheck:
    async def check(s: Session) -> Verdict:
        pos = Position.from_sps(sps)
        n = pos.nseats
        if unmet := _unmet(s, n, pos.gods):
            return "skip", unmet
        await s.ensure_game(pos.gods)
        c = [SHORT_CLOCK if p == pos.player else LONG_CLOCK for p in range(1, n + 1)]
        go = Go(p1time=c[0], p2time=c[1], p3time=c[2], p4time=c[3] if n == 4 else None)
        (status, reason), _ = await play(s, pos, PositionCommand(sps=sps), go)
        if status == "fail" and "time loss" in reason:
            return "fail", f"{reason} -- seat {pos.player} must budget with p{pos.player}time"
        return status, reason + (f" (p{pos.player}time {SHORT_CLOCK}, the others {LONG_CLOCK})" if status == "pass" else "")

    return check


SEAT_CHECKS = (
    ("players", _players),
    ("newgame-3", _newgame(GODS_3)),
    ("eliminated-sps", _eliminated_sps),
    ("eliminated-moves", _eliminated_moves),
    ("athena-3", _athena_3),
    ("clock-p3", _clock(CLOCK_P3_SPS)),
    ("newgame-4", _newgame(GODS_4)),
    ("teammate-4", _teammate_4),
    ("athena-4", _athena_4),
    ("clock-p4", _clock(CLOCK_P4_SPS)),
)
"""The N-seat checks in run order, as (name, function): ``checks.PLAN`` takes them in."""
