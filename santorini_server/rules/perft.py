"""Perft: count the leaves of the complete-turn tree (SPEC.md section 3.4).

A winning turn is a leaf counted once whatever the depth; a side with no legal turn has no
children.  The last ply is counted with ``count_turns`` (mask arithmetic, no successors built),
which is what makes perft 4 of the base cross position run in seconds.
"""

from __future__ import annotations

from .movegen import count_turns, generate
from .position import Position

__all__ = ["perft", "divide"]


def perft(pos: Position, depth: int) -> int:
    """Number of complete-turn sequences of ``depth`` turns from ``pos`` (wins end a sequence)."""
    if depth < 1:
        raise ValueError(f"`depth` must be at least 1, got {depth}")
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


def divide(pos: Position, depth: int) -> dict[str, int]:
    """Perft split by first turn (canonical STN -> leaf count), for finding a generator bug."""
    if depth < 1:
        raise ValueError(f"`depth` must be at least 1, got {depth}")
    out: dict[str, int] = {}
    for raw in generate(pos):
        out[raw.stn] = 1 if raw.win or depth == 1 else perft(pos.successor(raw.state), depth - 1)
    return out
