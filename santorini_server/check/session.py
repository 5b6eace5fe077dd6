"""One engine under test: an ``EngineChannel`` plus what the checks remember between them.

The session is not a second engine client: the process, the codec, bounded reads and writes, the
failure mapping and the handshake are the channel's (``referee/channel.py``), exactly as in a
match.  What it adds is what a check needs to see and a game does not: the transcript of every
line (through the channel's tap), ``info`` and stray lines kept aside for the ``info`` and
``stray-output`` checks, ``error`` lines kept for the runner, reads that give up at a deadline
(a timeout is a finding here, not a failure of the engine), and restarts.
"""

from __future__ import annotations

from dataclasses import dataclass

import trio

from ..referee.channel import EngineChannel, EngineFailure, EngineInfo
from ..referee.engine_spec import EngineSpec
from ..rules import MORTAL, Position
from ..sei import (
    ERROR,
    IDLE,
    QUIT,
    SEARCHING,
    BestMove,
    Command,
    EngineError,
    EngineMessage,
    Go,
    Info,
    IsReady,
    NewGame,
    PositionCommand,
    ReadyOk,
    Resign,
    SeiConnection,
    SetOption,
    Stop,
    Unknown,
)

__all__ = ["Answer", "Fail", "Session", "MAX_RESTARTS", "SETTLE_LIMIT", "WRITE_LIMIT", "quote", "ms"]

SETTLE_LIMIT = 1.0
"""After a failed check: how long the engine gets to deliver what it still owes before a restart."""
WRITE_LIMIT = 2.0
"""An engine that does not read its stdin for this long is stuck."""
MAX_RESTARTS = 3
"""An engine that needs more restarts than this is dead: later checks would only repeat the noise
(and a hanging engine would make the run take minutes)."""
QUIT_GRACE = 1.0
"""Shutdown graces of a session's engine (a check asks more than a match's 5 s)."""


class Fail(Exception):
    """A check found a failure; the message is the check's reason."""


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def quote(text: str, limit: int = 60) -> str:
    text = text if len(text) <= limit else text[:limit] + "..."
    return repr(text)


@dataclass
class Answer:
    """What one ``go`` (or ``stop``) produced."""

    move: BestMove | Resign | None
    elapsed: float
    """Seconds from just after the write to the read holding the reply (or to giving up)."""
    errors: list[str]
    bound: float = 0.0
    """How long the reply was waited for."""


