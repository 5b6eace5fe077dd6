"""The bot port with real sockets: logins, hostile clients, remote games, reconnection, ``connect``.

Remote bots are real engine processes behind the bridge (``run_bridge`` in the test's event loop,
or ``santorini connect`` as a subprocess); the gateway runs in the test's loop, or in its own
process (``tests/gallery/gateway_server.py``) where its memory is measured.  Authentication is
the store's scheme done in memory (sha256 of the token, compared in constant time).
"""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from santorini_server.adjudicator import parse_tc
from santorini_server.records import format_sgn, parse_sgn
from santorini_server.records.replay import check_record
from santorini_server.referee import Engine, EngineSpec, GameSetup, parse_engine_spec, play_game
from santorini_server.server.bridge import Backoff, LoginRefused, ServerAddress, bridge_once, parse_server_url, run_bridge
from santorini_server.server.gateway import Gateway, GatewayLimits, serve_bots
from santorini_server.server.login import LoginError, LoginFailures, parse_login
from santorini_server.server.registry import BotRegistry
from santorini_server.server.remote_engine import RemoteEngine

from .gallery.gateway_server import MemoryAuthenticator
from .test_hostile import Hostile
from .test_tournament import leftovers

PY = sys.executable
TOKENS = {"alice": "A" * 43, "bob": "b" * 43}


def instant(name: str = "Inst", *args: str) -> EngineSpec:
    extra = " ".join(f"arg={a}" for a in args)
    return parse_engine_spec(f"cmd={PY} arg=-m arg=tests.gallery.instant name={name} arg=marker-{uuid.uuid4().hex} {extra}")


@asynccontextmanager
async def bot_port(limits: GatewayLimits | None = None) -> AsyncIterator[tuple[Gateway, int, trio.Nursery]]:
    """A gateway serving on a free loopback port, for the block."""
    gateway = Gateway(MemoryAuthenticator(TOKENS), limits=limits)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(serve_bots, gateway, 0)
        yield gateway, listeners[0].socket.getsockname()[1], nursery
        nursery.cancel_scope.cancel()


def address(port: int) -> ServerAddress:
    return ServerAddress(False, "127.0.0.1", port)


