"""The bot port's limits (SPEC.md section 16.3 "Limits"): a daemon no client can crash, per-address
and global connection caps, the pressure rule, and the login back-off (held back before the check).

The pure tables (:class:`LoginFailures`, :class:`Admission`) are tested directly; the rest with real
sockets on loopback, flooding from other loopback addresses (Linux lets a client bind any
127.x.y.z source address) while a real bot logs in from 127.0.0.1.
"""

from __future__ import annotations

import time

import pytest
import trio
import trio.testing
from structlog.testing import capture_logs

from santorini_server.server import gateway as gateway_module
from santorini_server.server.admission import Admission, Arrival, address_key
from santorini_server.server.gateway import Gateway, GatewayLimits, serve_bots
from santorini_server.server.login import LoginFailures

from .gallery.gateway_server import MemoryAuthenticator
from .test_server_gateway import TOKENS, bot_port, instant, say, start_bridge, until

LOGIN = {name: f"login {name} {token}\n".encode() for name, token in TOKENS.items()}
WRONG = b"login alice " + b"Z" * 43 + b"\n"


# -- the failure table (pure) ---------------------------------------------------------------------


def test_ten_thousand_failures_do_not_overflow_the_delay() -> None:
    """1,030 failures overflowed ``base * 2 ** (n - 1)`` before the cap (an OverflowError that
    ended the daemon); at any count the delay is the cap."""
    table = LoginFailures()  # the defaults: 5 free, 1 s doubling, capped
    for i in range(12_000):
        table.failed("203.0.113.9", now=i * 0.001, name="alice" if i % 2 else None)
        if i in (1_029, 1_030, 1_100, 11_999):
            assert table.delay("203.0.113.9", now=i * 0.001) == table.cap
    assert table.failures("203.0.113.9", now=12.0) == 12_000
    huge = LoginFailures(base=1e300, cap=float("inf"))  # even with absurd settings: no exception
    for _ in range(2_000):
        huge.failed("h", now=0.0)
    assert huge.delay("h", now=0.0) == float("inf")


def test_a_good_login_clears_only_its_own_bots_failures() -> None:
    table = LoginFailures(free=5, base=1.0, cap=60.0)
    for i in range(6):
        table.failed("10.0.0.1", now=float(i), name="bob")  # guessing bob's token
    for i in range(3):
        table.failed("10.0.0.1", now=6.0 + i, name="alice")  # alice's own stale token
    table.failed("10.0.0.1", now=9.0)  # a malformed line names no bot
    assert table.failures("10.0.0.1", now=9.0) == 10
    table.succeeded("10.0.0.1", "Alice")  # owning alice does not wipe the guesses at bob
    assert table.failures("10.0.0.1", now=9.0) == 7
    assert table.delay("10.0.0.1", now=9.0) == 4.0
    table.succeeded("10.0.0.1", "carol")  # nothing of carol's: nothing cleared
    assert table.failures("10.0.0.1", now=9.0) == 7
    table.succeeded("10.0.0.1", "bob")
    assert table.failures("10.0.0.1", now=9.0) == 1  # the nameless one stays (an hour)
    table.succeeded("10.0.0.2", "bob")  # an address never seen: nothing happens
    assert len(table) == 1


def test_the_names_remembered_per_address_are_bounded() -> None:
    table = LoginFailures(max_names=4, max_addresses=10)
    for i in range(10_000):
        table.failed("10.0.0.1", now=0.0, name=f"bot{i}")
    assert max(len(record.names) for record in table._table.values()) == 4
    table.succeeded("10.0.0.1", "bot0")  # forgotten by name: its failure still counts
    table.succeeded("10.0.0.1", "bot9999")
    assert table.failures("10.0.0.1", now=0.0) == 9_999


# -- admission (pure) -----------------------------------------------------------------------------


def test_address_keys_count_ipv6_by_its_64() -> None:
    assert address_key("192.0.2.7") == "192.0.2.7"
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"  # an IPv4 client of a dual-stack port
    assert address_key("fe80::1%eth0") == "fe80::/64"
    assert address_key("?") == "?"


def admit(table: Admission, key: str) -> int:
    ticket = table.arrive(key).ticket
    assert ticket is not None
    return ticket


