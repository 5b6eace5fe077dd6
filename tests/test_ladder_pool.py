"""The ladder's engines stay up between games (``santorini serve --ladder`` as a real process).

Each local bot is ``tests/gallery/hostile_engine.py``, which appends its pid to a file at every
start, so a test counts the engine processes the ladder started over its games; the games are
the store's index.  Real daemon, real engines, real sockets on 127.0.0.1.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import trio

from santorini_server.server.async_store import AsyncStore
from santorini_server.server.ladder import Ladder
from santorini_server.server.registry import BotRegistry
from santorini_server.server.store import Store
from tests.test_ladder_start import frames
from tests.test_server_serve import Daemon, alive, daemons, indexed, santorini

__all__ = ["daemons"]  # the fixture, shared with test_server_serve

LADDER = ("--ladder", "--tc", "5+0.05", "--concurrency", "1", "--drain-timeout", "1")


def add_bot(data: Path, name: str, starts: Path, *args: str) -> None:
    """A local bot whose every engine start appends its pid to ``starts``."""
    extra = " ".join(f"arg={a}" for a in args)
    spec = f"cmd={sys.executable} arg=-m arg=tests.gallery.hostile_engine {extra} arg=starts={starts}"
    santorini("bot", "add", name, "--local", spec, data=data)


def pids(starts: Path) -> list[int]:
    return [int(line) for line in starts.read_text().split()] if starts.exists() else []


def wait_games(data: Path, count: int, timeout: float = 60) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(games := indexed(data, 1)) < count:
        assert time.monotonic() < deadline, games
        time.sleep(0.05)
    return games


def test_two_bots_play_game_after_game_on_the_engines_they_started_with(tmp_path: Path, daemons: list[Daemon]) -> None:
    data = tmp_path / "data"
    add_bot(data, "a", tmp_path / "a.starts")
    add_bot(data, "b", tmp_path / "b.starts")
    daemon = Daemon(data, *LADDER)
    daemons.append(daemon)
    wait_games(data, 6)
    assert len(pids(tmp_path / "a.starts")) == len(pids(tmp_path / "b.starts")) == 1  # no start between games
    engines = pids(tmp_path / "a.starts") + pids(tmp_path / "b.starts")
    assert all(alive(pid) for pid in engines)
    assert daemon.stop() == 0
    assert not any(alive(pid) for pid in engines)  # closed with the ladder


def test_an_engine_that_faulted_is_restarted_before_its_next_game_and_only_it(
    tmp_path: Path, daemons: list[Daemon]
) -> None:
    data = tmp_path / "data"
    add_bot(data, "a", tmp_path / "a.starts", "fault=crash")  # exits at its first play turn, every game
    add_bot(data, "b", tmp_path / "b.starts")
    daemon = Daemon(data, *LADDER)
    daemons.append(daemon)
    played = len(wait_games(data, 4))
    assert daemon.stop() == 0
    assert len(pids(tmp_path / "b.starts")) == 1
    assert played <= len(pids(tmp_path / "a.starts")) <= played + 1  # one per game (and the game a drain cut)


def test_a_revoked_bot_s_idle_engine_is_closed_and_the_others_stay(tmp_path: Path, daemons: list[Daemon]) -> None:
    data = tmp_path / "data"
    for name in "abc":
        add_bot(data, name, tmp_path / f"{name}.starts")
    daemon = Daemon(data, *LADDER)
    daemons.append(daemon)
    wait_games(data, 3)  # every bot has played: all three engines idle or playing
    santorini("bot", "revoke", "c", data=data)
    revoked = pids(tmp_path / "c.starts")
    deadline = time.monotonic() + 30
    while any(alive(pid) for pid in revoked):
        assert time.monotonic() < deadline, "the revoked bot's engine still runs"
        time.sleep(0.05)
    played = len(indexed(data, 1))
    wait_games(data, played + 2)  # a and b play on, on their engines
    assert len(pids(tmp_path / "a.starts")) == len(pids(tmp_path / "b.starts")) == 1
    assert all(alive(pid) for pid in pids(tmp_path / "a.starts") + pids(tmp_path / "b.starts"))
    assert daemon.stop() == 0


async def test_a_bot_removed_during_its_first_ladder_game_leaves_the_ladder_playing(tmp_path: Path) -> None:
    """A bot that has never finished a game may be removed while it plays its first: that game is
    not recorded (its index would name no bot), its engine is closed, and the ladder plays on."""
    store = await AsyncStore.open(tmp_path / "data")
    try:
        hang = f"cmd={sys.executable} arg=-m arg=tests.gallery.hostile_engine arg=fault=hang"  # loses on time
        for name, spec in (("a", "random"), ("b", "random"), ("z", hang)):
            await store.write(Store.add_local_bot, name, spec)
        drain = trio.Event()
        ladder = Ladder(store, BotRegistry(), drain=drain, drain_timeout=5, grace=0.1, tc="1+0")
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                run_id = await nursery.start(ladder.serve)
                while "z" not in ladder.busy:
                    await trio.sleep(0.01)
                await store.write(Store.remove_bot, "z")
                while "z" in ladder.busy or len(await store.read(Store.games, run_id)) < 2:
                    await trio.sleep(0.05)
                assert ladder.pool is not None and "z" not in ladder.pool.slots
                drain.set()
        games = await store.read(Store.games, run_id)
        assert all("z" not in game.bots for game in games)
        directory = tmp_path / "data" / "runs" / str(run_id)
        assert [record.game_number for record, _ in frames(directory / "games.msgpack")] == [g.number for g in games]
        again = Ladder(store, BotRegistry(), drain=trio.Event(), drain_timeout=0.1, grace=0.1, tc="1+0")
        again.drain.set()
        async with trio.open_nursery() as nursery:  # and the next start indexes nothing it cannot
            await nursery.start(again.serve)
    finally:
        store.close()
