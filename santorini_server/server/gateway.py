"""The bot port: remote bots log in over TCP (or TLS) and become engines (SPEC.md section 16.3).

Theory of operation.  :func:`serve_bots` runs ``trio.serve_listeners`` with :meth:`Gateway.handle`
as the handler, one task per connection.  An :class:`~santorini_server.server.admission.Admission`
decides at the accept, before a byte is read: at most ``max_pending_per_address`` connections not
yet logged in per address (more are closed on arrival); at most ``max_connections`` in all, a
newcomer beyond closing the oldest pending connection of the address holding the most; while
pending connections take more than ``pressure`` of the room logged-in bots leave, new connections
get the short ``pressed_login_timeout``.  A connection must send ``login NAME TOKEN``
within its login deadline in a line of at most ``max_line`` bytes.  An address with failed logins
(:class:`~santorini_server.server.login.LoginFailures`, five free) has the line held back first,
longer after each failure; then the token is checked through a :class:`BotAuthenticator` (the
store's, in a worker thread since it may read SQLite).  The answer is ``loginok`` or
``error <why>`` and a close.

After ``loginok`` the connection is an engine: a :class:`~santorini_server.referee.EngineChannel`
on a :class:`~santorini_server.referee.stream_transport.StreamTransport`, handshaken by
:meth:`Engine.attach <santorini_server.referee.Engine.attach>` exactly as a subprocess is (the
server speaks first, ``sei 1``), with SEI lines bounded by ``max_line`` too.  Then the round trip
is measured (``isready``/``readyok``, the best of :data:`RTT_PINGS`) and the bot joins the
:class:`~santorini_server.server.registry.BotRegistry`, where the run scheduler finds it.

The gateway owns no game state, and nothing raises out of a connection's task: what a peer does
closes that connection, logged without the token; an exception nobody expected (a bug) is
contained too, in :meth:`Gateway.handle` and again in :func:`serve_bots`' handler, counted
(:attr:`Gateway.errors`) and logged once by its type and place, so one connection never ends the
daemon.
"""

from __future__ import annotations

import ssl
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import structlog
import trio

from ..referee import Engine, EngineFailure, EngineSpec
from ..referee.channel import EngineChannel
from ..referee.engine import HANDSHAKE_TIMEOUT
from ..referee.stream_transport import BYTE_BUDGET, StreamTransport
from .admission import Admission, address_key
from .auth import BotAuthenticator
from .login import SERVER_ERROR, LoginError, LoginFailures, parse_login
from .registry import BotRegistry, RemoteBot

__all__ = ["BotAuthenticator", "GatewayLimits", "Gateway", "serve_bots", "RTT_PINGS", "DEFAULT_BOT_PORT"]

_log = structlog.get_logger("santorini.gateway")

DEFAULT_BOT_PORT = 7777
RTT_PINGS = 3
"""``isready`` round trips at login; the best one is the bot's round trip."""


@dataclass(frozen=True)
class GatewayLimits:
    """The bot port's bounds (SPEC.md section 16.3)."""

    login_timeout: float = 5.0
    """Seconds from accepting a connection to its complete login line."""
    max_line: int = 64 * 1024
    """Longest line accepted, the login line and every SEI line after it (bytes, LF excluded)."""
    byte_budget: int = BYTE_BUDGET
    """Bytes per second read from one connection at most."""
    max_connections: int = 2048
    """Connections at once, pending and logged in; a newcomer beyond closes the oldest pending one."""
    max_pending_per_address: int = 16
    """Connections not yet logged in from one address (an IPv6 /64) at once; more are closed on arrival."""
    pressure: float = 0.5
    """Once pending connections take more than this fraction of the room the logged-in ones leave,
    a new connection gets ``pressed_login_timeout``."""
    pressed_login_timeout: float = 1.0
    """The login deadline of a connection accepted under pressure (missing it closes it without a line)."""
    free_failures: int = 5
    """Failed logins per address that cost nothing; then each login line waits ``failure_delay``,
    doubling, before it is checked."""
    failure_delay: float = 1.0
    failure_delay_cap: float = 20.0
    """Below the bridge's 30 s wait for its answer, so a bot behind a failing address still gets in."""
    handshake_timeout: float = HANDSHAKE_TIMEOUT


class _LineTooLong(Exception):
    pass


