"""Sans-IO codec of SEI, the Santorini Engine Interface (SPEC.md section 4).

No I/O, no trio: bytes and values in, bytes and values out.  See ``codec.py`` for the theory of
operation and ``_state.py`` for the sequencing rules.
"""

from ._state import (
    COUNTING,
    ERROR,
    HANDSHAKE,
    IDLE,
    LISTING,
    NEW,
    QUIT,
    SEARCHING,
    STOPPING,
    State,
)
from .codec import EOF, MAX_LINE_LENGTH, NEED_DATA, SeiConnection
from .errors import LocalProtocolError, RemoteProtocolError, SeiProtocolError
from .handshake import HandshakeTrace
from .messages import (
    DEFAULT_PLAYERS,
    OPTION_TYPES,
    RESULT_REASONS,
    BestMove,
    Command,
    Debug,
    EngineError,
    EngineMessage,
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
    # connection
    "SeiConnection",
    "NEED_DATA",
    "EOF",
    "MAX_LINE_LENGTH",
    "HandshakeTrace",
    # states
    "State",
    "NEW",
    "HANDSHAKE",
    "IDLE",
    "SEARCHING",
    "STOPPING",
    "LISTING",
    "COUNTING",
    "QUIT",
    "ERROR",
    # errors
    "SeiProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
    # engine -> referee
    "EngineMessage",
    "Id",
    "Option",
    "Gods",
    "Feature",
    "SeiOk",
    "ReadyOk",
    "BestMove",
    "Resign",
    "Info",
    "EngineError",
    "LegalMoves",
    "PerftResult",
    "Unknown",
    # referee -> engine
    "Command",
    "Sei",
    "SetOption",
    "IsReady",
    "NewGame",
    "PositionCommand",
    "Go",
    "Stop",
    "Result",
    "Debug",
    "Quit",
    "LegalMovesRequest",
    "PerftRequest",
    # vocabulary
    "OPTION_TYPES",
    "RESULT_REASONS",
    "DEFAULT_PLAYERS",
]