class Session:
    """The engine under test, restarted when a check leaves it unusable."""

    def __init__(self, nursery: trio.Nursery, spec: EngineSpec, timeout: float) -> None:
        self.nursery = nursery
        self.spec = spec
        self.timeout = timeout
        self.channel: EngineChannel | None = None
        self.info = EngineInfo()
        self.t0 = trio.current_time()
        self.transcript: list[str] = []
        self.errors: list[str] = []
        """``error`` texts read and not yet taken by a check (the runner fails the check)."""
        self.infos: list[tuple[Info, Position | None]] = []
        self.unknown: list[str] = []
        self.search_pos: Position | None = None
        """The position of the last ``go``: ``info ... pv`` lines are checked against it."""
        self.game_gods: tuple[str, ...] | None = None
        self.handshaken = False
        self.restarts = 0
        self.dead_reason: str | None = None
        self.first_placement = "b3,d3"
        self.stderr_tail = ""
        self.selected_gods: tuple[str, ...] = ()
        """Gods that get a ``god-<name>`` check (and feed ``legalmoves``/``perft``)."""
        self.stop_answered = False
        self.mark = 0
        """Where the running check's part of the transcript begins."""

    # -- lifetime --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start a fresh process (no handshake yet).

        Raises:
            EngineFailure: ``crash``, the program could not be started.
        """
        self.channel = await EngineChannel.open(
            self.nursery, self.spec, tap=self._tap, write_timeout=WRITE_LIMIT,
            quit_grace=QUIT_GRACE, term_grace=QUIT_GRACE, strict_info=True,
        )
        self.game_gods = None
        self.handshaken = False
        self.search_pos = None

    async def close(self, grace: float = 0.5) -> None:
        """Ask the engine to quit, then force it; bounded and shielded (process layer)."""
        channel, self.channel = self.channel, None
        if channel is None:
            return
        await channel.aclose(grace, term_grace=0.5)
        tail = channel.stderr_tail()
        if tail.strip():
            self.stderr_tail = tail

    async def restart(self) -> bool:
        """A fresh process, handshake, the spec's options and a mortal game; False if impossible."""
        if self.restarts >= MAX_RESTARTS:
            self.dead_reason = f"gave up after {MAX_RESTARTS} restarts"
            return False
        self.restarts += 1
        await self.close()
        try:
            await self.start()
            await self.handshake()
            await self.apply_spec_options()
            await self.ensure_game((MORTAL, MORTAL))
        except (EngineFailure, Fail) as exc:
            self.dead_reason = f"restart failed: {exc.detail if isinstance(exc, EngineFailure) else exc}"
            return False
        self.errors.clear()
        self.note("-- engine restarted --")
        return True

    # -- I/O -------------------------------------------------------------------------------------

    @property
    def conn(self) -> SeiConnection:
        return self._channel().conn

    @property
    def arrived(self) -> float:
        """trio time at which the chunk holding the last event was read (the stopwatch's end)."""
        return self._channel().arrived

    def now(self) -> float:
        return trio.current_time()

    def note(self, text: str) -> None:
        self._tap(self.now(), "--", text)

    def _tap(self, at: float, direction: str, line: str) -> None:
        text = line if direction == "--" else f"{direction} {line}"
        self.transcript.append(f"{(at - self.t0) * 1000:8.0f}  {text}")

    def _channel(self) -> EngineChannel:
        if self.channel is None:
            raise EngineFailure("crash", "is not running")
        return self.channel

    async def send(self, *commands: Command) -> float:
        """Write commands in one write; returns the time just after the write."""
        return await self._channel().send(*commands)

    async def send_raw(self, data: bytes) -> None:
        """Write bytes the codec would refuse to make (an unknown command)."""
        await self._channel().send_bytes(data)

    async def read(self, deadline: float) -> EngineMessage | None:
        """The next event other than ``info``/unknown lines (those are kept), or None at ``deadline``.

        ``error`` lines are returned *and* kept in :attr:`errors`.
        """
        channel = self._channel()
        while True:
            event = await channel.next_event_by(deadline)
            if isinstance(event, Info):
                self.infos.append((event, self.search_pos))
            elif isinstance(event, Unknown):
                if self.handshaken:
                    self.unknown.append(event.line)
            else:
                if isinstance(event, EngineError):
                    self.errors.append(event.text)
                return event

    def take_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors

    # -- protocol steps --------------------------------------------------------------------------

    async def handshake(self) -> float:
        """The channel's handshake (as in a match); the seconds it took.  Raises Fail on timeout."""
        channel = self._channel()
        try:
            elapsed = await channel.handshake(self.timeout)
        except EngineFailure as exc:
            if exc.kind == "stall":
                raise Fail(exc.detail) from None
            raise
        finally:
            self.info = channel.info
        self.handshaken = True
        return elapsed

    async def apply_spec_options(self) -> None:
        """The user's ``option.N=V`` settings from the engine spec, as a match would send them."""
        for name, value in self.spec.options:
            await self.send(SetOption(name=name, value=value))

    async def ping(self, limit: float) -> float | None:
        """``isready``; seconds until ``readyok``, or None if it did not come within ``limit``."""
        started = await self.send(IsReady())
        deadline = started + limit
        while True:
            event = await self.read(deadline)
            if event is None:
                return None
            if isinstance(event, ReadyOk):
                return self.arrived - started

    async def ensure_game(self, gods: tuple[str, ...]) -> None:
        """``newgame`` + ``isready`` unless this game is already set up."""
        if self.game_gods == gods:
            return
        started = await self.send(NewGame(gods=gods), IsReady())
        deadline = started + self.timeout
        while True:
            event = await self.read(deadline)
            if event is None:
                raise Fail(f"no readyok within {self.timeout:g} s after newgame gods {'/'.join(gods)}")
            if isinstance(event, ReadyOk):
                break
        errors = self.take_errors()
        if errors:
            raise Fail(f"newgame gods {'/'.join(gods)} answered error {quote(errors[0])}")
        self.game_gods = gods

    async def ask(self, command: PositionCommand, go: Go, bound: float, pos: Position | None) -> Answer:
        """``position`` + ``go`` in one write; wait up to ``bound`` seconds for the ``bestmove``."""
        self.search_pos = pos
        started = await self.send(command, go)
        return await self.await_move(started, started + bound)

    async def await_move(self, started: float, deadline: float) -> Answer:
        while True:
            event = await self.read(deadline)
            if event is None:
                return Answer(None, self.now() - started, self.take_errors(), deadline - started)
            if isinstance(event, (BestMove, Resign)):
                return Answer(event, self.arrived - started, self.take_errors(), deadline - started)

    async def settle(self) -> bool:
        """Bring the engine back to idle with no reply owed; False if it cannot be (restart it)."""
        channel = self.channel
        if channel is None or channel.process.status is not None or channel.conn.state in (ERROR, QUIT):
            return False
        try:
            deadline = self.now() + SETTLE_LIMIT
            if channel.conn.state is SEARCHING:
                await self.send(Stop())
            while channel.conn.state is not IDLE or channel.conn.ping_outstanding:
                if await self.read(deadline) is None:
                    return False
        except EngineFailure:
            return False
        return channel.process.status is None
