"""SEI messages as immutable values: what the engine says (events) and the referee sends (commands).

Theory of operation: every line of the protocol (SPEC.md section 4) is one frozen, keyword-only
``msgspec.Struct``: a slotted class whose constructor is written in C (the referee makes a few
every turn, and a frozen dataclass sets each field through ``object.__setattr__`` in Python;
measured with callgrind, a ``go`` cost 8,900 instructions that way and costs 5,600 checked now).
Engine events are built by the codec's reader after it has checked the
line, so their constructors do not re-validate.  Referee commands are built by callers, so their
constructors validate (h11 ``_events.py``): a command that would put a malformed line on the wire
raises :class:`~santorini_server.sei.errors.LocalProtocolError` when it is created, long before
it is sent.  Turns, SPS strings and god names are opaque tokens here (the rules and notation
layers judge them); the codec only guarantees that a token is one run of printable ASCII, so it
can never split a line or smuggle in a command.

Don't subclass these: the codec dispatches on the exact type.
"""

from __future__ import annotations

import copy
import re
from typing import Literal, TypeAlias

import msgspec
from msgspec.structs import force_setattr

from ..termination import Termination
from .errors import MAX_QUOTE_LENGTH, LocalProtocolError, quote

__all__ = [
    # engine -> referee
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
    "EngineMessage",
    # referee -> engine
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
    "Command",
    # vocabulary
    "OPTION_TYPES",
    "RESULT_REASONS",
    "DEFAULT_PLAYERS",
    "MORTAL",
]

#: A protocol token: one or more printable ASCII characters, no space (SPEC.md section 4.1:
#: tokens are separated by spaces/tabs, and every token the referee acts on is printable ASCII).
#: Control characters, DEL and anything non-ASCII are excluded, so a token can never contain a
#: line break.
TOKEN_RE = re.compile(r"[!-~]+")
#: Free text in a referee command (option names and values): printable ASCII and single spaces.
_TEXT_RE = re.compile(r"[!-~]+(?: [!-~]+)*")
#: UCI option types (SPEC.md section 4.3: ``type`` is one of these five).
OPTION_TYPES = frozenset({"check", "spin", "combo", "button", "string"})
#: Reasons a ``result`` notice may carry: the termination tags that decide a winner.  ``aborted``
#: is absent on purpose: an aborted game has no winner, so no ``result`` line is sent (decision,
#: see SPEC.md section 4.3).
RESULT_REASONS: frozenset[str] = frozenset(t.value for t in Termination if t.decisive)
#: The seat counts of an engine that sends no ``feature players`` line: two only (SPEC.md section 4.3).
DEFAULT_PLAYERS: frozenset[int] = frozenset({2})
#: The god name that means "no god" (SPEC.md section 4.2), the one name SEI itself gives a meaning.
MORTAL = "mortal"


# --------------------------------------------------------------------------------------------
# Engine -> referee (events).  Built by the reader; no validation in constructors.


class Id(msgspec.Struct, frozen=True, kw_only=True):
    """``id name <text>`` or ``id author <text>`` (handshake)."""

    field: Literal["name", "author"]
    #: Rest of the line after the separator following the field word, verbatim.
    value: str


class Option(msgspec.Struct, frozen=True, kw_only=True):
    """``option name <id> type <t> [default <x>] [min <n>] [max <n>] [var <x>]*`` (UCI syntax)."""

    name: str
    type: str
    #: The default as text (``None`` if absent); its meaning depends on ``type``.
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()


class Gods(msgspec.Struct, frozen=True, kw_only=True):
    """``gods <name> ...``: gods the engine supports (``mortal`` is implied)."""

    names: tuple[str, ...]


