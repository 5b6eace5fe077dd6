"""A match: N games between two engines, colours alternating, engines reused across games.

The engines are started once in the match's nursery and kept for every game (``newgame`` +
``isready`` between games); one that failed (crash, stall, protocol error, no reply to
``stop``) is closed and restarted before its next game.  Output lines are cutechess-cli's, so
tools that parse cutechess output read ours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from ..adjudicator import GameReport, GameSetup, TimeControl
from ..records import DeferredSgnWriter, GameRecord, SgnWriter
from ..stats.standings import format_score_line
from .engine import EngineFailure
from .engine_spec import EngineSpec
from .slots import EngineSlot, play_or_forfeit

__all__ = ["MatchConfig", "MatchSummary", "run_match"]


@dataclass(frozen=True)
class MatchConfig:
    specs: tuple[EngineSpec, EngineSpec]
    games: int
    tc: TimeControl
    gods: tuple[str, ...] = ("mortal", "mortal")
    opening: str | None = None
    ping: bool = False
    event: str = "santorini match"


@dataclass
class MatchSummary:
    wins: list[int] = field(default_factory=lambda: [0, 0])
    aborted: int = 0
    records: list[GameRecord] = field(default_factory=list)


async def run_match(
    config: MatchConfig,
    *,
    emit: Callable[[str], None] = print,
    writer: SgnWriter | DeferredSgnWriter | None = None,
    io_log: Callable[[str, str, str], None] | None = None,
) -> MatchSummary:
    """Play the match; print cutechess-style lines through ``emit``; append records to ``writer``.

    Raises:
        EngineFailure: an engine could not be started for the first game, or does not support
            the gods of the match (nothing is played then).
    """
    summary = MatchSummary()
    a, b = config.specs
    failure: EngineFailure | None = None
    async with trio.open_nursery() as nursery:
        slots = (EngineSlot(nursery, a, io_log), EngineSlot(nursery, b, io_log))
        try:
            for slot in slots:
                try:
                    engine = await slot.get()
                except EngineFailure as exc:  # say which engine, once
                    detail = exc.detail if slot.spec.name in exc.detail else f"{slot.spec.name}: {exc.detail}"
                    raise EngineFailure(exc.kind, detail) from None
                missing = [g for g in config.gods if not engine.supports((g, g))]
                if missing:
                    raise EngineFailure(
                        "engine-error",
                        f"{engine.name} does not support {', '.join(missing)} (it lists: {' '.join(engine.info.gods)})",
                    )
            for i in range(1, config.games + 1):
                order = (0, 1) if i % 2 == 1 else (1, 0)
                names = (config.specs[order[0]].name, config.specs[order[1]].name)
                emit(f"Started game {i} of {config.games} ({names[0]} vs {names[1]})")
                report = await _play_one(config, slots, order, i)
                outcome = report.outcome
                emit(f"Finished game {i} ({names[0]} vs {names[1]}): {outcome.result} {{{outcome.reason(names)}}}")
                if writer is not None:
                    writer.append(report.record)
                summary.records.append(report.record)
                if outcome.winner is None:
                    summary.aborted += 1
                else:
                    summary.wins[order[outcome.winner - 1]] += 1
        except EngineFailure as exc:
            failure = exc  # re-raised bare, outside the nursery (not in an ExceptionGroup)
        finally:
            with trio.CancelScope(shield=True):
                for slot in slots:
                    await slot.aclose()
    if failure is not None:
        raise failure
    emit(format_score_line(a.name, b.name, summary.wins[0], summary.wins[1], 0))
    return summary


async def _play_one(config: MatchConfig, slots: tuple[EngineSlot, EngineSlot], order: tuple[int, int], number: int) -> GameReport:
    specs = (slots[order[0]].spec, slots[order[1]].spec)
    setup = GameSetup.for_specs(
        specs, config.tc, gods=config.gods, opening=config.opening, ping=config.ping,
        event=config.event, round=str(number), game_number=number,
    )
    return await play_or_forfeit((slots[order[0]].get, slots[order[1]].get), setup, (specs[0].name, specs[1].name))
