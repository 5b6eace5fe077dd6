"""The HTTP port's bounds (SPEC.md sections 16.5, 17.2, 17.3): connections per address and in all,
idle connections closed under pressure, a request head's time, the WebSocket's message size and
counts, the Host and Origin rules, and the 500's request id.

Real daemons (a ``santorini serve`` subprocess, or the daemon in this process with small limits)
and real sockets on 127.0.0.0/8: the clients come from several loopback addresses.
"""

from __future__ import annotations

import re
import socket
import sqlite3
import ssl
import struct
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import trio

from santorini_server.dashboard.app import dashboard_app
from santorini_server.server import api
from santorini_server.server.daemon import ServeOptions, serve
from santorini_server.server.http_guard import (
    ConnectionTable,
    HttpLimits,
    allowed_hosts,
    host_allowed,
    origin_allowed,
    split_authority,
)
from santorini_server.server.http_serve import _Watched
from santorini_server.server.runs import index_game
from santorini_server.server.store import Store

from .dashboard_daemon import admin_token
from .test_server_run_standings import a_record
from .test_server_serve import CLI, Daemon

LIMITS = HttpLimits()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon whose store indexes a game its run's archive does not hold (a damaged data
    directory: reading that game fails inside)."""
    data = tmp_path_factory.mktemp("limits") / "data"
    with Store(data, create=True) as store:
        store.add_local_bot("a", "random")
        store.add_local_bot("b", "greedy")
        run = store.create_run("match", {"engines": ["random name=a", "greedy name=b"], "rounds": 1})
        store.set_run_state(run.id, "running")
        index_game(store, run.id, a_record(1, "a", "b"))
        store.set_run_state(run.id, "finished")
    started = Daemon(data, "--allowed-host", "dash.example")
    yield started
    assert started.stop() == 0


def port_of(daemon: Daemon) -> int:
    return int(daemon.url.rsplit(":", 1)[1])


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """The server closed ``sock`` (EOF or reset) within ``within`` seconds."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def http_get(port: int, path: str = "/api/bots", source: str = "127.0.0.1", host: str | None = None) -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(transport=transport, base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
        return client.get(path, headers={"Host": host} if host else None)


def assert_security_headers(answer: httpx.Response) -> None:
    assert answer.headers["x-frame-options"] == "DENY" and "default-src 'none'" in answer.headers["content-security-policy"]


def rss_kib(pid: int) -> int:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert found is not None
    return int(found.group(1))


def ws_open(
    port: int, source: str = "127.0.0.1", origin: str | None = None, host: str | None = None,
) -> tuple[int, socket.socket]:
    """A WebSocket handshake by hand: the answer's status and the socket."""
    sock = connect(port, source)
    lines = [
        "GET /ws?topic=home HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}", "Upgrade: websocket", "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
    ]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = int(head.split(b" ", 2)[1]) if head else 0
    return status, sock


def frame(opcode: int, payload: bytes, fin: bool) -> bytes:
    """A client's frame, masked with a zero key (the payload as it is)."""
    first = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, 0x80 | size)
    elif size < 65536:
        head = struct.pack("!BBH", first, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, size)
    return head + b"\0\0\0\0" + payload


def close_code(sock: socket.socket, within: float = 5) -> int | None:
    """The code of the close frame the server sends on ``sock`` (skipping other frames), or None."""
    sock.settimeout(within)
    buffer = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return None
            buffer += chunk
            while len(buffer) >= 2:
                size = buffer[1] & 0x7F
                start = 2 + {126: 2, 127: 8}.get(size, 0)
                if size >= 126:
                    size = int.from_bytes(buffer[2:start], "big")
                if len(buffer) < start + size:
                    break
                if buffer[0] & 0x0F == 8:
                    return int.from_bytes(buffer[start:start + 2], "big")
                buffer = buffer[start + size:]
    except (ConnectionResetError, TimeoutError):
        return None


# The tables, pure


