"""The attacks of the hostile-client suite: what an unauthenticated client (and, for the SEI
lines, a bot with a token) can throw at the daemon's two ports, each bounded in count and time.

Every attack is a trio function taking the daemon's addresses and a :class:`Scale`, and returning
its own figures (a dict) for the benchmark's table; it asserts what the daemon must answer to it
(an ``error`` line, a 4xx status, a close), never what it must not do meanwhile, which is the
siege's :meth:`~tests.hostile_clients.harness.Siege.health`.  Traffic goes to loopback only, from
source addresses in 127.0.0.0/8 that the caller picks (:func:`attacker`).
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import os
import random
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, replace

import httpx
import trio

__all__ = [
    "Scale", "CI", "BENCH", "attacker", "connect", "legit_login", "failed_logins", "login_storm", "flood", "slowloris_bots",
    "slowloris_http", "long_lines", "garbage", "websocket_flood", "websocket_unfinished", "bodies", "id_forms",
]

Address = tuple[str, int]


@dataclass(frozen=True)
class Scale:
    """How hard each attack pushes: the CI's figures, or the benchmark's (:data:`BENCH`)."""

    failed_logins: int = 1200
    """Connect, send ``x``, close: past the 1,030 that overflowed the back-off once."""
    storm_addresses: int = 64
    """Source addresses of the login storm, each failing :attr:`storm_per_address` times."""
    storm_per_address: int = 5
    flood: int = 2100
    """Idle connections from one address, past the bot port's global cap of 2,048."""
    flood_hold: float = 2.0
    """Seconds the flood is kept up while a real bot logs in from another address."""
    http_flood: int = 600
    slowloris: int = 40
    ws_flood: int = 300
    ws_unfinished: int = 50
    ws_message: int = 4 * 1024 * 1024
    """Bytes each unfinished WebSocket message tries to send (the daemon should close it long before)."""
    garbage: int = 20
    parallel: int = 100
    """Connections an attack opens at once."""


CI = Scale()
BENCH = replace(CI, failed_logins=10_000, flood=5_000, flood_hold=60.0, http_flood=2_000, slowloris=200, ws_flood=1_000,
                storm_addresses=250)

_sources = itertools.count(2)


def attacker() -> str:
    """A fresh attacker address (127.0.0.2, 127.0.0.3, ...; then 127.0.1.x ...): one per attack, so
    that no attack inherits another's back-off or per-address count."""
    n = next(_sources)
    return f"127.0.{n // 250}.{n % 250 + 2}"


async def connect(address: Address, source: str | None = None) -> trio.SocketStream:
    """A TCP connection to ``address`` from ``source`` (any 127.x.y.z: Linux routes them all to lo)."""
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_STREAM)
    try:
        if source is not None:
            await sock.bind((source, 0))
        await sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def _read_until(stream: trio.SocketStream, end: bytes, limit: int = 1 << 20) -> bytes:
    """Bytes up to and including ``end`` (or all until EOF)."""
    data = b""
    while end not in data and len(data) < limit:
        chunk = await stream.receive_some(65536)
        if not chunk:
            break
        data += chunk
    return data


async def _closed_within(stream: trio.SocketStream, seconds: float) -> bool:
    """Whether the peer closes ``stream`` (EOF or reset) within ``seconds``, discarding what it sends."""
    with trio.move_on_after(seconds):
        try:
            while await stream.receive_some(65536):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        return True
    return False


async def _each(count: int, parallel: int, one: Callable[[int], Awaitable[None]]) -> None:
    """``one(i)`` for every ``i < count``, at most ``parallel`` at once."""
    slots = trio.Semaphore(parallel)

    async def run(i: int) -> None:
        try:
            await one(i)
        finally:
            slots.release()

    async with trio.open_nursery() as nursery:
        for i in range(count):
            await slots.acquire()
            nursery.start_soon(run, i)


def _still_open(stream: trio.SocketStream) -> bool:
    """Whether the peer has neither closed nor reset ``stream`` (a peek that does not wait)."""
    peek = socket.socket(fileno=os.dup(stream.socket.fileno()))
    try:
        peek.setblocking(False)
        return peek.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        peek.close()


