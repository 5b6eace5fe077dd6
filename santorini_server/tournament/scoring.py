"""What a tournament reads from a finished game's record: its outcome, and the standings it feeds.

Theory of operation.  A record is all that crosses from a worker (a referee process, a Dask
worker, the archive on ``--resume``) to the collector, so everything the live lines and tables
say is derived from records here, the same way whatever ran the game.  A three- or four-seat
record states the placings and the seats that left before the end; the seat whose turn, lost
turn or fault ended the game (the *decider*, which the ``Finished game`` reason and the losses
table name) follows from the seat order: with three seats it is the only seat still in besides
the winner, with four seats (no seat ever leaves) it is the seat to move after the last turn,
or the seat that played it for a winning turn.

Every tournament keeps one :class:`~santorini_server.stats.standings.Standings` of its seat
count, which folds each game into counters as it is counted: two seats give Elo, LOS and SPRT
(with three or more engines the final table adds the joint Bradley-Terry rating), three and
four seats placings points and Weng-Lin ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..adjudicator import Outcome
from ..adjudicator.outcome import Elimination
from ..records import GameRecord
from ..rules import Position
from ..stats.sprt import format_llr_line, llr_pentanomial
from ..stats.standings import Standings
from ..termination import Termination
from .config import TournamentConfig

__all__ = [
    "record_outcome",
    "seat_exits",
    "new_standings",
    "empty_standings",
    "count_game",
    "versus",
    "match_details",
    "standings_block",
    "termination_table",
    "loss_rows",
    "LossRow",
    "LOSS_COLUMNS",
]

_WINS = frozenset({Termination.CLIMB, Termination.PAN_DROP})


def _start_seat(record: GameRecord) -> int:
    """The 0-based seat to move in the record's start position."""
    start = record.start
    position = Position.start(record.gods) if start == "startpos" else Position.from_sps(start)
    return position.to_move


def record_outcome(record: GameRecord) -> Outcome:
    """The outcome a record states, with the decider and (three seats) the earlier eliminations."""
    outcome = Outcome.from_record(record)
    n = record.nseats
    if n == 2 or outcome.winner is None:
        return outcome
    placings = outcome.placings
    termination = outcome.termination
    eliminated = tuple(
        Elimination(e.seat - 1, Termination(e.termination), e.detail or "", placings[e.seat - 1], e.after)
        for e in record.eliminations
    )
    if n == 3:
        if termination in _WINS:
            decider = outcome.winner
        else:  # the game ended with two seats in: the one that is not the winner lost it
            out = {e.seat for e in record.eliminations} | {outcome.winner}
            decider = next((s for s in range(1, 4) if s not in out), outcome.winner)
        winner = outcome.winner
    else:
        after = (_start_seat(record) + len(record.turns)) % 4  # no seat leaves a four-seat game
        decider = (after - 1) % 4 + 1 if termination in _WINS else after + 1
        winner = decider if termination in _WINS else outcome.winner
    return Outcome(winner, termination, outcome.detail, placings, decider, eliminated)


def seat_exits(record: GameRecord, outcome: Outcome) -> tuple[str, ...]:
    """Per seat, the tag by which it left or lost the game (``""``: it did not), for the
    losses table: each earlier elimination, and the decider of a game that ended by a loss."""
    exits = [""] * record.nseats
    for e in record.eliminations:
        exits[e.seat - 1] = e.termination
    if outcome.winner is not None and outcome.termination not in _WINS and outcome.decider is not None:
        exits[outcome.decider - 1] = outcome.termination.value
    return tuple(exits)


def new_standings(config: TournamentConfig) -> Standings:
    """Empty standings of the tournament's kind, every engine listed."""
    return empty_standings(config.players, [spec.name for spec in config.specs])


def empty_standings(seats: int, names: Sequence[str]) -> Standings:
    """Empty standings for games of ``seats`` seats, ``names`` listed in that order (a report
    made from records alone, with no tournament settings, starts here too)."""
    standings = Standings(seats)
    for name in names:
        standings.add_engine(name)
    return standings


