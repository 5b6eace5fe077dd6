"""Build SPS text for tests from square names, so a test reads like the ruling it pins."""

from __future__ import annotations

from santorini_server.rules import Position
from santorini_server.rules.squares import parse_square


def sps(
    gods: str = "mortal/mortal",
    *,
    h: dict[str, int] | None = None,
    domes: str = "",
    p1: str = "-",
    p2: str = "-",
    stm: int = 1,
    turn: int | None = None,
) -> str:
    """SPS of a position given as ``h={"b1": 1}``, ``domes="b3 b4"``, ``p1="a1,e5"``."""
    cells = ["0"] * 25
    for name, level in (h or {}).items():
        cells[parse_square(name)] = str(level)
    for name in domes.split():
        cells[parse_square(name)] = "4"
    board = "/".join("".join(cells[r * 5 : r * 5 + 5]) for r in range(5))
    side = lambda s: s if s == "-" else ",".join(sorted(s.split(",")))  # noqa: E731
    if turn is None:
        turn = 1 if "-" in (p1, p2) else 2
    return f"{gods};{board};{side(p1)}/{side(p2)};{stm};{turn}"


def pos(*args: object, **kwargs: object) -> Position:
    return Position.from_sps(sps(*args, **kwargs))  # type: ignore[arg-type]
