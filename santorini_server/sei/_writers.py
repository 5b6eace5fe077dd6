"""Command -> line: the grammar of what the referee sends (protocol.md 4.1).

Commands were validated when they were built (``messages.py``), so every field is already
printable ASCII and a writer only arranges tokens.  The result always ends in one LF.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .errors import LocalProtocolError
from .messages import (
    Command,
    Debug,
    Go,
    IsReady,
    LegalMovesRequest,
    NewGame,
    PerftRequest,
    Position,
    Quit,
    Result,
    Sei,
    SetOption,
    Stop,
)

__all__ = ["WRITERS", "GoLine", "PositionWriter", "go_writer", "write_command", "write_position", "write_go"]

def _write_setoption(c: SetOption) -> str:
    return f"setoption name {c.name}" + ("" if c.value is None else f" value {c.value}")


def write_position(c: Position) -> str:
    start = "startpos" if c.sps is None else f"sps {c.sps}"
    # `moves` is left out when there are none (decision: both forms are valid, one is canonical).
    return f"position {start}" + ("" if not c.moves else " moves " + " ".join(c.moves))


class PositionWriter:
    """Writes the ``position`` lines of one game as its turns are played.

    Why: the referee sends the whole game every turn; appending each turn once beats
    rebuilding the move list.  ``line`` equals ``write_position(self.message())``;
    ``SeiConnection.send_search`` takes the writer in place of a ``Position``.
    """

    __slots__ = ("line", "_sps", "_sep")

    def __init__(self, sps: str | None = None) -> None:
        self.line = write_position(Position(sps=sps))  # checks the SPS token
        self._sps = sps
        self._sep = " moves "

    def push(self, turn: str) -> None:
        """Add a played turn (one printable-ASCII token, as ``Position`` requires).

        Checked with str methods, not ``TOKEN_RE``: the same test, and the regex engine cold
        once a turn cost the referee 0.3 us a turn (measured in-process, pinned)."""
        if not (turn.isascii() and turn.isprintable() and " " not in turn and turn):
            raise LocalProtocolError(f"turn must be one printable-ASCII token, got {turn!r}")
        self.line = self.line + self._sep + turn
        self._sep = " "

    def message(self) -> Position:
        """The ``Position`` command the line spells (for a caller that sends it on its own)."""
        return Position._trusted(self._sps, tuple(self.line.partition(" moves ")[2].split()))


class GoLine(str):
    """A ``go`` line made by a :func:`go_writer` (``SeiConnection.send_search`` sends it as is)."""

    __slots__ = ()


#: The fields of ``go`` in protocol.md 4.1's order, marking those a game's clocks fill in.
_GO_FIELDS = (
    ("p1time", True),
    ("p2time", True),
    ("p1inc", False),
    ("p2inc", False),
    ("movestogo", True),
    ("movetime", False),
    ("depth", False),
    ("nodes", False),
)


def _go_format(go: Go) -> str:
    """``go``'s line as a format string: the fields it has, in order, with ``{0}``, ``{1}`` and
    ``{2}`` where ``p1time``, ``p2time`` and ``movestogo`` go."""
    fmt = "go"
    slot = {"p1time": "{0}", "p2time": "{1}", "movestogo": "{2}"}
    for name, clocked in _GO_FIELDS:
        value = getattr(go, name)
        if value is not None:
            fmt += f" {name} " + (slot[name] if clocked else str(value))
    if go.infinite:
        fmt += " infinite"
    return fmt


@functools.lru_cache(maxsize=256)  # games of one match share their writers
def go_writer(go: Go) -> Callable[[int | None, int | None, int | None], GoLine]:
    """A writer of the ``go`` lines of one game, for the fields ``go`` has.

    The fields that stay the same from turn to turn (increments, ``movetime``, ``depth``,
    ``nodes``) are written once; the returned function fills in ``p1time``, ``p2time`` and
    ``movestogo`` (each present exactly when ``go`` has it).  Why: the referee writes a ``go``
    every turn.
    """
    fill = _go_format(go).format
    return lambda p1time, p2time, movestogo: GoLine(fill(p1time, p2time, movestogo))


def write_go(c: Go) -> str:
    # not through go_writer's cache: a single go (clocks included) would only evict a game's writer
    return _go_format(c).format(c.p1time, c.p2time, c.movestogo)


WRITERS: dict[type, Callable[[Any], str]] = {
    Sei: lambda c: f"sei {c.version}",
    SetOption: _write_setoption,
    IsReady: lambda c: "isready",
    NewGame: lambda c: f"newgame gods {c.gods[0]}/{c.gods[1]}",
    Position: write_position,
    Go: write_go,
    Stop: lambda c: "stop",
    Result: lambda c: f"result {c.result} {c.reason}",
    Debug: lambda c: "debug on" if c.on else "debug off",
    Quit: lambda c: "quit",
    LegalMovesRequest: lambda c: "legalmoves",
    PerftRequest: lambda c: f"perft {c.depth}",
}


def write_command(command: Command) -> bytes:
    """The wire bytes of one command, LF-terminated ASCII."""
    return (WRITERS[type(command)](command) + "\n").encode("ascii")