def test_admission_caps_pending_connections_per_address_not_logged_in_ones() -> None:
    table = Admission(max_connections=100, per_address=3)
    tickets = [admit(table, "a") for _ in range(3)]
    assert table.arrive("a") == Arrival(None, refused="address")
    admit(table, "b")  # another address
    assert table.pending_from("a") == 3 and table.pending_from("b") == 1
    assert table.logged_in(tickets[0]) and table.logged_in(tickets[1])  # logged in: no longer counted
    admit(table, "a")
    admit(table, "a")
    assert table.arrive("a").refused == "address"
    assert table.total == 6 and table.pending == 4
    table.leave(tickets[0])
    table.leave(tickets[0])  # twice: nothing more
    table.leave(tickets[2])
    assert table.total == 4 and table.pending_from("a") == 2


def test_admission_when_full_pushes_out_the_busiest_addresss_oldest_pending() -> None:
    table = Admission(max_connections=6, per_address=5)
    flood = [admit(table, "flood") for _ in range(4)]
    for _ in range(2):
        admit(table, "other")
    assert table.arrive("flood").refused == "full"  # the busiest address pushes out nobody
    bot = table.arrive("bot")  # one pending: takes the place of the flood's oldest
    assert bot.ticket is not None and bot.evicted == flood[0]
    assert table.pending_from("flood") == 3 and table.total == 6
    assert not table.logged_in(flood[0])  # closed to make room: not logged in
    assert table.arrive("bot").evicted == flood[1]  # 3 against 1: again the flood's
    assert table.arrive("other").refused == "full"  # 2 against 2 and 2: nobody holds more
    assert table.pending_from("flood") == table.pending_from("other") == table.pending_from("bot") == 2
    for ticket in list(table._pending):
        assert table.logged_in(ticket)
    assert table.arrive("anyone").refused == "full"  # every connection a logged-in bot


def test_admission_pressure() -> None:
    table = Admission(max_connections=8, per_address=16, pressure=0.5)
    arrivals = [table.arrive(f"10.0.0.{i}") for i in range(8)]
    assert [a.pressed for a in arrivals] == [False] * 4 + [True] * 4  # more than half pending: short deadlines
    tickets = [arrival.ticket for arrival in arrivals if arrival.ticket is not None]
    for ticket in tickets[:4]:
        table.leave(ticket)
    for ticket in tickets[4:6]:
        assert table.logged_in(ticket)
    # 2 logged in leave room for 6, 2 pending: one more is not pressed (3 of 6), the next is
    assert [table.arrive(f"10.0.1.{i}").pressed for i in range(2)] == [False, True]
    many_bots = Admission(max_connections=8, pressure=0.5)
    for i in range(6):  # logged-in bots are no flood ...
        assert many_bots.logged_in(admit(many_bots, f"10.0.2.{i}"))
    # ... but they leave room for 2: one pending is half of it, two are more
    assert not many_bots.arrive("x").pressed and many_bots.arrive("y").pressed


def test_admission_tables_stay_bounded_against_many_addresses() -> None:
    table = Admission(max_connections=64, per_address=2)
    for i in range(100_000):
        key = f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"
        arrival = table.arrive(key)  # full, but its address holds fewer than the busiest: admitted
        assert arrival.ticket is not None and (i < 64 or arrival.evicted is not None)
        table.arrive(key)
    assert table.total == 64 and table.addresses() <= 64 and len(table._holding) <= 2


# -- real sockets ---------------------------------------------------------------------------------


async def connect_from(source: str, port: int) -> trio.SocketStream:
    return await trio.open_tcp_stream("127.0.0.1", port, local_address=source)


async def first_line(stream: trio.abc.Stream, within: float = 10.0) -> bytes:
    got = b""
    with trio.move_on_after(within):
        while b"\n" not in got:
            chunk = await stream.receive_some(1024)
            if not chunk:
                break
            got += chunk
    return got


async def test_a_thousand_failed_logins_leave_the_port_serving() -> None:
    """1,120 malformed logins from one address (past the 1,030 that overflowed the back-off and
    ended the daemon): each answered, nothing contained, and a bot still logs in."""
    limits = GatewayLimits(failure_delay=0.0001, failure_delay_cap=0.001)
    async with bot_port(limits) as (gateway, port, nursery):
        answers: list[bytes] = []

        async def worker() -> None:
            for _ in range(140):
                answers.append(await say(port, b"x\n"))

        async with trio.open_nursery() as inner:
            for _ in range(8):
                inner.start_soon(worker)
        assert answers == [b"error expected `login NAME TOKEN`\n"] * 1120
        assert gateway.failures.failures("127.0.0.1", trio.current_time()) == 1120
        assert gateway.errors == 0
        start_bridge(nursery, port, "alice", instant())
        await until(lambda: gateway.registry.available() == ["alice"])