def test_one_address_is_capped_and_the_table_forgets_it_with_its_last_connection() -> None:
    table = ConnectionTable(HttpLimits(per_address=2, total=3, pressure=3))
    a1, _ = table.admit(("10.0.0.1", 1), 0.0)
    a2, _ = table.admit(("10.0.0.1", 2), 0.0)
    assert a1 is not None and a2 is not None
    assert table.admit(("10.0.0.1", 3), 0.0) == (None, [])  # over the address's cap
    b1, _ = table.admit(("10.0.0.2", 1), 0.0)
    assert b1 is not None
    b1.owed = a1.owed = a2.owed = True  # each has a request in progress: none is idle
    assert table.admit(("10.0.0.3", 1), 5.0) == (None, [])  # over the total
    for connection in (a1, a2, b1, a1):  # a1 twice: a second release does nothing
        table.release(connection)
    assert len(table) == 0 and table.count("10.0.0.1") == 0 and not table._per_address and not table._peers


def test_an_ipv6_64_is_one_address_and_an_ipv4_mapped_address_is_its_ipv4_one() -> None:
    table = ConnectionTable(HttpLimits(per_address=2, total=10, pressure=10))
    assert table.admit(("2001:db8:1:2::1", 1), 0.0)[0] is not None
    assert table.admit(("2001:db8:1:2:ffff::9", 1), 0.0)[0] is not None
    assert table.admit(("2001:db8:1:2::3", 1), 0.0) == (None, [])  # a third from the same /64
    assert table.admit(("2001:db8:1:3::1", 1), 0.0)[0] is not None  # the next /64 is another address
    assert table.admit(("::ffff:10.0.0.1", 1), 0.0)[0] is not None
    assert table.admit(("10.0.0.1", 2), 0.0)[0] is not None
    assert table.admit(("10.0.0.1", 3), 0.0) == (None, [])
    assert table.count("2001:db8:1:2::/64") == 2 and table.count("10.0.0.1") == 2


def test_under_pressure_a_new_connection_closes_the_idle_ones_oldest_first() -> None:
    table = ConnectionTable(HttpLimits(per_address=10, total=4, pressure=3, idle_under_pressure=1.0))
    old, _ = table.admit(("10.0.0.1", 1), 0.0)
    busy, _ = table.admit(("10.0.0.1", 2), 0.0)
    recent, _ = table.admit(("10.0.0.2", 1), 0.0)
    viewer, _ = table.admit(("10.0.0.3", 1), 0.0)
    assert old and busy and recent and viewer
    busy.owed = True
    recent.active = 9.5
    assert table.open_websocket(("10.0.0.3", 1)) is None and viewer.websocket
    fresh, evicted = table.admit(("10.0.0.4", 1), 10.0)
    assert fresh is not None and evicted == [old] and len(table) == 4  # busy, recent, viewer, fresh
    assert table.admit(("10.0.0.5", 1), 10.0) == (None, [])  # nothing idle left: the total holds


def test_websockets_are_capped_per_address_and_in_all() -> None:
    table = ConnectionTable(HttpLimits(per_address=5, websockets_per_address=2, websockets_total=3))
    for port in range(1, 4):
        table.admit(("10.0.0.1", port), 0.0)
    table.admit(("10.0.0.2", 1), 0.0)
    table.admit(("10.0.0.2", 2), 0.0)
    assert table.open_websocket(("10.0.0.1", 1)) is None and table.open_websocket(("10.0.0.1", 2)) is None
    assert "from this address (at most 2)" in (table.open_websocket(("10.0.0.1", 3)) or "")
    assert table.open_websocket(("10.0.0.2", 1)) is None
    assert "(at most 3)" in (table.open_websocket(("10.0.0.2", 2)) or "")
    assert table.open_websocket(("10.9.9.9", 1)) is None  # not a counted connection: nothing to bound


