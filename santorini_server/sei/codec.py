"""The sans-IO SEI connection: bytes in, events out; commands in, bytes out (h11 ``Connection``).

Theory of operation
-------------------
:class:`SeiConnection` is the referee's view of one engine process.  It never touches a pipe:
the I/O layer feeds it whatever it read from the engine's stdout (:meth:`receive_data`, ``b""``
for EOF), pulls events (:meth:`next_event`) until it gets :data:`NEED_DATA`, and writes the bytes
that :meth:`send` returns to the engine's stdin.  Because of that it can be tested byte by byte
without processes or clocks, and the trio layer stays a dumb pump.

Framing (SPEC.md section 4.1): lines end in LF; one trailing CR is stripped; a line is
at most :data:`MAX_LINE_LENGTH` bytes (LF not counted).  Framing happens in ``receive_data``, so
the buffer never holds more than the complete lines not yet read plus one partial line of at
most the limit: a longer line is cut off the buffer as soon as it is seen, everything after it
is dropped (the connection is doomed), and :meth:`next_event` raises once the lines before it
have been read.  Lines are decoded as UTF-8 with invalid bytes replaced by U+FFFD (decision: the
protocol is ASCII, but free text such as an author's name may be UTF-8, and a stray byte in an
``info string`` should not cost a game).  Replacement never lets bad bytes through where they
matter: every token the referee acts on must be printable ASCII, so a U+FFFD or control
character in a ``bestmove`` token is a :class:`RemoteProtocolError`.

Parsing is in ``_readers.py``, sequencing in ``_state.py``, writing in ``_writers.py``.  The
connection reports what the engine *said*; whether that is an illegal turn, a stall or a crash is
for the game layer to decide.
"""

from __future__ import annotations

import re
from typing import NoReturn

from ._readers import ReadContext, read_line
from ._state import ERROR, IDLE, SEARCHING, ConnectionState, State
from ._util import Sentinel
from ._writers import go_line, write_command
from .errors import MAX_QUOTE_LENGTH, LocalProtocolError, RemoteProtocolError, quote
from .messages import BestMove, Command, EngineMessage, Go, NewGame, PerftRequest, PerftResult, Resign, Sei

__all__ = ["MAX_LINE_LENGTH", "NEED_DATA", "EOF", "SeiConnection"]

#: Longest line accepted from an engine, in bytes without the LF.  The longest legitimate line
#: is a ``legalmoves`` reply.  Its worst case is a Hermes power position: at most C(23,2) = 253
#: pairs of end squares times at most 16 build squares, about 4,000 turns of at most 15 bytes
#: (``b3-d3,c2-e2+e1``), roughly 64 KB.  256 KiB is four times that, and bounds what one engine
#: can make the referee buffer (h11 bounds an incomplete event at 16 KiB for the same reason).
MAX_LINE_LENGTH = 256 * 1024


#: One ``bestmove`` line holding one printable-ASCII token, and nothing else (no CR either).
_BESTMOVE_CHUNK = re.compile(rb"bestmove ([!-~]+)\n")


class NEED_DATA(Sentinel, metaclass=Sentinel):
    """:meth:`SeiConnection.next_event` needs more bytes before it can return an event."""


class EOF(Sentinel, metaclass=Sentinel):
    """The engine closed its stdout and every complete line has been returned."""


