"""Draw a position as text for a terminal: heights, domes, workers, whose turn, gods.

Shared by ``santorini show``, ``play`` and ``replay``.  Pure: returns a string; colour (ANSI) is
only added when the caller asks for it.
"""

from __future__ import annotations

from .rules.position import Position

__all__ = ["render"]

_WORKER = ("X", "O")
#: Worker letters by group: two players X/O; three seats X/O/V; four seats team A and team B.
_LETTERS = {2: ("X", "O"), 3: ("X", "O", "V"), 4: ("A", "B")}
#: Background colours by level 0-3 and dome (256-colour ANSI), light to dark as towers grow.
_BG = ("\x1b[48;5;252m", "\x1b[48;5;187m", "\x1b[48;5;144m", "\x1b[48;5;101m", "\x1b[48;5;25m")
_FG = ("\x1b[1;38;5;160m", "\x1b[1;38;5;21m", "\x1b[1;38;5;28m")
_RESET = "\x1b[0m"


def _cell(pos: Position, sq: int, colour: bool) -> str:
    level = pos.level(sq)
    letters = _LETTERS[pos.nseats]
    worker = next((g for g, w in enumerate(pos.workers) if w >> sq & 1), None)
    text = " ^^ " if level == 4 else f" {level}{letters[worker] if worker is not None else '.'} "
    if not colour:
        return text
    fg = _FG[worker] if worker is not None else "\x1b[38;5;240m"
    return _BG[level] + fg + text + _RESET


def render(pos: Position, *, colour: bool = False, status: str | None = None) -> str:
    """A board diagram of ``pos``: each cell is its level (0-3) and a worker, ``^^`` a dome.

    ``X`` marks player 1's workers and ``O`` player 2's; ``2X`` is a player 1 worker on level 2.
    Three seats add ``V`` for seat 3; four seats mark the teams' shared workers ``A`` (seats 1
    and 3) and ``B`` (seats 2 and 4).  The header says whose turn it is, or ``status`` instead (a
    finished game's result: after the last turn nobody is to move).
    """
    if pos.nseats != 2:
        return _render_n(pos, colour, status)
    me = pos.to_move
    names = []
    for p in (0, 1):
        god = pos.gods[p] + ("[up]" if pos.athena_up and p != me else "")
        names.append(f"P{p + 1} {_WORKER[p]} {god}")
    action = "to place" if pos.is_placement else "to move"
    state = status if status is not None else f"turn {pos.turn}, player {me + 1} ({_WORKER[me]}) {action}"
    lines = [f"{names[0]}  vs  {names[1]}    {state}"]
    lines.extend(_board(pos, colour))
    if pos.athena_up:
        lines.append(f"  Athena moved up last turn: player {me + 1}'s workers may not move up")
    return "\n".join(lines)


def _board(pos: Position, colour: bool) -> list[str]:
    lines = ["      a   b   c   d   e"]
    for row in range(5):
        cells = "".join(_cell(pos, row * 5 + f, colour) for f in range(5))
        lines.append(f"  {5 - row}  {cells}")
    return lines


def _render_n(pos: Position, colour: bool, status: str | None) -> str:
    """Three or four seats: one header line per seat (letter, god, out or to move)."""
    letters = _LETTERS[pos.nseats]
    me = pos.to_move
    action = "to place" if pos.is_placement else "to move"
    lines = [status if status is not None else f"round {pos.turn}, seat {me + 1} {action}"]
    for seat, god in enumerate(pos.gods):
        letter = letters[pos.group_of(seat)]
        team = f" team {letter} (seats {seat % 2 + 1} and {seat % 2 + 3})" if pos.nseats == 4 else ""
        notes = []
        if pos.eliminated >> seat & 1:
            notes.append("eliminated")
        elif seat == me and status is None:
            notes.append(action)
        if god == "athena" and pos.athena_up:
            notes.append("moved up: her opponents may not move up")
        tail = f"  ({', '.join(notes)})" if notes else ""
        lines.append(f"  S{seat + 1} {letter} {god}{team}{tail}")
    lines.extend(_board(pos, colour))
    return "\n".join(lines)