async def test_an_unexpected_exception_is_contained_logged_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a connection's task (here parse_login raising what nobody catches, its message
    quoting the token) ends that connection only: closed without a line, logged once by type and
    place, never the message, and counted; the port serves on."""
    def broken(line: bytes) -> tuple[str, str]:
        raise KeyError(f"unexpected {line.decode()}")

    async with bot_port() as (gateway, port, nursery):
        monkeypatch.setattr(gateway_module, "parse_login", broken)
        with capture_logs() as logs:
            assert await say(port, LOGIN["alice"]) == b""
            await until(lambda: gateway.errors == 1)
        assert gateway.connections == 0
        failures = [entry for entry in logs if entry["event"] == "bot connection failed unexpectedly"]
        assert len(failures) == 1
        assert failures[0]["error"] == "KeyError" and failures[0]["log_level"] == "error"
        assert any("broken" in frame for frame in failures[0]["where"])
        assert TOKENS["alice"] not in repr(logs)
        monkeypatch.undo()
        start_bridge(nursery, port, "alice", instant())
        await until(lambda: gateway.registry.available() == ["alice"])


async def test_the_overflow_path_itself_is_contained(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewed crash's shape, injected: the failure table raising OverflowError."""
    async with bot_port() as (gateway, port, _nursery):
        def overflow(address: str, now: float) -> float:
            raise OverflowError("int too large to convert to float")

        monkeypatch.setattr(gateway.failures, "delay", overflow)
        for _ in range(3):
            assert await say(port, WRONG) == b""
        await until(lambda: gateway.errors == 3)
        await until(lambda: gateway.connections == 0)


async def test_serve_bots_contains_what_a_handler_raises() -> None:
    """The last line: even a handler that raises (a Gateway whose own containment is broken)
    costs its connection only; serve_bots serves on and counts it."""
    class Faulty(Gateway):
        calls = 0

        async def handle(self, stream: trio.abc.Stream, tls: object = None) -> None:
            Faulty.calls += 1
            if Faulty.calls % 2:
                raise ValueError("a bug")
            await super().handle(stream)

    gateway = Faulty(MemoryAuthenticator(TOKENS))
    async with trio.open_nursery() as nursery:
        port = (await nursery.start(serve_bots, gateway, 0))[0].socket.getsockname()[1]
        with capture_logs() as logs:
            for _ in range(2):
                await say(port, WRONG)
            await until(lambda: gateway.errors == 1)
        assert [entry["error"] for entry in logs if entry["event"] == "bot connection failed unexpectedly"] == ["ValueError"]
        assert await say(port, WRONG) == b""  # the third raises again
        assert await say(port, WRONG) == b"error bad name or token\n"  # and the fourth is served
        await until(lambda: gateway.errors == 2)
        nursery.cancel_scope.cancel()