class SeiConnection:
    """Sans-IO state of one engine connection, seen from the referee.

    Args:
        max_line_length: longest engine line accepted, in bytes (tests lower it).
        strict_info: read ``info`` lines strictly: a garbled field is named in ``Info.problem``
            (``santorini check``); the lines are still never an error.
    """

    def __init__(self, *, max_line_length: int = MAX_LINE_LENGTH, strict_info: bool = False) -> None:
        if max_line_length < 1:
            raise ValueError(f"max_line_length must be >= 1, got {max_line_length}")
        self._max_line_length = max_line_length
        self._cs = ConnectionState()
        self._ctx = ReadContext(strict_info=strict_info)
        self._buffer = bytearray()
        # Start of the first line not known to be complete (0: no complete line buffered).
        self._line_start = 0
        # Bytes before this index contain no LF beyond _line_start: resume searching here, so
        # feeding a long line byte by byte costs O(n), not O(n^2).
        self._searched_to = 0
        # The first bytes of an overlong line, once one was seen (then the connection is doomed).
        self._overlong: bytes | None = None
        self._closed = False
        self._trailing_data = b""
        # Seats of the game the last newgame began (None before one).
        self._seats: int | None = None

    # -- inspection ----------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The main state: ``NEW``, ``HANDSHAKE``, ``IDLE``, ``SEARCHING``, ``STOPPING``,
        ``LISTING``, ``COUNTING``, ``QUIT`` or ``ERROR``."""
        return self._cs.state

    @property
    def seats(self) -> int | None:
        """Seats of the game begun by the last ``newgame`` sent (None before one): a ``go`` may
        carry clocks of these seats only."""
        return self._seats

    @property
    def ping_outstanding(self) -> bool:
        """An ``isready`` was sent and its ``readyok`` has not been read yet."""
        return self._cs.ping_outstanding

    @property
    def lines_waiting(self) -> bool:
        """Whether :meth:`next_event` has something other than ``NEED_DATA`` to say (a buffered
        line, EOF, an overlong line, or the ERROR state): a cheap question before a poll."""
        return bool(self._line_start) or self._overlong is not None or self._closed or self._cs.state is ERROR

    @property
    def partial_line(self) -> bytes:
        """Output after the last complete line: a line the engine has not ended (yet), or the
        fragment left at EOF.  For diagnostics (a handshake that never ends says what it got)."""
        return bytes(self._buffer[self._line_start :]) or self._trailing_data

    @property
    def trailing_data(self) -> bytes:
        """An unterminated last line found at EOF (empty if none), kept for the log.

        It is not parsed (decision): lines end in LF and engines flush whole lines, so a
        fragment means the engine died mid-write, and a truncated ``bestmove b3-b4+c`` must
        read as a crash, not as an illegal turn.
        """
        return self._trailing_data

    # -- engine -> referee ---------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Add bytes read from the engine's stdout; ``b""`` means EOF.

        Raises:
            RuntimeError: data after EOF (a bug in the caller, as in h11).
        """
        if not data:
            self._closed = True
            return
        if self._closed:
            raise RuntimeError("received data after EOF")
        if self._overlong is not None:
            return  # doomed: the error is raised when next_event reaches the overlong line
        buf = self._buffer
        buf += data
        pos = self._searched_to
        while True:
            lf = buf.find(b"\n", pos)
            end = len(buf) if lf < 0 else lf
            if end - self._line_start > self._max_line_length:
                self._overlong = bytes(buf[self._line_start : self._line_start + MAX_QUOTE_LENGTH])
                del buf[self._line_start :]
                self._searched_to = self._line_start
                return
            if lf < 0:
                self._searched_to = len(buf)
                return
            pos = self._line_start = lf + 1

    def _extract_line(self) -> str | None:
        if self._line_start == 0:
            return None
        buf = self._buffer
        lf = buf.find(b"\n", 0, self._line_start)
        raw = bytes(buf[:lf])
        del buf[: lf + 1]
        self._line_start -= lf + 1
        self._searched_to -= lf + 1
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        return raw.decode("utf-8", errors="replace")

    def next_event(self) -> EngineMessage | type[NEED_DATA] | type[EOF]:
        """Return the next thing the engine said, ``NEED_DATA`` or ``EOF``.

        Blank lines are skipped.  ``EOF`` is returned again on every later call.

        Raises:
            RemoteProtocolError: the engine sent a malformed, overlong or out-of-sequence line,
                or the connection was already in ERROR.  The connection is then in ERROR for good.
        """
        if not self.lines_waiting:
            return NEED_DATA  # the common answer, asked before every turn: decided without work
        buf = self._buffer
        if self._line_start == len(buf) and self._cs.state is SEARCHING and buf.startswith(b"bestmove "):
            # A turn's reply in its usual shape, the whole buffer: ``bestmove <token>``.  Read
            # here as read_line + process_engine_message would (same event, same state), minus
            # the framing and tokenizer; any other shape takes the general path below.
            match = _BESTMOVE_CHUNK.fullmatch(buf)
            if match is not None:
                turn = match[1].decode("ascii")
                buf.clear()
                self._line_start = self._searched_to = 0
                self._cs.state = IDLE
                return Resign() if turn == "resign" else BestMove(turn=turn)
        if self._cs.state is ERROR:
            raise RemoteProtocolError("can't receive: the connection is in state ERROR")
        try:
            while True:
                line = self._extract_line()
                if line is None:
                    if self._overlong is not None:
                        raise RemoteProtocolError(
                            f"line longer than {self._max_line_length} bytes, "
                            f"starting {quote(self._overlong)}"
                        )
                    if self._closed:
                        if self._buffer:
                            self._trailing_data = bytes(self._buffer)
                            self._buffer.clear()
                            self._line_start = self._searched_to = 0
                        return EOF
                    return NEED_DATA
                if not line.strip(" \t"):
                    continue  # a blank line carries nothing (read_line's answer, without the tokenizer)
                event = read_line(line, self._ctx)
                if event is None:
                    continue
                try:
                    self._cs.process_engine_message(type(event))
                except RemoteProtocolError as exc:
                    raise RemoteProtocolError(f"{exc}: {quote(line)}") from None
                if type(event) is PerftResult:
                    self._ctx.requested_perft_depth = None
                return event
        except RemoteProtocolError:
            self._cs.process_error()
            raise

    # -- referee -> engine ---------------------------------------------------------------------

    def send(self, command: Command) -> bytes:
        """Return the bytes to write for ``command`` and advance the state.

        Several commands may be written in one go (``position`` + ``go``): concatenate the
        results.

        Raises:
            LocalProtocolError: the state forbids the command (e.g. ``go`` while a ``go`` is
                outstanding), or a ``go`` carries the clock of a seat the game does not have
                (``p3time`` after a two-god ``newgame``).  The connection is then in ERROR,
                where only ``quit`` may be sent.
        """
        try:
            self._cs.process_command(type(command))
        except Exception:
            self._cs.process_error()
            raise
        if type(command) is Go:  # every turn: tested first; the writer finds the seats it names
            line, seat = go_line(command)
            if seat > 2 and self._seats is not None and seat > self._seats:
                self._cs.process_error()
                self._refuse_seat(command, self._seats)
            return (line + "\n").encode("ascii")
        if type(command) is Sei:
            self._ctx.requested_version = command.version
        elif type(command) is PerftRequest:
            self._ctx.requested_perft_depth = command.depth
        elif type(command) is NewGame:
            self._seats = command.seats
        return write_command(command)

    @staticmethod
    def _refuse_seat(go: Go, seats: int) -> NoReturn:
        """Name the first field of ``go`` for a seat the game (per ``newgame``) does not have."""
        name = next(n for n in ("p3time", "p3inc", "p4time", "p4inc") if getattr(go, n) is not None and int(n[1]) > seats)
        raise LocalProtocolError(f"can't send go {name} in a {seats}-seat game (the newgame named {seats} gods)")

    def send_failed(self) -> None:
        """Tell the connection that writing the bytes of the last :meth:`send` failed.

        The engine may have seen part of a command, so nothing it says can be trusted to be
        in sequence any more: the connection goes to ERROR.
        """
        self._cs.process_error()
