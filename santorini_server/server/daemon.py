"""``santorini serve``: the store, the bot port, the job API and the run scheduler in one nursery
(SPEC.md section 16.4).

Theory of operation.  One trio process; its nursery holds

* the HTTP side: the job API (:mod:`.api`, a Starlette app) served by Hypercorn's trio worker
  with every connection counted (:mod:`.http_serve`), whose ``shutdown_trigger`` is the drain event;
* the bot port: :func:`~.gateway.serve_bots`, logins checked by the store's authenticator, the
  logged-in bots in a :class:`~.registry.BotRegistry`;
* the :class:`~.runs.RunScheduler`, which plays the queued runs (and resumes the interrupted ones);
* with ``--ladder``, the :class:`~.ladder.Ladder`, games between the available bots all along;
* the store, :class:`~.async_store.AsyncStore` (one writer thread, read-only readers).

SIGTERM or SIGINT sets one ``trio.Event``, the drain: the HTTP server stops, the scheduler hands
out no new game, running games get ``drain_timeout`` seconds and are then cancelled (the next
start resumes the run and plays them again); then the bot port closes and the process exits 0.
"""

from __future__ import annotations

import signal
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog
import trio

from .async_store import AsyncStore
from .auth import StoreAuthenticator
from .gateway import DEFAULT_BOT_PORT, Gateway, serve_bots
from .http_guard import ConnectionTable, HttpLimits, allowed_hosts
from .http_serve import HttpGuard, hypercorn_config, serve_http
from .live import LiveHub
from .registry import BotRegistry
from .remote_engine import RECONNECT_GRACE
from .runs import DEFAULT_MAX_QUEUED, RunScheduler
from .store import DEFAULT_DATA_DIR

if TYPE_CHECKING:
    from ..tournament.config import TournamentConfig
    from ..tournament.runner import Backend
from .tokens import ADMIN_TOKEN_FILE, ensure_admin_token

__all__ = ["ServeOptions", "WebContext", "AppFactory", "serve", "DEFAULT_HTTP_PORT", "parse_host_port", "ListenError"]

_log = structlog.get_logger("santorini.serve")

DEFAULT_HTTP_PORT = 8080


def parse_host_port(text: str, default_port: int) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST`` or ``:PORT`` (host 127.0.0.1); IPv6 as ``[::1]:PORT``.

    Raises:
        ValueError: a port that is not a number in 0..65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or "]" in port or (host.count(":") > 0 and not host.startswith("[")):
        host, port = text, str(default_port)
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"bad address {text!r}: the port must be a number from 0 to 65535")
    return host, int(port)


class ListenError(OSError):
    """A port that cannot be opened (taken, or a host that does not resolve).  Raised bare, not
    in the nursery's ExceptionGroup, and naming the flag and address, so ``serve`` says one line."""


def _format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _listen_error(group: BaseExceptionGroup[OSError], flag: str, address: tuple[str, int]) -> ListenError:
    first: BaseException = group
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    reason = first.strerror if isinstance(first, OSError) and first.strerror else str(first)
    return ListenError(f"cannot listen on {flag} {_format_address(*address)}: {reason}")


@dataclass(frozen=True)
class ServeOptions:
    data: Path = DEFAULT_DATA_DIR
    http: tuple[str, int] = ("127.0.0.1", DEFAULT_HTTP_PORT)
    bots: tuple[str, int] = ("127.0.0.1", DEFAULT_BOT_PORT)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    drain_timeout: float = 60.0
    reconnect_grace: float = RECONNECT_GRACE
    ladder: bool = False
    ladder_tc: str = "10+0.1"
    ladder_gods: str = "mortal/mortal"
    ladder_concurrency: int = 1
    cluster: Callable[[TournamentConfig], Backend] | None = None
    """``--backend dask``: makes a run's backend on the Dask cluster (runs of local bots play there)."""
    max_queued: int = DEFAULT_MAX_QUEUED
    """``--max-queued``: runs that may wait to be played; ``POST /api/runs`` beyond is a 503."""
    allowed_hosts: tuple[str, ...] = ()
    """``--allowed-host``: host names the HTTP port answers to besides ``--http``'s and loopback's."""
    http_limits: HttpLimits = field(default_factory=HttpLimits)


@dataclass(frozen=True)
class WebContext:
    """What the HTTP side is built from: the daemon's parts that the job API and the dashboard use."""

    store: AsyncStore
    registry: BotRegistry
    scheduler: RunScheduler
    hub: LiveHub
    """Games as they are played, for the dashboard's WebSocket (SPEC.md section 17.3)."""
    admin_token: str
    secure: bool
    """The HTTP port speaks TLS (cookies are marked ``Secure``)."""
    hosts: frozenset[str] = allowed_hosts("127.0.0.1")
    """The host names the HTTP port answers to (``Host``, and a WebSocket's ``Origin``)."""
    connections: ConnectionTable | None = None
    """The HTTP port's open connections, where a WebSocket is counted (None: no such bound)."""


