"""``santorini connect``: any stdin/stdout engine, played on a server through its bot port.

Theory of operation.  :func:`run_bridge` connects to the server (TCP, or TLS for ``tls://``),
sends ``login NAME TOKEN`` and waits for ``loginok``.  Each connection is one SEI session, so
the bridge then starts a fresh engine under the process layer's guard (no orphan, even on
Ctrl-C or ``kill -9``) and relays bytes both ways, never interpreting them: the server speaks
first (``sei 1``), exactly as to a subprocess.  When either side ends -- the connection drops,
the server sends ``quit``, the engine exits -- the engine is stopped and the connection closed,
and the bridge connects again after a back-off (exponential, capped, with jitter; reset by a
successful login).  When it is the engine that ended, the bridge first tells the server how, in
one SEI-valid line (:data:`~santorini_server.referee.stream_transport.BRIDGE_EXIT`, e.g.
``info string bridge: engine exited: exit code 3``), so that the server rules the crash at once
instead of waiting for a reconnection as after a network drop.  A refused login ends the bridge
with :class:`LoginRefused` (a wrong token is not retried), except ``already connected`` and a server
error (its store failed), which are retried like a drop.

The token comes from a file, never from the command line (it would show in ``ps``), and is
never logged.
"""

from __future__ import annotations

import random
import re
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import trio

from ..process import EngineProcess, open_engine_process
from ..process.transport import EngineLimits
from ..referee import EngineSpec
from ..referee.stream_transport import BRIDGE_EXIT
from .login import RETRIED_REFUSALS

__all__ = ["ServerAddress", "parse_server_url", "Backoff", "LoginRefused", "bridge_once", "run_bridge", "read_token"]

_URL = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")
LOGIN_ANSWER_TIMEOUT = 30.0
"""Seconds for the server's answer to the login line (it holds back answers to failing addresses)."""
CHUNK = 65536
EXIT_WAIT = 1.0
"""Seconds to wait for an engine that closed its output to exit, for its status."""


@dataclass(frozen=True)
class ServerAddress:
    tls: bool
    host: str
    port: int

    def __str__(self) -> str:
        return f"{'tls' if self.tls else 'tcp'}://{self.host}:{self.port}"


def parse_server_url(text: str) -> ServerAddress:
    """``tcp://HOST:PORT`` or ``tls://HOST:PORT``.

    Raises:
        ValueError: anything else (one line, the input quoted).
    """
    match = _URL.fullmatch(text)
    if match is None or not 0 < int(match[3]) < 65536:
        raise ValueError(f"expected tcp://HOST:PORT or tls://HOST:PORT, got {text!r}")
    return ServerAddress(match[1] == "tls", match[2].strip("[]"), int(match[3]))


