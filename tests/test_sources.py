"""The one game loop (referee.sources.play) and its engine sources, with real engine processes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import trio

from santorini_server.adjudicator import GameSetup, parse_tc
from santorini_server.records import GameRecord
from santorini_server.referee import Engine, EngineFailure, EngineSpec, parse_engine_spec
from santorini_server.referee.progress import Begin, Ending, Turn
from santorini_server.referee.slots import EnginePool
from santorini_server.referee.sources import Getter, PoolSource, instance_names, play
from santorini_server.tournament.match import MatchConfig, match_games, run_match, seat_orders

from .test_referee import gallery

TC = parse_tc("10+0.1")


class Watch:
    def __init__(self) -> None:
        self.events: list[str] = []

    def begin(self, event: Begin) -> None:
        self.events.append(f"begin {event.number} {' '.join(event.names)}")

    def turn(self, event: Turn) -> None:
        self.events.append("turn")

    def end(self, event: Ending) -> None:
        self.events.append(f"end {event.result} {event.turns}")


def setup(specs: Sequence[EngineSpec], number: int) -> GameSetup:
    return GameSetup.for_specs(specs, TC, game_number=number, round=str(number))


async def test_a_pool_source_keeps_the_engines_between_games_and_tells_the_watcher() -> None:
    specs = [parse_engine_spec(gallery("instant", name=n)) for n in ("A", "B")]
    async with trio.open_nursery() as nursery:
        pool = EnginePool(nursery, capacity=2)
        source = PoolSource(pool)
        watch = Watch()
        first = await play(source, specs, setup(specs, 1), watch=watch)
        pids = {name: slot.engine.process.engine_pid for name, slot in pool.slots.items() if slot.engine is not None}
        second = await play(source, specs[::-1], setup(specs[::-1], 2))
        assert {name: slot.engine.process.engine_pid for name, slot in pool.slots.items() if slot.engine is not None} == pids
        await pool.aclose()
    assert first.record.players == ("A", "B") and second.record.players == ("B", "A")
    assert watch.events[0] == "begin 1 A B"
    assert watch.events[-1] == f"end {first.record.result} {len(first.record.turns)}"
    assert watch.events.count("turn") == len(first.record.turns)


async def test_a_team_of_one_engine_runs_a_process_per_seat() -> None:
    assert instance_names(["a", "b", "a", "b"]) == ("a", "b", "a~2", "b~2")
    spec = parse_engine_spec(gallery("nseat", name="T"))
    other = parse_engine_spec(gallery("nseat", name="U"))
    seated = [spec, other, spec, other]
    async with trio.open_nursery() as nursery:
        pool = EnginePool(nursery, capacity=4)
        report = await play(PoolSource(pool), seated, GameSetup.for_specs(
            seated, TC, gods=("apollo", "artemis", "athena", "pan"), game_number=1))
        assert sorted(pool.slots) == ["T", "T~2", "U", "U~2"]
        await pool.aclose()
    assert report.record.players == ("T", "U", "T", "U")  # records keep the engines' names


class Failing:
    """A source whose second seat cannot be had (a remote bot that did not come back)."""

    def __init__(self, pool: EnginePool) -> None:
        self.local = PoolSource(pool)
        self.given_back = False

    @asynccontextmanager
    async def seats(self, specs: Sequence[EngineSpec]) -> AsyncIterator[Sequence[Getter]]:
        async def gone() -> Engine:
            raise EngineFailure("crash", "disconnected")

        try:
            async with self.local.seats(specs) as getters:
                yield [getters[0], gone]
        finally:
            self.given_back = True


async def test_a_seat_the_source_cannot_fill_forfeits_and_the_seats_are_given_back() -> None:
    specs = [parse_engine_spec(gallery("instant", name=n)) for n in ("A", "B")]
    async with trio.open_nursery() as nursery:
        pool = EnginePool(nursery)
        source = Failing(pool)
        report = await play(source, specs, setup(specs, 1))
        await pool.aclose()
    assert source.given_back
    assert (report.record.result, report.record.termination, report.record.termination_detail) == (
        "1-0", "crash", "disconnected")


def test_a_match_schedule_is_the_seat_orders_in_turn_each_game_its_own_round() -> None:
    names = ("a", "b", "c")
    specs = tuple(parse_engine_spec(f"cmd=/bin/true name={n}") for n in names)
    config = MatchConfig(specs, 8, TC, gods=("apollo", "athena", "pan"))
    games = list(match_games(config))
    orders = seat_orders(3, 3)
    assert [g.seats for g in games] == [orders[i % 6] for i in range(8)]
    assert [(g.number, g.round) for g in games] == [(i, i) for i in range(1, 9)]
    teams = MatchConfig(specs[:2], 3, TC, gods=("apollo", "artemis", "athena", "pan"))
    assert [g.seats for g in match_games(teams)] == [(0, 1, 0, 1), (1, 0, 1, 0), (0, 1, 0, 1)]


async def test_a_match_hands_every_record_to_its_writer_and_keeps_none() -> None:
    specs = (parse_engine_spec(gallery("instant", name="A")), parse_engine_spec(gallery("instant", name="B")))
    records: list[GameRecord] = []
    summary = await run_match(MatchConfig(specs, 3, TC), emit=lambda _: None, writer=records)
    assert [r.game_number for r in records] == [1, 2, 3]
    assert [r.players for r in records] == [("A", "B"), ("B", "A"), ("A", "B")]
    assert [r.tag("Round") for r in records] == ["1", "2", "3"]
    assert sum(summary.wins) + summary.aborted == 3
    assert not hasattr(summary, "records")