AppFactory = Callable[[WebContext], Any]
"""Builds the ASGI app the daemon serves.  The dashboard (``santorini_server.dashboard.app``)
imports the server, so the server cannot import it: ``santorini serve`` passes its factory in;
without one the daemon serves the job API alone."""


def _tls_context(options: ServeOptions) -> ssl.SSLContext | None:
    if options.tls_cert is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(options.tls_cert), str(options.tls_key) if options.tls_key else None)
    return context


async def serve(
    options: ServeOptions,
    say: Callable[[str], None] = print,
    drain: trio.Event | None = None,
    app_factory: AppFactory | None = None,
) -> None:
    """Run the daemon until SIGTERM/SIGINT (or ``drain`` is set), then drain and return.

    ``app_factory`` builds the HTTP app (the dashboard's, SPEC.md section 17); None: the job API alone.

    Raises:
        ValueError: an ``allowed_hosts`` entry that is not a host name.
        ListenError: a port that cannot be opened.
    """
    from .api import create_app

    if options.ladder:  # the ladder brings the referee's game loop and openskill: only when asked for
        from .ladder import Ladder

    begun = time.monotonic()
    hosts = allowed_hosts(options.http[0], options.allowed_hosts)
    store = await AsyncStore.open(options.data)
    admin_token = await trio.to_thread.run_sync(ensure_admin_token, options.data)
    drain = trio.Event() if drain is None else drain
    registry = BotRegistry()
    authenticator = StoreAuthenticator(store)
    gateway = Gateway(authenticator, registry)
    hub = LiveHub()
    scheduler = RunScheduler(
        store, registry, drain=drain, drain_timeout=options.drain_timeout, grace=options.reconnect_grace, hub=hub,
        cluster=options.cluster, max_queued=options.max_queued,
    )
    ladder = (
        Ladder(
            store, registry, drain=drain, drain_timeout=options.drain_timeout, grace=options.reconnect_grace,
            tc=options.ladder_tc, gods=options.ladder_gods, concurrency=options.ladder_concurrency, hub=hub,
        )
        if options.ladder
        else None
    )
    tls = _tls_context(options)
    config = hypercorn_config(
        _format_address(*options.http), options.http_limits,
        str(options.tls_cert) if tls is not None else None, str(options.tls_key) if options.tls_key else None,
    )
    guard = HttpGuard(options.http_limits)
    web = WebContext(
        store, registry, scheduler, hub, admin_token, secure=tls is not None,
        hosts=hosts, connections=guard.table,
    )
    app = app_factory(web) if app_factory is not None else create_app(store, registry, scheduler, admin_token)
    failure: ListenError | None = None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_signals, drain)
            nursery.start_soon(hub.run)  # the live viewers' fan-out, off the games' tasks
            try:
                listeners = await nursery.start(
                    partial(serve_bots, gateway, options.bots[1], host=options.bots[0], ssl_context=tls)
                )
            except* OSError as group:
                failure = _listen_error(group, "--bots", options.bots)
            if failure is None:
                bot_port = listeners[0].socket.getsockname()[1]
                try:
                    bound = await nursery.start(serve_http, app, config, guard, drain.wait)
                except* OSError as group:
                    failure = _listen_error(group, "--http", options.http)
            if failure is None:
                await nursery.start(scheduler.serve)
                if ladder is not None:
                    await nursery.start(ladder.serve)
                say(
                    f"santorini serve: API {bound[0]}, bots {'tls' if tls else 'tcp'}://{options.bots[0]}:{bot_port}, "
                    f"data {options.data}, admin token in {options.data / ADMIN_TOKEN_FILE} "
                    f"(ready in {time.monotonic() - begun:.3f} s)"
                )
                _log.info("serving", http=bound, bots=bot_port, data=str(options.data))
                await drain.wait()
                _log.info("draining", timeout=options.drain_timeout)
                # the scheduler ends its run (games finish or are cancelled at the timeout); then the rest
                await scheduler.stopped.wait()
                if ladder is not None:
                    await ladder.stopped.wait()
            nursery.cancel_scope.cancel()  # on a failure to listen, the other port closes too
    finally:
        authenticator.close()
        store.close()
    if failure is not None:
        raise failure
    say("santorini serve: stopped")


async def _signals(drain: trio.Event) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as received:
        async for signum in received:
            _log.info("signal", signal=signal.Signals(signum).name)
            drain.set()
