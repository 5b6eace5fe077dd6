"""The bot port: remote bots log in over TCP (or TLS) and become engines (SPEC.md section 16.3).

Theory of operation.  :func:`serve_bots` runs ``trio.serve_tcp`` with :meth:`Gateway.handle` as the
handler, one task per connection.  A connection must send ``login NAME TOKEN`` within
``login_timeout`` in a line of at most ``max_line`` bytes; the token is checked through a
:class:`BotAuthenticator` (the store's, in a worker thread since it may read SQLite).  The answer
is ``loginok`` or ``error <why>`` and a close.  Failed logins are counted per address
(:class:`~santorini_server.server.login.LoginFailures`): after the fifth, each ``error`` is held
back longer.  Connections beyond ``max_connections`` are closed at once, before a byte is read.

After ``loginok`` the connection is an engine: a :class:`~santorini_server.referee.EngineChannel`
on a :class:`~santorini_server.referee.stream_transport.StreamTransport`, handshaken by
:meth:`Engine.attach <santorini_server.referee.Engine.attach>` exactly as a subprocess is (the
server speaks first, ``sei 1``), with SEI lines bounded by ``max_line`` too.  Then the round trip
is measured (``isready``/``readyok``, the best of :data:`RTT_PINGS`) and the bot joins the
:class:`~santorini_server.server.registry.BotRegistry`, where the run scheduler finds it.

The gateway owns no game state, and nothing a peer sends can raise out of a connection's task:
every failure closes that connection and is logged without the token.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from functools import partial

import structlog
import trio

from ..referee import Engine, EngineFailure, EngineSpec
from ..referee.channel import EngineChannel
from ..referee.engine import HANDSHAKE_TIMEOUT
from ..referee.stream_transport import BYTE_BUDGET, StreamTransport
from .auth import BotAuthenticator
from .login import LoginError, LoginFailures, parse_login
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
    """Connections at once; more are closed on arrival."""
    free_failures: int = 5
    """Failed logins per address answered at once; later ones wait ``failure_delay``, doubling."""
    failure_delay: float = 1.0
    failure_delay_cap: float = 60.0
    handshake_timeout: float = HANDSHAKE_TIMEOUT


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
        self.connections = 0
        """Connections open right now."""
        self.refused = 0
        """Connections closed on arrival because ``max_connections`` were open."""

    async def handle(self, stream: trio.abc.Stream, tls: ssl.SSLContext | None = None) -> None:
        """One connection, from accept to close (with ``tls``, its TLS handshake first, within
        the login timeout); never raises for what the peer does."""
        address = _peer(stream)
        if self.connections >= self.limits.max_connections:
            self.refused += 1
            await trio.aclose_forcefully(stream)
            return
        self.connections += 1
        try:
            if tls is not None:
                stream = trio.SSLStream(stream, tls, server_side=True)
                with trio.fail_after(self.limits.login_timeout):
                    await stream.do_handshake()
            await self._session(stream, address)
        except (trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, ssl.SSLError, OSError) as exc:
            _log.info("bot connection failed", address=address, error=type(exc).__name__)
        finally:
            self.connections -= 1
            await trio.aclose_forcefully(stream)

    async def _session(self, stream: trio.abc.Stream, address: str) -> None:
        host = address.rpartition(":")[0]
        limits = self.limits
        line: bytes | None = b""
        rest = b""
        with trio.move_on_after(limits.login_timeout):
            line, rest = await _read_line(stream, limits.max_line)
        if line is None:
            return await self._refuse(stream, address, f"line longer than {limits.max_line} bytes", host)
        if not line and not rest:
            return await self._refuse(stream, address, f"no login within {limits.login_timeout:g} s", None)
        try:
            name, token = parse_login(line)
        except LoginError as exc:
            return await self._refuse(stream, address, str(exc), host)
        try:
            ok = await trio.to_thread.run_sync(self.authenticator.authenticate, name, token)
        except Exception as exc:  # the store failed (a locked or broken database): not the bot's fault
            _log.error("bot authentication failed", bot=name, error=type(exc).__name__)
            return await self._refuse(stream, address, "server error, try again later", None, bot=name)
        del token
        if not ok:
            return await self._refuse(stream, address, "bad name or token", host, bot=name)
        if (reason := self.registry.refusal(name)) is not None:
            return await self._refuse(stream, address, reason, None, bot=name)
        self.failures.succeeded(host)
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
            return None
        bot = RemoteBot(name=name, engine=engine, address=address, rtt=rtt)
        if (reason := self.registry.register(bot)) is not None:
            _log.info("bot refused", bot=name, address=address, reason=reason)
            await transport.aclose(b"")
            return None
        _log.info("bot connected", bot=name, address=address, rtt_ms=round(rtt * 1000, 3), engine=engine.info.name)
        try:
            await self.registry.hold(bot)
        finally:
            await transport.aclose(b"" if not bot.connected else b"quit\n")
            _log.info("bot disconnected", bot=name, address=address)
        return None

    async def _refuse(self, stream: trio.abc.Stream, address: str, why: str, host: str | None, bot: str | None = None) -> None:
        """Answer ``error <why>`` and close; a failure of ``host`` is counted (and held back)."""
        if host is not None:
            delay = self.failures.failed(host, trio.current_time())
            if delay:
                await trio.sleep(delay)
        _log.info("bot login refused", address=address, bot=bot, reason=why)
        with trio.move_on_after(1.0):
            await stream.send_all(f"error {why}\n".encode())


async def _round_trip(engine: Engine) -> float:
    started = engine.channel.now()
    await engine.ping()
    return engine.channel.arrived - started


async def _read_line(stream: trio.abc.Stream, max_line: int) -> tuple[bytes | None, bytes]:
    """The first line (without its end) and what came after it; ``None`` for a line over
    ``max_line`` bytes; ``(b"", b"")`` at EOF before a line end."""
    buffer = bytearray()
    while True:
        end = buffer.find(b"\n")
        if end >= 0:
            if end > max_line:
                return None, b""
            return bytes(buffer[:end]), bytes(buffer[end + 1 :])
        if len(buffer) > max_line:
            return None, b""
        data = await stream.receive_some(65536)
        if not data:
            return b"", b""
        buffer += data


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
    handler = gateway.handle if ssl_context is None else partial(gateway.handle, tls=ssl_context)
    task_status.started(listeners)
    await trio.serve_listeners(handler, listeners)