def test_host_and_origin_rules() -> None:
    assert split_authority("[::1]:8080") == ("::1", 8080) and split_authority("LocalHost.") == ("localhost", None)
    for bad in ("", "a:b", "[::1", "[::1]x", "a:99999", "a:\u0668\u0660", "a b", "a/b:1", "u@h"):
        assert split_authority(bad) is None, bad
    hosts = allowed_hosts("127.0.0.1", ("dash.example", "::2"))
    assert hosts == {"127.0.0.1", "localhost", "::1", "dash.example", "::2"}
    assert all(host_allowed(h, hosts) for h in ("127.0.0.1:8080", "localhost", "[::1]:1", "DASH.example:443", "[::2]"))
    assert not any(host_allowed(h, hosts) for h in (None, "evil.example", "127.0.0.1.evil.example:80", "[::3]:1"))
    for bad in ("dash.example:80", "a b", ""):
        with pytest.raises(ValueError, match="not a host name"):
            allowed_hosts("127.0.0.1", (bad,))
    assert origin_allowed(None, "127.0.0.1:8080", False, hosts)  # not a browser
    assert origin_allowed("http://127.0.0.1:8080", "127.0.0.1:8080", False, hosts)
    assert origin_allowed("https://dash.example", "dash.example:443", True, hosts)
    assert origin_allowed("http://[::1]:80", "[::1]", False, hosts)
    for origin in ("http://evil.example:8080", "http://127.0.0.1:3000", "http://localhost:8080", "null", "file://x"):
        assert not origin_allowed(origin, "127.0.0.1:8080", False, hosts), origin


# One address floods; another is served


def test_one_address_cannot_take_every_connection(daemon: Daemon) -> None:
    port = port_of(daemon)
    flood = [connect(port, "127.0.0.2") for _ in range(LIMITS.per_address + 8)]
    try:
        time.sleep(0.5)
        closed = [closed_by_server(sock, 0.05) for sock in flood]
        assert closed.count(True) == 8 and not any(closed[:LIMITS.per_address])
        answer = http_get(port, source="127.0.0.3")  # another address is served meanwhile
        assert answer.status_code == 200
        assert closed_by_server(connect(port, "127.0.0.2"), 2)  # the flooder's next one is not
    finally:
        for sock in flood:
            sock.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # its slots come back as its connections close
        try:
            if http_get(port, source="127.0.0.2").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("the flooder's address is still refused after its connections closed")


def test_a_request_head_trickling_in_is_cut_off(daemon: Daemon) -> None:
    sock = connect(port_of(daemon), "127.0.0.4")
    sock.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    started = time.monotonic()
    sock.settimeout(0.5)
    while time.monotonic() - started < LIMITS.head_timeout + 5:
        try:
            sock.sendall(b"X")
            if sock.recv(1) == b"":
                break
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            break
    waited = time.monotonic() - started
    sock.close()
    assert LIMITS.head_timeout - 1 < waited < LIMITS.head_timeout + 3


# The WebSocket


def test_an_unfinished_websocket_message_is_cut_off_small(daemon: Daemon) -> None:
    port = port_of(daemon)
    sockets = []
    before = rss_kib(daemon.process.pid)
    chunk = b"x" * 65536
    for n in range(8):
        status, sock = ws_open(port, f"127.0.2.{n + 1}")
        assert status == 101
        sockets.append(sock)
        sent = 0
        try:
            sock.sendall(frame(0x1, chunk, fin=False))
            while sent < 4 * 2**20:  # 4 MiB of continuations, never the last one
                sock.sendall(frame(0x0, chunk, fin=False))
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass
    grown = rss_kib(daemon.process.pid) - before
    for sock in sockets:
        assert close_code(sock) == 1009  # message too big
        sock.close()
    assert grown < 8 * 1024, f"the daemon grew by {grown} KiB"


def test_websockets_are_capped_per_address(daemon: Daemon) -> None:
    port = port_of(daemon)
    opened = [ws_open(port, "127.0.3.1") for _ in range(LIMITS.websockets_per_address)]
    try:
        assert all(status == 101 for status, _ in opened)
        status, extra = ws_open(port, "127.0.3.1")
        assert status == 101 and close_code(extra) == 1013
        extra.close()
        status, other = ws_open(port, "127.0.3.2")  # another address still gets one
        assert status == 101 and close_code(other, 0.5) is None
        other.close()
    finally:
        for _, sock in opened:
            sock.close()