class Feature(msgspec.Struct, frozen=True, kw_only=True):
    """``feature <name> ...``: optional commands it implements (``legalmoves``, ``perft``), and
    ``players <n> ...``: the seat counts it plays (SPEC.md section 4.3).

    ``players`` takes every word after it to the end of the line, each 2, 3 or 4; the name
    ``players`` is in ``names`` and its counts in :attr:`players`.
    """

    names: tuple[str, ...]
    #: The seat counts of a ``players`` feature on this line; None when the line has none.
    players: frozenset[int] | None = None


class SeiOk(msgspec.Struct, frozen=True, kw_only=True):
    """``seiok <version>``: end of the handshake; the highest version <= the requested one."""

    version: int


class ReadyOk(msgspec.Struct, frozen=True, kw_only=True):
    """``readyok``: answer to ``isready``."""


class BestMove(msgspec.Struct, frozen=True, kw_only=True):
    """``bestmove <turn>``: the engine's chosen turn, exactly as sent.

    Only checked to be one printable-ASCII token; whether it is STN, canonical or legal is
    decided by the rules layer (a malformed turn is an ``illegal`` loss, not a protocol error).
    """

    turn: str


class Resign(msgspec.Struct, frozen=True, kw_only=True):
    """``bestmove resign``."""


class Info(msgspec.Struct, frozen=True, kw_only=True):
    """``info ...`` telemetry, parsed leniently: fields that are absent or garbled are ``None``.

    An info line never raises; telemetry must not be able to lose a game.
    """

    depth: int | None = None
    seldepth: int | None = None
    #: Milliseconds searched so far.
    time: int | None = None
    nodes: int | None = None
    nps: int | None = None
    #: ``score cp <x>``: engine units, side to move's view.
    score_cp: int | None = None
    #: ``score win <n>``: side to move wins in n of its own turns (negative: loses).
    score_win: int | None = None
    #: ``wdl <w> <d> <l>`` in per mille.
    wdl: tuple[int, int, int] | None = None
    pv: tuple[str, ...] = ()
    #: ``info string <text>``: the rest of the line, verbatim.
    string: str | None = None
    #: The whole line (CR stripped), for logs and for fields this parser does not know.
    raw: str = ""
    #: Why the line is malformed, when the connection reads ``info`` strictly
    #: (``SeiConnection(strict_info=True)``): the first garbled field.  None otherwise.
    problem: str | None = None


class EngineError(msgspec.Struct, frozen=True, kw_only=True):
    """``error <text>``: the engine could not execute a command (which one is up to the caller)."""

    text: str


class LegalMoves(msgspec.Struct, frozen=True, kw_only=True):
    """``legalmoves <n> <t1> ... <tn>``: reply (count checked against the list)."""

    count: int
    turns: tuple[str, ...]


class PerftResult(msgspec.Struct, frozen=True, kw_only=True):
    """``perft <depth> <count>``: reply (depth checked against the request)."""

    depth: int
    count: int


class Unknown(msgspec.Struct, frozen=True, kw_only=True):
    """A line the protocol does not define.  Not an error (UCI tolerance): callers log it."""

    line: str


EngineMessage: TypeAlias = (
    Id
    | Option
    | Gods
    | Feature
    | SeiOk
    | ReadyOk
    | BestMove
    | Resign
    | Info
    | EngineError
    | LegalMoves
    | PerftResult
    | Unknown
)


# --------------------------------------------------------------------------------------------
# Referee -> engine (commands).  Validated in constructors.


def _show(value: object) -> str:
    return quote(value) if isinstance(value, (str, bytes)) else repr(value)[:MAX_QUOTE_LENGTH]


def _check_token(what: str, value: object) -> None:
    if not isinstance(value, str) or TOKEN_RE.fullmatch(value) is None:
        raise LocalProtocolError(
            f"{what} must be one token of printable ASCII without spaces, got {_show(value)}"
        )


def _check_int(what: str, value: object, minimum: int) -> None:
    # bool is an int subclass; `go depth True` is a bug, not a depth of 1.
    if not isinstance(value, int) or isinstance(value, bool):
        raise LocalProtocolError(f"{what} must be an int, got {value!r}")
    if value < minimum:
        raise LocalProtocolError(f"{what} must be >= {minimum}, got {value!r}")


