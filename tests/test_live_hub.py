"""The live hub without sockets: real games through the real referee, viewers as memory channels.

Each test plays a real game between two bundled engines (subprocesses) through
``play_or_forfeit`` with the hub's :class:`GameFeed` as its observer, so the events checked are
the ones the daemon sends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import trio
import trio.testing

from santorini_server.adjudicator import GameSetup, parse_tc
from santorini_server.records.replay import replay_record
from santorini_server.referee import Engine
from santorini_server.referee.engine_spec import parse_engine_spec
from santorini_server.referee.progress import ProgressObserver
from santorini_server.referee.slots import play_or_forfeit
from santorini_server.server.live import BadTopic, GameFeed, LiveHub, TooManyViewers, Viewer


def drain(viewer: Viewer) -> list[dict[str, Any]]:
    """Every message queued for ``viewer`` so far."""
    out = []
    while True:
        try:
            out.append(json.loads(viewer.receive.receive_nowait()))
        except (trio.WouldBlock, trio.EndOfChannel):
            return out


async def play(hub: LiveHub, number: int = 1, *, during: Any = None) -> Any:
    """One game random vs greedy through the referee, watched by the hub's feed; ``during(feed)``
    is called after the fourth turn."""
    feed = hub.feed(7, number)
    observer = ProgressObserver(number, feed)

    class Spy:
        def started(self, adjudicator: Any, names: Any) -> None:
            observer.started(adjudicator, names)

        def step(self, adjudicator: Any) -> None:
            observer.step(adjudicator)
            if during is not None and feed.seq == 4 and adjudicator.turn_count == 4:
                during(feed)

        def over(self, report: Any) -> None:
            observer.over(report)

    async with trio.open_nursery() as nursery:
        specs = [parse_engine_spec("random name=r"), parse_engine_spec("greedy name=g")]

        def getter(spec: Any) -> Any:
            async def get() -> Engine:
                return await Engine.start(nursery, spec)
            return get

        setup = GameSetup(gods=("apollo", "pan"), tcs=(parse_tc("10+0.1"),) * 2, game_number=number)
        report = await play_or_forfeit([getter(s) for s in specs], setup, ["r", "g"], observer=Spy())
        nursery.cancel_scope.cancel()
    return report


async def test_a_viewer_gets_the_start_every_turn_in_order_and_the_end() -> None:
    hub = LiveHub()
    home = hub.subscribe("home")
    game_viewer_box: list[Viewer] = []
    report = await play(hub, during=lambda feed: game_viewer_box.append(hub.subscribe(f"game:{feed.key}")))
    events = drain(home)
    assert events[0] == {"type": "snapshot", "topic": "home", "t": events[0]["t"], "games": [], "geometry": events[0]["geometry"]}
    assert events[1]["type"] == "started" and events[1]["game"] == "7-1"
    assert [s["name"] for s in events[1]["seats"]] == ["r", "g"] and [s["god"] for s in events[1]["seats"]] == ["apollo", "pan"]
    turns = [e for e in events if e["type"] == "turn"]
    record = report.record
    assert [t["seq"] for t in turns] == list(range(1, len(record.turns) + 1))
    assert [t["stn"] for t in turns] == [t.turn for t in record.turns]
    # each position is the rules core's, after the turn (the record replayed)
    positions = replay_record(record).positions
    assert [t["sps"] for t in turns] == [p.sps() for p in positions[1:]]
    assert all(t["turn"]["ms"] == rec.time_ms for t, rec in zip(turns, record.turns, strict=True))
    assert events[-1]["type"] == "over" and events[-1]["result"] == record.result
    assert events[-1]["termination"] == record.termination
    # a viewer joining after turn 4 gets a snapshot of the four turns, then turns 5.. in order
    (late,) = game_viewer_box
    later = drain(late)
    snap = later[0]["game"]
    assert later[0]["type"] == "snapshot" and snap["seq"] == 4 and len(snap["t"]) == 4 and len(snap["p"]) == 5
    assert [t["s"] for t in snap["t"]] == [t["stn"] for t in turns[:4]]
    assert snap["p"][1:] == [t["p"] for t in turns[:4]]
    assert [e["seq"] for e in later[1:] if e["type"] == "turn"] == list(range(5, len(record.turns) + 1))
    assert later[-1]["type"] == "over"


async def test_a_full_queue_drops_that_viewer_only_and_the_game_goes_on() -> None:
    hub = LiveHub(queue=3)
    slow = hub.subscribe("home")  # never read: its queue fills after the snapshot + 2 events
    fast = hub.subscribe("home")
    got: list[dict[str, Any]] = []

    async def reader() -> None:
        async for text in fast.receive:
            got.append(json.loads(text))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.run)  # as in the daemon: the fan-out task delivers, one event a pass
        nursery.start_soon(reader)
        report = await play(hub)
        await trio.testing.wait_all_tasks_blocked()
        hub.unsubscribe(fast)
        nursery.cancel_scope.cancel()
    assert slow.dropped == "too slow: 3 messages queued" and hub.dropped == 1
    assert fast.dropped is None
    assert len([e for e in got if e["type"] == "turn"]) == len(report.record.turns)
    assert [e["type"] for e in drain(slow)] == ["snapshot", "started", "turn"]  # what it had, then the end of its channel
    assert hub.viewers() == 0


async def test_the_fan_out_task_delivers_after_the_publisher_moved_on_in_order_and_once() -> None:
    hub = LiveHub()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.run)
        await trio.testing.wait_all_tasks_blocked()
        early = hub.subscribe("home")
        assert [e["type"] for e in drain(early)] == ["snapshot"]
        hub.run_changed(1, "running", 0, 4)
        assert drain(early) == []  # not in the publisher's step: the game's task pays no fan-out
        late = hub.subscribe("home")  # joins between that event's publishing and its delivery
        hub.run_changed(1, "running", 1, 4)
        await trio.testing.wait_all_tasks_blocked()
        assert [e["games"] for e in drain(early)] == [0, 1]
        got = drain(late)
        assert [e["type"] for e in got] == ["snapshot", "run"] and got[1]["games"] == 1
        nursery.cancel_scope.cancel()


async def test_nobody_watching_builds_no_event() -> None:
    hub = LiveHub()
    built: list[int] = []
    original = GameFeed.turn_event

    def spy(self: GameFeed, k: int) -> dict[str, Any]:
        built.append(k)
        return original(self, k)

    GameFeed.turn_event = spy  # type: ignore[method-assign]
    try:
        run = hub.subscribe("run:7")  # hears of the start and the end, not of each turn
        await play(hub)
    finally:
        GameFeed.turn_event = original  # type: ignore[method-assign]
    assert built == []
    assert [e["type"] for e in drain(run)] == ["snapshot", "started", "over"]


def test_topics_are_checked_and_viewers_bounded() -> None:
    hub = LiveHub(max_viewers=2)
    for bad in ("", "homes", "run:x", "game:1", "bot:<script>", "game:1-2 ", "run:" + "9" * 10):
        with pytest.raises(BadTopic):
            hub.subscribe(bad)
    a, b = hub.subscribe("bot:alpha"), hub.subscribe("game:1-2")
    with pytest.raises(TooManyViewers):
        hub.subscribe("home")
    first = json.loads(b.receive.receive_nowait())
    assert (first["type"], first["topic"], first["game"]) == ("snapshot", "game:1-2", None)
    hub.unsubscribe(a)
    hub.unsubscribe(a)
    assert hub.viewers() == 1
