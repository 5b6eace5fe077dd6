"""The SEI sequencing rules as transition tables (h11 ``_state.py``).

Theory of operation
-------------------
Everything that decides whether a line or a command is allowed *in sequence* lives here; the
reader and writer only decide whether it is well formed.  There is one peer (the engine) and one
main state, moved by what the referee sends and by what the engine says:

* ``NEW`` until ``sei`` is sent; ``HANDSHAKE`` until ``seiok`` arrives; then ``IDLE``.
* ``go`` moves IDLE to ``SEARCHING``; ``stop`` moves SEARCHING to ``STOPPING``; the one
  ``bestmove`` (or ``bestmove resign``) of that search moves either back to IDLE.  A second
  ``bestmove`` therefore arrives in IDLE, where it is not allowed (SPEC.md section 4.2:
  "exactly one" bestmove; section 4.4: strict alternation, no request ids).
* ``legalmoves`` and ``perft`` are requests with one reply: ``LISTING`` / ``COUNTING`` until it
  arrives.
* ``quit`` moves any live state to ``QUIT``; after that nothing may be sent and every engine line
  is accepted without sequencing checks (the engine may still be flushing a search).
* ``ERROR`` is sticky: reached by any protocol error, ours or the engine's, and left never.  Only
  ``quit`` may still be sent, so the I/O layer can ask a misbehaving engine to exit before it
  kills it.

``isready``/``readyok`` is orthogonal to the main state (``readyok`` is due "always,
immediately, also during a search"): a flag records one outstanding ``isready``; ``readyok``
is allowed exactly when it is set.  At most one ``isready`` may be outstanding, which keeps the
pairing of pings and answers unambiguous.

``info``, ``error`` and unknown lines are allowed in every live state and never move it: info is
telemetry, unknown lines are UCI tolerance (and start-up banners), and ``error`` may refer to a
command sent some lines earlier (``position`` and ``go`` travel in one write), so only the
caller can tell which command failed.
"""

from __future__ import annotations

from ._util import Sentinel
from .errors import LocalProtocolError, RemoteProtocolError
from .messages import (
    BestMove,
    Debug,
    EngineError,
    Feature,
    Go,
    Gods,
    Id,
    Info,
    IsReady,
    LegalMoves,
    LegalMovesRequest,
    NewGame,
    Option,
    PerftRequest,
    PerftResult,
    PositionCommand,
    Quit,
    ReadyOk,
    Resign,
    Result,
    Sei,
    SeiOk,
    SetOption,
    Stop,
    Unknown,
)

__all__ = [
    "NEW",
    "HANDSHAKE",
    "IDLE",
    "SEARCHING",
    "STOPPING",
    "LISTING",
    "COUNTING",
    "QUIT",
    "ERROR",
    "State",
    "COMMAND_TRANSITIONS",
    "ENGINE_TRANSITIONS",
    "ConnectionState",
]


class NEW(Sentinel, metaclass=Sentinel):
    """Engine started, ``sei`` not sent yet."""


class HANDSHAKE(Sentinel, metaclass=Sentinel):
    """``sei`` sent, waiting for ``seiok``."""


class IDLE(Sentinel, metaclass=Sentinel):
    """Handshake done, nothing outstanding."""


class SEARCHING(Sentinel, metaclass=Sentinel):
    """A ``go`` is outstanding."""


class STOPPING(Sentinel, metaclass=Sentinel):
    """``stop`` sent, waiting for that search's ``bestmove``."""


class LISTING(Sentinel, metaclass=Sentinel):
    """``legalmoves`` sent, waiting for the reply."""


class COUNTING(Sentinel, metaclass=Sentinel):
    """``perft`` sent, waiting for the reply."""


class QUIT(Sentinel, metaclass=Sentinel):
    """``quit`` sent."""


class ERROR(Sentinel, metaclass=Sentinel):
    """A protocol error happened (either side); sticky."""


State = type[Sentinel]

# Lines allowed in every live state, without a transition.
_ANY_TIME: tuple[type, ...] = (Info, Unknown, EngineError)