async def until(predicate, within: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    with trio.fail_after(within):
        while not predicate():
            await trio.sleep(0.01)


async def say(port: int, data: bytes, *, read: bool = True) -> bytes:
    """Connect, send ``data``, and read until the server closes (or 10 s)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    answer = b""
    try:
        await stream.send_all(data)
        if read:
            with trio.move_on_after(10):
                while chunk := await stream.receive_some(65536):
                    answer += chunk
    except trio.BrokenResourceError:
        pass
    finally:
        await stream.aclose()
    return answer


def start_bridge(nursery: trio.Nursery, port: int, name: str, spec: EngineSpec, token: str | None = None, **kw) -> None:  # type: ignore[no-untyped-def]
    backoff = Backoff(base=0.05, cap=0.2)
    nursery.start_soon(lambda: run_bridge(address(port), name, token or TOKENS[name], spec, backoff=backoff, **kw))


# -- the login line and the failure table (pure) ----------------------------------------------


def test_parse_login_accepts_one_form_only() -> None:
    assert parse_login(b"login alice " + b"A" * 43) == ("alice", "A" * 43)
    assert parse_login(b"login a.b_c-1 tok\r") == ("a.b_c-1", "tok")
    for bad in (b"", b"login", b"login alice", b"LOGIN alice tok", b"login alice tok extra", b"login al ice tok",
                b"login " + b"x" * 33 + b" tok", b"login alice t@k", b"login alice " + b"t" * 129, b"\xff\xfe\x00",
                b"login  alice tok"):
        with pytest.raises(LoginError):
            parse_login(bad)


def test_login_failures_are_free_five_times_then_doubling_and_capped() -> None:
    table = LoginFailures(free=5, base=1.0, cap=8.0)
    delays = []
    for i in range(10):
        delays.append(table.delay("10.0.0.1", now=float(i)))  # the hold before this line's check
        table.failed("10.0.0.1", now=float(i), name="eve")
    assert delays == [0, 0, 0, 0, 0, 1, 2, 4, 8, 8]
    assert table.delay("10.0.0.2", now=10.0) == 0  # per address
    table.succeeded("10.0.0.1", "EVE")  # clears that bot's failures (names regardless of case)
    assert table.delay("10.0.0.1", now=11.0) == 0
    assert LoginFailures(forget=60).delay("h", 0) == 0


def test_login_failures_forget_and_stay_bounded() -> None:
    table = LoginFailures(free=0, base=1.0, forget=100.0, max_addresses=100)
    assert table.delay("a", now=0.0) == 0  # no failure: never held back, even with free=0
    table.failed("a", now=0.0)
    assert table.delay("a", now=50.0) == 1.0
    assert table.delay("a", now=1000.0) == 0  # forgotten after 100 s without a failure
    for i in range(10_000):
        table.failed(f"10.0.{i // 256}.{i % 256}", now=2000.0, name=f"bot{i}")
    assert len(table) == 100


def test_server_url() -> None:
    assert parse_server_url("tcp://127.0.0.1:7777") == ServerAddress(False, "127.0.0.1", 7777)
    assert parse_server_url("tls://example.org:443") == ServerAddress(True, "example.org", 443)
    assert parse_server_url("tcp://[::1]:7777").host == "::1"
    for bad in ("127.0.0.1:7777", "http://x:1", "tcp://x", "tcp://x:0", "tcp://x:99999"):
        with pytest.raises(ValueError):
            parse_server_url(bad)


def test_backoff_doubles_to_its_cap_with_jitter_and_resets() -> None:
    backoff = Backoff(base=0.5, cap=4.0, jitter=0.2)
    delays = [backoff.next_delay() for _ in range(8)]
    for delay, nominal in zip(delays, [0.5, 1, 2, 4, 4, 4, 4, 4], strict=True):
        assert nominal * 0.8 <= delay <= nominal * 1.2
    assert len(set(delays[3:])) > 1  # jittered
    backoff.reset()
    assert backoff.next_delay() <= 0.6


# -- remote games through the real adjudicator ------------------------------------------------


async def test_remote_bot_plays_whole_games_through_play_game() -> None:
    """A bot behind the bridge plays both seats against a local engine: valid records, the same
    play as two local instant engines (they are deterministic), the bot back in the pool after."""
    async with bot_port() as (gateway, port, nursery):
        start_bridge(nursery, port, "alice", instant("Remote"))
        await until(lambda: gateway.registry.available() == ["alice"])
        assert 0 < gateway.registry.get("alice").rtt < 1  # type: ignore[union-attr]
        remote = await RemoteEngine.take(gateway.registry, "alice")
        assert gateway.registry.available() == []
        local = await Engine.start(nursery, instant("Local"))
        tc = parse_tc("10+0.1")
        records = []
        for engines in ((remote, local), (local, remote)):
            report = await play_game(engines, GameSetup(tcs=(tc, tc)))
            records.append(report.record)
        remote.release()
        assert gateway.registry.available() == ["alice"]
        await local.aclose()
        # the same two games between two local instant engines (deterministic players)
        a, b = await Engine.start(nursery, instant("A")), await Engine.start(nursery, instant("B"))
        references = [(await play_game(pair, GameSetup(tcs=(tc, tc)))).record for pair in ((a, b), (b, a))]
        await a.aclose()
        await b.aclose()
    for record, reference in zip(records, references, strict=True):
        assert check_record(record) == []
        assert parse_sgn(format_sgn(record))[0].turns == record.turns
        assert [t.turn for t in record.turns] == [t.turn for t in reference.turns]
        assert (record.result, record.termination) == (reference.result, reference.termination)
    assert records[0].players == ("alice", "Local") and records[1].players == ("Local", "alice")


async def drop_at_the_third_turn(remote: RemoteEngine) -> None:
    """Close the bot's connection on the server's side during its third turn (its engine, which
    sleeps at each go, still thinking): a network drop, the engine behind the bridge alive."""
    started: set[float] = set()
    with trio.fail_after(30):
        while len(started) < 3:
            if remote.turn_started:
                started.add(remote.turn_started)
            await trio.sleep(0.002)
    remote.bot.engine.process.kill()


async def test_disconnect_during_a_turn_resumes_within_the_grace() -> None:
    """The connection drops during the bot's third turn (its engine still thinking); the bridge
    reconnects with a fresh engine and the game resumes from the position re-sent in full, to a
    normal end."""
    async with bot_port() as (gateway, port, nursery):
        logins: list[float] = []
        start_bridge(nursery, port, "alice", instant("Flaky", "sleep=100"), say=lambda line: logins.append(0))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice", grace=10)
        local = await Engine.start(nursery, instant("Local"))

        nursery.start_soon(drop_at_the_third_turn, remote)
        tc = parse_tc("30+0.1")
        report = await play_game((remote, local), GameSetup(tcs=(tc, tc)))
        remote.release()
        await local.aclose()
    record = report.record
    assert record.termination not in ("crash", "time"), (record.termination, record.termination_detail)
    assert check_record(record) == []
    assert len(logins) >= 1  # at least one reconnection happened
    assert remote.bot is not None


async def test_an_engine_that_exits_behind_the_bridge_loses_with_crash_at_once() -> None:
    """The engine crashes at its third go: the bridge says so before it closes, and the game is
    ruled ``crash`` with the engine's exit status, not waited for as a network drop (grace 30 s)."""
    async with bot_port() as (gateway, port, nursery):
        start_bridge(nursery, port, "alice", instant("Crashing", "crash=3"))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice", grace=30)
        local = await Engine.start(nursery, instant("Local"))
        tc = parse_tc("30+0.1")
        started = trio.current_time()
        report = await play_game((remote, local), GameSetup(tcs=(tc, tc)))
        waited = trio.current_time() - started
        remote.release()
        await local.aclose()
    record = report.record
    assert (record.result, record.termination) == ("0-1", "crash")
    assert record.termination_detail == "exited during its turn (the engine behind the bridge ended: exit code 3)"
    assert waited < 10  # far less than the grace: nobody waited for a reconnection
    assert check_record(record) == []


async def test_a_connection_lost_between_games_comes_back_at_the_next_newgame() -> None:
    """The engine is held from one game to the next; its connection drops in between (the server
    side closes it); the bridge logs in again and the second game is played on the new one."""
    async with bot_port() as (gateway, port, nursery):
        start_bridge(nursery, port, "alice", instant("Remote"))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice", grace=10)
        local = await Engine.start(nursery, instant("Local"))
        tc = parse_tc("10+0.1")
        first = await play_game((remote, local), GameSetup(tcs=(tc, tc)))
        old = remote.bot
        old.engine.process.kill()
        second = await play_game((local, remote), GameSetup(tcs=(tc, tc)))
        assert remote.bot is not old and remote.bot.connected
        remote.release()
        await local.aclose()
    for report in (first, second):
        assert report.record.termination == "climb" and check_record(report.record) == []


async def test_disconnect_without_return_loses_with_crash_disconnected() -> None:
    async with bot_port() as (gateway, port, nursery):
        gone = instant("Gone", "sleep=100")
        nursery.start_soon(lambda: run_bridge(address(port), "alice", TOKENS["alice"], gone, max_sessions=1))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice", grace=0.5)
        local = await Engine.start(nursery, instant("Local"))
        nursery.start_soon(drop_at_the_third_turn, remote)
        tc = parse_tc("30+0.1")
        started = trio.current_time()
        report = await play_game((remote, local), GameSetup(tcs=(tc, tc)))
        waited = trio.current_time() - started
        await local.aclose()
    record = report.record
    assert (record.result, record.termination, record.termination_detail) == ("0-1", "crash", "disconnected")
    assert 0.5 <= waited < 5
    assert check_record(record) == []


async def test_the_grace_never_outlasts_the_clock() -> None:
    """A bot with 1.5 s on its clock and a 30 s grace: it loses well before the grace is over."""
    async with bot_port() as (gateway, port, nursery):
        gone = instant("Gone", "sleep=100")
        nursery.start_soon(lambda: run_bridge(address(port), "alice", TOKENS["alice"], gone, max_sessions=1))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice", grace=30)
        local = await Engine.start(nursery, instant("Local"))
        nursery.start_soon(drop_at_the_third_turn, remote)
        tc = parse_tc("1.5+0")
        started = trio.current_time()
        report = await play_game((remote, local), GameSetup(tcs=(tc, tc)))
        waited = trio.current_time() - started
        await local.aclose()
    assert (report.record.termination, report.record.termination_detail) == ("crash", "disconnected")
    assert waited < 3


# -- the registry ---------------------------------------------------------------------------------


async def test_registry_take_release_wait_for() -> None:
    async with bot_port() as (gateway, port, nursery):
        registry = gateway.registry
        with pytest.raises(KeyError):
            await registry.take("alice")
        assert await registry.wait_for("alice", 0.2) is None
        waiter: list = []  # type: ignore[type-arg]

        async def wait() -> None:
            waiter.append(await registry.wait_for("alice", 20))

        nursery.start_soon(wait)
        await trio.sleep(0.1)
        start_bridge(nursery, port, "alice", instant())
        await until(lambda: bool(waiter))
        bot = waiter[0]
        assert bot is not None and bot.busy and registry.available() == []  # handed straight to the waiter
        with pytest.raises(KeyError):
            await registry.take("alice")
        registry.release(bot)
        assert registry.available() == ["alice"]
        again = await registry.wait_for("alice", 1)  # idle: taken at once
        assert again is bot
        registry.release(bot)
        bot.engine.process.kill()  # the connection ends while idle: it leaves the registry
        await until(lambda: registry.get("alice") is not bot)


async def test_registry_take_all_waits_for_busy_bots_and_gives_up_only_on_absent_ones() -> None:
    async with bot_port() as (gateway, port, nursery):
        registry = gateway.registry
        start_bridge(nursery, port, "alice", instant())
        start_bridge(nursery, port, "bob", instant())
        await until(lambda: len(registry.available()) == 2)
        first = await registry.take_all(["alice", "bob"], 0.2)
        assert set(first) == {"alice", "bob"} and all(bot is not None and bot.busy for bot in first.values())
        got: list = []  # type: ignore[type-arg]

        async def second_game() -> None:
            got.append(await registry.take_all(["bob", "alice"], 0.2))

        nursery.start_soon(second_game)
        await trio.sleep(0.6)  # three graces: busy bots are not absent ones
        assert got == []
        registry.release(first["alice"])  # type: ignore[arg-type]
        await trio.sleep(0.05)
        assert got == [] and registry.available() == ["alice"]  # all or none: alice is not held alone
        registry.release(first["bob"])  # type: ignore[arg-type]
        await until(lambda: bool(got))
        assert got[0]["alice"] is first["alice"] and got[0]["bob"] is first["bob"] and registry.available() == []
        for bot in got[0].values():
            registry.release(bot)
        began = trio.current_time()
        alone = await registry.take_all(["alice", "carol"], 0.2)  # carol never logs in
        assert alone["carol"] is None and alone["alice"] is not None and 0.2 <= trio.current_time() - began < 5
        registry.release(alone["alice"])


async def test_registry_without_bots() -> None:
    registry = BotRegistry()
    assert registry.available() == [] and len(registry) == 0 and registry.refusal("x") is None


# -- hostile clients -------------------------------------------------------------------------------


async def test_wrong_token_and_the_growing_delay_after_five() -> None:
    limits = GatewayLimits(failure_delay=1.0)
    async with bot_port(limits) as (gateway, port, nursery):
        times = []
        for _ in range(7):
            started = trio.current_time()
            answer = await say(port, b"login alice " + b"Z" * 43 + b"\n")
            times.append(trio.current_time() - started)
            assert answer == b"error bad name or token\n"
        assert max(times[:5]) < 1.0
        assert 1.0 <= times[5] < 2.0 <= times[6]
        # the right token from the same address still logs in (and clears the count)
        start_bridge(nursery, port, "alice", instant())
        await until(lambda: gateway.registry.available() == ["alice"])


async def test_bot_a_with_bots_b_token_and_unknown_bots_are_refused() -> None:
    async with bot_port() as (_gateway, port, _nursery):
        assert await say(port, f"login alice {TOKENS['bob']}\n".encode()) == b"error bad name or token\n"
        assert await say(port, f"login carol {TOKENS['bob']}\n".encode()) == b"error bad name or token\n"
        with pytest.raises(LoginRefused, match="bad name or token"):
            await bridge_once(address(port), "alice", TOKENS["bob"], instant())


async def test_the_bridge_logs_in_again_after_a_server_error() -> None:
    class FailsOnce:
        calls = 0

        def authenticate(self, name: str, token: str) -> bool:
            self.calls += 1
            if self.calls == 1:
                raise RuntimeError("database is locked")
            return TOKENS.get(name) == token

    gateway = Gateway(FailsOnce())
    async with trio.open_nursery() as nursery:
        port = (await nursery.start(serve_bots, gateway, 0))[0].socket.getsockname()[1]
        backoff = Backoff(base=0.05, cap=0.05)
        nursery.start_soon(lambda: run_bridge(address(port), "alice", TOKENS["alice"], instant(), backoff=backoff))
        with trio.fail_after(10):
            await until(lambda: gateway.registry.available() == ["alice"])
        nursery.cancel_scope.cancel()


async def test_an_authenticator_that_fails_refuses_the_login_and_the_port_serves_on() -> None:
    class Broken:
        def authenticate(self, name: str, token: str) -> bool:
            raise RuntimeError("database is locked")

    gateway = Gateway(Broken())
    async with trio.open_nursery() as nursery:
        port = (await nursery.start(serve_bots, gateway, 0))[0].socket.getsockname()[1]
        for _ in range(2):
            assert await say(port, f"login alice {TOKENS['alice']}\n".encode()) == b"error server error, try again later\n"
        nursery.cancel_scope.cancel()


async def test_no_login_within_five_seconds(autojump_clock: trio.testing.MockClock) -> None:
    async with bot_port() as (gateway, port, _nursery):
        started = trio.current_time()
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        answer = b""
        while chunk := await stream.receive_some(1024):
            answer += chunk
        assert answer == b"error no login within 5 s\n"
        assert 5 <= trio.current_time() - started < 6
        await stream.aclose()
        await until(lambda: gateway.connections == 0)


async def test_one_byte_per_second_is_cut_at_five_seconds(autojump_clock: trio.testing.MockClock) -> None:
    async with bot_port() as (gateway, port, _nursery):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        started = trio.current_time()
        sent = 0
        with pytest.raises((trio.BrokenResourceError, trio.ClosedResourceError)):  # noqa: PT012
            for byte in f"login alice {TOKENS['alice']}\n".encode():
                await stream.send_all(bytes([byte]))
                sent += 1
                await trio.sleep(1)
                if sent > 10:
                    await stream.receive_some(1024)  # the error line, then EOF
                    if not await stream.receive_some(1024):
                        raise trio.BrokenResourceError
        assert 5 <= trio.current_time() - started < 12
        await stream.aclose()
        await until(lambda: gateway.connections == 0)
        assert gateway.registry.available() == []


async def test_a_line_over_64_kib_and_binary_garbage() -> None:
    async with bot_port() as (gateway, port, _nursery):
        assert await say(port, b"login alice " + b"x" * 70_000) == b"error line longer than 65536 bytes\n"
        assert await say(port, os.urandom(4096) + b"\n") == b"error expected `login NAME TOKEN`\n"
        assert await say(port, b"\x00\xff" * 100 + b"\n") == b"error expected `login NAME TOKEN`\n"
        assert await say(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") == b"error expected `login NAME TOKEN`\n"
        await until(lambda: gateway.connections == 0)


async def test_an_overlong_sei_line_after_login_ends_that_connection_only() -> None:
    """After the login the 64 KiB bound holds for SEI lines too (a protocol violation)."""
    async with bot_port() as (gateway, port, _nursery):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(f"login alice {TOKENS['alice']}\n".encode())
        got = b""
        while b"sei 1" not in got:
            got += await stream.receive_some(1024)
        assert got.startswith(b"loginok\n")
        with pytest.raises(trio.BrokenResourceError):  # noqa: PT012
            for _ in range(20):
                await stream.send_all(b"id name " + b"x" * 8192)
                await trio.sleep(0.01)
            while await stream.receive_some(1024):
                pass
            raise trio.BrokenResourceError
        await until(lambda: gateway.connections == 0)
        assert gateway.registry.available() == []


async def test_second_connection_replaces_an_idle_bot_and_is_refused_during_a_game() -> None:
    async with bot_port() as (gateway, port, nursery):
        start_bridge(nursery, port, "alice", instant("First"))
        await until(lambda: gateway.registry.available() == ["alice"])
        first = gateway.registry.get("alice")
        start_bridge(nursery, port, "alice", instant("Second"))  # idle: the newcomer replaces it
        await until(lambda: gateway.registry.get("alice") not in (None, first))
        assert first is not None and not first.connected
        second = await RemoteEngine.take(gateway.registry, "ALICE")  # names are one regardless of case
        # playing: a third connection is refused, and the bridge keeps retrying (not fatal)
        for login in ("alice", "Alice"):
            with pytest.raises(LoginRefused, match="already connected"):
                await bridge_once(address(port), login, TOKENS["alice"], instant("Third"))
        assert gateway.registry.get("alice") is second.bot
        local = await Engine.start(nursery, instant("Local"))
        tc = parse_tc("10+0.1")
        report = await play_game((second, local), GameSetup(tcs=(tc, tc)))
        assert report.record.termination == "climb" and check_record(report.record) == []
        second.release()
        await local.aclose()


async def test_hostile_clients_do_not_disturb_a_running_game() -> None:
    """While a remote game runs at 5+0.05: wrong tokens, garbage, overlong lines and 500
    connections opened and dropped at once.  The game ends normally, no time forfeit."""
    async with bot_port(GatewayLimits(failure_delay=0.05, failure_delay_cap=0.2)) as (gateway, port, nursery):
        start_bridge(nursery, port, "alice", instant("Remote"))
        await until(lambda: gateway.registry.available() == ["alice"])
        remote = await RemoteEngine.take(gateway.registry, "alice")
        local = await Engine.start(nursery, instant("Local"))
        done = trio.Event()

        async def hostile() -> None:
            while not done.is_set():
                async with trio.open_nursery() as inner:
                    for i in range(500):
                        inner.start_soon(partial(say, port, b"" if i % 5 else os.urandom(100), read=not i % 5))
                for data in (b"login alice " + b"Z" * 43 + b"\n", b"x" * 70_000):
                    await say(port, data)

        nursery.start_soon(hostile)
        tc = parse_tc("5+0.05")
        reports = []
        for engines in ((remote, local), (local, remote)):
            reports.append(await play_game(engines, GameSetup(tcs=(tc, tc))))
        done.set()
        remote.release()
        await local.aclose()
        for report in reports:
            assert report.record.termination == "climb", (report.record.termination, report.record.termination_detail)
            assert check_record(report.record) == []
        await until(lambda: gateway.connections == 1)  # only alice is left


async def test_connections_beyond_the_limit_are_closed_at_once() -> None:
    async with bot_port(GatewayLimits(max_connections=10)) as (gateway, port, _nursery):
        streams = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(10)]
        await until(lambda: gateway.connections == 10)
        assert await say(port, b"login alice x\n") == b""  # closed before a byte is read
        assert gateway.refused >= 1
        for stream in streams:
            await stream.aclose()
        await until(lambda: gateway.connections == 0)


# -- the gateway in its own process: memory; ``santorini connect`` --------------------------------


class ServerProcess:
    """``tests/gallery/gateway_server.py`` in a subprocess, with a command line on its stdin."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [PY, "-m", "tests.gallery.gateway_server", *args, *(f"{n}={t}" for n, t in TOKENS.items())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
        )
        words = self.read().split()
        assert words[0] == "port", words
        self.port = int(words[1])

    def read(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def ask(self, command: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    process = ServerProcess()
    yield process
    process.close()


def test_500_connections_opened_and_dropped_at_once_do_not_grow_memory(server: ServerProcess) -> None:
    async def burst() -> None:
        async def one(i: int) -> None:
            try:
                stream = await trio.open_tcp_stream("127.0.0.1", server.port)
                if i % 2:  # garbage without a line end (a bad login line would cost a held-back answer)
                    await stream.send_all(os.urandom(64).replace(b"\n", b""))
                await stream.aclose()
            except OSError:
                pass

        async with trio.open_nursery() as nursery:
            for i in range(500):
                nursery.start_soon(one, i)

    trio.run(burst)  # warm-up: buffers and the accept path reach their steady size
    time.sleep(0.5)
    before = int(server.ask("rss"))
    for _ in range(4):
        trio.run(burst)
    deadline = time.monotonic() + 20
    while server.ask("stats").split()[0] != "0" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.ask("stats") == "0 -"
    after = int(server.ask("rss"))
    assert after - before < 4096, (before, after)  # kB: 2,000 more connections cost nothing lasting
    # and it still serves: a bot logs in
    assert trio.run(say, server.port, f"login alice {TOKENS['bob']}\n".encode()) == b"error bad name or token\n"


def token_file(tmp_path: Path, name: str, token: str | None = None) -> Path:
    path = tmp_path / f"{name}.token"
    path.write_text((token or TOKENS[name]) + "\n")
    path.chmod(0o600)
    return path


def santorini(*args: str) -> list[str]:
    return [PY, "-m", "santorini_server.cli", *args]


def engines(marker: str) -> list[str]:
    """The bridge's engine processes (and their guards), not the bridge itself."""
    return [line for line in leftovers(marker) if "santorini_server.cli" not in line]


def test_connect_with_a_wrong_token_exits_with_one_line(tmp_path: Path, server: ServerProcess) -> None:
    proc = subprocess.run(
        santorini("connect", f"tcp://127.0.0.1:{server.port}", "--bot", "alice",
                  "--token-file", str(token_file(tmp_path, "alice", "W" * 43)), "random"),
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == f"Error: login refused by tcp://127.0.0.1:{server.port}: bad name or token"
    assert "W" * 43 not in proc.stderr + proc.stdout


def test_connect_bad_arguments_are_one_line_errors(tmp_path: Path) -> None:
    for args, message in (
        (["connect", "127.0.0.1:7777", "--bot", "a", "--token-file", str(token_file(tmp_path, "alice")), "random"],
         "expected tcp://"),
        (["connect", "tcp://127.0.0.1:7777", "--bot", "a", "--token-file", str(tmp_path / "none"), "random"],
         "cannot read the token"),
    ):
        proc = subprocess.run(santorini(*args), capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr


def test_connect_plays_reconnects_and_leaves_nothing_on_ctrl_c(tmp_path: Path, server: ServerProcess) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    engine = f"cmd={PY} arg=-m arg=tests.gallery.instant name=Bridged arg={marker}"
    bridge = subprocess.Popen(
        santorini("connect", f"tcp://127.0.0.1:{server.port}", "--bot", "alice",
                  "--token-file", str(token_file(tmp_path, "alice")), engine, "--max-delay", "0.5"),
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    try:
        assert server.ask("wait alice") == "ready"
        termination = server.ask("play alice 1").split(" ", 2)[1]
        assert termination == "climb"
        assert server.ask("play alice 2").split()[1] == "climb"
        assert engines(marker)  # its engine (under the guard) runs while connected
        server.close()
        # nothing listens on the port any more: the bridge's engine is stopped and it keeps trying
        deadline = time.monotonic() + 10
        while engines(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert engines(marker) == []
        assert bridge.poll() is None
    finally:
        bridge.send_signal(signal.SIGINT)
        _out, err = bridge.communicate(timeout=30)
    assert bridge.returncode == 130, err
    assert "connecting again in" in err
    assert TOKENS["alice"] not in err
    assert leftovers(marker) == []


def test_ctrl_c_during_a_game_leaves_no_engine(tmp_path: Path, server: ServerProcess) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    engine = f"cmd={PY} arg=-m arg=tests.gallery.instant name=Slow arg=sleep=200 arg={marker}"
    bridge = subprocess.Popen(
        santorini("connect", f"tcp://127.0.0.1:{server.port}", "--bot", "bob",
                  "--token-file", str(token_file(tmp_path, "bob")), engine),
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    assert server.ask("wait bob") == "ready"
    assert server.proc.stdin is not None
    server.proc.stdin.write("play bob 1 tc=60+0\n")
    server.proc.stdin.flush()
    time.sleep(1.0)  # mid-game
    assert engines(marker)
    bridge.send_signal(signal.SIGINT)
    bridge.communicate(timeout=30)
    assert bridge.returncode == 130
    assert leftovers(marker) == []
    result = server.read().split(" ", 2)  # the game ends: bob disconnected and did not return in 5 s
    assert result[:2] == ["0-1", "crash"] and result[2] == "disconnected"


@pytest.mark.parametrize(
    ("fault", "termination"),
    [("illegal", "illegal"), ("malformed", "illegal"), ("crash", "crash"), ("wrong-phase", "illegal"),
     ("double", "engine-error"), ("resign", "resign")],
)
def test_hostile_engines_through_connect_get_the_local_adjudication(
    tmp_path: Path, fault: str, termination: str
) -> None:
    """The fault gallery behind ``santorini connect`` (grace 0: a lost connection is the loss it
    is for a local engine) loses with the same termination as the same engine run locally."""
    hostile = Hostile(tmp_path, fault)
    local = trio.run(_local_game, hostile.spec)
    assert local.termination == termination, (local.termination, local.termination_detail)
    server = ServerProcess("grace=0")
    bridge = subprocess.Popen(
        santorini("connect", f"tcp://127.0.0.1:{server.port}", "--bot", "alice",
                  "--token-file", str(token_file(tmp_path, "alice")), hostile.spec),
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    try:
        assert server.ask("wait alice") == "ready"
        result, remote_termination, detail = server.ask("play alice 1").split(" ", 2)
        assert (result, remote_termination) == (local.result, local.termination), detail
        if termination != "crash":
            assert detail == (local.termination_detail or "-")
    finally:
        bridge.send_signal(signal.SIGINT)
        bridge.communicate(timeout=30)
        server.close()
    assert leftovers(hostile.marker) == []


async def _local_game(spec: str):  # type: ignore[no-untyped-def]
    async with trio.open_nursery() as nursery:
        hostile = await Engine.start(nursery, parse_engine_spec(spec.replace("name=Hostile", "name=alice")))
        local = await Engine.start(nursery, instant("Local"))
        tc = parse_tc("10+0.1")
        report = await play_game((hostile, local), GameSetup(tcs=(tc, tc)))
        await hostile.aclose()
        await local.aclose()
        return report.record


@pytest.fixture
def tls_files(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and its key."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )
    return cert, key


async def test_a_tls_port_closes_a_client_that_never_shakes_hands(
    tls_files: tuple[Path, Path], autojump_clock: trio.testing.MockClock
) -> None:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(*tls_files)
    gateway = Gateway(MemoryAuthenticator(TOKENS))
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(serve_bots, gateway, 0, ssl_context=context))
        port = listeners[0].socket.getsockname()[1]
        started = trio.current_time()
        assert await say(port, b"login alice " + TOKENS["alice"].encode() + b"\n") == b""  # not TLS: nothing
        silent = await trio.open_tcp_stream("127.0.0.1", port)
        assert await silent.receive_some(100) == b""  # closed at the login timeout
        assert 5 <= trio.current_time() - started < 6
        await silent.aclose()
        await until(lambda: gateway.connections == 0)
        nursery.cancel_scope.cancel()


def test_tls_bot_port_with_connect(tmp_path: Path, tls_files: tuple[Path, Path]) -> None:
    cert, key = tls_files
    server = ServerProcess(f"tls={cert},{key}")
    marker = f"marker-{uuid.uuid4().hex}"
    bridge = subprocess.Popen(
        santorini("connect", f"tls://localhost:{server.port}", "--bot", "alice", "--ca", str(cert),
                  "--token-file", str(token_file(tmp_path, "alice")),
                  f"cmd={PY} arg=-m arg=tests.gallery.instant name=Tls arg={marker}"),
        stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
    try:
        assert server.ask("wait alice") == "ready"
        assert server.ask("play alice 2").split()[1] == "climb"
        # plain TCP to a TLS port gets nowhere (and does not disturb it)
        assert trio.run(say, server.port, f"login alice {TOKENS['alice']}\n".encode()) == b""
        assert server.ask("stats").split()[1] == "alice"
    finally:
        bridge.send_signal(signal.SIGINT)
        bridge.communicate(timeout=30)
        server.close()
    assert leftovers(marker) == []
