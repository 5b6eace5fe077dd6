"""The HTTP port: Hypercorn's trio worker with every connection counted (SPEC.md section 17.2).

Hypercorn has no bound per address, and its ``serve`` builds its listeners and its connection
handler inside, with no hook between ``accept`` and its ``TCPServer``.  So this is that worker's
loop (its lifespan, sockets, shutdown and grace, as :func:`hypercorn.trio.run.worker_serve` has
them) with one change: each accepted stream goes first through :meth:`HttpGuard.handle`, which
asks the :class:`~.http_guard.ConnectionTable` whether it may stay (no byte read yet: a refused
connection costs one accept and one close), closes the connections the table evicts under
pressure, and hands Hypercorn the stream wrapped so that the table learns when bytes move and a
write to a client that reads nothing ends after ``send_timeout``.  The handler is the narrowest
point where the peer's address is known and nothing has been read; wrapping the listener instead
would leave the same loop to rewrite, since Hypercorn makes its listeners itself.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import trio

from .http_guard import Connection, ConnectionTable, HttpLimits

__all__ = ["HttpGuard", "hypercorn_config", "serve_http"]

def hypercorn_config(bind: str, limits: HttpLimits, certfile: str | None = None, keyfile: str | None = None) -> Any:
    """Hypercorn's settings for the HTTP port under ``limits``."""
    from hypercorn.config import Config

    config = Config()
    config.bind = [bind]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    config.alpn_protocols = ["http/1.1"]  # one request at a time per connection: the table counts connections
    config.keep_alive_timeout = limits.head_timeout
    config.h11_max_incomplete_size = limits.head_size
    config.websocket_max_message_size = limits.websocket_message
    config.ssl_handshake_timeout = limits.tls_handshake_timeout
    if certfile is not None:
        config.certfile, config.keyfile = certfile, keyfile
    return config


class _Watched:
    """A connection's stream as Hypercorn sees it: reads and writes mark the table's entry, a
    write ends after ``send_timeout`` seconds (the connection closed, as if the client had gone),
    and a WebSocket the daemon has closed reads at most ``websocket_close_reply`` bytes more
    (then the end of the stream, which closes it)."""

    def __init__(self, stream: Any, connection: Connection, limits: HttpLimits) -> None:
        self._stream = stream
        self._connection = connection
        self._timeout = limits.send_timeout
        self._reply_room = limits.websocket_close_reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)  # socket, or TLS's do_handshake and the like; AttributeError as the stream's

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self._stream.receive_some(max_bytes)
        self._connection.active = trio.current_time()
        if data:
            self._connection.owed = True
            if not self._connection.received(len(data)):
                return b""
        return data

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self._connection.sent(data, self._reply_room)
        self._connection.active = math.inf  # a write in progress is not silence
        try:
            with trio.move_on_after(self._timeout) as timer:
                await self._stream.send_all(data)
        finally:
            self._connection.active = trio.current_time()
        if timer.cancelled_caught:
            await trio.aclose_forcefully(self._stream)
            raise trio.BrokenResourceError(f"a write took over {self._timeout:g} s")
        self._connection.owed = False

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self._stream.send_eof()

    async def aclose(self) -> None:
        await self._stream.aclose()


class HttpGuard:
    """The HTTP port's open connections (:attr:`table`) and the means to close them."""

    def __init__(self, limits: HttpLimits | None = None) -> None:
        self.table = ConnectionTable(limits)
        self._scopes: dict[int, trio.CancelScope] = {}

    async def handle(self, serve_one: Callable[[Any], Awaitable[None]], stream: Any) -> None:
        """Serve ``stream`` with ``serve_one`` (Hypercorn's connection) if the table admits it."""
        try:
            raw = stream.transport_stream.socket if isinstance(stream, trio.SSLStream) else stream.socket
            host, port = raw.getpeername()[:2]
        except OSError:
            await trio.aclose_forcefully(stream)
            return
        connection, evicted = self.table.admit((host, port), trio.current_time())
        for other in evicted:
            scope = self._scopes.get(other.key)
            if scope is not None:
                scope.cancel()
        if connection is None:  # not logged: a flood would be as many lines
            await trio.aclose_forcefully(stream)
            return
        scope = self._scopes[connection.key] = trio.CancelScope()
        try:
            with scope:
                await serve_one(_Watched(stream, connection, self.table.limits))
        finally:
            del self._scopes[connection.key]
            self.table.release(connection)
            await trio.aclose_forcefully(stream)


async def serve_http(
    app: Any,
    config: Any,
    guard: HttpGuard,
    shutdown_trigger: Callable[[], Awaitable[None]],
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the ASGI ``app`` under Hypercorn's ``config`` until ``shutdown_trigger`` returns,
    every connection through ``guard``; ``task_status`` gets the bound URLs once listening."""
    from hypercorn.trio.lifespan import Lifespan
    from hypercorn.trio.tcp_server import TCPServer
    from hypercorn.trio.worker_context import WorkerContext
    from hypercorn.typing import ConnectionState
    from hypercorn.utils import ShutdownError, raise_shutdown, repr_socket_addr, wrap_app

    wrapped = wrap_app(app, config.wsgi_max_body_size, None)
    lifespan_state: dict[str, Any] = {}
    lifespan = Lifespan(wrapped, config, lifespan_state)
    context = WorkerContext(None)
    async with trio.open_nursery() as lifespan_nursery:
        await lifespan_nursery.start(lifespan.handle_lifespan)
        await lifespan.wait_for_startup()
        async with trio.open_nursery() as server_nursery:
            sockets = config.create_sockets()
            listeners: list[trio.abc.Listener[Any]] = []
            binds = []
            ssl_context = config.create_ssl_context()
            for secure, group in ((True, sockets.secure_sockets), (False, sockets.insecure_sockets)):
                for sock in group:
                    sock.listen(config.backlog)
                    listener: trio.abc.Listener[Any] = trio.SocketListener(trio.socket.from_stdlib_socket(sock))
                    if secure:
                        listener = trio.SSLListener(listener, ssl_context, https_compatible=True)
                    listeners.append(listener)
                    binds.append(f"{'https' if secure else 'http'}://{repr_socket_addr(sock.family, sock.getsockname())}")
            serve_one = partial(TCPServer, wrapped, config, context, ConnectionState(lifespan_state.copy()))
            task_status.started(binds)
            try:
                async with trio.open_nursery(strict_exception_groups=True) as nursery:
                    nursery.start_soon(raise_shutdown, shutdown_trigger)
                    nursery.start_soon(partial(
                        trio.serve_listeners, partial(guard.handle, serve_one), listeners, handler_nursery=server_nursery,
                    ))
                    await trio.sleep_forever()
            except BaseExceptionGroup as error:
                _, others = error.split((ShutdownError, KeyboardInterrupt))
                if others is not None:
                    raise others from None
            finally:
                await context.terminated.set()
                server_nursery.cancel_scope.deadline = trio.current_time() + config.graceful_timeout
        await lifespan.wait_for_shutdown()
        lifespan_nursery.cancel_scope.cancel()
