"""One engine spoken to in SEI: the channel under both ``Engine`` and ``santorini check``.

Theory of operation.  An :class:`EngineChannel` owns the engine's transport and its sans-IO
``SeiConnection``.  The transport (:class:`~santorini_server.referee.transport.EngineTransport`)
is the engine's process, started under the guard with the spec's resource limits and stderr
drained into a bounded capture (:meth:`EngineChannel.open`), or a remote bot's TCP connection
(:class:`~santorini_server.referee.stream_transport.StreamTransport`), whose "exit" is the
connection closing.  It is the only place that writes to or reads from an engine, so there is one
answer to every question of the kind "what does it mean when...":

* a write that fails: ``crash`` (the engine exited or closed its input; ``limit`` when it broke
  a resource limit) or ``stall`` (it stopped reading for ``write_timeout``); the codec is told
  (``send_failed``), as h11's shell does;
* EOF on stdout: ``crash`` (SPEC.md section 6).  An engine that exits gets a moment for
  its exit status to reach us (it names the exit code or signal); one that closed its output and
  keeps running can never answer again, so it is ruled against at once and killed;
* a line the codec refuses: ``engine-error`` (``illegal`` for a malformed ``bestmove`` while a
  turn is awaited, see :meth:`next_event_nowait`);
* a command the codec refuses to send: ``engine-error``.

Each is an :class:`EngineFailure` whose ``kind`` is the termination tag a game records; after
any of them the channel is ``broken``.  Every line sent and received passes the *tap*
(``(trio time, ">>" or "<<", line)``), which ``--debug`` logging and ``check``'s transcripts
read.  The handshake (``sei`` to ``seiok``) is done here once for both users.

Reads.  The game task reads the engine's stdout itself while it waits for a reply (no reader
task, so a reply reaches the clock without a hop).  Output already waiting is read without a
pass through the scheduler (measured with ``tools/ab_referee.py``: a plain ``receive_some``
under an armed deadline costs 42 us a turn more, pinned); a turn's deadline scope is armed only
when the read has to wait.  A game alone in its loop with nothing else runnable (``match``, a
tournament's referee process) waits for a reply by blocking in ``poll`` for a few milliseconds
first (:meth:`EngineChannel._receive_alone`): an instant engine's answer then costs no pass
through the scheduler.  With other games in the same event loop (:func:`live_games`) a reply
yields to them, for fairness of their clocks.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import trio

from ..process import BoundedCapture, EngineGone, EngineLimits, EngineProcess, EngineStartError, run_engine
from ..process.transport import QUIT_GRACE, TERM_GRACE
from ..sei import (
    DEFAULT_PLAYERS,
    EOF,
    MAX_LINE_LENGTH,
    NEED_DATA,
    Command,
    EngineMessage,
    Feature,
    Gods,
    HandshakeTrace,
    Id,
    Option,
    Quit,
    RemoteProtocolError,
    Sei,
    SeiConnection,
    SeiOk,
    SeiProtocolError,
)
from .engine_spec import EngineSpec
from .transport import EngineTransport

__all__ = [
    "EngineChannel",
    "EngineFailure",
    "EngineInfo",
    "Tap",
    "live_games",
    "ALONE_SPAN",
    "ALONE_WAIT",
    "EXIT_GRACE",
    "STATUS_WAIT",
    "WRITE_TIMEOUT",
]

WRITE_TIMEOUT = 5.0
"""A write to an engine's stdin: an engine that stops reading for this long is stalled."""
EXIT_GRACE = 0.05
"""After EOF on stdout: how long the engine may take to exit before it counts as still running
(it closed its output on purpose or by a bug), when it is ruled against and killed at once.
An engine that is dying closes its stdout microseconds before it exits."""
STATUS_WAIT = 1.0
"""After the engine exited: how long its guard may take to report the exit status."""

#: What an engine's stderr says when an allocation failed (Python, C++, C, Rust, Go, the JVM).
_MEMORY_WORDS = (
    "memoryerror", "bad_alloc", "out of memory", "cannot allocate memory", "memory allocation", "outofmemory",
)

