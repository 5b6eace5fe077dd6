"""One engine process seen through SEI: the thin trio shell around ``sei.SeiConnection``.

Theory of operation.  ``Engine`` owns an ``EngineProcess`` (bytes) and a ``SeiConnection``
(meaning).  The game task is the only reader of the engine's stdout and reads it directly while
it waits for a reply, so a reply reaches the clock without a hop through another task
(decision: this keeps the per-turn path to one write and one read; stderr has its own drain task
in the process layer, and an engine that writes while nobody waits only fills its pipe).  Every
wait here is bounded by the caller's cancel scope or by a named timeout.

The per-turn path (``think``) is built to cost little more than the pipe round trip itself,
measured by ``tools/bench_referee.py``: the request is written without a pass through the
scheduler; output already waiting is read the same way (on a shared core the engine has usually
answered by the time we look), so the game's deadline scope is armed only when the referee
really has to wait; an engine whose output never makes it wait still cannot outlive its
deadline, because the turn checks the clock after every line it acts on and every chunk.  With
other games in the same event loop (``live_games``) a reply yields to them, for fairness of
their clocks.

Failures are reported as ``EngineFailure(kind, detail)`` where ``kind`` is the termination tag
the game will record (``crash``, ``stall``, ``engine-error``, ``illegal``).  After any failure the
engine is ``broken`` and must be restarted before its next game.
"""

from __future__ import annotations

import math
import signal
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, NamedTuple

import trio

from ..process import BoundedCapture, EngineGone, EngineLimits, EngineProcess, EngineStartError, run_engine
from ..sei import (
    EOF,
    NEED_DATA,
    BestMove,
    EngineError,
    Feature,
    Go,
    Gods,
    GoLine,
    Id,
    Info,
    IsReady,
    NewGame,
    Option,
    Position,
    PositionWriter,
    Quit,
    ReadyOk,
    RemoteProtocolError,
    Resign,
    Result,
    Sei,
    SeiConnection,
    SeiOk,
    SeiProtocolError,
    SetOption,
    Stop,
)
from .engine_spec import EngineSpec

__all__ = [
    "Engine",
    "EngineFailure",
    "EngineInfo",
    "Reply",
    "HANDSHAKE_TIMEOUT",
    "READY_TIMEOUT",
    "STOP_TIMEOUT",
    "WRITE_TIMEOUT",
]

#: What an engine's stderr says when an allocation failed (Python, C++, C, Rust, Go, the JVM).
_MEMORY_WORDS = ("memoryerror", "bad_alloc", "out of memory", "cannot allocate memory", "memory allocation", "outofmemory")

_statistics = trio.lowlevel.current_statistics

_LIVE_GAMES: trio.lowlevel.RunVar[list[int]] = trio.lowlevel.RunVar("santorini_live_games")


def live_games() -> list[int]:
    """This event loop's count of games in progress, ``[n]`` (``play_game`` counts itself in).

    With one, a reply needs no yield to other games: the per-turn path of ``match`` and of the
    benchmark.  A one-item list, so an engine can keep it and read it for the price of an index.
    """
    try:
        return _LIVE_GAMES.get()
    except LookupError:
        counter = [0]
        _LIVE_GAMES.set(counter)
        return counter

HANDSHAKE_TIMEOUT = 10.0
"""``sei`` -> ``seiok`` (protocol.md 4.5: "no seiok within start-up timeout (e.g. 10 s)"; fastchess
uses 10 s)."""
READY_TIMEOUT = 30.0
"""``newgame``/``isready`` -> ``readyok`` (protocol.md 4.5: "no readyok (e.g. 30 s)")."""
STOP_TIMEOUT = 5.0
"""``stop`` -> ``bestmove`` (protocol.md 4.5: "no bestmove within e.g. 5 s after stop")."""
WRITE_SLACK = 0.001
"""Added to a turn's deadline for writing ``position``+``go`` into the pipe (microseconds when the
engine reads its input), so the deadline never fires before ``turn_started + allowance``."""
WRITE_TIMEOUT = 5.0
"""A write to an engine's stdin: an engine that stops reading for this long is stalled."""