class Sei(msgspec.Struct, frozen=True, kw_only=True):
    """``sei <version>``: start the handshake."""

    version: int = 1

    def __post_init__(self) -> None:
        _check_int("sei version", self.version, 1)


class SetOption(msgspec.Struct, frozen=True, kw_only=True):
    """``setoption name <id> [value <x>]``: only while idle.

    Names and values are printable ASCII words separated by single spaces (the engine splits on
    whitespace, so anything else would not survive the trip).  A name may not contain the word
    ``value``: the engine could not tell where the name ends (the same ambiguity as UCI).
    ``value=None`` sends no value (buttons); an empty string cannot be sent (use UCI's
    ``<empty>`` if the engine understands it).
    """

    name: str
    value: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or _TEXT_RE.fullmatch(self.name) is None:
            raise LocalProtocolError(
                "option name must be printable ASCII words separated by single spaces, "
                f"got {_show(self.name)}"
            )
        if "value" in self.name.split(" "):
            raise LocalProtocolError(
                f"option name may not contain the word 'value': {quote(self.name)}"
            )
        if self.value is not None and (
            not isinstance(self.value, str) or _TEXT_RE.fullmatch(self.value) is None
        ):
            raise LocalProtocolError(
                "option value must be printable ASCII words separated by single spaces, "
                f"got {_show(self.value)}"
            )


class IsReady(msgspec.Struct, frozen=True, kw_only=True):
    """``isready``: ping; the engine answers ``readyok``, also during a search."""


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    """``newgame gods <g1>/<g2>[/<g3>[/<g4>]]``: one god per seat, in seat order.

    The number of gods is the number of seats (SPEC.md section 4.2).  Two seats are checked as
    they always were (``mortal`` allowed, even twice).  Three or four seats need a god at every
    seat, each a different one: the codec refuses ``mortal`` and a repeated name there, because
    no such game exists.  Whether a name is a god at all is the rules' concern (``santorini
    check`` sends ``zeus`` on purpose).
    """

    gods: tuple[str, ...]

    def __post_init__(self) -> None:
        gods = self.gods
        if not isinstance(gods, tuple) or not 2 <= len(gods) <= 4:
            count = f"{len(gods)} god{'s' * (len(gods) != 1)}" if isinstance(gods, (tuple, list)) else repr(gods)
            raise LocalProtocolError(f"newgame takes 2, 3 or 4 gods as a tuple (one per seat), got {count}")
        for god in gods:
            _check_token("god name", god)
            if "/" in god:
                raise LocalProtocolError(f"god name may not contain '/': {quote(god)}")
        if len(gods) > 2:
            line = "/".join(gods)
            if MORTAL in gods:
                raise LocalProtocolError(
                    f"newgame gods {line}: a {len(gods)}-seat game has no mortal (every seat plays a god)"
                )
            for god in gods:
                if gods.count(god) > 1:
                    raise LocalProtocolError(
                        f"newgame gods {line}: {god} is named twice (each seat has a god of its own)"
                    )

    @property
    def seats(self) -> int:
        """The number of seats of the game: one per god."""
        return len(self.gods)


class PositionCommand(msgspec.Struct, frozen=True, kw_only=True):
    """``position startpos|sps <SPS> [moves <t1> ...]``; ``sps=None`` means ``startpos``."""

    sps: str | None = None
    moves: tuple[str, ...] = ()

    @classmethod
    def unchecked(cls, sps: str | None, moves: tuple[str, ...]) -> PositionCommand:
        """A command from tokens our own rules core produced (a checked SPS, canonical STN), built
        without checking them again, as h11's ``_parsed=True`` does: the referee sends one every
        turn and the move list grows, so checking every token every turn would be the turn's
        largest cost (at 18 moves about 20,000 instructions, the rest of the turn's Python about
        150,000; callgrind).  A copy of a checked command skips ``__post_init__``."""
        self = copy.copy(_STARTPOS)
        force_setattr(self, "sps", sps)
        force_setattr(self, "moves", moves)
        return self

    def __post_init__(self) -> None:
        if self.sps is not None:
            _check_token("SPS", self.sps)
        if not isinstance(self.moves, tuple):
            raise LocalProtocolError(
                f"moves must be a tuple of turns, got {type(self.moves).__name__}"
            )
        for turn in self.moves:
            _check_token("turn", turn)


