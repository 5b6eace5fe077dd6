"""The connected remote bots, as the run scheduler sees them: who is free, take one, wait for one.

Theory of operation.  The gateway registers every bot that logged in and passed its SEI
handshake as a :class:`RemoteBot` (its name, its :class:`~santorini_server.referee.Engine` over
the connection, its round trip).  A bot is *idle* (available to be taken) or *busy* (a game
holds it).  While idle, the gateway reads ahead whatever it writes (bounded), so a bot that
disconnects while idle leaves the registry at once; :meth:`BotRegistry.take` stops that reading
before handing the bot over, so exactly one task ever reads a connection.

One connection per bot name, regardless of case (as the store's names are unique).  A second
login for a connected bot replaces the first only between games: if the first is idle it is
closed and the newcomer takes its place; if it is playing, the newcomer is refused (``error
already connected``).  A bot whose connection ended is no longer connected, so a bot that
reconnects during a game is admitted and handed straight to the game waiting for it
(:meth:`BotRegistry.wait_for`, the reconnect grace).

A game takes all its remote bots in one step (:meth:`BotRegistry.take_all`): it waits until
every one of them is idle, then holds them all at once, so two games that need the same bots
never each hold one and wait for the other.  A bot busy in another game is waited for as long as
that game lasts; only a bot that is not connected counts against the reconnect grace.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import trio

from ..referee import Engine

__all__ = ["RemoteBot", "BotRegistry"]


@dataclass(eq=False)
class RemoteBot:
    """One logged-in remote bot on one connection."""

    name: str
    engine: Engine
    """Handshaken, over the connection (its ``process`` is a StreamTransport)."""
    address: str
    """The peer's address, ``host:port``."""
    rtt: float
    """The round trip measured at login (``isready`` to ``readyok``, best of a few), seconds."""
    busy: bool = False
    idle: trio.Event = field(default_factory=trio.Event)
    """Set while the bot is idle: the gateway's read-ahead runs only then."""
    reader: trio.CancelScope | None = None
    """The read-ahead's scope while it runs."""
    parked: trio.Event = field(default_factory=trio.Event)
    """Set while no read-ahead runs."""

    def __post_init__(self) -> None:
        self.parked.set()

    @property
    def connected(self) -> bool:
        return self.engine.process.status is None