# -- the bot port ------------------------------------------------------------------------------


async def legit_login(bots: Address, name: str, token: str, then: bytes = b"") -> float:
    """A real bot's login from 127.0.0.1, answering the handshake; the seconds to its ``loginok``.
    ``then``: a line to send once logged in (the connection must then be closed by the daemon)."""
    started = time.perf_counter()
    with trio.fail_after(10):
        try:
            stream = await connect(bots, "127.0.0.1")
            await stream.send_all(f"login {name} {token}\n".encode())
            answer = await _read_until(stream, b"\n")
        except (OSError, trio.BrokenResourceError) as exc:
            raise AssertionError(f"a real bot could not log in: {exc}") from None
        async with stream:
            assert answer.startswith(b"loginok\n"), answer[:200]
            took = time.perf_counter() - started
            rest = answer[len(b"loginok\n"):]
            while b"sei 1" not in rest:
                chunk = await stream.receive_some(65536)
                assert chunk, "closed before the handshake"
                rest += chunk
            await stream.send_all(f"id name {name}\nseiok 1\n".encode())
            pings = 0
            while pings < 3:  # the daemon measures the round trip: answer its isready
                chunk = await stream.receive_some(65536)
                assert chunk, "closed during the round-trip pings"
                pings += chunk.count(b"isready")
                await stream.send_all(b"readyok\n" * chunk.count(b"isready"))
            if then:  # an idle bot's bytes are read ahead up to a bound, then TCP holds the bot back
                with trio.move_on_after(3):
                    try:
                        await stream.send_all(then)
                    except (trio.BrokenResourceError, OSError):
                        pass  # or the daemon closed it
    return took


async def failed_logins(bots: Address, scale: Scale) -> dict[str, float]:
    """``scale.failed_logins`` connections from one address, each sending ``x`` and closing at once."""
    source = attacker()
    refused = 0

    async def one(_: int) -> None:
        nonlocal refused
        try:
            stream = await connect(bots, source)
        except OSError:
            refused += 1
            return
        try:
            await stream.send_all(b"x\n")
        except (trio.BrokenResourceError, OSError):
            refused += 1
        await trio.aclose_forcefully(stream)

    started = time.perf_counter()
    with trio.fail_after(120):
        await _each(scale.failed_logins, scale.parallel, one)
    return {"logins": scale.failed_logins, "refused": refused, "seconds": time.perf_counter() - started}


async def login_storm(bots: Address, scale: Scale, token: str) -> dict[str, float]:
    """Wrong tokens for a real bot's name from many loopback addresses, each read to its answer."""
    answers: dict[bytes, int] = {}
    wrong = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    assert wrong != token
    sources = [attacker() for _ in range(scale.storm_addresses)]

    async def one(i: int) -> None:
        try:
            stream = await connect(bots, sources[i % len(sources)])
        except OSError:
            answers[b"refused"] = answers.get(b"refused", 0) + 1
            return
        async with stream:
            try:
                await stream.send_all(f"login legit {wrong}\n".encode())
                answer = await _read_until(stream, b"\n")
            except (trio.BrokenResourceError, OSError):
                answer = b"reset"
        answers[answer] = answers.get(answer, 0) + 1

    with trio.fail_after(60):  # the fifth failure of an address is the last answered without a delay
        await _each(scale.storm_addresses * scale.storm_per_address, scale.parallel, one)
    assert set(answers) <= {b"error bad name or token\n", b"refused", b"reset", b""}, answers
    assert answers.get(b"error bad name or token\n", 0) > 0, answers
    answered = answers.get(b"error bad name or token\n", 0)
    return {"logins": sum(answers.values()), "addresses": scale.storm_addresses, "answered": answered}


