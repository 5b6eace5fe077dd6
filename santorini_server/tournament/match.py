"""A match: N games between two engines, colours alternating, engines reused across games; or
between three engines (three seats) or two teams (four seats).

The engines are started once in the match's nursery and kept for every game (``newgame`` +
``isready`` between games); one that failed (crash, stall, protocol error, no reply to
``stop``) is closed and restarted before its next game.  Output lines are cutechess-cli's, so
tools that parse cutechess output read ours.

Seats (SPEC.md section 15): two engines play two seats, colours alternating; three engines play
three seats, game after game in each of the six seat orders; four seats are two teams, either
two engines each playing both seats of its team (a process per seat) or four engines, the first
and third against the second and fourth, the teams changing sides every game.  Before the first
game every engine must have declared the seat count in its handshake (``feature players``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import trio

from ..adjudicator import TimeControl
from ..records import GameRecord
from ..referee.engine import EngineFailure
from ..referee.engine_spec import EngineSpec
from ..referee.sources import EngineSource
from ..rules import Position
from ..stats.standings import format_score_line
from .runner import LocalBackend, LostGame
from .schedule import ScheduledGame
from .scoring import record_outcome

__all__ = ["MatchConfig", "MatchSummary", "RecordSink", "run_match", "seat_orders", "match_games"]


@dataclass(frozen=True)
class MatchConfig:
    specs: tuple[EngineSpec, ...]
    games: int
    tc: TimeControl
    gods: tuple[str, ...] = ("mortal", "mortal")
    """One god per seat; the seat count is theirs (or the opening's)."""
    opening: str | None = None
    ping: bool = False
    event: str = "santorini match"

    @property
    def seats(self) -> int:
        """Seats of every game: one per god of the opening, or of ``gods``."""
        return Position.from_sps(self.opening).nseats if self.opening else len(self.gods)

    players = seats
    concurrency = 1
    """A match plays one game at a time."""


def seat_orders(seats: int, engines: int) -> list[tuple[int, ...]]:
    """The seat orders a match cycles through: for each seat, the index of the player (an engine,
    or with four seats and two engines one of an engine's two processes: ``i % 2`` is the engine).

    Raises:
        ValueError: that many engines cannot fill that many seats.
    """
    if seats == 2 and engines == 2:
        return [(0, 1), (1, 0)]
    if seats == 3 and engines == 3:
        return list(itertools.permutations(range(3)))
    if seats == 4 and engines in (2, 4):
        return [(0, 1, 2, 3), (1, 0, 3, 2)]  # teams (seats 1+3, 2+4) change sides every game
    wanted = {2: "2 engines", 3: "3 engines", 4: "2 engines (a team each) or 4 (the 1st and 3rd against the 2nd and 4th)"}
    raise ValueError(f"a {seats}-seat match takes {wanted.get(seats, '2 to 4 seats')}, got {engines} engines")


class RecordSink(Protocol):
    """Takes each finished game's record (an SGN file's writer; a list)."""

    def append(self, record: GameRecord, /) -> object: ...


@dataclass
class MatchSummary:
    wins: list[int] = field(default_factory=lambda: [0, 0])
    """Games each engine won (four seats: its team won), in the order the engines were given."""
    aborted: int = 0
    placings: list[list[int]] = field(default_factory=list)
    """Per engine, how many scored games it placed 1st, 2nd, 3rd (four seats: its team's place,
    once a game): counters, whatever the match's length."""


def match_games(config: MatchConfig) -> Iterator[ScheduledGame]:
    """The match's games, made one at a time: game ``i`` is round ``i``, its seats cycling
    through :func:`seat_orders` (indices into ``config.specs``)."""
    orders = seat_orders(config.seats, len(config.specs))
    n = len(config.specs)
    for i in range(1, config.games + 1):
        order = orders[(i - 1) % len(orders)]
        yield ScheduledGame(i, tuple(p % n for p in order), config.gods, config.opening, i)


async def run_match(
    config: MatchConfig,
    *,
    emit: Callable[[str], None] = print,
    writer: RecordSink | None = None,
    io_log: Callable[[str, str, str], None] | None = None,
) -> MatchSummary:
    """Play the match; print cutechess-style lines through ``emit``; append records to ``writer``.

    The games are played like a tournament's (one worker of :class:`~.runner.LocalBackend`,
    engines kept between games); the engines are started and checked before the first game.

    Raises:
        ValueError: the engines do not fit the seat count (:func:`seat_orders`).
        EngineFailure: an engine could not be started for the first game, does not support the
            gods of the match, or did not declare the seat count (nothing is played then).
    """
    specs = config.specs
    seats = config.seats
    orders = seat_orders(seats, len(specs))  # refused before anything starts
    summary = MatchSummary(wins=[0] * len(specs), placings=[[0, 0, 0] for _ in specs])
    players = specs * (seats // len(specs))  # four seats, two engines: a process per seat

    async def prepare(source: EngineSource) -> None:
        async with source.seats(players) as getters:
            for spec, get in zip(players, getters, strict=True):
                try:
                    engine = await get()
                except EngineFailure as exc:  # say which engine, once
                    detail = exc.detail if spec.name in exc.detail else f"{spec.name}: {exc.detail}"
                    raise EngineFailure(exc.kind, detail) from None
                refusal = engine.seats_refusal(seats)
                if refusal is not None:
                    raise EngineFailure("engine-error", refusal)
                missing = [g for g in config.gods if not engine.supports((g, g))]
                if missing:
                    raise EngineFailure(
                        "engine-error",
                        f"{engine.name} does not support {', '.join(missing)} (it lists: {' '.join(engine.info.gods)})",
                    )

    def started(game: ScheduledGame) -> None:
        emit(f"Started game {game.number} of {config.games} ({' vs '.join(specs[i].name for i in game.seats)})")

    backend = LocalBackend(config, io_log, prepare=prepare)
    results_send, results_recv = trio.open_memory_channel[GameRecord | LostGame](0)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(backend.play, match_games(config), results_send, started)
            async with results_recv:
                async for item in results_recv:
                    assert isinstance(item, GameRecord)  # a local worker loses no game
                    _count(item, orders[((item.game_number or 1) - 1) % len(orders)], summary, emit, writer)
    except BaseExceptionGroup as group:  # the engine check's failure, re-raised bare
        found = group.subgroup(EngineFailure)
        if found is None:
            raise
        raise _first(found) from None
    if len(specs) == 2:
        a, b = specs
        emit(format_score_line(a.name, b.name, summary.wins[0], summary.wins[1], 0))
    else:
        emit(format_placings_line([s.name for s in specs], summary.placings))
    return summary


def _count(
    record: GameRecord, order: tuple[int, ...], summary: MatchSummary, emit: Callable[[str], None],
    writer: RecordSink | None,
) -> None:
    """Print, write and count a finished game played in seat ``order`` (:func:`seat_orders`)."""
    names = record.players
    outcome = record_outcome(record)
    emit(f"Finished game {record.game_number} ({' vs '.join(names)}): {outcome.result} {{{outcome.reason(names)}}}")
    if writer is not None:
        writer.append(record)
    if outcome.winner is None:
        summary.aborted += 1
        return
    engines = len(summary.wins)
    places: dict[int, int] = {}
    for seat, p in enumerate(order):
        places.setdefault(p % engines, outcome.placings[seat])
    for k, place in sorted(places.items()):
        summary.placings[k][place - 1] += 1
        summary.wins[k] += place == 1


def format_placings_line(names: list[str], placings: list[list[int]]) -> str:
    """The closing line of a match of more than two engines from each one's count of each place
    (:attr:`MatchSummary.placings`): firsts and mean place of each, e.g. ``Placings of A, B, C:
    firsts 3, 2, 1; mean place 1.67, 2.00, 2.33 (6 games)``."""
    firsts = ", ".join(str(p[0]) for p in placings)
    means = ", ".join(f"{sum(k * c for k, c in enumerate(p, 1)) / sum(p):.2f}" if sum(p) else "n/a" for p in placings)
    games = max((sum(p) for p in placings), default=0)
    return f"Placings of {', '.join(names)}: firsts {firsts}; mean place {means} ({games} games)"


def _first(group: BaseException) -> BaseException:
    while isinstance(group, BaseExceptionGroup):
        group = group.exceptions[0]
    return group