class BotRegistry:
    """The connected remote bots by name (see the module docstring)."""

    def __init__(self) -> None:
        self._bots: dict[str, RemoteBot] = {}
        self._waiters: dict[str, list[trio.MemorySendChannel[RemoteBot]]] = {}
        self._round_trips: dict[str, float] = {}
        self._changed = trio.Event()
        """Set (and replaced) whenever a bot logs in, is given back or leaves: wakes :meth:`take_all`."""

    def _change(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def __len__(self) -> int:
        return len(self._bots)

    def get(self, name: str) -> RemoteBot | None:
        """The bot connected under ``name``, idle or busy, if any."""
        bot = self._bots.get(name.lower())
        return bot if bot is not None and bot.connected else None

    def round_trip(self, name: str) -> float | None:
        """The round trip (seconds) measured at the bot's latest login since the server started,
        connected or not; None if it has not logged in."""
        return self._round_trips.get(name.lower())

    def available(self) -> list[str]:
        """Names of the connected bots no game holds, in order of connection."""
        return [bot.name for bot in self._bots.values() if bot.connected and not bot.busy]

    def refusal(self, name: str) -> str | None:
        """Why a new login for ``name`` would be refused now (it is playing), or None."""
        bot = self.get(name)
        if bot is not None and bot.busy:
            return f"already connected: {name} is playing; log in again after its game"
        return None

    def register(self, bot: RemoteBot) -> str | None:
        """Admit a freshly handshaken bot; the reason it is refused, or None.

        A game waiting for the name gets it at once (busy); otherwise it is idle, replacing an
        idle connection of the same name (which is closed).
        """
        reason = self.refusal(bot.name)
        if reason is not None:
            return reason
        key = bot.name.lower()
        old = self._bots.pop(key, None)
        if old is not None and old.connected:
            old.engine.process.kill()
        self._bots[key] = bot
        self._round_trips[key] = bot.rtt
        for waiter in self._waiters.pop(key, []):
            try:
                waiter.send_nowait(bot)
            except (trio.WouldBlock, trio.BrokenResourceError):
                continue
            bot.busy = True
            return None
        bot.idle.set()
        self._change()
        return None

    def forget(self, bot: RemoteBot) -> None:
        """The bot's connection ended: it leaves the registry (unless already replaced)."""
        key = bot.name.lower()
        if self._bots.get(key) is bot:
            del self._bots[key]
            self._change()

    async def take(self, name: str) -> RemoteBot:
        """Hold the idle bot ``name`` for a game (its read-ahead stopped first).

        Raises:
            KeyError: no idle bot of that name is connected.
        """
        bot = self._bots.get(name.lower())
        if bot is None or bot.busy or not bot.connected:
            raise KeyError(name)
        bot.busy = True
        await self._park(bot)
        return bot

    def release(self, bot: RemoteBot) -> None:
        """The game is over: the bot is idle again (if still connected)."""
        bot.busy = False
        if not bot.connected:
            self.forget(bot)
        bot.idle.set()
        self._change()

    async def take_all(self, names: Sequence[str], grace: float) -> dict[str, RemoteBot | None]:
        """Hold the bots ``names`` for one game, all in one step (see the module docstring).

        Waits until every one of them is connected and idle.  A bot busy in another game is
        waited for without limit (that game ends); one that is not connected is waited for up to
        ``grace`` seconds from when it was first seen gone, then given up (None in the answer:
        its seat forfeits) and the others are taken without it.
        """
        keys = {name: name.lower() for name in names}
        gone_since: dict[str, float] = {}
        given_up: set[str] = set()
        while True:
            now = trio.current_time()
            wake_at = math.inf
            for key in keys.values():
                if key in given_up:
                    continue
                bot = self._bots.get(key)
                if bot is not None and bot.connected:
                    gone_since.pop(key, None)
                    continue
                since = gone_since.setdefault(key, now)
                if now - since >= grace:
                    given_up.add(key)
                else:
                    wake_at = min(wake_at, since + grace)
            wanted = {key: self._bots.get(key) for key in keys.values() if key not in given_up}
            if all(bot is not None and bot.connected and not bot.busy for bot in wanted.values()):
                held = {key: bot for key, bot in wanted.items() if bot is not None}
                for bot in held.values():
                    bot.busy = True  # all at once: no checkpoint since the look above
                try:
                    for bot in held.values():
                        await self._park(bot)
                except BaseException:
                    for bot in held.values():
                        self.release(bot)
                    raise
                return {name: held.get(key) for name, key in keys.items()}
            changed = self._changed
            with trio.move_on_at(wake_at):
                await changed.wait()

    async def wait_for(self, name: str, timeout: float) -> RemoteBot | None:  # noqa: ASYNC109 (the reconnect grace)
        """The bot ``name`` taken as soon as it is idle or logs in again, or None after ``timeout``."""
        key = name.lower()
        bot = self._bots.get(key)
        if bot is not None and bot.connected and not bot.busy:
            return await self.take(name)
        send, receive = trio.open_memory_channel[RemoteBot](1)
        self._waiters.setdefault(key, []).append(send)
        try:
            with trio.move_on_after(timeout if timeout > 0 else 0):
                got = await receive.receive()
                await self._park(got)
                return got
            return None
        finally:
            waiters = self._waiters.get(key, [])
            if send in waiters:
                waiters.remove(send)
                if not waiters:
                    del self._waiters[key]
            await send.aclose()
            # a bot handed over in the instant the wait expired goes back to the pool
            try:
                late = receive.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                late = None
            if late is not None:
                self.release(late)

    async def _park(self, bot: RemoteBot) -> None:
        bot.idle = trio.Event()
        if bot.reader is not None:
            bot.reader.cancel()
        await bot.parked.wait()

    async def hold(self, bot: RemoteBot) -> None:
        """The gateway's task for one registered bot: read ahead while idle, until the
        connection ends (seen here while idle, by the game while busy; :meth:`release` wakes
        this then); the bot then leaves the registry."""
        transport = bot.engine.process
        fill = getattr(transport, "fill", None)
        try:
            while bot.connected:
                await bot.idle.wait()
                if not bot.connected:
                    break
                if bot.busy:  # taken while this woke on the event it replaced
                    continue
                if fill is None:  # a transport that cannot read ahead: just wait for its end
                    await transport.wait()
                    break
                with trio.CancelScope() as scope:
                    bot.reader, bot.parked = scope, trio.Event()
                    try:
                        await fill()
                    finally:
                        bot.reader = None
                        bot.parked.set()
                if not scope.cancelled_caught:
                    break  # EOF while idle
        finally:
            if not bot.busy:
                self.forget(bot)
