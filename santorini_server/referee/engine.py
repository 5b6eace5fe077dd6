"""One engine seen through SEI as a game needs it: the thin trio shell over an ``EngineChannel``.

Theory of operation.  The channel (``channel.py``) starts the process, speaks the codec, bounds
every read and write and maps every failure to the termination tag it decides; ``Engine`` adds
the game's commands on top: the handshake and the spec's options at start, ``newgame`` with
its ``readyok``, and one turn (``think``).

The per-turn path (``think``) is built to cost little more than the pipe round trip itself,
measured by ``tools/bench_referee.py``: the request is written without a pass through the
scheduler, output already waiting is read the same way, and the game's deadline scope is armed
only when the referee really has to wait; an engine whose output never makes it wait still
cannot outlive its deadline, because the turn checks the clock after every line it acts on and
every chunk.

Failures are reported as ``EngineFailure(kind, detail)`` where ``kind`` is the termination tag
the game will record (``crash``, ``stall``, ``engine-error``, ``illegal``, ``limit``).  After any
failure the engine is ``broken`` and must be restarted before its next game.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import msgspec
import trio

from ..sei import (
    EOF,
    NEED_DATA,
    BestMove,
    EngineError,
    Go,
    Info,
    IsReady,
    NewGame,
    PositionCommand,
    ReadyOk,
    Resign,
    Result,
    SeiConnection,
    SetOption,
    Stop,
)
from .channel import WRITE_TIMEOUT, EngineChannel, EngineFailure, EngineInfo, live_games
from .engine_spec import EngineSpec
from .transport import EngineTransport

__all__ = [
    "Engine",
    "seats_refusal",
    "EngineFailure",
    "EngineInfo",
    "Reply",
    "live_games",
    "HANDSHAKE_TIMEOUT",
    "READY_TIMEOUT",
    "STOP_TIMEOUT",
    "WRITE_TIMEOUT",
]

HANDSHAKE_TIMEOUT = 10.0
"""``sei`` -> ``seiok`` (SPEC.md section 4.6: "no seiok within the start-up timeout";
fastchess uses 10 s)."""
READY_TIMEOUT = 30.0
"""``newgame``/``isready`` -> ``readyok`` (SPEC.md section 4.6)."""
STOP_TIMEOUT = 5.0
"""``stop`` -> ``bestmove`` (SPEC.md section 4.6: "no bestmove within 5 s after stop")."""
WRITE_SLACK = 0.001
"""Added to a turn's deadline for writing ``position``+``go`` into the pipe (microseconds when the
engine reads its input), so the deadline never fires before ``turn_started + allowance``."""

#: Callback for protocol logging: (engine name, direction ">>" or "<<", text).  None = off.
IoLog = Callable[[str, str, str], None]


def seats_refusal(name: str, info: EngineInfo, seats: int) -> str | None:
    """The one line that refuses ``name`` a ``seats``-seat game before any game starts, or None
    when its handshake declared that seat count (SPEC.md section 4.3: no ``feature players``
    line means two seats only)."""
    if info.plays(seats):
        return None
    if info.declared_players:
        said = f"its handshake declared `feature players {' '.join(str(n) for n in sorted(info.declared_players))}`"
    else:
        said = "its handshake has no `feature players` line, which means 2 only"
    return f"{name} does not play {seats}-seat games ({said})"


class Reply(msgspec.Struct, frozen=True):
    """The answer to one ``go``: the turn text (None for resign) and the engine's last ``info``.

    A struct whose constructor is written in C: one is made every turn.
    """

    turn: str | None
    elapsed: float
    """Seconds from just after ``go`` was written to the arrival of the ``bestmove`` line."""
    info: Info | None


class Engine:
    """A started, handshaken engine; created by :meth:`start`."""

    def __init__(self, channel: EngineChannel) -> None:
        self.channel = channel
        self.turn_started = 0.0
        """trio time at which the last ``go`` was written (the stopwatch's start)."""

    @property
    def name(self) -> str:
        return self.channel.spec.name

    @property
    def spec(self) -> EngineSpec:
        return self.channel.spec

    @property
    def info(self) -> EngineInfo:
        return self.channel.info

    @property
    def process(self) -> EngineTransport:
        return self.channel.process

    @property
    def conn(self) -> SeiConnection:
        return self.channel.conn

    @property
    def broken(self) -> bool:
        """Set after any failure: restart before the next game."""
        return self.channel.broken

    @broken.setter
    def broken(self, value: bool) -> None:
        self.channel.broken = value

    @classmethod
    async def start(
        cls,
        nursery: trio.Nursery,
        spec: EngineSpec,
        *,
        io_log: IoLog | None = None,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ) -> Engine:
        """Start the process in ``nursery`` (which outlives games), run the handshake and send
        the spec's options.

        Raises:
            EngineFailure: the program could not be started (``crash``) or did not complete the
                handshake (``stall``/``crash``/``engine-error``); the process is closed.
        """
        tap = None
        if io_log is not None:
            name = spec.name
            tap = lambda at, direction, line: io_log(name, direction, line)  # noqa: E731
        return await cls.attach(await EngineChannel.open(nursery, spec, tap=tap), handshake_timeout=handshake_timeout)

    @classmethod
    async def attach(cls, channel: EngineChannel, *, handshake_timeout: float = HANDSHAKE_TIMEOUT) -> Engine:
        """An engine on an open ``channel`` (a started process, or a remote bot's connection):
        run the handshake and send the spec's options.

        Raises:
            EngineFailure: the handshake failed; the channel is closed.
        """
        engine = cls(channel)
        try:
            await channel.handshake(handshake_timeout)
            for option, value in channel.spec.options:
                await channel.send(SetOption(name=option, value=value))
        except BaseException:
            await engine.aclose()
            raise
        return engine

    # -- game commands ---------------------------------------------------------------------------

    def supports(self, gods: tuple[str, ...]) -> bool:
        return all(g in self.info.gods for g in gods)

    async def new_game(self, gods: tuple[str, ...], timeout: float = READY_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """``newgame`` + ``isready``; the engine must answer ``readyok`` within ``timeout``."""
        await self.until_ready(await self.send_new_game(gods), timeout)

    async def send_new_game(self, gods: tuple[str, ...]) -> float:
        """The first half of :meth:`new_game`: write ``newgame`` + ``isready`` and return when
        (the start of the ``readyok`` timeout).  A game readies both engines at once this way."""
        since = self.channel.now()
        await self.channel.send(NewGame(gods=gods), IsReady())
        return since

    async def until_ready(self, since: float, timeout: float = READY_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """The second half of :meth:`new_game`: ``readyok`` within ``timeout`` of ``since``."""
        if self._poll_idle(ReadyOk):
            return  # on a shared core the answer is usually in already: no timeout to set up
        with trio.move_on_at(since + timeout) as scope:
            await self._until_ready()
        if scope.cancelled_caught:
            self.broken = True
            raise EngineFailure("stall", f"no readyok within {timeout:g} s after newgame")

    async def ping(self, timeout: float = READY_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """``isready`` -> ``readyok`` (the optional per-turn sync, off the clock)."""
        with trio.move_on_after(timeout) as scope:
            await self.channel.send(IsReady())
            await self._until_ready()
        if scope.cancelled_caught:
            self.broken = True
            raise EngineFailure("stall", f"no readyok within {timeout:g} s")

    async def _until_ready(self) -> None:
        while True:
            event = await self.channel.next_event()
            if isinstance(event, ReadyOk):
                return
            if isinstance(event, EngineError):
                raise self._error_reply(event)

    def _error_reply(self, event: EngineError) -> EngineFailure:
        self.broken = True
        return EngineFailure("engine-error", f"error {event.text}")

    def _poll_idle(self, until: type | None = None) -> bool:
        """Act on what the engine said while idle, without waiting; True once an ``until``
        event has been read.

        The codec parses lazily, so a line written after the last reply (a second ``bestmove``
        for one ``go``, a ``bestmove`` with no ``go``) would otherwise be read after the next
        ``go`` and taken as its answer.  Read here, in IDLE, it is the violation it is.  A line
        still in flight when the ``go`` is written cannot be told apart (SEI has no request ids).

        Raises:
            EngineFailure: ``engine-error`` for an out-of-sequence or malformed line or ``error``.
        """
        event = self.channel.poll(EngineError) if until is None else self.channel.poll(EngineError, until)
        if type(event) is EngineError:
            raise self._error_reply(event)
        return event is not None

    async def think(
        self,
        position: PositionCommand,
        go: Go,
        *,
        deadline: trio.CancelScope,
        allowance: float,
        ping: bool = False,
    ) -> Reply:
        """Send ``position`` and ``go`` in one write and wait for the ``bestmove``.

        The stopwatch starts after the write (``turn_started``) and stops when the chunk holding
        the ``bestmove`` line has been read.  ``deadline`` (the game's one scope) is armed with
        ``turn_started + allowance`` (plus ``WRITE_SLACK``) when this has to wait; see
        :meth:`EngineChannel.receive` for when it is disarmed.

        Raises:
            EngineFailure: crash, protocol violation or ``error`` reply.
        """
        channel = self.channel
        self._poll_idle()
        if ping:
            deadline.deadline = math.inf  # the sync is off the clock (and waits)
            await channel.send(position)
            await self.ping()
            data = channel.encode(go)
        else:
            data = channel.encode(position, go)
        # The turn's deadline is its allowance from the end of the write (the stopwatch's
        # start; Clock.charge judges the exact overrun), plus WRITE_SLACK; a write that has to
        # wait is bounded by the allowance from its start.
        await channel.send_bytes(data, deadline, allowance + WRITE_SLACK)
        started = self.turn_started = channel.now()
        at = started + allowance + WRITE_SLACK
        last_info: Info | None = None
        next_event = channel.next_event_nowait
        while True:
            # like channel.next_event(), but keeps the arrival time of the chunk holding the
            # reply (the codec holds no complete line here: _poll_idle read them all)
            arrived = await channel.receive(deadline, at)
            while (event := next_event(turn=True)) is not NEED_DATA:
                if event is EOF:
                    deadline.deadline = math.inf  # ruling on the EOF is off the clock
                    raise await channel.closed_output("closed its output during its turn", "exited during its turn")
                if type(event) is BestMove:
                    return Reply(event.turn, arrived - started, last_info)
                if type(event) is Resign:
                    return Reply(None, arrived - started, last_info)
                if type(event) is Info:
                    if event.string is None:
                        last_info = event
                elif type(event) is EngineError:
                    raise self._error_reply(event)
                await self._overdue(deadline, at)
            await self._overdue(deadline, at)  # a chunk of blank lines gives no event at all

    async def _overdue(self, deadline: trio.CancelScope, at: float) -> None:
        """Past ``at``, arm the game's scope expired and let it fire.

        An engine that floods its output never makes us wait, so the scope, armed only while
        waiting, would never fire on its own; a turn checks after every line it acts on.
        """
        if self.channel.now() > at:
            deadline.deadline = at
            await trio.lowlevel.checkpoint()

    async def stop_search(self, timeout: float = STOP_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """After a time loss: ``stop`` and wait for that search's ``bestmove``, or mark broken."""
        try:
            with trio.move_on_after(timeout) as scope:
                await self.channel.send(Stop())
                while not isinstance(await self.channel.next_event(), (BestMove, Resign)):
                    pass
        except EngineFailure:
            self.broken = True
            return
        if scope.cancelled_caught:
            self.broken = True

    async def send_result(self, result: str | tuple[int | None, ...], reason: str) -> None:
        """The ``result`` notice (informational); failures here cannot change the game.

        ``result`` is ``1-0``/``0-1``, or with three and four seats the placings, one per seat
        (None for a place not decided yet: an engine eliminated while the others play on).
        """
        if self.broken:
            return
        notice = (
            Result(placings=result, reason=reason)
            if isinstance(result, tuple)
            else Result(result=result, reason=reason)  # type: ignore[arg-type]
        )
        try:
            await self.channel.send(notice)
        except EngineFailure:
            self.broken = True

    def seats_refusal(self, seats: int) -> str | None:
        """Why this engine may not play a ``seats``-seat game, one line; None when it may."""
        return seats_refusal(self.name, self.info, seats)

    async def aclose(self) -> None:
        """``quit``, grace, SIGTERM, SIGKILL, reap (the process layer's bounded sequence)."""
        await self.channel.aclose()

    def stderr_tail(self) -> str:
        return self.channel.stderr_tail()