class Gateway:
    """The bot port's connection handler and its shared state."""

    def __init__(
        self, authenticator: BotAuthenticator, registry: BotRegistry | None = None, limits: GatewayLimits | None = None
    ) -> None:
        self.authenticator = authenticator
        self.registry = registry if registry is not None else BotRegistry()
        self.limits = limits or GatewayLimits()
        self.failures = LoginFailures(
            free=self.limits.free_failures, base=self.limits.failure_delay, cap=self.limits.failure_delay_cap
        )
        self.admission = Admission(
            max_connections=self.limits.max_connections,
            per_address=self.limits.max_pending_per_address,
            pressure=self.limits.pressure,
        )
        self._pending: dict[int, trio.CancelScope] = {}
        """The pending connections' scopes by ticket: cancelling one closes that connection."""
        self.refused = 0
        """Connections closed on arrival (their address had its pending connections, or every
        connection was a logged-in bot)."""
        self.evicted = 0
        """Pending connections closed to make room for a newcomer."""
        self.errors = 0
        """Connections whose task failed with an exception nobody expected (a bug), contained."""
        self._pressed = False
        """Whether the latest connection admitted was under pressure (its changes are logged)."""

    @property
    def connections(self) -> int:
        """Connections open right now."""
        return self.admission.total

    async def handle(self, stream: trio.abc.Stream, tls: ssl.SSLContext | None = None) -> None:
        """One connection, from accept to close (with ``tls``, its TLS handshake first, within
        the login timeout); never raises, except ``trio.Cancelled``."""
        address = "?:0"
        try:
            address = _peer(stream)
            await self._connection(stream, address, tls)
        except* Exception as group:
            self.contain(group, address)
            await trio.aclose_forcefully(stream)

    def contain(self, exc: BaseException, address: str) -> None:
        """Count and log an exception a connection's task did not expect.  Logged once, by its
        type and where it was raised, never its message (which may quote what the peer sent)."""
        self.errors += 1
        leaves = list(_leaves(exc))
        frames = traceback.extract_tb(leaves[0].__traceback__)[-6:] if leaves else []
        _log.error(
            "bot connection failed unexpectedly",
            address=address,
            error=", ".join(type(leaf).__name__ for leaf in leaves),
            where=[f"{Path(frame.filename).name}:{frame.lineno} {frame.name}" for frame in frames],
        )

    async def _connection(self, stream: trio.abc.Stream, address: str, tls: ssl.SSLContext | None) -> None:
        arrival = self.admission.arrive(address_key(_host(address)))
        if arrival.ticket is None:
            self.refused += 1
            await trio.aclose_forcefully(stream)
            return
        if arrival.evicted is not None:
            self.evicted += 1
            victim = self._pending.pop(arrival.evicted, None)
            if victim is not None:
                victim.cancel()
        if arrival.pressed != self._pressed:
            self._pressed = arrival.pressed
            _log.warning(
                "bot port under pressure: short login deadlines" if arrival.pressed else "bot port pressure over",
                connections=self.connections, pending=self.admission.pending, refused=self.refused,
                evicted=self.evicted,
            )
        ticket = arrival.ticket
        pending = self._pending[ticket] = trio.CancelScope()
        timeout = self.limits.pressed_login_timeout if arrival.pressed else self.limits.login_timeout
        try:
            login = None
            with pending:
                if tls is not None:
                    stream = trio.SSLStream(stream, tls, server_side=True)
                    with trio.fail_after(timeout):
                        await stream.do_handshake()
                login = await self._login(stream, address, timeout, arrival.pressed)
            # no checkpoint from here to logged_in: a login is either closed to make room or not pending
            if login is None or pending.cancel_called:
                return
            del self._pending[ticket]
            self.admission.logged_in(ticket)
            await self._play(stream, address, *login)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, ssl.SSLError, OSError) as exc:
            _log.info("bot connection failed", address=address, error=type(exc).__name__)
        finally:
            self._pending.pop(ticket, None)
            self.admission.leave(ticket)
            await trio.aclose_forcefully(stream)

    async def _login(self, stream: trio.abc.Stream, address: str, within: float, pressed: bool) -> tuple[str, bytes] | None:
        """Read and check the login line: ``(name, what came after the line)``, or ``None`` once
        refused."""
        limits = self.limits
        key = address_key(_host(address))
        got: tuple[bytes, bytes] | _LineTooLong | None = None
        with trio.move_on_after(within) as deadline:
            try:
                got = await _read_line(stream, limits.max_line)
            except _LineTooLong as exc:
                got = exc
        if deadline.cancelled_caught and pressed:
            return None  # closed without a line (nor a log line each): a bridge tries again, not after an error
        if got is None:  # the deadline, or the end of the stream before a line
            await self._refuse(stream, address, f"no login within {within:g} s")
            return None
        # a line (or too long a one) arrived: an address with failures is held back before its check
        delay = self.failures.delay(key, trio.current_time())
        if delay:
            await trio.sleep(delay)
        if isinstance(got, _LineTooLong):
            self.failures.failed(key, trio.current_time())
            await self._refuse(stream, address, f"line longer than {limits.max_line} bytes")
            return None
        line, rest = got
        try:
            name, token = parse_login(line)
        except LoginError as exc:
            self.failures.failed(key, trio.current_time())
            await self._refuse(stream, address, str(exc))
            return None
        try:
            ok = await trio.to_thread.run_sync(self.authenticator.authenticate, name, token)
        except Exception as exc:  # the store failed (a locked or broken database): not the bot's fault
            _log.error("bot authentication failed", bot=name, error=type(exc).__name__)
            await self._refuse(stream, address, SERVER_ERROR, bot=name)
            return None
        del token
        if not ok:
            self.failures.failed(key, trio.current_time(), name)
            await self._refuse(stream, address, "bad name or token", bot=name)
            return None
        if (reason := self.registry.refusal(name)) is not None:
            await self._refuse(stream, address, reason, bot=name)
            return None
        self.failures.succeeded(key, name)
        return name, rest

    async def _play(self, stream: trio.abc.Stream, address: str, name: str, rest: bytes) -> None:
        """A logged-in connection: ``loginok``, the SEI handshake, the registry until it ends."""
        limits = self.limits
        await stream.send_all(b"loginok\n")
        transport = StreamTransport(stream, byte_budget=limits.byte_budget)
        transport.unread(rest)
        channel = EngineChannel(EngineSpec(name=name, argv=()), transport, max_line_length=limits.max_line)
        try:
            engine = await Engine.attach(channel, handshake_timeout=limits.handshake_timeout)
            rtt = min([await _round_trip(engine) for _ in range(RTT_PINGS)])
        except EngineFailure as failure:
            _log.info("bot failed its handshake", bot=name, address=address, kind=failure.kind, detail=failure.detail)
            await transport.aclose(b"")
            return
        bot = RemoteBot(name=name, engine=engine, address=address, rtt=rtt)
        if (reason := self.registry.register(bot)) is not None:
            _log.info("bot refused", bot=name, address=address, reason=reason)
            await transport.aclose(b"")
            return
        _log.info("bot connected", bot=name, address=address, rtt_ms=round(rtt * 1000, 3), engine=engine.info.name)
        try:
            await self.registry.hold(bot)
        finally:
            await transport.aclose(b"" if not bot.connected else b"quit\n")
            _log.info("bot disconnected", bot=name, address=address)

    async def _refuse(self, stream: trio.abc.Stream, address: str, why: str, bot: str | None = None) -> None:
        """Answer ``error <why>`` (the connection is closed after)."""
        _log.info("bot login refused", address=address, bot=bot, reason=why)
        with trio.move_on_after(1.0):
            await stream.send_all(f"error {why}\n".encode())


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    else:
        yield exc