async def flood(
    address: Address, count: int, hold: float, during: Callable[[], Awaitable[float]], opening: bytes = b""
) -> dict[str, float]:
    """``count`` connections from one address kept open for ``hold`` seconds (each sending
    ``opening``, then nothing), while ``during`` (a real client from 127.0.0.1) runs: its figure,
    the worst of its tries, is the attack's ``during_s``."""
    source = attacker()
    held: list[trio.SocketStream] = []
    failed = 0

    async def one(_: int) -> None:
        nonlocal failed
        try:
            stream = await connect(address, source)
            if opening:
                await stream.send_all(opening)
        except (OSError, trio.BrokenResourceError):
            failed += 1
            return
        held.append(stream)

    worst = 0.0
    with trio.fail_after(hold + 120):
        await _each(count, 200, one)
        deadline = trio.current_time() + hold
        while True:
            worst = max(worst, await during())
            if trio.current_time() >= deadline:
                break
            await trio.sleep(min(1.0, max(0.0, deadline - trio.current_time())))
        open_at_end = sum(_still_open(stream) for stream in held)
        for stream in held:
            await trio.aclose_forcefully(stream)
    return {"connections": count, "connect_failed": failed, "open_at_end": open_at_end, "during_s": worst}


async def _slowloris(address: Address, payload: Iterable[int], count: int, bound: float) -> list[float]:
    """``count`` connections, 8 an address (within every per-address cap, so each is admitted),
    each sending ``payload`` one byte every half second: the seconds each lasted before the daemon
    closed it; each must be closed within ``bound`` seconds."""
    sources = [attacker() for _ in range(count // 8 + 1)]
    lasted: list[float] = []

    async def one(i: int) -> None:
        stream = await connect(address, sources[i % len(sources)])
        started = trio.current_time()
        async with stream, trio.open_nursery() as nursery:
            async def drip() -> None:
                for byte in payload:
                    try:
                        await stream.send_all(bytes([byte]))
                    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        return
                    await trio.sleep(0.5)

            nursery.start_soon(drip)
            closed = await _closed_within(stream, bound)
            nursery.cancel_scope.cancel()
        assert closed, f"a connection sending a byte every half second was held over {bound:g} s"
        lasted.append(trio.current_time() - started)

    with trio.fail_after(bound + 60):
        await _each(count, count, one)
    return lasted


async def slowloris_bots(bots: Address, scale: Scale, login_timeout: float = 5.0) -> dict[str, float]:
    """Connections that send their login one byte every half second: each is closed by the
    login deadline, whatever it sends."""
    lasted = await _slowloris(bots, itertools.cycle(b"login slow "), scale.slowloris, login_timeout + 5)
    return {"connections": scale.slowloris, "longest_s": max(lasted)}


async def slowloris_http(http: Address, scale: Scale, bound: float) -> dict[str, float]:
    """Connections that send a request head one byte every half second: each must be closed (or
    answered) within ``bound`` seconds."""
    head = f"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1:{http[1]}\r\n".encode() + b"X-Slow: " + b"a" * 10_000
    lasted = await _slowloris(http, head, scale.slowloris, bound + 5)
    return {"connections": scale.slowloris, "longest_s": max(lasted)}


async def long_lines(bots: Address, http: Address, legit: str) -> dict[str, float]:
    """A 1 MB line: as a login (answered ``error line longer ...``), as an SEI line of a logged-in
    bot (the daemon closes it), as an HTTP header and as a URL (4xx or a close, never a 5xx)."""
    source = attacker()
    megabyte = b"a" * (1 << 20)
    stream = await connect(bots, source)
    async with stream:
        with trio.fail_after(10):
            try:
                await stream.send_all(megabyte)
            except (trio.BrokenResourceError, OSError):
                pass  # closed as soon as the line passed the bound: the answer may be in the buffer
            answer = await _read_until(stream, b"\n")
    assert answer.startswith(b"error line longer than"), answer[:100]
    await legit_login(bots, "legit", legit, then=megabyte)
    statuses = []
    host = f"127.0.0.1:{http[1]}"
    for request in (
        f"GET /api/bots HTTP/1.1\r\nHost: {host}\r\nX-Long: ".encode() + megabyte + b"\r\n\r\n",
        b"GET /" + megabyte + f" HTTP/1.1\r\nHost: {host}\r\n\r\n".encode(),
    ):
        statuses.append(await _raw_status(http, source, request))
    assert all(s is None or 400 <= s < 500 for s in statuses), statuses
    return {"http_statuses": float(len(statuses))}


async def _raw_status(http: Address, source: str, request: bytes) -> int | None:
    """The status code of the answer to a raw request, or None if the daemon closed without one."""
    return (await _raw_answer(http, source, request))[0]


async def garbage(bots: Address, http: Address, scale: Scale) -> dict[str, float]:
    """Random bytes (seeded), 64 KiB a connection, to both ports: an ``error`` line or a close on
    the bot port, a 4xx or a close on the HTTP port."""
    rng = random.Random(20261206)
    blobs = [rng.randbytes(65536) for _ in range(scale.garbage)]
    statuses: list[int | None] = []
    for blob in blobs:
        source = attacker()  # a failed login each: from one address, the back-off would slow the answers
        stream = await connect(bots, source)
        async with stream:
            with trio.fail_after(10):
                try:
                    await stream.send_all(blob)
                except (trio.BrokenResourceError, OSError):
                    pass
                try:
                    answer = await _read_until(stream, b"\n")
                except (trio.BrokenResourceError, OSError):
                    answer = b""
        assert answer == b"" or answer.startswith(b"error "), answer[:100]
        statuses.append(await _raw_status(http, source, blob))
    assert all(s is None or 400 <= s < 500 for s in statuses), statuses
    return {"connections": 2.0 * len(blobs)}


# -- the WebSocket ------------------------------------------------------------------------------


def _ws_handshake(http: Address, topic: str = "home", origin: str | None = None) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET /ws?topic={topic} HTTP/1.1", f"Host: 127.0.0.1:{http[1]}", "Upgrade: websocket", "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def ws_frame(payload: bytes, *, opcode: int = 1, fin: bool = True, length: int | None = None) -> bytes:
    """A client's (masked) WebSocket frame header and payload; ``length`` may announce more than
    ``payload`` holds (the rest to follow, or never)."""
    size = len(payload) if length is None else length
    first = (0x80 if fin else 0) | opcode
    if size < 126:
        header = bytes([first, 0x80 | size])
    elif size < 65536:
        header = bytes([first, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        header = bytes([first, 0x80 | 127]) + size.to_bytes(8, "big")
    mask = os.urandom(4)
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


async def open_websocket(http: Address, source: str, origin: str | None = None) -> tuple[trio.SocketStream | None, int]:
    """A WebSocket to ``/ws?topic=home``: the stream and 101, or None and the refusal's status (0: closed)."""
    stream = await connect(http, source)
    try:
        await stream.send_all(_ws_handshake(http, origin=origin))
        answer = await _read_until(stream, b"\r\n\r\n")
    except (trio.BrokenResourceError, OSError):
        answer = b""
    status = int(answer.split()[1]) if answer.startswith(b"HTTP/1.1 ") else 0
    if status != 101:
        await trio.aclose_forcefully(stream)
        return None, status
    return stream, status


async def websocket_flood(http: Address, scale: Scale) -> dict[str, float]:
    """``scale.ws_flood`` WebSockets from one address, held a second: past the per-address cap the
    daemon refuses them (or closes them at once)."""
    source = attacker()
    accepted: list[trio.SocketStream] = []
    statuses: dict[int, int] = {}

    async def one(_: int) -> None:
        try:
            stream, status = await open_websocket(http, source)
        except OSError:
            stream, status = None, -1
        statuses[status] = statuses.get(status, 0) + 1
        if stream is not None:
            accepted.append(stream)

    with trio.fail_after(60):
        await _each(scale.ws_flood, scale.parallel, one)
        await trio.sleep(3.0)  # those over the bounds are accepted, then closed 1013: let a loaded machine do it
        still_open = 0
        for stream in accepted:
            if not await _closed_within(stream, 0.01):
                still_open += 1
            await trio.aclose_forcefully(stream)
    assert still_open < scale.ws_flood, "no bound on one address's WebSockets"
    return {"websockets": scale.ws_flood, "accepted": len(accepted), "still_open": still_open}


async def websocket_unfinished(http: Address, scale: Scale, rss: Callable[[], float]) -> dict[str, float]:
    """``scale.ws_unfinished`` WebSockets each sending one message in unfinished fragments (valid
    text, so that only its size can be held against it) of up to ``scale.ws_message`` bytes, all
    held open together while the daemon's memory is read: the daemon closes each long before."""
    sources = [attacker() for _ in range(max(1, scale.ws_unfinished // 4))]  # past any per-address cap
    sent: list[int] = []
    closed: list[bool] = []
    before = rss()
    all_sent = trio.Event()
    pending = scale.ws_unfinished

    async def one(i: int) -> None:
        nonlocal pending
        total = 0
        stream: trio.SocketStream | None = None
        try:
            stream, _ = await open_websocket(http, sources[i % len(sources)])
            chunk = b"a" * 65536
            if stream is not None:
                await stream.send_all(ws_frame(chunk, fin=False))
                total += len(chunk)
                while total < scale.ws_message:
                    await stream.send_all(ws_frame(chunk, opcode=0, fin=False))
                    total += len(chunk)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            sent.append(total)
            pending -= 1
            if not pending:
                all_sent.set()
        await all_sent.wait()
        if stream is not None:
            closed.append(await _closed_within(stream, 5))
            await trio.aclose_forcefully(stream)

    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for i in range(scale.ws_unfinished):
                nursery.start_soon(one, i)
            await all_sent.wait()
            await trio.sleep(0.5)
            held = rss()
    assert all(closed), f"{closed.count(False)} unfinished WebSocket messages were kept open"
    return {"websockets": scale.ws_unfinished, "most_sent_kib": max(sent, default=0) / 1024, "rss_growth_mb": held - before}


# -- HTTP bodies and ids --------------------------------------------------------------------------


def _client(http: Address, source: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=source, retries=0)
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{http[1]}", transport=transport, timeout=30)


async def _streamed(chunks: int) -> AsyncIterator[bytes]:
    for _ in range(chunks):
        yield b"x" * 65536


def _hostile_bodies() -> Iterator[tuple[str, bytes | None, dict[str, str]]]:
    """(what, body, extra headers) of the bodies no client may make the daemon fail on (None: 10 MiB
    streamed, with no length declared)."""
    yield "10 MiB streamed", None, {}
    yield "nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000, {}
    yield "nested objects", b'{"a":' * 50_000 + b"1" + b"}" * 50_000, {}
    yield "bad UTF-8", b'{"engines": ["\xff\xfe"]}', {}
    yield "a lone surrogate", b'{"engines": ["h1", "h2"], "rounds": 1, "event": "\\ud800"}', {}
    yield "a surrogate name", b'{"engines": ["\\udfff", "h2"], "rounds": 1}', {}
    yield "a huge number", b'{"engines": ["h1", "h2"], "rounds": 1e999999}', {}
    yield "a huge integer", b'{"engines": ["h1", "h2"], "rounds": ' + b"9" * 4300 + b"}", {}
    yield "NaN", b'{"engines": ["h1", "h2"], "rounds": NaN}', {}
    yield "a 900 KB event", json.dumps({"engines": ["h1", "h2"], "rounds": 1, "event": "e" * 900_000}).encode(), {}
    yield "bidi in the event", json.dumps({"engines": ["h1", "h2"], "rounds": 1, "event": "x\u202ey"}).encode(), {}
    yield "not an object", b"[1, 2, 3]", {}
    yield "empty", b"", {}


async def bodies(http: Address, admin: str) -> dict[str, float]:
    """Every hostile body to ``POST /api/runs`` with the admin token and without, and hostile forms
    to the dashboard: each a 4xx with the security headers, none a 5xx and none a run."""
    source = attacker()
    answers = 0
    async with _client(http, source) as client:
        runs_before = len((await client.get("/api/runs")).json())
        for what, body, extra in _hostile_bodies():
            for headers in ({"authorization": f"Bearer {admin}"}, {}):
                try:
                    answer = await client.post(
                        "/api/runs", content=_streamed(160) if body is None else body,
                        headers={"content-type": "application/json", **headers, **extra},
                    )
                except (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError):
                    continue  # closed mid-body: refused, as a 413 would
                answers += 1
                assert 400 <= answer.status_code < 500, (what, bool(headers), answer.status_code, answer.text[:200])
                assert "content-security-policy" in answer.headers, (what, answer.status_code)
        declared = (
            f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1:{http[1]}\r\nAuthorization: Bearer {admin}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {10**12}\r\n\r\n{{}}"
        ).encode()
        status = await _raw_status(http, source, declared)  # a body declared at 1 TB: refused before it is read
        assert status is None or 400 <= status < 500, status
        for form in (b"token=" + b"a" * 200_000, b"token=%ff%fe", b"token=" + b"%" * 1000, b"\xff" * 100):
            answer = await client.post("/signin", content=form, headers={"content-type": "application/x-www-form-urlencoded"})
            answers += 1
            assert 400 <= answer.status_code < 500, (form[:20], answer.status_code)
            assert "content-security-policy" in answer.headers
        assert len((await client.get("/api/runs")).json()) == runs_before, "a hostile body made a run"
    return {"answers": float(answers)}


ID_FORMS = (
    "0", "-1", "1.0", "+1", "%201", "1%20", "0x1", "1e3", "1_0", "%D9%A1", "%EF%BC%91", "99999999999999999999999999",
    "9" * 5000, "%00", "%FF", "%ED%A0%80", "..", "%2e%2e", "a" * 300, "%E2%80%AE1", "1%0a", "%3Cscript%3E",
)
"""Ids no route may fail on: signs, spaces, other bases, non-ASCII digits (Arabic-Indic one,
full-width one), out of any integer range, NUL, bad UTF-8, a surrogate, dots, a bidi override."""
ID_ROUTES = ("/api/runs/{}", "/api/games/{}", "/api/games/{}.sgn", "/runs/{}", "/games/{}", "/bots/{}", "/api/runs/{}/cancel")


async def id_forms(http: Address, admin: str) -> dict[str, float]:
    """Every route that takes an id, with every :data:`ID_FORMS`, sent as written (no client's
    normalising of ``..``): a 4xx with the security headers (never a 5xx, never a page)."""
    source = attacker()
    answers = 0
    for route in ID_ROUTES:
        for form in ID_FORMS:
            path = route.format(form)
            method = "POST" if path.endswith("/cancel") else "GET"
            request = (
                f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{http[1]}\r\nAuthorization: Bearer {admin}\r\n"
                "Content-Length: 0\r\nConnection: close\r\n\r\n"
            ).encode()
            status, head = await _raw_answer(http, source, request)
            answers += 1
            assert status is not None and 400 <= status < 500, (path[:80], status, head[:300])
            assert b"content-security-policy:" in head.lower(), (path[:80], status, head[:300])
    for page in ("/runs/1?page={}", "/bots/h1?page={}", "/?page={}"):  # a bad page number is page 1
        for form in ID_FORMS:
            request = f"GET {page.format(form)} HTTP/1.1\r\nHost: 127.0.0.1:{http[1]}\r\nConnection: close\r\n\r\n"
            status, head = await _raw_answer(http, source, request.encode())
            answers += 1
            assert status is not None and status < 500, (page.format(form)[:80], status, head[:300])
            assert b"content-security-policy:" in head.lower(), (page.format(form)[:80], status)
    return {"answers": float(answers)}


async def _raw_answer(http: Address, source: str, request: bytes) -> tuple[int | None, bytes]:
    """The status code and head of the answer to a raw request (None, b"": closed without one)."""
    stream = await connect(http, source)
    async with stream:
        with trio.fail_after(15):
            try:
                await stream.send_all(request)
                answer = await _read_until(stream, b"\r\n\r\n")
            except (trio.BrokenResourceError, OSError):
                return None, b""
    if not answer:
        return None, b""
    assert answer.startswith(b"HTTP/1.1 "), answer[:100]
    return int(answer.split()[1]), answer.partition(b"\r\n\r\n")[0]


def fmt(figures: dict[str, float]) -> str:
    """An attack's figures on one line, for the benchmark's table."""
    return ", ".join(f"{k} {v:.3g}" if isinstance(v, float) and not math.isinf(v) else f"{k} {v}" for k, v in figures.items())
