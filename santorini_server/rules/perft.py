"""Perft: count the leaves of the complete-turn tree (SPEC.md sections 3.4 and 15.5).

A winning turn is a leaf counted once whatever the depth; a side with no legal turn has no
children.  The last ply is counted with ``count_turns`` (mask arithmetic, no successors built),
which is what makes perft 4 of the base cross position run in seconds.  With three seats a seat
with no complete turn is eliminated, and an elimination is not a turn: it consumes no depth.
"""

from __future__ import annotations

from .movegen import count_turns, generate
from .position import Position

__all__ = ["perft", "divide"]


def perft(pos: Position, depth: int) -> int:
    """Number of complete-turn sequences of ``depth`` turns from ``pos`` (wins end a sequence).

    ``perft(pos, 0)`` is 1, even for a seat about to be eliminated.
    """
    if depth < 0:
        raise ValueError(f"`depth` must be at least 0, got {depth}")
    if depth == 0:
        return 1
    if pos.nseats == 3:
        return _perft3(pos, depth)
    if depth == 1:
        return count_turns(pos)
    total = 0
    child = pos.successor
    for raw in generate(pos):
        if raw.win:
            total += 1
        elif depth == 2:
            total += count_turns(child(raw.state))
        else:
            total += perft(child(raw.state), depth - 1)
    return total


def _perft3(pos: Position, depth: int) -> int:
    """Three seats: as above, but a seat with no turn passes the same depth to the next seat."""
    if depth == 1:
        n = count_turns(pos)
        if n:
            return n
    else:
        total = 0
        moved = False
        child = pos.successor
        for raw in generate(pos):
            moved = True
            if raw.win:
                total += 1
            elif depth == 2:  # the last ply counted in place, as for two seats
                after = child(raw.state)
                total += count_turns(after) or _perft3(after, 1)
            else:
                total += _perft3(child(raw.state), depth - 1)
        if moved:
            return total
    nxt = pos.eliminate()  # no complete turn: the seat leaves, and that is not a turn
    return 0 if nxt is None else _perft3(nxt, depth)


def divide(pos: Position, depth: int) -> dict[str, int]:
    """Perft split by first turn (canonical STN -> leaf count), for finding a generator bug.

    With three seats, a seat to move with no turn has no first turn: its split is empty.
    """
    if depth < 1:
        raise ValueError(f"`depth` must be at least 1, got {depth}")
    out: dict[str, int] = {}
    for raw in generate(pos):
        out[raw.stn] = 1 if raw.win or depth == 1 else perft(pos.successor(raw.state), depth - 1)
    return out