async def _round_trip(engine: Engine) -> float:
    started = engine.channel.now()
    await engine.ping()
    return engine.channel.arrived - started


async def _read_line(stream: trio.abc.Stream, max_line: int) -> tuple[bytes, bytes] | None:
    """The first line (without its end) and what came after it; ``None`` at EOF before a line end.

    Raises:
        _LineTooLong: more than ``max_line`` bytes before a line end.
    """
    buffer = bytearray()
    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            if end > max_line:
                raise _LineTooLong
            return bytes(buffer[:end]), bytes(buffer[end + 1 :])
        if len(buffer) > max_line:
            raise _LineTooLong
        data = await stream.receive_some(65536)
        if not data:
            return None
        buffer += data


def _host(address: str) -> str:
    return address.rpartition(":")[0]


def _peer(stream: trio.abc.Stream) -> str:
    socket_stream = stream if isinstance(stream, trio.SocketStream) else getattr(stream, "transport_stream", None)
    try:
        host, port = socket_stream.socket.getpeername()[:2]  # type: ignore[union-attr]
    except (AttributeError, OSError):
        return "?:0"
    return f"{host}:{port}"


async def serve_bots(
    gateway: Gateway,
    port: int = DEFAULT_BOT_PORT,
    *,
    host: str = "127.0.0.1",
    ssl_context: ssl.SSLContext | None = None,
    task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the bot port until cancelled (``nursery.start`` gives the listeners: port 0 picks
    one).  With ``ssl_context`` every connection is TLS (``trio.SSLStream``)."""
    listeners: list[trio.SocketListener] = await trio.open_tcp_listeners(port, host=host)

    async def handler(stream: trio.SocketStream) -> None:
        # Gateway.handle contains its own failures; this is the last line: whatever one
        # connection's task raises ends that connection, never serve_listeners and the daemon.
        try:
            await gateway.handle(stream, ssl_context)
        except* Exception as group:
            gateway.contain(group, _peer(stream))

    task_status.started(listeners)
    await trio.serve_listeners(handler, listeners)