def read_token(path: str) -> str:
    """The token in ``path`` (its first line, stripped).

    Raises:
        ValueError: unreadable or empty file.
    """
    try:
        with open(path, encoding="ascii") as file:
            token = file.readline().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the token file {path!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if not token:
        raise ValueError(f"the token file {path!r} is empty")
    return token


class LoginRefused(Exception):
    """The server answered the login with ``error <why>`` (``why`` is the message)."""


class Backoff:
    """Delays between connection attempts: ``base`` doubling up to ``cap``, each scaled by a
    random factor in [1 - jitter, 1 + jitter] so bots dropped together do not return together."""

    def __init__(self, base: float = 0.5, cap: float = 30.0, jitter: float = 0.2, rng: random.Random | None = None) -> None:
        self.base = base
        self.cap = cap
        self.jitter = jitter
        self.rng = rng or random.Random()
        self.failures = 0

    def next_delay(self) -> float:
        delay = min(self.cap, self.base * 2**self.failures)
        self.failures += 1
        return delay * self.rng.uniform(1 - self.jitter, 1 + self.jitter)

    def reset(self) -> None:
        self.failures = 0


async def _open(address: ServerAddress, ssl_context: ssl.SSLContext | None) -> trio.abc.Stream:
    stream: trio.abc.Stream = await trio.open_tcp_stream(address.host, address.port)
    if address.tls:
        context = ssl_context or ssl.create_default_context()
        tls = trio.SSLStream(stream, context, server_hostname=address.host)
        await tls.do_handshake()
        stream = tls
    return stream


async def _login(stream: trio.abc.Stream, name: str, token: str) -> bytes:
    """Send the login line; what the server sent after ``loginok``.

    Raises:
        LoginRefused: ``error <why>``.
        trio.BrokenResourceError: the connection ended first.
    """
    await stream.send_all(f"login {name} {token}\n".encode())
    buffer = bytearray()
    with trio.fail_after(LOGIN_ANSWER_TIMEOUT):
        while b"\n" not in buffer:
            data = await stream.receive_some(CHUNK)
            if not data:
                raise trio.BrokenResourceError("the server closed the connection during the login")
            buffer += data
            if len(buffer) > CHUNK:
                raise trio.BrokenResourceError("the server's answer to the login is too long")
    line, _, rest = bytes(buffer).partition(b"\n")
    answer = line.decode("utf-8", "replace").strip()
    if answer == "loginok":
        return rest
    if answer.startswith("error "):
        raise LoginRefused(answer[6:])
    raise LoginRefused(f"unexpected answer {answer[:80]!r}")


async def bridge_once(
    address: ServerAddress,
    name: str,
    token: str,
    spec: EngineSpec,
    *,
    ssl_context: ssl.SSLContext | None = None,
    on_login: Callable[[], None] | None = None,
) -> str:
    """One connection: log in, run the engine, relay until either side ends; why it ended.

    Raises:
        LoginRefused: the server refused the login.
        OSError, trio.BrokenResourceError, ssl.SSLError: the connection failed.
    """
    stream = await _open(address, ssl_context)
    try:
        rest = await _login(stream, name, token)
        if on_login is not None:
            on_login()
        limits = None
        if spec.memory_limit or spec.cpu_limit:
            limits = EngineLimits(memory_bytes=spec.memory_limit, cpu_seconds=spec.cpu_limit)
        ended = "the connection ended"
        engine_ended = False
        async with open_engine_process(list(spec.argv), cwd=spec.cwd, limits=limits, quit_bytes=b"") as engine:

            async def server_to_engine() -> None:
                nonlocal ended
                if rest:
                    await engine.send_all(rest)
                while data := await stream.receive_some(CHUNK):
                    await engine.send_all(bytes(data))
                ended = "the server closed the connection"

            async def engine_to_server() -> None:
                nonlocal ended, engine_ended
                while data := await engine.receive_some(CHUNK):
                    await stream.send_all(data)
                ended, engine_ended = "the engine closed its output", True

            async def until_done(relay: Callable[[], Awaitable[None]], scope: trio.CancelScope) -> None:
                nonlocal ended, engine_ended
                try:
                    await relay()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                    ended = f"the relay failed ({type(exc).__name__})"
                except Exception as exc:  # EngineGone: the engine stopped reading
                    ended, engine_ended = f"the engine ended ({exc})", True
                scope.cancel()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(until_done, server_to_engine, nursery.cancel_scope)
                nursery.start_soon(until_done, engine_to_server, nursery.cancel_scope)
            if engine_ended:
                await _report_exit(stream, engine)
        return ended
    finally:
        await trio.aclose_forcefully(stream)


async def _report_exit(stream: trio.abc.Stream, engine: EngineProcess) -> None:
    """Tell the server how the engine ended (bounded; a connection already gone is fine)."""
    with trio.move_on_after(EXIT_WAIT):
        await engine.wait()
    how = engine.exit_description() if engine.status is not None else "it closed its output"
    with trio.move_on_after(EXIT_WAIT):
        try:
            await stream.send_all(f"{BRIDGE_EXIT}{how}\n".encode("ascii", "replace"))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass


async def run_bridge(
    address: ServerAddress,
    name: str,
    token: str,
    spec: EngineSpec,
    *,
    ssl_context: ssl.SSLContext | None = None,
    backoff: Backoff | None = None,
    say: Callable[[str], None] = lambda line: None,
    max_sessions: int | None = None,
) -> None:
    """Bridge the engine to the server until cancelled (or ``max_sessions`` connections).

    Raises:
        LoginRefused: the server refused the login for good (a wrong token, a revoked bot).
    """
    backoff = backoff or Backoff()
    sessions = 0
    while max_sessions is None or sessions < max_sessions:
        sessions += 1
        try:
            why = await bridge_once(address, name, token, spec, ssl_context=ssl_context, on_login=backoff.reset)
        except LoginRefused as exc:
            if not str(exc).startswith(RETRIED_REFUSALS):
                raise
            why = f"refused: {exc}"
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError, ssl.SSLError) as exc:
            why = f"cannot connect to {address}: {getattr(exc, 'strerror', None) or exc}"
        delay = backoff.next_delay()
        say(f"{why}; connecting again in {delay:.1f} s")
        await trio.sleep(delay)