class Go(msgspec.Struct, frozen=True, kw_only=True):
    """``go [p1time ..] [p2time ..] [p3time ..] [p4time ..] [p1inc ..] [p2inc ..] [p3inc ..]
    [p4inc ..] [movestogo ..] [movetime ..] [depth ..] [nodes ..] [infinite]``.

    ``pNtime``/``pNinc`` are seat N's clock and increment; seats 3 and 4 exist only in games of
    that many seats, and a connection that saw the ``newgame`` refuses them in a smaller game
    (:meth:`SeiConnection.send`).  Times are milliseconds.  Clocks and increments are >= 0: a clock inside the grace margin
    is negative, and the caller sends it clamped to 0 (decision: engines ported from UCI do
    not expect negative times).  Counts and ``movetime`` are >= 1.
    """

    p1time: int | None = None
    p2time: int | None = None
    p3time: int | None = None
    p4time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    p3inc: int | None = None
    p4inc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False

    def __post_init__(self) -> None:
        # One test per field, the message built only on failure: the referee makes a go every turn.
        for value in (self.p1time, self.p2time, self.p1inc, self.p2inc):
            if value is not None and (type(value) is not int or value < 0):
                self._refuse()
        if self.p3time is not None or self.p4time is not None or self.p3inc is not None or self.p4inc is not None:
            for value in (self.p3time, self.p4time, self.p3inc, self.p4inc):
                if value is not None and (type(value) is not int or value < 0):
                    self._refuse()
        for value in (self.movestogo, self.movetime, self.depth, self.nodes):
            if value is not None and (type(value) is not int or value < 1):
                self._refuse()
        if type(self.infinite) is not bool:
            raise LocalProtocolError(f"go infinite must be a bool, got {self.infinite!r}")

    def _refuse(self) -> None:
        for name, minimum in _GO_MINIMUMS:
            if (value := getattr(self, name)) is not None:
                _check_int(f"go {name}", value, minimum)


#: Each ``go`` number and its least value: clocks and increments may be 0, counts and movetime not.
_GO_MINIMUMS = (
    ("p1time", 0), ("p2time", 0), ("p3time", 0), ("p4time", 0),
    ("p1inc", 0), ("p2inc", 0), ("p3inc", 0), ("p4inc", 0),
    ("movestogo", 1), ("movetime", 1), ("depth", 1), ("nodes", 1),
)

#: A checked ``position startpos``: :meth:`PositionCommand.unchecked` copies it.
_STARTPOS = PositionCommand()