#: The codec's messages for a ``bestmove`` line that is not exactly one printable-ASCII token:
#: an ``illegal`` turn (SPEC.md section 4.6).  Every other violation is ``engine-error``
#: (a ``bestmove`` with no ``go`` outstanding too, although its quoted line says "bestmove").
_BAD_BESTMOVE = ("bestmove takes exactly one turn", "bestmove turn is not printable ASCII")

ALONE_WAIT = 0.002
"""A turn's reply is waited for by blocking the thread at most this long when the game is alone
in its loop (``EngineChannel._receive_alone``); a slower engine is then waited for through trio."""
ALONE_SPAN = 0.02
"""Blocking waits stop until the next pass through trio's scheduler once the last is this old."""

#: Reads of an idle engine's pending output (64 KiB each) in one poll: bounds the poll against
#: an engine that floods its stdout while the opponent thinks.
_IDLE_READS = 16

Tap = Callable[[float, str, str], None]
"""Sees every line exchanged: (trio time, ``">>"`` sent or ``"<<"`` received, the line)."""

_LIVE_GAMES: trio.lowlevel.RunVar[list[int]] = trio.lowlevel.RunVar("santorini_live_games")
_statistics = trio.lowlevel.current_statistics


def live_games() -> list[int]:
    """This event loop's count of games in progress, ``[n]`` (a game counts itself in).

    With one, a reply needs no yield to other games: the per-turn path of ``match`` and of the
    benchmark.  A one-item list, so a channel can keep it and read it for the price of an index.
    """
    try:
        return _LIVE_GAMES.get()
    except LookupError:
        counter = [0]
        _LIVE_GAMES.set(counter)
        return counter


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
    """``mortal`` and the names of every ``gods`` line, in order (SPEC.md section 4.3: zero or more lines;
    a name listed twice stays twice, for ``check`` to warn about)."""
    features: tuple[str, ...] = ()
    declared_players: frozenset[int] = frozenset()
    """The seat counts named by every ``feature players`` line (SPEC.md section 4.3), empty if none."""
    options: dict[str, Option] = field(default_factory=dict)
    version: int = 1

    @property
    def players(self) -> frozenset[int]:
        """The seat counts the engine plays: those it declared, or 2 only when it declared none."""
        return self.declared_players or DEFAULT_PLAYERS

    def plays(self, seats: int) -> bool:
        """Whether it plays games of ``seats`` seats (the referee starts no other)."""
        return seats in self.players


