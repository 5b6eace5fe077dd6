"""Squares and bitboards: the 5x5 board as 25-bit integers.

Theory of operation: a square is an int 0-24 indexed row-major from a5 (SPEC.md section 2.1, the SPS board:
``(5 - rank) * 5 + file``), so the SPS board field lists squares in index order.  Sets of squares
are bitboards (``1 << square``); every rule is mask arithmetic over tables built once at import.
Canonical *text* order is plain string order (``a1 < a2 < ... < e5``), which is not index order:
``CANONICAL_KEY`` maps a square to its rank in that order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

__all__ = [
    "Square",
    "Bitboard",
    "SQUARES",
    "SQUARE_NAMES",
    "BB_ALL",
    "BB_SQUARES",
    "NEIGHBOURS",
    "NEIGHBOURS_BY_BIT",
    "PUSH_TARGET",
    "CANONICAL_KEY",
    "parse_square",
    "square_name",
    "square_at",
    "scan",
    "bits",
]

Square: TypeAlias = int
Bitboard: TypeAlias = int

FILE_NAMES = "abcde"
RANK_NAMES = "12345"

SQUARES: list[Square] = list(range(25))
BB_ALL: Bitboard = (1 << 25) - 1
BB_SQUARES: list[Bitboard] = [1 << sq for sq in SQUARES]


def square_at(file: int, rank: int) -> Square:
    """Square of 0-based ``file`` (a=0) and 0-based ``rank`` (1=0)."""
    return (4 - rank) * 5 + file


def _file_rank(sq: Square) -> tuple[int, int]:
    return sq % 5, 4 - sq // 5


SQUARE_NAMES: list[str] = [FILE_NAMES[f] + RANK_NAMES[r] for f, r in map(_file_rank, SQUARES)]
_SQUARE_BY_NAME: dict[str, Square] = {name: sq for sq, name in enumerate(SQUARE_NAMES)}

CANONICAL_KEY: list[int] = [0] * 25
for _rank_of_name, _name in enumerate(sorted(SQUARE_NAMES)):
    CANONICAL_KEY[_SQUARE_BY_NAME[_name]] = _rank_of_name
del _rank_of_name, _name


def parse_square(name: str) -> Square:
    """Square of a lowercase name like ``"c3"``.

    Raises:
        ValueError: ``name`` is not a square of the 5x5 board.
    """
    try:
        return _SQUARE_BY_NAME[name]
    except KeyError:
        raise ValueError(f"not a square: {name!r} (expected a1-e5)") from None


def square_name(sq: Square) -> str:
    """Name of ``sq`` (``0`` is ``"a5"``)."""
    return SQUARE_NAMES[sq]


_DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 5 and 0 <= r < 5


def _neighbours(sq: Square) -> Bitboard:
    f, r = _file_rank(sq)
    mask = 0
    for df, dr in _DIRECTIONS:
        if _on_board(f + df, r + dr):
            mask |= 1 << square_at(f + df, r + dr)
    return mask


def _push_targets() -> dict[tuple[Square, Square], Square]:
    """Minotaur push squares: the next square beyond ``to`` in the direction ``frm -> to``."""
    table: dict[tuple[Square, Square], Square] = {}
    for frm in SQUARES:
        f, r = _file_rank(frm)
        for df, dr in _DIRECTIONS:
            if _on_board(f + 2 * df, r + 2 * dr) and _on_board(f + df, r + dr):
                table[(frm, square_at(f + df, r + dr))] = square_at(f + 2 * df, r + 2 * dr)
    return table


#: King-move neighbours of each square (never the square itself; no wrap-around).
NEIGHBOURS: list[Bitboard] = [_neighbours(sq) for sq in SQUARES]
#: The same table keyed by the square's bit, so hot loops over a mask skip ``bit_length``.
NEIGHBOURS_BY_BIT: dict[Bitboard, Bitboard] = {1 << sq: NEIGHBOURS[sq] for sq in SQUARES}
#: ``PUSH_TARGET[(frm, to)]``: where a Minotaur stepping ``frm -> to`` pushes; absent if off-board.
PUSH_TARGET: dict[tuple[Square, Square], Square] = _push_targets()


def scan(mask: Bitboard) -> Iterator[Square]:
    """Squares of ``mask`` in index order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def bits(mask: Bitboard) -> Iterator[Bitboard]:
    """Single-bit masks of ``mask``, lowest first (cheaper than :func:`scan` in hot loops)."""
    while mask:
        low = mask & -mask
        yield low
        mask ^= low
