"""The engine channel over a byte stream: the transport seam (``StreamTransport``), its two read
paths (a socket's non-blocking fd; any other stream awaited), its byte budget, and the channel's
failure rulings over it (the same as over a process's pipes)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from santorini_server.process import EngineGone
from santorini_server.referee import EngineFailure, EngineSpec
from santorini_server.referee.channel import EngineChannel
from santorini_server.referee.stream_transport import StreamTransport
from santorini_server.sei import IsReady, ReadyOk


async def socket_pair() -> tuple[trio.SocketStream, trio.SocketStream]:
    a, b = trio.socket.socketpair()
    return trio.SocketStream(a), trio.SocketStream(b)


async def read_all(transport: StreamTransport) -> bytes:
    data = b""
    while True:
        await transport.wait_readable()
        chunk = transport.receive_nowait()
        if chunk is None:
            continue
        if not chunk:
            return data
        data += chunk


@pytest.mark.parametrize("kind", ["socket", "memory"])
async def test_bytes_both_ways_then_eof_is_disconnected(kind: str) -> None:
    if kind == "socket":
        ours, peer = await socket_pair()
    else:
        ours, peer = trio.testing.memory_stream_pair()  # type: ignore[assignment]
    transport = StreamTransport(ours)
    assert transport.receive_nowait() is None and transport.status is None
    assert transport.exit_description() == "running"
    sent = transport.send_nowait(b"sei 1\n")
    await transport.send_all(b"sei 1\n"[sent:])
    assert await peer.receive_some(100) == b"sei 1\n"
    await peer.send_all(b"seiok 1\n")
    await peer.aclose()
    assert await read_all(transport) == b"seiok 1\n"
    assert transport.status is not None and transport.exit_description() == "disconnected"
    assert await transport.ended_within(0)
    assert (await transport.wait()).describe() == "disconnected"
    with pytest.raises(EngineGone):
        transport.send_nowait(b"x\n")
    with pytest.raises(EngineGone):
        await transport.send_all(b"x\n")
    await transport.aclose()


async def test_unread_bytes_come_first() -> None:
    ours, peer = await socket_pair()
    transport = StreamTransport(ours)
    transport.unread(b"early\n")
    assert transport.output_pending()
    await peer.send_all(b"later\n")
    await peer.aclose()
    assert await read_all(transport) == b"early\nlater\n"


async def test_kill_wakes_a_waiting_reader() -> None:
    ours, _peer = await socket_pair()
    transport = StreamTransport(ours)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_all, transport)
        await trio.sleep(0.05)
        transport.kill()
    assert transport.status is not None and transport.receive_nowait() == b""


async def test_the_byte_budget_paces_a_flood(autojump_clock: trio.testing.MockClock) -> None:
    """5,000 bytes offered at 10,000 a second, read at a budget of 1,000 a second: about four
    seconds (a chunk read at once may overshoot the budget; the pause follows it)."""
    for kind in ("socket", "memory"):
        if kind == "socket":
            ours, peer = await socket_pair()
        else:
            ours, peer = trio.testing.memory_stream_pair()  # type: ignore[assignment]
        transport = StreamTransport(ours, byte_budget=1000)

        async def flood(peer: trio.abc.Stream = peer) -> None:
            for _ in range(50):  # a line every 10 ms: 10,000 bytes a second offered
                await peer.send_all(b"x" * 99 + b"\n")
                await trio.sleep(0.01)
            await peer.aclose()

        started = trio.current_time()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(flood)
            assert len(await read_all(transport)) == 5000
        assert 3 <= trio.current_time() - started <= 6, (kind, trio.current_time() - started)


async def test_the_channel_rules_a_stream_as_it_rules_a_process() -> None:
    """The handshake over a connection; EOF mid-session is ``crash``, its detail the end."""
    ours, peer = await socket_pair()
    channel = EngineChannel(EngineSpec(name="remote", argv=()), StreamTransport(ours), max_line_length=64)

    async def bot() -> None:
        assert (await peer.receive_some(100)).startswith(b"sei 1")
        await peer.send_all(b"id name Remote\nseiok 1\n")
        assert await peer.receive_some(100) == b"isready\n"
        await peer.send_all(b"readyok\n")
        await peer.send_all(b"info string " + b"x" * 100 + b"\n")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(bot)
        await channel.handshake(5)
        assert channel.info.name == "Remote"
        await channel.send(IsReady())
        assert isinstance(await channel.next_event(), ReadyOk)
        with pytest.raises(EngineFailure) as failure:  # a line over the connection's bound
            await channel.next_event()
    assert failure.value.kind == "engine-error" and channel.broken

    ours, peer = await socket_pair()
    channel = EngineChannel(EngineSpec(name="remote", argv=()), StreamTransport(ours))
    await peer.aclose()
    with pytest.raises(EngineFailure) as failure:
        await channel.next_event()
    assert (failure.value.kind, failure.value.detail) == ("crash", "closed its output (disconnected)")