class EngineChannel:
    """A started engine and its SEI codec: :meth:`open` starts a process; a remote bot's
    connection is passed in as its ``process`` (any :class:`EngineTransport`)."""

    def __init__(
        self,
        spec: EngineSpec,
        process: EngineTransport,
        *,
        tap: Tap | None = None,
        write_timeout: float = WRITE_TIMEOUT,
        strict_info: bool = False,
        max_line_length: int = MAX_LINE_LENGTH,
    ) -> None:
        self.spec = spec
        self.process = process
        """What carries the engine's bytes: its process, or a remote bot's connection."""
        self.conn = SeiConnection(strict_info=strict_info, max_line_length=max_line_length)
        self.info = EngineInfo()
        self.broken = False
        """Set after any failure: the engine must be restarted before it is used again."""
        self.tap = tap
        self.write_timeout = write_timeout
        self.arrived = 0.0
        """trio time at which the chunk holding the last event read was read."""
        self.now = trio.lowlevel.current_clock().current_time
        """The run's clock, bound once (``trio.current_time`` is three calls deep)."""
        self._live = live_games()
        self._passed = -math.inf
        """trio time of this channel's last wait through the scheduler (see ``_receive_alone``)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @classmethod
    async def open(
        cls,
        nursery: trio.Nursery,
        spec: EngineSpec,
        *,
        tap: Tap | None = None,
        write_timeout: float = WRITE_TIMEOUT,
        quit_grace: float = QUIT_GRACE,
        term_grace: float = TERM_GRACE,
        strict_info: bool = False,
    ) -> EngineChannel:
        """Start the engine in ``nursery`` (which outlives the channel's uses), without handshake.

        ``write_timeout`` bounds each write; ``quit_grace`` and ``term_grace`` the shutdown if the
        nursery is cancelled; ``strict_info`` makes the codec name garbled ``info`` fields.

        Raises:
            EngineFailure: ``crash``, the program could not be started.
        """
        limits = None
        if spec.memory_limit or spec.cpu_limit:
            limits = EngineLimits(memory_bytes=spec.memory_limit, cpu_seconds=spec.cpu_limit)
        start = partial(
            run_engine, list(spec.argv), cwd=spec.cwd, limits=limits, stderr_sink=BoundedCapture(),
            quit_grace=quit_grace, term_grace=term_grace,
        )
        try:
            process: EngineProcess = await nursery.start(start)
        except EngineStartError as exc:
            raise EngineFailure("crash", f"could not start {spec.name}: {exc}") from None
        return cls(spec, process, tap=tap, write_timeout=write_timeout, strict_info=strict_info)

    # -- writing -----------------------------------------------------------------------------

    def encode(self, *commands: Command) -> bytes:
        """The bytes of ``commands`` in one piece, through the codec's state machine.

        Raises:
            EngineFailure: ``engine-error``, the connection's state forbids a command.
        """
        try:
            send = self.conn.send
            return b"".join([send(c) for c in commands])
        except SeiProtocolError as exc:
            raise self.cannot_send(exc) from None

    def cannot_send(self, exc: SeiProtocolError) -> EngineFailure:
        """The failure for a command the codec refuses to send in the connection's state."""
        self.broken = True
        return EngineFailure("engine-error", f"cannot send to {self.name}: {exc}")

    async def send(self, *commands: Command) -> float:
        """Write ``commands`` in one write, bounded by ``write_timeout``; the time just after."""
        await self.send_bytes(self.encode(*commands))
        return self.now()

    async def send_bytes(self, data: bytes, deadline: trio.CancelScope | None = None, within: float = math.inf) -> None:
        """Write ``data``: what the pipe takes at once without a pass through the scheduler
        (commands are small and the pipe is nearly always empty), the rest awaited.

        The wait is bounded by ``write_timeout``, or during a turn by the game's ``deadline``
        armed ``within`` seconds from now (an engine that stops reading during its turn is out
        of time).

        Raises:
            EngineFailure: ``crash``/``limit`` (the engine is gone) or ``stall``.
        """
        if self.tap is not None:
            self._tap(">>", data)
        try:
            sent = self.process.send_nowait(data)
        except (EngineGone, trio.ClosedResourceError):
            sent = 0  # the awaited write below reports it, with the exit status
        if sent == len(data):
            return
        rest = data[sent:]
        try:
            if deadline is None:
                with trio.fail_after(self.write_timeout):
                    await self.process.send_all(rest)
            else:
                deadline.deadline = self.now() + within
                await self.process.send_all(rest)
                deadline.deadline = math.inf
        except EngineGone:
            self._send_failed()
            with trio.move_on_after(STATUS_WAIT):
                await self.process.wait()
            raise self.crashed("exited") from None
        except trio.TooSlowError:
            self._send_failed()
            raise EngineFailure("stall", f"stopped reading its input for {self.write_timeout:g} s") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self._send_failed()
            raise EngineFailure("crash", "closed its input") from None

    def _send_failed(self) -> None:
        self.broken = True
        self.conn.send_failed()

    # -- reading -----------------------------------------------------------------------------

    def next_event_nowait(self, *, turn: bool = False) -> EngineMessage | type[NEED_DATA] | type[EOF]:
        """``conn.next_event()`` with a protocol violation turned into the failure it decides.

        While a turn is awaited (``turn``) a malformed ``bestmove`` line is an ``illegal`` turn;
        every other violation is an ``engine-error``.  Either way the channel is broken.
        """
        try:
            return self.conn.next_event()
        except RemoteProtocolError as exc:
            self.broken = True
            if turn and str(exc).startswith(_BAD_BESTMOVE):
                raise EngineFailure("illegal", str(exc)) from None
            raise EngineFailure("engine-error", f"protocol violation: {exc}") from None

    async def next_event(self) -> EngineMessage:
        """The next thing the engine says, reading its stdout as needed (the caller bounds the
        time; :attr:`arrived` says when it was read).

        Raises:
            EngineFailure: a protocol violation, or EOF (``crash``, see :meth:`closed_output`).
        """
        while True:
            event = self.next_event_nowait()
            if event is NEED_DATA:
                await self.receive()
            elif event is EOF:
                raise await self.closed_output("closed its output")
            else:
                return event  # type: ignore[return-value]

    async def next_event_by(self, deadline: float) -> EngineMessage | None:
        """:meth:`next_event`, or None if nothing came by ``deadline`` (trio time)."""
        with trio.move_on_at(deadline):
            return await self.next_event()
        return None

    async def receive(self, deadline: trio.CancelScope | None = None, at: float = math.inf) -> float:
        """Feed the next chunk of engine output to the codec; return when it arrived.

        The arrival time is read first thing after the read: it stops a turn's stopwatch.
        Output already waiting is read without a pass through the scheduler (on a shared core
        the engine has usually answered by now, and then the answer costs one system call); a
        cancellation point comes first all the same, so a deadline or Ctrl-C is never skipped.

        A turn passes the game's ``deadline`` scope and its expiry ``at``: the scope is armed
        only when this has to wait, and left armed after (moving a deadline costs a heap
        operation, and nothing between two turns passes through the scheduler, so a stale
        deadline never fires; whatever waits before the next arming disarms it first).  When
        other games share the loop it is disarmed at once, before yielding to them.
        """
        process = self.process
        crowded = self._live[0] > 1
        if deadline is None and (crowded or self.now() >= trio.current_effective_deadline()):
            # A read bounded by the caller's timeout, which only a pass through the scheduler
            # can fire: take one once it is due (an engine flooding its output never makes us
            # wait), or always when other games need their turn.  (A turn checks its own
            # deadline, see Engine.think.)
            await trio.lowlevel.checkpoint()
        else:
            await trio.lowlevel.checkpoint_if_cancelled()
        data = process.receive_nowait()
        waited = data is None
        if data is None and deadline is not None and not crowded:
            data = self._receive_alone(at)
        if data is None:
            if deadline is not None:
                deadline.deadline = at
            while True:
                await process.wait_readable()
                if (data := process.receive_nowait()) is not None:
                    break
            self._passed = self.now()
        arrived = self.arrived = self.now()
        if crowded:
            if deadline is not None:
                deadline.deadline = math.inf
            if not waited or _statistics().tasks_runnable:
                # Let the other games run (we did not wait), and let any that woke in the same
                # batch read their clocks before anyone does a turn's work, so a reply is not
                # charged for the time other games spent validating theirs.
                await trio.lowlevel.cancel_shielded_checkpoint()
        if self.tap is not None:
            self._tap("<<", data)
        self.conn.receive_data(data)
        return arrived

    def _receive_alone(self, at: float) -> bytes | None:
        """A turn's reply read by blocking the thread on the engine's output for at most
        ``ALONE_WAIT``, when this game is alone in its loop; None to wait through trio.

        An instant engine answers within microseconds, and then one ``poll`` call replaces a
        pass through trio's scheduler (epoll registration, parking, the run loop: about 9 us of
        CPU a turn, ``tools/bench_fastchess.py``).  The wait ends by the turn's own deadline
        ``at``; another task of the loop (a stderr drain, a sink, a timer) waits at most
        ``ALONE_WAIT`` longer for it, and the turn waits through trio anyway once the last pass
        through the scheduler is ``ALONE_SPAN`` old, so tasks waiting for I/O (threads' results,
        signals) get the loop at least that often.  (Asking trio whether another task is
        runnable, ``current_statistics()``, costs 3.5 us: as much as half the saving.)
        """
        now = self.now()
        timeout = min(ALONE_WAIT, at - now)
        if now - self._passed > ALONE_SPAN or timeout <= 0 or not self.process.poll_output(timeout):
            return None
        return self.process.receive_nowait()

    def poll(self, *until: type) -> EngineMessage | None:
        """Act on what the engine has already written, without waiting: the first event of an
        ``until`` type, or None when nothing more is pending (other events are dropped).

        Reads are bounded (``_IDLE_READS``) against an engine that floods its output; EOF is
        left for the next wait to report.
        """
        if not (self.conn.lines_waiting or self.process.output_pending()):
            return None
        reads = 0
        while True:
            event = self.next_event_nowait()
            if event is NEED_DATA:
                if reads == _IDLE_READS or not self.process.output_pending():
                    return None
                reads += 1
                data = self.process.receive_nowait()
                if not data:
                    return None
                self.arrived = self.now()
                self._tap("<<", data)
                self.conn.receive_data(data)
            elif event is EOF:
                return None
            elif type(event) in until:
                return event  # type: ignore[return-value]

    def _tap(self, direction: str, data: bytes) -> None:
        if self.tap is not None and data:  # callers on the per-turn path test ``tap`` first
            at = self.now()
            for line in data.decode("utf-8", "replace").splitlines():
                self.tap(at, direction, line)

    # -- failures ----------------------------------------------------------------------------

    async def closed_output(self, what: str, exited: str | None = None) -> EngineFailure:
        """The failure for EOF on stdout: ``crash`` (or ``limit``), within ``EXIT_GRACE``;
        its detail says ``exited`` (if given) once the exit status is known, else ``what``.

        An engine that exits gets ``STATUS_WAIT`` for its status (the failure names its exit
        code or signal).  One still running after ``EXIT_GRACE`` closed its output and can
        never answer: it is ruled against now (``... (still running)``) and killed, since it
        may not be reading the ``quit`` either.
        """
        self.broken = True
        if await self.process.ended_within(EXIT_GRACE):
            with trio.move_on_after(STATUS_WAIT):
                await self.process.wait()
        else:
            self.process.kill()
        return self.crashed(exited if exited is not None and self.process.status else what)

    def crashed(self, what: str) -> EngineFailure:
        """The failure for an engine that is gone: ``crash``, or ``limit`` when it broke a limit.

        A CPU limit shows as SIGXCPU (or the kernel's SIGKILL after it); a memory limit as an
        abnormal exit whose last words on stderr speak of memory (the allocation failed inside
        the engine, which then died its own way).
        """
        self.broken = True
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

    # -- the handshake -----------------------------------------------------------------------

    async def handshake(self, within: float) -> float:
        """``sei 1`` until ``seiok``, filling :attr:`info`; the seconds it took.

        Every ``gods`` line adds its names (SPEC.md section 4.3: zero or more lines), and likewise
        ``feature`` lines; ``id`` and ``option`` lines set their field.

        A handshake that fails says what arrived (:class:`~santorini_server.sei.HandshakeTrace`):
        always when no ``seiok`` came in time, and after a ``crash`` when the engine wrote
        something the protocol does not define.

        Raises:
            EngineFailure: ``stall`` (no ``seiok`` ``within`` seconds), ``crash``, ``engine-error``.
        """
        info = self.info = EngineInfo()
        trace = HandshakeTrace()
        started = self.now()
        with trio.move_on_after(within):
            started = await self.send(Sei(version=1))
            while True:
                try:
                    event = await self.next_event()
                except EngineFailure as exc:
                    if exc.kind != "crash" or not (trace.confusing or self.conn.partial_line.strip()):
                        raise
                    raise EngineFailure(exc.kind, f"{exc.detail}; {trace.explain(self.conn.partial_line)}") from None
                trace.saw(event)
                if isinstance(event, Id):
                    if event.field == "name":
                        info.name = event.value
                    else:
                        info.author = event.value
                elif isinstance(event, Gods):
                    info.gods += event.names
                elif isinstance(event, Feature):
                    info.features += event.names
                    if event.players is not None:
                        info.declared_players |= event.players
                elif isinstance(event, Option):
                    info.options[event.name] = event
                elif isinstance(event, SeiOk):
                    info.version = event.version
                    return self.arrived - started
        self.broken = True
        raise EngineFailure("stall", f"no seiok within {within:g} s: {trace.explain(self.conn.partial_line)}")

    # -- the end -----------------------------------------------------------------------------

    async def aclose(self, grace: float = QUIT_GRACE, term_grace: float = TERM_GRACE) -> None:
        """``quit``, ``grace``, SIGTERM, ``term_grace``, SIGKILL, reap (the process layer's
        bounded, shielded sequence)."""
        try:
            quit_bytes = self.conn.send(Quit())
        except SeiProtocolError:
            quit_bytes = b"quit\n"
        self._tap(">>", quit_bytes)
        await self.process.aclose(quit_bytes, grace=grace, term_grace=term_grace)

    def stderr_tail(self) -> str:
        """The last 2000 characters the engine wrote to stderr."""
        sink = self.process.stderr_sink
        data = sink.getvalue() if isinstance(sink, BoundedCapture) else b""
        return data[-2000:].decode("utf-8", "replace")
