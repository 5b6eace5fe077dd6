"""The board's eight symmetries (the dihedral group D4 of the 5x5 square), on squares, bitboards,
directions, positions and STN turns, and a canonical form under them (SPEC.md section 19.2).

Why: the rules never mention a side or an orientation of the board (moves, builds, Apollo's swap
and the Minotaur's straight-back push are all defined by adjacency and direction, which the
group preserves), so two positions that are images of each other are the same opening; a suite
deduplicates under the group, and the canonical form (the least image) names the class.

A symmetry is an index 0-7 into :data:`SYMMETRIES`, each a map of 0-based ``(file, rank)``;
composition is a table, so the group laws are checked on the tables themselves (the tests).
Turn texts map square by square and are then re-canonicalised against the image position (a
placement's or Demeter's two squares may change order; Hermes' endpoint labels are re-sorted).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .position import Position, _init, _new
from .squares import SQUARE_NAMES, Bitboard, Square, square_at
from .stn import canonical_stn, format_stn, parse_stn

__all__ = [
    "SYMMETRIES",
    "SYMMETRY_NAMES",
    "IDENTITY",
    "compose",
    "inverse",
    "map_square",
    "map_bitboard",
    "map_direction",
    "map_position",
    "map_turn",
    "canonical_position",
    "canonical_key",
]

_Map = Callable[[int, int], tuple[int, int]]

#: The eight maps of 0-based (file, rank) on the 5x5 board: rotations by 0, 90, 180, 270 degrees
#: (counter-clockwise), then the reflections in the vertical, horizontal, main and anti diagonal.
SYMMETRIES: tuple[_Map, ...] = (
    lambda f, r: (f, r),
    lambda f, r: (4 - r, f),
    lambda f, r: (4 - f, 4 - r),
    lambda f, r: (r, 4 - f),
    lambda f, r: (4 - f, r),
    lambda f, r: (f, 4 - r),
    lambda f, r: (r, f),
    lambda f, r: (4 - r, 4 - f),
)
SYMMETRY_NAMES: tuple[str, ...] = ("identity", "rot90", "rot180", "rot270", "mirror-files", "mirror-ranks",
                                   "diagonal", "anti-diagonal")
IDENTITY = 0


def _square_table(g: int) -> tuple[Square, ...]:
    out = []
    for sq in range(25):
        f, r = sq % 5, 4 - sq // 5
        out.append(square_at(*SYMMETRIES[g](f, r)))
    return tuple(out)


#: ``SQUARE_MAPS[g][sq]``: the image of square ``sq`` under symmetry ``g``.
SQUARE_MAPS: tuple[tuple[Square, ...], ...] = tuple(_square_table(g) for g in range(8))
_NAME_MAPS: tuple[dict[str, str], ...] = tuple(
    {SQUARE_NAMES[sq]: SQUARE_NAMES[SQUARE_MAPS[g][sq]] for sq in range(25)} for g in range(8)
)
_COMPOSE: tuple[tuple[int, ...], ...] = tuple(
    tuple(next(c for c in range(8) if SQUARE_MAPS[c] == tuple(SQUARE_MAPS[a][SQUARE_MAPS[b][s]] for s in range(25)))
          for b in range(8))
    for a in range(8)
)
_SQUARE_RE = re.compile(r"[a-e][1-5]")


def compose(a: int, b: int) -> int:
    """The symmetry "``b`` then ``a``" (``map_square(compose(a, b), s) == map_square(a, map_square(b, s))``)."""
    return _COMPOSE[a][b]


def inverse(g: int) -> int:
    """The symmetry that undoes ``g``."""
    return next(h for h in range(8) if _COMPOSE[h][g] == IDENTITY)


def map_square(g: int, sq: Square) -> Square:
    """The image of ``sq`` under symmetry ``g``."""
    return SQUARE_MAPS[g][sq]


def map_bitboard(g: int, mask: Bitboard) -> Bitboard:
    """The image of a set of squares under ``g``."""
    table = SQUARE_MAPS[g]
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << table[low.bit_length() - 1]
        mask ^= low
    return out


def map_direction(g: int, direction: tuple[int, int]) -> tuple[int, int]:
    """The image of a step ``(dfile, drank)`` under ``g`` (the maps are affine, so a step maps by
    their linear part: the Minotaur's "straight backwards" stays straight backwards)."""
    x0, y0 = SYMMETRIES[g](0, 0)
    x1, y1 = SYMMETRIES[g](*direction)
    return x1 - x0, y1 - y0


def map_position(g: int, pos: Position) -> Position:
    """The image of ``pos`` under ``g``: levels, domes and workers moved; gods, the seat to move,
    the turn counter, Athena's state and eliminations unchanged."""
    out = _new(Position)
    _init(
        out, pos.gods, map_bitboard(g, pos.h1), map_bitboard(g, pos.h2), map_bitboard(g, pos.h3),
        map_bitboard(g, pos.domes), tuple(map_bitboard(g, w) for w in pos.workers), pos.to_move, pos.turn,
        pos.athena_up, pos.eliminated,
    )
    return out


def map_turn(g: int, pos: Position, text: str) -> str:
    """The image under ``g`` of turn ``text`` of ``pos``: canonical STN of the turn of
    ``map_position(g, pos)`` that does the same thing.

    Raises:
        MalformedTurnError: ``text`` is not STN.
    """
    names = _NAME_MAPS[g]
    mapped = _SQUARE_RE.sub(lambda m: names[m[0]], text)
    return format_stn(canonical_stn(map_position(g, pos), parse_stn(mapped)))


def canonical_key(pos: Position) -> tuple[object, ...]:
    """The least over the eight images of ``pos`` of its board and workers as ints, with the
    gods, the seat to move, the turn and Athena's state: equal exactly for positions that are
    images of each other (what a suite deduplicates on)."""
    return (pos.gods, *min(_raw(g, pos) for g in range(8)))


def canonical_position(pos: Position) -> Position:
    """The image of ``pos`` whose :func:`canonical_key` part is least: one representative per class."""
    best = min(range(8), key=lambda g: _raw(g, pos))
    return map_position(best, pos)


def _raw(g: int, pos: Position) -> tuple[int, ...]:
    return (
        map_bitboard(g, pos.h1), map_bitboard(g, pos.h2), map_bitboard(g, pos.h3), map_bitboard(g, pos.domes),
        *(map_bitboard(g, w) for w in pos.workers), pos.to_move, pos.turn, int(pos.athena_up), pos.eliminated,
    )