def count_game(standings: Standings, record: GameRecord, number: int) -> Outcome:
    """Add a finished game to the standings; returns its outcome."""
    outcome = record_outcome(record)
    if standings.seats == 2:
        p1, p2 = record.players
        standings.record(p1, p2, outcome.winner, record.termination, game_number=number)
    else:
        placings = outcome.placings if outcome.winner is not None else None
        standings.record_game(record.players, placings, record.termination, number, seat_exits(record, outcome))
    return outcome


def versus(names: tuple[str, ...]) -> str:
    """The players of a game for the ``Started``/``Finished`` lines: ``A vs B vs C``; with four
    seats the teams, ``A vs B`` (an engine in both seats of its team) or ``A+C vs B+D``."""
    if len(names) != 4:
        return " vs ".join(names)
    teams = [(names[0], names[2]), (names[1], names[3])]
    return " vs ".join(a if a == b else f"{a}+{b}" for a, b in teams)


def match_details(config: TournamentConfig) -> str:
    """The conditions fastchess's results block names: time control and gods."""
    return f"{config.tc}, {config.settings.gods}"


def standings_block(config: TournamentConfig, standings: Standings, final: bool = False) -> str:
    """The standings block: the pair's results (two engines), the ranking (more; with ``final``
    and two seats it carries the joint Bradley-Terry rating), or the N-seat ranking (placings
    points, Weng-Lin mu and sigma); then the losses by termination."""
    names = [s.name for s in config.specs]
    if standings.seats != 2:
        return standings.format_ranking() + "\n" + termination_table(standings, names)
    if len(names) == 2:
        text = standings.results_block(names[0], names[1], match_details(config), config.sprt)
        if config.sprt is not None:
            llr = llr_pentanomial(standings.pairs(names[0], names[1]).ptnml, config.sprt)
            text += "\n" + format_llr_line(llr, config.sprt)
    else:
        text = standings.format_ranking(joint=final)
    return text + "\n" + termination_table(standings, names)


#: The losses table's columns: every tag an engine loses by other than the opponent's winning turn,
#: the engine failures first (what a tester looks for).
LOSS_COLUMNS = (
    Termination.TIME, Termination.ILLEGAL, Termination.CRASH, Termination.STALL, Termination.ENGINE_ERROR,
    Termination.LIMIT, Termination.RESIGN, Termination.NO_MOVES,
)


@dataclass(frozen=True)
class LossRow:
    """One engine's line of the losses table: wins, losses, and the losses per :data:`LOSS_COLUMNS`
    tag (``by[k]`` for ``LOSS_COLUMNS[k]``)."""

    name: str
    wins: int
    losses: int
    by: tuple[int, ...]


def loss_rows(standings: Standings, names: Sequence[str]) -> list[LossRow]:
    """Per-engine losses by termination tag (time, illegal, crash, stall...), and wins.

    Three and four seats count seats: wins are the seats it placed first, losses the others, and
    a loss by a tag is a seat it eliminated or lost the game by that tag (a team's loss is charged
    to the seat that made it).
    """
    rows = []
    for name in names:
        t = standings.tally(name)
        rows.append(LossRow(name, t.wins, t.losses, tuple(t.losses_by.get(tag.value, 0) for tag in LOSS_COLUMNS)))
    return rows


def termination_table(standings: Standings, names: list[str]) -> str:
    """The losses table as text (:func:`loss_rows`): W, L, then the losses per tag."""
    tags = [t.value for t in LOSS_COLUMNS]
    width = max(len(n) for n in [*names, "Engine"])
    lines = [f"{'Engine':<{width}}  {'W':>5} {'L':>5}  losses: " + " ".join(f"{t:>12}" for t in tags)]
    for row in loss_rows(standings, names):
        losses = " ".join(f"{count:>12}" for count in row.by)
        lines.append(f"{row.name:<{width}}  {row.wins:>5} {row.losses:>5}          {losses}")
    return "\n".join(lines)