async def test_pending_connections_per_address_are_capped(mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.05
    limits = GatewayLimits(max_pending_per_address=4, max_connections=12, pressure=0.5)
    async with bot_port(limits) as (gateway, port, _nursery):
        started = trio.current_time()
        held = [await connect_from("127.0.0.2", port) for _ in range(4)]
        await until(lambda: gateway.connections == 4)
        fifth = await connect_from("127.0.0.2", port)
        assert await fifth.receive_some(100) == b""  # closed on arrival, before a byte is read
        assert trio.current_time() - started < 1 and gateway.refused == 1
        others = [await connect_from("127.0.0.3", port) for _ in range(2)]  # another address: admitted
        await until(lambda: gateway.connections == 6)
        pressing = trio.current_time()
        pressed = await connect_from("127.0.0.4", port)  # 7 pending > 12 / 2: under pressure
        assert await pressed.receive_some(100) == b""  # closed at the short deadline, without a line
        assert 1 <= trio.current_time() - pressing < 1.5
        for stream in held + others:  # admitted before the pressure: the full 5 s and the error line
            assert await first_line(stream) == b"error no login within 5 s\n"
        assert 5 <= trio.current_time() - started < 6
        for stream in [*held, fifth, *others, pressed]:
            await stream.aclose()
        await until(lambda: gateway.connections == 0)
        assert gateway.admission.addresses() == 0


async def flood(port: int, sources: list[str], per_source: int, reconnections: list[int]) -> None:
    """Idle connections from ``sources``, kept up: each one closed is opened again."""
    async def keep(source: str) -> None:
        while True:
            try:
                stream = await connect_from(source, port)
            except OSError:
                await trio.sleep(0.05)
                continue
            try:
                while await stream.receive_some(1024):
                    pass
            except trio.BrokenResourceError:
                pass
            await stream.aclose()
            reconnections.append(1)
            await trio.sleep(0.05)

    async with trio.open_nursery() as nursery:
        for source in sources:
            for _ in range(per_source):
                nursery.start_soon(keep, source)


async def timed_login(port: int, name: str) -> tuple[bytes, float]:
    started = time.monotonic()
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(LOGIN[name])
    answer = await first_line(stream)
    await stream.aclose()
    return answer, time.monotonic() - started


@pytest.mark.parametrize(
    ("limits", "sources"),
    [
        # one address: it gets 16 pending connections, the rest are closed on arrival
        (GatewayLimits(), ["127.0.0.2"]),
        # twelve addresses, 16 each, past a cap of 64: the port is full and under pressure
        (GatewayLimits(max_connections=64), [f"127.0.0.{i}" for i in range(2, 14)]),
    ],
    ids=["one-address", "full-port"],
)
async def test_a_real_bot_logs_in_quickly_during_a_flood(limits: GatewayLimits, sources: list[str]) -> None:
    async with bot_port(limits) as (gateway, port, nursery):
        reconnections: list[int] = []
        nursery.start_soon(flood, port, sources, 20, reconnections)
        full = min(limits.max_connections, limits.max_pending_per_address * len(sources))
        await until(lambda: gateway.connections >= full)
        await trio.sleep(0.5)  # the flood held for a while
        assert gateway.refused > 0
        for name in ("alice", "bob"):
            answer, took = await timed_login(port, name)
            assert answer.startswith(b"loginok\n"), answer
            assert took < 2.0, took
        start_bridge(nursery, port, "alice", instant())  # and a whole bot, engine and handshake
        await until(lambda: gateway.registry.available() == ["alice"], within=20)
        assert gateway.connections <= limits.max_connections
        assert gateway.admission.pending_from("127.0.0.2") <= limits.max_pending_per_address
        if len(sources) > 1:
            assert gateway.evicted > 0 and reconnections  # pushed out and the short deadline
        assert gateway.errors == 0
        nursery.cancel_scope.cancel()


def recording(gateway: Gateway) -> list[float]:
    calls: list[float] = []
    authenticate = gateway.authenticator.authenticate

    def record(name: str, token: str) -> bool:
        calls.append(trio.from_thread.run_sync(trio.current_time))
        return authenticate(name, token)

    gateway.authenticator.authenticate = record  # type: ignore[method-assign]
    return calls


async def test_the_delay_comes_before_the_check(mock_clock: trio.testing.MockClock) -> None:
    """After five failures a login line waits before its token is checked, a right token as
    long as a wrong one; a good login clears only the failures of its own bot."""
    mock_clock.autojump_threshold = 0.05  # not 0: the token is checked in a worker thread
    limits = GatewayLimits(failure_delay=1.0, failure_delay_cap=60.0, handshake_timeout=0.5)
    async with bot_port(limits) as (gateway, port, _nursery):
        calls = recording(gateway)

        async def attempt(line: bytes) -> tuple[bytes, float, float]:
            """The answer, the seconds to it, and to the token's check."""
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            started = trio.current_time()
            await stream.send_all(line)
            answer = await first_line(stream, within=100)
            await stream.aclose()
            return answer, trio.current_time() - started, calls[-1] - started

        for _ in range(5):  # guessing bob's token: free
            answer, took, _checked = await attempt(b"login bob " + b"Y" * 43 + b"\n")
            assert answer == b"error bad name or token\n" and took < 0.5
        answer, took, checked = await attempt(LOGIN["alice"])  # a right token waits too, then is checked
        assert answer.startswith(b"loginok\n") and 1.0 <= checked <= took < 1.5
        answer, took, checked = await attempt(b"login bob " + b"Y" * 43 + b"\n")  # alice cleared nothing of bob's
        assert answer == b"error bad name or token\n" and 1.0 <= checked <= took < 1.5
        answer, took, checked = await attempt(b"login bob " + b"Y" * 43 + b"\n")  # 6 failures: 2 s
        assert answer == b"error bad name or token\n" and 2.0 <= checked <= took < 2.5
        answer, took, checked = await attempt(b"x\n")  # 7: 4 s, also before a malformed line is refused
        assert answer == b"error expected `login NAME TOKEN`\n" and 4.0 <= took < 4.5
        answer, took, checked = await attempt(LOGIN["bob"])  # 8 failures: 8 s, then bob's own six clear
        assert answer.startswith(b"loginok\n") and 8.0 <= checked <= took < 8.5
        assert gateway.failures.failures("127.0.0.1", trio.current_time()) == 1  # the malformed line's