def _engine_row(state: State, row: dict[type, State]) -> dict[type, State]:
    return {**dict.fromkeys(_ANY_TIME, state), **row}


#: What the engine may say in each state, and the state it leads to.  ``readyok`` is not here:
#: it is governed by the ping flag.  ``QUIT`` accepts everything (see module docstring) and
#: ``ERROR`` nothing.
ENGINE_TRANSITIONS: dict[State, dict[type, State]] = {
    NEW: _engine_row(NEW, {}),
    HANDSHAKE: _engine_row(
        HANDSHAKE,
        {Id: HANDSHAKE, Option: HANDSHAKE, Gods: HANDSHAKE, Feature: HANDSHAKE, SeiOk: IDLE},
    ),
    IDLE: _engine_row(IDLE, {}),
    SEARCHING: _engine_row(SEARCHING, {BestMove: IDLE, Resign: IDLE}),
    STOPPING: _engine_row(STOPPING, {BestMove: IDLE, Resign: IDLE}),
    LISTING: _engine_row(LISTING, {LegalMoves: IDLE}),
    COUNTING: _engine_row(COUNTING, {PerftResult: IDLE}),
    ERROR: {},
}

#: What the referee may send in each state, and the state it leads to.  ``isready`` also needs
#: the ping flag clear.
COMMAND_TRANSITIONS: dict[State, dict[type, State]] = {
    NEW: {Sei: HANDSHAKE, Quit: QUIT},
    HANDSHAKE: {Quit: QUIT},
    IDLE: {
        SetOption: IDLE,
        NewGame: IDLE,
        PositionCommand: IDLE,
        Result: IDLE,
        Debug: IDLE,
        IsReady: IDLE,
        Go: SEARCHING,
        LegalMovesRequest: LISTING,
        PerftRequest: COUNTING,
        Quit: QUIT,
    },
    SEARCHING: {Stop: STOPPING, IsReady: SEARCHING, Debug: SEARCHING, Quit: QUIT},
    STOPPING: {IsReady: STOPPING, Debug: STOPPING, Quit: QUIT},
    LISTING: {IsReady: LISTING, Debug: LISTING, Quit: QUIT},
    COUNTING: {IsReady: COUNTING, Debug: COUNTING, Quit: QUIT},
    QUIT: {},
    ERROR: {Quit: ERROR},
}


class ConnectionState:
    """The main state plus the ping flag; raises the right error for an out-of-sequence step."""

    def __init__(self) -> None:
        self.state: State = NEW
        #: An ``isready`` was sent and its ``readyok`` has not arrived.
        self.ping_outstanding = False

    def process_command(self, command_type: type) -> None:
        """Apply a command about to be sent.

        Raises:
            LocalProtocolError: the state forbids it (state unchanged; the caller moves to ERROR).
        """
        row = COMMAND_TRANSITIONS[self.state]
        if command_type not in row:
            raise LocalProtocolError(f"can't send {command_type.__name__} in state {self.state!r}")
        if command_type is IsReady:
            if self.ping_outstanding:
                raise LocalProtocolError("can't send IsReady: an isready is already outstanding")
            self.ping_outstanding = True
        self.state = row[command_type]

    def process_engine_message(self, message_type: type) -> None:
        """Apply a line the engine sent.

        Raises:
            RemoteProtocolError: the state forbids it (state unchanged; the caller moves to ERROR).
        """
        if self.state is ERROR:
            raise RemoteProtocolError("can't receive: the connection is in state ERROR")
        if message_type is ReadyOk:
            if not self.ping_outstanding and self.state is not QUIT:
                raise RemoteProtocolError("readyok without an outstanding isready")
            self.ping_outstanding = False
            return
        if self.state is QUIT:
            return
        row = ENGINE_TRANSITIONS[self.state]
        if message_type not in row:
            raise RemoteProtocolError(
                f"engine sent {message_type.__name__} in state {self.state!r}"
            )
        self.state = row[message_type]

    def process_error(self) -> None:
        """Enter the sticky ERROR state."""
        self.state = ERROR
