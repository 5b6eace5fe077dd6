"""The daemon's run scheduler against a real store: which runs it takes up."""

from __future__ import annotations

from pathlib import Path

import trio

from santorini_server.server.async_store import AsyncStore
from santorini_server.server.ladder import Ladder
from santorini_server.server.registry import BotRegistry
from santorini_server.server.runs import RunScheduler
from santorini_server.server.store import Store


async def test_the_scheduler_leaves_the_ladder_s_run_alone_even_while_it_is_being_created(tmp_path: Path) -> None:
    """The ladder creates its run (queued) and then starts it (running): two writes.  A scheduler
    looking between them once took it for a submitted run, failed to play it, and cancelled it."""
    store = await AsyncStore.open(tmp_path / "data")
    try:
        ladder = await store.write(Store.create_run, "ladder", {"tc": "5+0.05"})
        drain = trio.Event()
        scheduler = RunScheduler(store, BotRegistry(), drain=drain)
        async with trio.open_nursery() as nursery:
            await nursery.start(scheduler.serve)
            scheduler.submitted()  # as a submission would: it looks at the runs now
            with trio.move_on_after(0.5):
                while (await store.read(Store.run, ladder.id)).state == "queued":
                    await trio.sleep(0.01)
            drain.set()
        assert (await store.read(Store.run, ladder.id)).state == "queued"
    finally:
        store.close()


async def test_the_ladder_takes_up_its_run_left_queued_by_a_daemon_stopped_while_creating_it(tmp_path: Path) -> None:
    store = await AsyncStore.open(tmp_path / "data")
    try:
        left = await store.write(Store.create_run, "ladder", {"tc": "5+0.05"})
        drain = trio.Event()
        ladder = Ladder(store, BotRegistry(), drain=drain, drain_timeout=0.1, grace=0.1, tc="5+0.05")
        async with trio.open_nursery() as nursery:
            run_id = await nursery.start(ladder.serve)
            drain.set()
        assert run_id == left.id  # not a second ladder run
        assert [(run.kind, run.state) for run in await store.read(Store.runs)] == [("ladder", "running")]
    finally:
        store.close()