class Stop(msgspec.Struct, frozen=True, kw_only=True):
    """``stop``: end the search; the engine answers with its one ``bestmove``."""


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """``result <1-0|0-1> <reason>`` (two seats) or ``result <placings> <reason>`` (three or four
    seats): an informational game-over notice (SPEC.md section 4.2).

    Give ``result`` or ``placings``: one place per seat in seat order, 1 = first (the SGN
    ``Result`` of SPEC.md section 13).  Two-seat placings are stored as ``result`` ((1, 2) is
    ``1-0``, (2, 1) is ``0-1``), so both spellings make one command and the two-seat line is the
    one it always was.  Three and four seats are written joined by ``-`` (``1-3-2``, ``1-2-2``,
    ``2-1-2-1``).  ``None`` is a place not decided yet, written ``*``: the notice of a 3-seat
    engine eliminated while the other two play on carries only its own place (``*-*-3``).
    """

    result: Literal["1-0", "0-1"] | None = None
    placings: tuple[int | None, ...] | None = None
    reason: str

    def __post_init__(self) -> None:
        if self.placings is not None:
            if self.result is not None:
                raise LocalProtocolError("result takes result or placings, not both")
            two_seat = _check_placings(self.placings)
            if two_seat is not None:
                force_setattr(self, "result", two_seat)
                force_setattr(self, "placings", None)
        elif self.result not in ("1-0", "0-1"):
            raise LocalProtocolError(f"result must be '1-0' or '0-1', got {self.result!r}")
        if self.reason not in RESULT_REASONS:
            raise LocalProtocolError(
                f"result reason must be one of {sorted(RESULT_REASONS)}, got {_show(self.reason)}"
            )

    @property
    def text(self) -> str:
        """The outcome token as written: ``1-0``, ``0-1``, or the placings (``1-3-2``, ``*-*-3``)."""
        if self.placings is None:
            assert self.result is not None
            return self.result
        return "-".join("*" if place is None else str(place) for place in self.placings)


#: The finished placings of a game of three or four seats, sorted (SPEC.md section 4.2): 3 seats,
#: one winner and the others by elimination order, or tied when still in at the win; 4 seats,
#: one team first and the other second.
_FINAL_PLACINGS = {3: ((1, 2, 3), (1, 2, 2)), 4: ((1, 2, 1, 2), (2, 1, 2, 1))}


def _check_placings(placings: object) -> Literal["1-0", "0-1"] | None:
    """Refuse placings no game can have; the two-seat result for two seats, else None."""
    if not isinstance(placings, tuple) or not 2 <= len(placings) <= 4:
        raise LocalProtocolError(f"result placings must be a tuple of 2 to 4 places, one per seat, got {placings!r}")
    seats = len(placings)
    for place in placings:
        if place is not None and (type(place) is not int or not 1 <= place <= seats):
            raise LocalProtocolError(f"result placings {placings!r}: a place is an int from 1 to {seats} or None")
    text = "-".join("*" if place is None else str(place) for place in placings)
    if seats == 2:
        if placings == (1, 2):
            return "1-0"
        if placings == (2, 1):
            return "0-1"
        raise LocalProtocolError(f"result placings {text}: two seats finish 1-2 or 2-1")
    if None in placings:
        if seats != 3 or sorted(placings, key=lambda p: p or 0) != [None, None, 3]:
            raise LocalProtocolError(
                f"result placings {text}: only a 3-seat game has an undecided place, when one seat is out (third)"
            )
    elif seats == 3 and tuple(sorted(p for p in placings if p is not None)) not in _FINAL_PLACINGS[3]:
        raise LocalProtocolError(f"result placings {text}: three seats finish 1-2-3 in some order, or 1-2-2")
    elif seats == 4 and placings not in _FINAL_PLACINGS[4]:
        raise LocalProtocolError(f"result placings {text}: four seats finish as teams, 1-2-1-2 or 2-1-2-1")
    return None


class Debug(msgspec.Struct, frozen=True, kw_only=True):
    """``debug on|off``."""

    on: bool

    def __post_init__(self) -> None:
        if not isinstance(self.on, bool):
            raise LocalProtocolError(f"debug takes a bool, got {self.on!r}")


class Quit(msgspec.Struct, frozen=True, kw_only=True):
    """``quit``: the engine exits."""


class LegalMovesRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``legalmoves`` (engines with ``feature legalmoves``)."""


class PerftRequest(msgspec.Struct, frozen=True, kw_only=True):
    """``perft <depth>`` (engines with ``feature perft``)."""

    depth: int

    def __post_init__(self) -> None:
        _check_int("perft depth", self.depth, 1)


Command: TypeAlias = (
    Sei
    | SetOption
    | IsReady
    | NewGame
    | PositionCommand
    | Go
    | Stop
    | Result
    | Debug
    | Quit
    | LegalMovesRequest
    | PerftRequest
)
