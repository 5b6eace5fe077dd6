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
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from ..adjudicator import GameReport, GameSetup, TimeControl
from ..records import DeferredSgnWriter, GameRecord, SgnWriter
from ..rules import Position
from ..stats.standings import format_score_line
from .engine import EngineFailure
from .engine_spec import EngineSpec
from .slots import EngineSlot, play_or_forfeit

__all__ = ["MatchConfig", "MatchSummary", "run_match", "seat_orders"]


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


@dataclass
class MatchSummary:
    wins: list[int] = field(default_factory=lambda: [0, 0])
    """Games each engine won (four seats: its team won), in the order the engines were given."""
    aborted: int = 0
    records: list[GameRecord] = field(default_factory=list)
    placings: list[list[int]] = field(default_factory=list)
    """Each engine's place in every scored game (four seats: its team's, once a game)."""


async def run_match(
    config: MatchConfig,
    *,
    emit: Callable[[str], None] = print,
    writer: SgnWriter | DeferredSgnWriter | None = None,
    io_log: Callable[[str, str, str], None] | None = None,
) -> MatchSummary:
    """Play the match; print cutechess-style lines through ``emit``; append records to ``writer``.

    Raises:
        ValueError: the engines do not fit the seat count (:func:`seat_orders`).
        EngineFailure: an engine could not be started for the first game, does not support the
            gods of the match, or did not declare the seat count (nothing is played then).
    """
    specs = config.specs
    seats = config.seats
    orders = seat_orders(seats, len(specs))
    summary = MatchSummary(wins=[0] * len(specs), placings=[[] for _ in specs])
    players = specs * (seats // len(specs))  # four seats, two engines: a process per seat
    failure: EngineFailure | None = None
    async with trio.open_nursery() as nursery:
        slots = [EngineSlot(nursery, spec, io_log) for spec in players]
        try:
            for slot in slots:
                try:
                    engine = await slot.get()
                except EngineFailure as exc:  # say which engine, once
                    detail = exc.detail if slot.spec.name in exc.detail else f"{slot.spec.name}: {exc.detail}"
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
            for i in range(1, config.games + 1):
                order = orders[(i - 1) % len(orders)]
                names = tuple(players[p].name for p in order)
                versus = " vs ".join(names)
                emit(f"Started game {i} of {config.games} ({versus})")
                report = await _play_one(config, slots, order, i)
                outcome = report.outcome
                emit(f"Finished game {i} ({versus}): {outcome.result} {{{outcome.reason(names)}}}")
                if writer is not None:
                    writer.append(report.record)
                summary.records.append(report.record)
                if outcome.winner is None:
                    summary.aborted += 1
                    continue
                places: dict[int, int] = {}
                for seat, p in enumerate(order):
                    places.setdefault(p % len(specs), outcome.placings[seat])
                for k, place in sorted(places.items()):
                    summary.placings[k].append(place)
                    summary.wins[k] += place == 1
        except EngineFailure as exc:
            failure = exc  # re-raised bare, outside the nursery (not in an ExceptionGroup)
        finally:
            with trio.CancelScope(shield=True):
                for slot in slots:
                    await slot.aclose()
    if failure is not None:
        raise failure
    if len(specs) == 2:
        a, b = specs
        emit(format_score_line(a.name, b.name, summary.wins[0], summary.wins[1], 0))
    else:
        emit(format_placings_line([s.name for s in specs], summary.placings))
    return summary


def format_placings_line(names: list[str], placings: list[list[int]]) -> str:
    """The closing line of a match of more than two engines: firsts and mean place of each,
    e.g. ``Placings of A, B, C: firsts 3, 2, 1; mean place 1.67, 2.00, 2.33 (6 games)``."""
    firsts = ", ".join(str(p.count(1)) for p in placings)
    means = ", ".join(f"{sum(p) / len(p):.2f}" if p else "n/a" for p in placings)
    games = max((len(p) for p in placings), default=0)
    return f"Placings of {', '.join(names)}: firsts {firsts}; mean place {means} ({games} games)"


async def _play_one(config: MatchConfig, slots: list[EngineSlot], order: tuple[int, ...], number: int) -> GameReport:
    seated = [slots[p] for p in order]
    setup = GameSetup.for_specs(
        [slot.spec for slot in seated], config.tc, gods=config.gods, opening=config.opening, ping=config.ping,
        event=config.event, round=str(number), game_number=number,
    )
    return await play_or_forfeit([slot.get for slot in seated], setup, [slot.spec.name for slot in seated])
