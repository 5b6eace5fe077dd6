"""A remote bot as a game's engine: the referee's ``Engine``, plus the reconnect grace.

Theory of operation.  A game plays a remote bot through :class:`RemoteEngine`, an
:class:`~santorini_server.referee.Engine` over the bot's connection, so ``play_game`` and the
adjudicator drive it exactly as they drive a subprocess.  The one addition: when the connection
ends during the bot's turn (the turn fails and the transport reports ``disconnected``), the game
waits for the same bot to log in again, for at most the reconnect grace and never beyond the
turn's allowance.  A bot that comes back is a fresh SEI session (the gateway has done its
handshake): it gets ``newgame`` and ``isready``, then the turn's ``position`` in full and its
``go`` with the clock it has left, and the game goes on; the turn's stopwatch still runs from
the first ``go``.  One that does not loses with ``crash``, detail ``disconnected``.  A connection
whose bridge reported that the engine ended (``StreamTransport.engine_exited``) is no drop: the
engine crashed, and the failure stands at once.  A
connection lost between turns is found at the bot's next turn, and handled the same way; one lost
between games (the engine held from one game to the next) at the next ``newgame``, where the
bot may come back within the grace and the ``readyok`` timeout.

A game cut short (its run cancelled, a drain) leaves the session where it was, a search or an
``isready`` outstanding.  :meth:`RemoteEngine.settle` ends it as SEI allows (section 4.4):
``stop`` and that search's ``bestmove``, the ``readyok`` awaited, so the bot is given back idle
on the same connection and the next game's ``newgame`` starts clean.  A session that cannot be
brought back (broken by a failure, or silent for :data:`STOP_TIMEOUT`) is closed instead: the
bridge logs in again with a fresh engine, rather than the next game inheriting the fault.
"""

from __future__ import annotations

import math

import msgspec
import trio

from ..referee import Engine, EngineFailure
from ..referee.engine import READY_TIMEOUT, STOP_TIMEOUT, Reply
from ..referee.stream_transport import StreamTransport
from ..sei import IDLE, SEARCHING, Go, PositionCommand, Stop
from .registry import BotRegistry, RemoteBot

__all__ = ["RemoteEngine", "RECONNECT_GRACE"]

RECONNECT_GRACE = 30.0
"""Seconds a game waits for a disconnected bot to log in again (``--reconnect-grace``)."""

_CLOCKS = ("p1time", "p2time", "p3time", "p4time")


class RemoteEngine(Engine):
    """A registered bot taken for a game; :meth:`release` gives it back after the game."""

    def __init__(self, bot: RemoteBot, registry: BotRegistry, *, grace: float = RECONNECT_GRACE) -> None:
        super().__init__(bot.engine.channel)
        self.bot = bot
        self.registry = registry
        self.grace = grace
        self._gods: tuple[str, ...] = ("mortal", "mortal")

    @classmethod
    async def take(cls, registry: BotRegistry, name: str, *, grace: float = RECONNECT_GRACE) -> RemoteEngine:
        """The idle bot ``name``, held for a game.

        Raises:
            KeyError: no idle bot of that name.
        """
        return cls(await registry.take(name), registry, grace=grace)

    def release(self) -> None:
        """The game is over: the bot is available again (if still connected)."""
        self.registry.release(self.bot)

    async def settle(self, timeout: float = STOP_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """Bring the session back to idle after the game (see the module docstring); shielded,
        since it runs as a cancelled game unwinds, and bounded by ``timeout``."""
        conn = self.channel.conn
        if self.channel.process.status is not None:
            return  # the connection is gone: the registry forgets the bot
        with trio.CancelScope(shield=True), trio.move_on_after(timeout) as scope:
            try:
                if not self.broken and conn.state is SEARCHING:
                    await self.channel.send(Stop())
                while not self.broken and (conn.state is not IDLE or conn.ping_outstanding):
                    await self.channel.next_event()
            except EngineFailure:
                self.broken = True
        if scope.cancelled_caught or self.broken:
            self.channel.process.kill()  # a fresh session (the bridge reconnects) beats a broken one

    async def send_new_game(self, gods: tuple[str, ...]) -> float:
        """:meth:`Engine.send_new_game`; a lost connection is left for :meth:`until_ready`."""
        self._gods = gods
        since = self.channel.now()
        try:
            return await super().send_new_game(gods)
        except EngineFailure:
            if not self._lost():
                raise
            return since

    async def until_ready(self, since: float, timeout: float = READY_TIMEOUT) -> None:  # noqa: ASYNC109 (a protocol limit, part of the API)
        """:meth:`Engine.until_ready`, on a new connection if the bot comes back within the
        grace and the ``readyok`` timeout."""
        if not self._lost():
            try:
                return await super().until_ready(since, timeout)
            except EngineFailure:
                if not self._lost():
                    raise
        await self._resume(since + timeout)
        return None

    def _lost(self) -> bool:
        """Whether the bot's connection has ended (and the grace may bring it back): not when its
        bridge said that the engine itself ended (a crash, ruled at once)."""
        process = self.channel.process
        engine_exited = isinstance(process, StreamTransport) and process.engine_exited
        return self.grace > 0 and process.status is not None and not engine_exited

    async def think(
        self, position: PositionCommand, go: Go, *, deadline: trio.CancelScope, allowance: float, ping: bool = False
    ) -> Reply:
        """:meth:`Engine.think`, resumed on a new connection if the bot comes back in time."""
        begun = self.channel.now()
        first: float | None = None  # when the first go of this turn was written
        attempt_go, attempt_allowance = go, allowance
        while True:
            if first is not None:
                await self._resume(first + allowance)
                spent = self.channel.now() - first
                attempt_go, attempt_allowance = _less_time(go, spent), allowance - spent
            try:
                reply = await super().think(position, attempt_go, deadline=deadline, allowance=attempt_allowance, ping=ping)
            except EngineFailure:
                if not self._lost():
                    raise  # not a lost connection: the failure stands
                if first is None:
                    first = self.turn_started if self.turn_started >= begun else begun
                deadline.deadline = math.inf  # the wait for the bot is bounded by its allowance
                continue
            if first is None:
                return reply
            return Reply(reply.turn, self.turn_started + reply.elapsed - first, reply.info)

    async def _resume(self, limit: float) -> None:
        """Wait (up to the grace, never past ``limit``) for the bot to log in again and get it
        ready for the game in progress.

        Raises:
            EngineFailure: ``crash`` "disconnected" if it does not come back in time, or whatever
                the new connection fails with.
        """
        while True:
            self.registry.release(self.bot)  # its connection ended: it leaves the registry
            wait = min(self.grace, limit - self.channel.now())
            bot = await self.registry.wait_for(self.bot.name, wait) if wait > 0 else None
            if bot is None:
                raise EngineFailure("crash", "disconnected")
            self.bot = bot
            self.channel = bot.engine.channel
            try:
                since = await Engine.send_new_game(self, self._gods)
                await Engine.until_ready(self, since, max(0.0, limit - self.channel.now()))
                return
            except EngineFailure:
                if self.channel.process.status is None:
                    raise  # the new connection failed otherwise: that failure stands


def _less_time(go: Go, spent: float) -> Go:
    """``go`` with every clock ``spent`` seconds lower (the mover's is then its own; the others'
    read a little low, which asks nothing of them)."""
    spent_ms = int(spent * 1000)
    changes = {name: max(0, value - spent_ms) for name in _CLOCKS if (value := getattr(go, name)) is not None}
    return msgspec.structs.replace(go, **changes) if changes else go