#: Callback for protocol logging: (engine name, direction ">>" or "<<", text).  None = off.
IoLog = Callable[[str, str, str], None]


class EngineFailure(Exception):
    """The engine failed in a way that decides the game: ``kind`` is the termination tag."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass
class EngineInfo:
    """What the engine said about itself at the handshake."""

    name: str = ""
    author: str = ""
    gods: tuple[str, ...] = ("mortal",)
    features: tuple[str, ...] = ()
    options: dict[str, Option] = field(default_factory=dict)
    version: int = 1


class Reply(NamedTuple):
    """The answer to one ``go``: the turn text (None for resign) and the engine's last ``info``.

    A named tuple: one is made every turn, and a tuple is the cheapest immutable record.
    """

    turn: str | None
    elapsed: float
    """Seconds from just after ``go`` was written to the arrival of the ``bestmove`` line."""
    info: Info | None


def _sei_failure(exc: SeiProtocolError) -> EngineFailure:
    return EngineFailure("engine-error", f"protocol violation: {exc}")


#: The codec's messages for a ``bestmove`` line that is not exactly one printable-ASCII token:
#: an ``illegal`` turn (sei.md, termination tags).  Every other violation is ``engine-error``
#: (a ``bestmove`` with no ``go`` outstanding too, although its quoted line says "bestmove").
_BAD_BESTMOVE = ("bestmove takes exactly one turn", "bestmove turn is not printable ASCII")

#: After this many answers in a row that were not in yet when first looked for, ``_receive``
#: stops looking before it waits (but for every 32nd turn).
_LATE_STREAK = 8

#: Reads of an idle engine's pending output before a ``go`` (64 KiB each): bounds the check
#: against an engine that floods its stdout while the opponent thinks.
_IDLE_READS = 16


class Engine:
    """A started, handshaken engine; created by :meth:`start`."""

    def __init__(self, spec: EngineSpec, process: EngineProcess, io_log: IoLog | None) -> None:
        self.spec = spec
        self.process = process
        self.conn = SeiConnection()
        self.info = EngineInfo()
        self.broken = False
        """Set after any failure: restart before the next game."""
        self._io_log = io_log
        self._now = trio.lowlevel.current_clock().current_time
        """The run's clock, bound once (``trio.current_time`` is three calls deep)."""
        self._live = live_games()
        self._late_answers = 0
        """Consecutive reads that found no output yet (see ``_receive``)."""
        self.turn_started = 0.0
        """trio time at which the last ``go`` was written (the stopwatch's start)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    async def start(
        cls,
        nursery: trio.Nursery,
        spec: EngineSpec,
        *,
        io_log: IoLog | None = None,
        handshake_timeout: float = HANDSHAKE_TIMEOUT,
    ) -> "Engine":
        """Start the process in ``nursery`` (which outlives games) and run the handshake.

        Raises:
            EngineFailure: the program could not be started (``crash``) or did not complete the
                handshake (``stall``/``crash``/``engine-error``); the process is closed.
        """
        limits = None
        if spec.memory_limit or spec.cpu_limit:
            limits = EngineLimits(memory_bytes=spec.memory_limit, cpu_seconds=spec.cpu_limit)
        try:
            process = await nursery.start(
                partial(run_engine, list(spec.argv), cwd=spec.cwd, limits=limits, stderr_sink=BoundedCapture())
            )
        except EngineStartError as exc:
            raise EngineFailure("crash", f"could not start {spec.name}: {exc}") from None
        engine = cls(spec, process, io_log)
        try:
            await engine._handshake(handshake_timeout)
        except BaseException:
            await engine.aclose()
            raise
        return engine

    # -- low level ------------------------------------------------------------------------------

    async def _write(self, *commands: object) -> None:
        """Write commands in one go, bounded by ``WRITE_TIMEOUT``."""
        try:
            data = b"".join(self.conn.send(c) for c in commands)  # type: ignore[arg-type]
        except SeiProtocolError as exc:
            raise self._cannot_send(exc) from None
        await self._send(data)

    def _cannot_send(self, exc: SeiProtocolError) -> EngineFailure:
        """The failure for a command the codec refuses to send in the connection's state."""
        return EngineFailure("engine-error", f"cannot send to {self.name}: {exc}")

    async def _send(self, data: bytes) -> None:
        """Write ``data``; an engine that stops reading its input for ``WRITE_TIMEOUT`` is stalled."""
        sent = self._send_now(data)
        if sent < len(data):
            await self._send_rest(data[sent:])

    def _send_now(self, data: bytes) -> int:
        """Log ``data`` and write what the pipe takes now, without a pass through the scheduler
        (commands are small and the pipe is nearly always empty); 0 if the pipe is broken, which
        the awaited write of the rest then reports."""
        if self._io_log is not None:
            for line in data.decode("ascii", "replace").splitlines():
                self._io_log(self.name, ">>", line)
        try:
            return self.process.send_nowait(data)
        except (EngineGone, trio.ClosedResourceError):
            return 0

    async def _send_rest(self, data: bytes, deadline: trio.CancelScope | None = None, at: float = math.inf) -> None:
        """Wait to write what the pipe did not take: bounded by ``WRITE_TIMEOUT``, or during a
        turn by the game's ``deadline`` armed at ``at`` (an engine that stops reading during its
        turn is out of time)."""
        try:
            if deadline is None:
                with trio.fail_after(WRITE_TIMEOUT):
                    await self.process.send_all(data)
            else:
                deadline.deadline = at
                await self.process.send_all(data)
                deadline.deadline = math.inf
        except EngineGone:
            self.broken = True
            with trio.move_on_after(1.0):
                await self.process.wait()
            raise self._crashed("exited") from None
        except trio.TooSlowError:
            self.broken = True
            raise EngineFailure("stall", f"stopped reading its input for {WRITE_TIMEOUT:g} s") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.broken = True
            raise EngineFailure("crash", "its input is closed") from None

    def _crashed(self, what: str) -> EngineFailure:
        """The failure for an engine that is gone: ``crash``, or ``limit`` when it broke a limit.

        A CPU limit shows as SIGXCPU (or the kernel's SIGKILL after it); a memory limit as an
        abnormal exit whose last words on stderr speak of memory (the allocation failed inside
        the engine, which then died its own way).
        """
        status = self.process.status
        description = self.process.exit_description() if status is not None else "still running"
        spec = self.spec
        if status is not None and spec.cpu_limit and status.signal in (signal.SIGXCPU, signal.SIGKILL):
            return EngineFailure("limit", f"CPU limit of {spec.cpu_limit} s ({description})")
        if status is not None and spec.memory_limit and (status.signal or status.code):
            tail = self.stderr_tail().lower()
            if any(word in tail for word in _MEMORY_WORDS):
                return EngineFailure("limit", f"memory limit of {spec.memory_limit // 2**20} MiB ({description})")
        return EngineFailure("crash", f"{what} ({description})")

    def _next(self, *, turn: bool = False) -> object:
        """``conn.next_event()`` with a protocol violation turned into the failure it decides.

        While a turn is awaited (``turn``) a malformed ``bestmove`` line is an ``illegal`` turn;
        every other violation is an ``engine-error``.  Either way the engine is broken.
        """
        try:
            return self.conn.next_event()
        except RemoteProtocolError as exc:
            self.broken = True
            if turn and str(exc).startswith(_BAD_BESTMOVE):
                raise EngineFailure("illegal", str(exc)) from None
            raise _sei_failure(exc) from None

    async def _event(self) -> object:
        """The next event from the engine, reading its stdout as needed (caller bounds the time)."""
        while True:
            event = self._next()
            if event is NEED_DATA:
                await self._receive()
                continue
            if event is EOF:
                self.broken = True
                with trio.move_on_after(1.0):
                    await self.process.wait()
                raise self._crashed("closed its output")
            return event

    async def _receive(self, deadline: trio.CancelScope | None = None, at: float = math.inf) -> float:
        """Feed the next chunk of engine output to the codec; return when it arrived.

        The arrival time is read first thing after the read, before any work: it stops the
        stopwatch.  Output already waiting is read without a pass through the scheduler
        (decision: on a shared core the engine has usually answered by now; FIONREAD asks
        without a failing read's exception); a cancellation point comes first all the same, so
        a deadline or Ctrl-C is never skipped.

        A turn passes the game's ``deadline`` scope and its expiry ``at``: the scope is armed
        only when this has to wait, and left armed after (decision: moving a deadline costs a
        heap operation, and nothing between two turns passes through the scheduler, so a stale
        deadline never fires; whatever does wait before the next arming disarms it first).
        When other games share the loop it is disarmed at once, before yielding to them.
        """
        process = self.process
        crowded = self._live[0] > 1
        late = self._late_answers
        if deadline is None:
            if crowded or self._now() >= trio.current_effective_deadline():
                # A read bounded by the caller's timeout, which only a pass through the
                # scheduler can fire: take one once it is due (an engine flooding its output
                # never makes us wait), or always when other games need their turn.
                await trio.lowlevel.checkpoint()
            else:
                await trio.lowlevel.checkpoint_if_cancelled()
            data = process.receive_nowait() if process.output_pending() else None
        elif late < _LATE_STREAK or not late % 32:
            await trio.lowlevel.checkpoint_if_cancelled()  # a turn checks its deadline itself
            # An engine whose last answer was in at first look has most likely answered again:
            # read at once (one system call); after a late answer, FIONREAD first.
            data = process.receive_nowait() if not late or process.output_pending() else None
        else:
            # This engine's answers keep coming after we first look (it runs on another
            # core): wait at once, without the wasted look; every 32nd turn looks again.
            data = None
        waited = data is None
        if deadline is not None:
            self._late_answers = late + 1 if waited else 0
        if waited:
            if deadline is not None:
                deadline.deadline = at
            while data is None:
                await process.wait_readable()
                data = process.receive_nowait()
        arrived = self._now()
        if crowded:
            if deadline is not None:
                deadline.deadline = math.inf
            if not waited or _statistics().tasks_runnable:
                # Let the other games run (we did not wait), and let any that woke in the same
                # batch read their clocks before anyone does a turn's work, so a reply is not
                # charged for the time other games spent validating theirs.
                await trio.lowlevel.cancel_shielded_checkpoint()
        if self._io_log is not None and data:
            for line in data.decode("utf-8", "replace").splitlines():
                self._io_log(self.name, "<<", line)
        self.conn.receive_data(data)
        return arrived

    def _check_idle(self) -> None:
        """Before a ``go``: read what the engine said while idle, without waiting.

        The codec parses lazily, so a line written after the last reply (a second ``bestmove``
        for one ``go``, a ``bestmove`` with no ``go``) would otherwise be read after the next
        ``go`` and taken as its answer.  Read here, in IDLE, it is the violation it is.  A line
        still in flight when the ``go`` is written cannot be told apart (SEI has no request ids).

        Raises:
            EngineFailure: ``engine-error`` for an out-of-sequence or malformed line or ``error``.
        """
        if self.conn.lines_waiting or self.process.output_pending():
            self._poll()

    def _poll(self, until: type | None = None) -> bool:
        """Act on what the engine has already written, without waiting; True once an ``until``
        event has been read (an ``error`` reply raises), False when nothing more is pending.

        Reads are bounded (``_IDLE_READS``) against an engine that floods its output; EOF is
        left for the next wait to report.
        """
        conn = self.conn
        process = self.process
        reads = 0
        while True:
            event = self._next()
            if event is NEED_DATA:
                if reads == _IDLE_READS or not process.output_pending():
                    return False
                reads += 1
                data = process.receive_nowait()
                if not data:
                    return False
                if self._io_log is not None:
                    for line in data.decode("utf-8", "replace").splitlines():
                        self._io_log(self.name, "<<", line)
                conn.receive_data(data)
            elif event is EOF:
                return False
            elif until is not None and type(event) is until:
                return True
            elif type(event) is EngineError:
                self.broken = True
                raise EngineFailure("engine-error", f"error {event.text}")  # type: ignore[attr-defined]

    async def _handshake(self, timeout: float) -> None:
        with trio.move_on_after(timeout) as scope:
            await self._write(Sei(version=1))
            info = self.info
            while True:
                event = await self._event()
                if isinstance(event, Id):
                    if event.field == "name":
                        info.name = event.value
                    else:
                        info.author = event.value
                elif isinstance(event, Gods):
                    info.gods = ("mortal",) + tuple(event.names)
                elif isinstance(event, Feature):
                    info.features += tuple(event.names)
                elif isinstance(event, Option):
                    info.options[event.name] = event
                elif isinstance(event, SeiOk):
                    info.version = event.version
                    break
        if scope.cancelled_caught:
            raise EngineFailure("stall", f"no seiok within {timeout:g} s")
        for name, value in self.spec.options:
            await self._write(SetOption(name=name, value=value))

    # -- game commands ---------------------------------------------------------------------------

    def supports(self, gods: tuple[str, str]) -> bool:
        return all(g in self.info.gods for g in gods)

    async def new_game(self, gods: tuple[str, str], timeout: float = READY_TIMEOUT) -> None:
        """``newgame`` + ``isready``; the engine must answer ``readyok`` within ``timeout``."""
        await self.until_ready(await self.send_new_game(gods), timeout)

    async def send_new_game(self, gods: tuple[str, str]) -> float:
        """The first half of :meth:`new_game`: write ``newgame`` + ``isready`` and return when
        (the start of the ``readyok`` timeout).  A game readies both engines at once this way."""
        since = self._now()
        await self._write(NewGame(gods=gods), IsReady())
        return since

    async def until_ready(self, since: float, timeout: float = READY_TIMEOUT) -> None:
        """The second half of :meth:`new_game`: ``readyok`` within ``timeout`` of ``since``."""
        if self._poll(ReadyOk):
            return  # on a shared core the answer is usually in already: no timeout to set up
        with trio.move_on_at(since + timeout) as scope:
            await self._until_ready()
        if scope.cancelled_caught:
            self.broken = True
            raise EngineFailure("stall", f"no readyok within {timeout:g} s after newgame")

    async def ping(self, timeout: float = READY_TIMEOUT) -> None:
        """``isready`` -> ``readyok`` (the optional per-turn sync, off the clock)."""
        with trio.move_on_after(timeout) as scope:
            await self._write(IsReady())
            await self._until_ready()
        if scope.cancelled_caught:
            self.broken = True
            raise EngineFailure("stall", f"no readyok within {timeout:g} s")

    async def _until_ready(self) -> None:
        while True:
            event = await self._event()
            if isinstance(event, ReadyOk):
                return
            if isinstance(event, EngineError):
                self.broken = True
                raise EngineFailure("engine-error", f"error {event.text}")

    async def think(
        self,
        position: Position | PositionWriter,
        go: Go | GoLine,
        *,
        deadline: trio.CancelScope,
        allowance: float,
        ping: bool = False,
    ) -> Reply:
        """Send ``position`` and ``go`` in one write and wait for the ``bestmove``.

        The stopwatch starts after the write (``turn_started``) and stops when the chunk holding
        the ``bestmove`` line has been read.  ``deadline`` (the game's one scope) is armed with
        ``turn_started + allowance`` (plus ``WRITE_SLACK``) when this has to wait; see
        :meth:`_receive` for when it is disarmed.  ``position`` and ``go`` may be a game's
        ``PositionWriter`` and a ``GoLine`` (with ``ping``, which sends them apart, a ``Go``).

        Raises:
            EngineFailure: crash, protocol violation or ``error`` reply.
        """
        self._check_idle()
        conn = self.conn
        try:
            if ping:
                assert isinstance(go, Go), "the ping path takes a Go message"
                deadline.deadline = math.inf  # the sync is off the clock (and waits)
                await self._write(position if isinstance(position, Position) else position.message())
                await self.ping()
                data = conn.send(go)
            else:
                data = conn.send_search(position, go)
        except SeiProtocolError as exc:
            raise self._cannot_send(exc) from None
        # The turn's deadline is its allowance from the end of the write (the stopwatch's
        # start; Clock.charge judges the exact overrun), plus WRITE_SLACK; a write that has to
        # wait is bounded by the allowance from its start.  The game's scope is armed with it
        # only around the waits that need it.
        now = self._now
        sent = self._send_now(data)
        if sent < len(data):
            await self._send_rest(data[sent:], deadline, now() + allowance + WRITE_SLACK)
        started = self.turn_started = now()
        at = started + allowance + WRITE_SLACK
        last_info: Info | None = None
        while True:
            # like _event(), but keeps the arrival time of the chunk holding the reply (the
            # codec holds no complete line here: _check_idle read them all)
            arrived = await self._receive(deadline, at)
            while (event := self._next(turn=True)) is not NEED_DATA:
                if event is EOF:
                    self.broken = True
                    deadline.deadline = math.inf  # waiting for the exit status is off the clock
                    with trio.move_on_after(1.0):
                        await self.process.wait()
                    status = self.process.status
                    raise self._crashed("exited during its turn" if status else "closed its output during its turn")
                if type(event) is BestMove:
                    return Reply(event.turn, arrived - started, last_info)  # type: ignore[attr-defined]
                if type(event) is Resign:
                    return Reply(None, arrived - started, last_info)
                if type(event) is Info:
                    if event.string is None:  # type: ignore[attr-defined]
                        last_info = event  # type: ignore[assignment]
                elif type(event) is EngineError:
                    self.broken = True
                    raise EngineFailure("engine-error", f"error {event.text}")  # type: ignore[attr-defined]
                await self._overdue(deadline, at)
            await self._overdue(deadline, at)  # a chunk of blank lines gives no event at all

    async def _overdue(self, deadline: trio.CancelScope, at: float) -> None:
        """Past ``at``, arm the game's scope expired and let it fire.

        An engine that floods its output never makes us wait, so the scope, armed only while
        waiting, would never fire on its own; a turn checks after every line it acts on.
        """
        if self._now() > at:
            deadline.deadline = at
            await trio.lowlevel.checkpoint()

    async def stop_search(self, timeout: float = STOP_TIMEOUT) -> None:
        """After a time loss: ``stop`` and wait for that search's ``bestmove``, or mark broken."""
        try:
            with trio.move_on_after(timeout) as scope:
                await self._write(Stop())
                while True:
                    event = await self._event()
                    if isinstance(event, (BestMove, Resign)):
                        return
        except EngineFailure:
            self.broken = True
            return
        if scope.cancelled_caught:
            self.broken = True

    async def send_result(self, result: str, reason: str) -> None:
        """The ``result`` notice (informational); failures here cannot change the game."""
        if self.broken:
            return
        try:
            await self._write(Result(result=result, reason=reason))  # type: ignore[arg-type]
        except EngineFailure:
            self.broken = True

    async def aclose(self) -> None:
        """``quit``, grace, SIGTERM, SIGKILL, reap (the process layer's bounded sequence)."""
        try:
            quit_bytes = self.conn.send(Quit())
        except SeiProtocolError:
            quit_bytes = b"quit\n"
        await self.process.aclose(quit_bytes)

    def stderr_tail(self) -> str:
        sink = self.process.stderr_sink
        data = sink.getvalue() if isinstance(sink, BoundedCapture) else b""
        return data[-2000:].decode("utf-8", "replace")