# Host and Origin


def test_only_the_daemon_s_own_host_names_are_served(daemon: Daemon) -> None:
    port = port_of(daemon)
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.nip.io"):
        refused = http_get(port, "/", host=host)
        assert refused.status_code == 400 and "not a name of this server" in refused.text, host
        assert_security_headers(refused)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "dash.example"):
        assert http_get(port, "/", host=host).status_code == 200, host
    assert ws_open(port, host=f"evil.example:{port}")[0] == 403


def test_a_websocket_only_from_the_daemon_s_own_pages(daemon: Daemon) -> None:
    port = port_of(daemon)
    for origin in ("http://evil.example", f"http://evil.example:{port}", "http://127.0.0.1:1", "null"):
        status, sock = ws_open(port, origin=origin)
        sock.close()
        assert status == 403, origin
    for origin, host in ((f"http://127.0.0.1:{port}", None), (f"http://localhost:{port}", f"localhost:{port}"), (None, None)):
        status, sock = ws_open(port, origin=origin, host=host)
        sock.close()
        assert status == 101, origin


def test_a_bad_allowed_host_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run([*CLI, "serve", "--data", str(tmp_path), "--allowed-host", "a.example:80"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and out.stderr.strip().count("\n") == 0 and "not a host name" in out.stderr


# Errors


def test_deeply_nested_json_is_a_400_with_the_headers(daemon: Daemon) -> None:
    answer = daemon.http.post(
        "/api/runs", content=b"[" * 200_000, headers={"Authorization": f"Bearer {admin_token(daemon_data(daemon))}"},
    )
    assert answer.status_code == 400 and answer.json() == {"error": "bad JSON: nested too deeply"}
    assert_security_headers(answer)


def test_an_indexed_game_not_readable_at_its_offset_is_a_404_never_a_scan(daemon: Daemon) -> None:
    game_id = daemon.http.get("/api/runs/1").json()["game_ids"][0]  # indexed, its run's archive absent
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}.sgn"):
        answer = daemon.http.get(path)
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"] == f"game {game_id} is indexed but its record is not readable where the index says"
        assert_security_headers(answer)


def test_a_500_has_the_headers_and_a_request_id_the_log_names(daemon: Daemon) -> None:
    game_id = daemon.http.get("/api/runs/1").json()["game_ids"][0]
    with sqlite3.connect(daemon_data(daemon) / "santorini.db") as conn:  # a row damaged under the running daemon
        conn.execute("UPDATE games SET gods = CAST(X'FF80' AS TEXT) WHERE id = ?", (game_id,))
    answer = daemon.http.get(f"/api/games/{game_id}")
    assert answer.status_code == 500
    assert_security_headers(answer)
    request_id = answer.json()["request_id"]
    assert answer.json()["error"] == f"internal error (request id {request_id})"
    deadline = time.monotonic() + 5
    while not (lines := [line for line in daemon.lines if request_id in line]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(lines) == 1 and "internal error" in lines[0] and f"/api/games/{game_id}" in lines[0]
    assert "DamagedStore" in lines[0]
    assert not any("Traceback" in line for line in daemon.lines)


def daemon_data(daemon: Daemon) -> Path:
    return Path(daemon.process.args[daemon.process.args.index("--data") + 1])  # type: ignore[union-attr]


# Pressure: the daemon in this process, with small limits


@asynccontextmanager
async def in_process(options: ServeOptions) -> AsyncIterator[str]:
    """``santorini serve`` with the dashboard in this process (real sockets): its URL."""
    said: list[str] = []
    ready = trio.Event()

    def say(line: str) -> None:
        said.append(line)
        ready.set()

    drain = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, options, say, drain, dashboard_app)
        with trio.fail_after(30):
            await ready.wait()
        found = re.search(r"API (https?://127\.0\.0\.1:\d+),", said[0])
        assert found is not None, said
        yield found.group(1)
        drain.set()
    assert said[-1] == "santorini serve: stopped"


async def open_from(port: int, source: str) -> trio.SocketStream:
    sock = trio.socket.socket()
    await sock.bind((source, 0))
    await sock.connect(("127.0.0.1", port))
    return trio.SocketStream(sock)


async def closed(stream: trio.SocketStream, within: float) -> bool:
    """The server closed ``stream`` within ``within`` seconds."""
    with trio.move_on_after(within):
        try:
            while await stream.receive_some():
                pass
        except trio.BrokenResourceError:
            pass
        return True
    return False


async def test_under_pressure_idle_connections_go_and_a_full_port_refuses(tmp_path: Path) -> None:
    limits = HttpLimits(per_address=3, total=5, pressure=3, idle_under_pressure=0.3)
    options = ServeOptions(data=tmp_path / "d", http=("127.0.0.1", 0), bots=("127.0.0.1", 0), http_limits=limits)
    async with in_process(options) as url:
        port = int(url.rsplit(":", 1)[1])
        idle = [await open_from(port, "127.0.4.1") for _ in range(3)]  # silent: idle once 0.3 s old
        await trio.sleep(0.5)
        served = await trio.to_thread.run_sync(lambda: http_get(port, source="127.0.4.2"))
        assert served.status_code == 200
        assert all([await closed(stream, 1) for stream in idle])
        await trio.sleep(0.5)  # the served connection, kept alive, is idle now: the next ones close it
        busy = []
        for n in range(5):  # each with half a request head: not idle
            stream = await open_from(port, f"127.0.4.{10 + n}")
            await stream.send_all(b"GET / HTTP/1.1\r\n")
            busy.append(stream)
        await trio.sleep(0.5)
        refused = await open_from(port, "127.0.4.20")
        assert await closed(refused, 1) and not any([await closed(stream, 0.01) for stream in busy])
        for stream in [*busy, refused, *idle]:
            await stream.aclose()


async def test_a_body_trickling_in_is_answered_408(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "BODY_TIMEOUT", 0.5)
    async with in_process(ServeOptions(data=tmp_path / "d", http=("127.0.0.1", 0), bots=("127.0.0.1", 0))) as url:
        token = (tmp_path / "d" / "admin.token").read_text().strip()
        stream = await open_from(int(url.rsplit(":", 1)[1]), "127.0.5.1")
        await stream.send_all(
            f"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        answer = b""
        with trio.fail_after(5):
            while b"\r\n\r\n" not in answer:
                answer += await stream.receive_some()
        assert answer.startswith(b"HTTP/1.1 408 ") and b"x-frame-options: DENY" in answer
        await stream.aclose()


async def test_the_port_speaks_tls_through_the_guard(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=30,
    )
    options = ServeOptions(data=tmp_path / "d", http=("127.0.0.1", 0), bots=("127.0.0.1", 0), tls_cert=cert, tls_key=key)
    async with in_process(options) as url:
        assert url.startswith("https://")

        def get() -> httpx.Response:
            context = ssl.create_default_context(cafile=str(cert))
            context.check_hostname = False
            transport = httpx.HTTPTransport(local_address="127.0.5.2", verify=context)
            with httpx.Client(transport=transport, timeout=10) as client:
                return client.get(url + "/api/bots")

        answer = await trio.to_thread.run_sync(get)
        assert answer.status_code == 200 and answer.http_version == "HTTP/1.1"
        assert_security_headers(answer)


async def test_a_write_nobody_reads_ends(autojump_clock: trio.testing.MockClock) -> None:
    client, server = trio.testing.lockstep_stream_pair()  # a write waits for its reader: here none
    table = ConnectionTable()
    connection, _ = table.admit(("10.0.0.1", 1), trio.current_time())
    assert connection is not None
    watched = _Watched(server, connection, HttpLimits(send_timeout=60))
    started = trio.current_time()
    with pytest.raises(trio.BrokenResourceError, match="over 60 s"):
        await watched.send_all(b"an answer nobody reads")
    assert trio.current_time() - started == pytest.approx(60) and not connection.owed
    await client.aclose()
