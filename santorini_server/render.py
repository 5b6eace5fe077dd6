"""Draw a position as text for a terminal: heights, domes, workers, whose turn, gods.

Shared by ``santorini show``, ``play`` and ``replay``.  Pure: returns a string; colour (ANSI) is
only added when the caller asks for it.
"""

from __future__ import annotations

from .rules.position import Position

__all__ = ["render"]

_WORKER = ("X", "O")
#: Background colours by level 0-3 and dome (256-colour ANSI), light to dark as towers grow.
_BG = ("\x1b[48;5;252m", "\x1b[48;5;187m", "\x1b[48;5;144m", "\x1b[48;5;101m", "\x1b[48;5;25m")
_FG = ("\x1b[1;38;5;160m", "\x1b[1;38;5;21m")
_RESET = "\x1b[0m"


def _cell(pos: Position, sq: int, colour: bool) -> str:
    level = pos.level(sq)
    worker = next((p for p in (0, 1) if pos.workers[p] >> sq & 1), None)
    text = " ^^ " if level == 4 else f" {level}{_WORKER[worker] if worker is not None else '.'} "
    if not colour:
        return text
    fg = _FG[worker] if worker is not None else "\x1b[38;5;240m"
    return _BG[level] + fg + text + _RESET


def render(pos: Position, *, colour: bool = False, status: str | None = None) -> str:
    """A board diagram of ``pos``: each cell is its level (0-3) and a worker, ``^^`` a dome.

    ``X`` marks player 1's workers and ``O`` player 2's; ``2X`` is a player 1 worker on level 2.
    The header says whose turn it is, or ``status`` instead (a finished game's result: after
    the last turn nobody is to move).
    """
    me = pos.to_move
    names = []
    for p in (0, 1):
        god = pos.gods[p] + ("[up]" if pos.athena_up and p != me else "")
        names.append(f"P{p + 1} {_WORKER[p]} {god}")
    action = "to place" if pos.is_placement else "to move"
    state = status if status is not None else f"turn {pos.turn}, player {me + 1} ({_WORKER[me]}) {action}"
    lines = [f"{names[0]}  vs  {names[1]}    {state}"]
    lines.append("      a   b   c   d   e")
    for row in range(5):
        cells = "".join(_cell(pos, row * 5 + f, colour) for f in range(5))
        lines.append(f"  {5 - row}  {cells}")
    if pos.athena_up:
        lines.append(f"  Athena moved up last turn: player {me + 1}'s workers may not move up")
    return "\n".join(lines)
