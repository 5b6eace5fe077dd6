"""Command -> line: the grammar of what the referee sends (SPEC.md section 4.2).

Commands were validated when they were built (``messages.py``), so every field is already
printable ASCII and a writer only arranges tokens.  The result always ends in one LF.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .messages import (
    Command,
    Debug,
    Go,
    IsReady,
    LegalMovesRequest,
    NewGame,
    PerftRequest,
    PositionCommand,
    Quit,
    Result,
    Sei,
    SetOption,
    Stop,
)

__all__ = ["WRITERS", "go_line", "write_command", "write_go", "write_position"]

def _write_setoption(c: SetOption) -> str:
    return f"setoption name {c.name}" + ("" if c.value is None else f" value {c.value}")


def write_position(c: PositionCommand) -> str:
    start = "startpos" if c.sps is None else f"sps {c.sps}"
    # `moves` is left out when there are none (decision: both forms are valid, one is canonical).
    return f"position {start}" + ("" if not c.moves else " moves " + " ".join(c.moves))


def write_go(c: Go) -> str:
    """``go`` and the fields it has, in the order of SPEC.md section 4.2 (every seat's clock, then
    every seat's increment, then the limits), then ``infinite``."""
    return go_line(c)[0]


def go_line(c: Go) -> tuple[str, int]:
    """:func:`write_go`'s line, and the highest seat whose clock or increment it carries (2 when
    none beyond seat 2): the connection's seat check, found by the writing itself.

    Spelled out field by field: the referee writes one every turn, and this is about twice as
    fast as a loop over the field names (and a two-seat ``go`` pays nothing for seats 3, 4 but
    the four tests that find them absent)."""
    line = "go"
    seat = 2
    if c.p1time is not None:
        line += f" p1time {c.p1time}"
    if c.p2time is not None:
        line += f" p2time {c.p2time}"
    if c.p3time is not None:
        line += f" p3time {c.p3time}"
        seat = 3
    if c.p4time is not None:
        line += f" p4time {c.p4time}"
        seat = 4
    if c.p1inc is not None:
        line += f" p1inc {c.p1inc}"
    if c.p2inc is not None:
        line += f" p2inc {c.p2inc}"
    if c.p3inc is not None:
        line += f" p3inc {c.p3inc}"
        seat = max(seat, 3)
    if c.p4inc is not None:
        line += f" p4inc {c.p4inc}"
        seat = 4
    if c.movestogo is not None:
        line += f" movestogo {c.movestogo}"
    if c.movetime is not None:
        line += f" movetime {c.movetime}"
    if c.depth is not None:
        line += f" depth {c.depth}"
    if c.nodes is not None:
        line += f" nodes {c.nodes}"
    return (line + " infinite" if c.infinite else line), seat


WRITERS: dict[type, Callable[[Any], str]] = {
    Sei: lambda c: f"sei {c.version}",
    SetOption: _write_setoption,
    IsReady: lambda c: "isready",
    NewGame: lambda c: "newgame gods " + "/".join(c.gods),
    PositionCommand: write_position,
    Go: write_go,
    Stop: lambda c: "stop",
    Result: lambda c: f"result {c.text} {c.reason}",
    Debug: lambda c: "debug on" if c.on else "debug off",
    Quit: lambda c: "quit",
    LegalMovesRequest: lambda c: "legalmoves",
    PerftRequest: lambda c: f"perft {c.depth}",
}


def write_command(command: Command) -> bytes:
    """The wire bytes of one command, LF-terminated ASCII."""
    return (WRITERS[type(command)](command) + "\n").encode("ascii")
