"""``santorini match``: games between two engines (or three, or two teams), with cutechess-cli's output lines."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import trio

from ..adjudicator import TimeControl
from ..records import ArchiveError, DeferredSgnWriter, RecordError
from ..referee.engine import EngineFailure
from ..referee.engine_spec import EngineSpec
from ..referee.iolog import make_io_log
from ..rules import Position
from ..rules.gods import check_gods
from ..tournament.match import MatchConfig, run_match, seat_orders
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, SPS, TC, Parsed, gods_against_opening, warn_time_controls
from .output_files import SGN_OUT

__all__ = ["match", "DEFAULT_GODS", "seat_count"]

#: The gods of a match of three or four seats when ``--gods`` is not given (every seat needs one).
DEFAULT_GODS: dict[int, tuple[str, ...]] = {
    2: ("mortal", "mortal"),
    3: ("apollo", "minotaur", "pan"),
    4: ("apollo", "minotaur", "pan", "athena"),
}


def _parse_gods(value: str) -> tuple[str, ...]:
    gods = tuple(value.split("/"))
    if not 2 <= len(gods) <= 4:
        raise ValueError(
            f"expected two gods like apollo/mortal, got {value!r} (three or four seats: apollo/minotaur/pan[/athena])"
        )
    check_gods(gods)
    return gods


#: ``--gods``: one god per seat, two to four seats.
SEAT_GODS = Parsed("G1/G2[/G3[/G4]]", _parse_gods, ValueError, tuple)


def seat_count(players: int | None, gods: tuple[str, ...] | None, opening: str | None) -> int:
    """The seat count of a run from ``--players``, ``--gods`` and ``--opening``: whichever is
    given (they must agree), else two.

    Raises:
        click.UsageError: two of them disagree, or ``--gods`` differs from the opening's gods
            (one line naming both).
    """
    said = [(f"--players {players}", players)] if players is not None else []
    if gods is not None:
        said.append((f"--gods {'/'.join(gods)}", len(gods)))
    if opening is not None:
        start = Position.from_sps(opening)
        if (disagreement := gods_against_opening(gods, start.gods)) is not None:
            raise click.UsageError(disagreement)
        said.append(("--opening", start.nseats))
    for other, m in said[1:]:
        if m != said[0][1]:
            raise click.UsageError(f"{said[0][0]} means {said[0][1]} seats but {other} means {m}")
    return said[0][1] if said else 2


@click.command()
@click.argument("engine1", type=ENGINE)
@click.argument("engine2", type=ENGINE)
@click.argument("more", nargs=-1, type=ENGINE, metavar="[ENGINE3 [ENGINE4]]")
@click.option("--games", "-n", default=2, show_default=True, type=click.IntRange(min=1), help="Games to play; seats rotate.")
@click.option(
    "--tc", type=TC, default="10+0.1", show_default=True, help="Time control: 60+0.5, 40/60+0, movetime=0.1, depth=6, nodes=N."
)
@click.option(
    "--players", type=click.IntRange(2, 4),
    help="Seats per game: 2, 3 (three engines) or 4 (two teams). Default: the number of --gods, else 2.",
)
@click.option(
    "--gods", type=SEAT_GODS,
    help="One god per seat: player 1 / player 2 [/ 3 [/ 4]] (default mortal/mortal; 3 seats apollo/minotaur/pan, "
    "4 seats apollo/minotaur/pan/athena).",
)
@click.option("--opening", type=SPS, help="Start every game from this SPS instead of the empty board.")
@click.option("--out", type=SGN_OUT, help="Append every game to this SGN file (fsync'd).")
@click.option("--ping", is_flag=True, help="Send isready before every go (off the clock) for engines that parse slowly.")
@click.option("--debug", is_flag=True, help="Log every SEI line, timestamped, per engine, to stderr (JSON when not a terminal).")
def match(
    engine1: EngineSpec,
    engine2: EngineSpec,
    more: tuple[EngineSpec, ...],
    games: int,
    tc: TimeControl,
    players: int | None,
    gods: tuple[str, ...] | None,
    opening: str | None,
    out: Path | None,
    ping: bool,
    debug: bool,
) -> None:
    """Play GAMES games between ENGINE1 and ENGINE2 and print the score.

    An ENGINE is a bundled engine's name (random, greedy, alphabeta) or a quoted spec in
    cutechess-cli's grammar: "cmd=./mybot name=MyBot arg=--x dir=/opt option.Hash=64
    tc=10+0.1 timemargin=50".  Each turn is checked by the rules engine; an engine that
    crashes, stalls, overruns its clock or sends an illegal turn loses that game and is
    restarted before the next.

    Three seats (--players 3, or three --gods): three engines, each game in another seat
    order; a seat that faults is eliminated and the others play on.  Four seats: two teams,
    two engines (each in both seats of its team) or four (the 1st and 3rd against the 2nd and
    4th).  Every engine must declare the seat count (SEI `feature players`).

    \b
    Example:
      santorini match alphabeta greedy --games 20 --tc 2+0.02 --out games.sgn
      santorini match alphabeta greedy random --players 3 --games 6
    """
    seats = seat_count(players, gods, opening)
    specs = (engine1, engine2, *more)
    try:
        seat_orders(seats, len(specs))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    warn_time_controls(tc, *(spec.tc for spec in specs))
    specs = _distinct_names(specs)
    writer = None
    if out is not None:
        try:
            writer = DeferredSgnWriter(out)  # the file appears with the first game
        except (OSError, ArchiveError) as exc:
            raise click.ClickException(f"cannot write {out}: {exc}") from None
        except RecordError as exc:  # what the file holds is not SGN to append to (the message names it)
            raise click.ClickException(str(exc)) from None
    if gods is None:  # an opening brings its gods (two seats: checked against mortal, as ever)
        gods = Position.from_sps(opening).gods if opening and seats > 2 else DEFAULT_GODS[seats]
    config = MatchConfig(specs, games, tc, gods, opening, ping)
    io_log = make_io_log() if debug else None
    try:
        summary = trio.run(lambda: run_match(config, emit=click.echo, writer=writer, io_log=io_log))
    except EngineFailure as failure:
        raise click.ClickException(failure.detail) from None
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:
        if not is_interrupt(exc):
            raise
        click.echo("interrupted: engines stopped; games finished so far are saved", err=True)
        sys.exit(INTERRUPTED_STATUS)
    finally:
        if writer is not None:
            writer.close()
    if summary.aborted:
        sys.exit(1)


def _distinct_names(specs: tuple[EngineSpec, ...]) -> tuple[EngineSpec, ...]:
    """Engines given twice get ``-2``, ``-3``, ... after their name (records and scores tell them apart)."""
    seen: dict[str, int] = {}
    renamed = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        if seen[spec.name] > 1:
            spec = EngineSpec(**{**spec.__dict__, "name": f"{spec.name}-{seen[spec.name]}"})
        renamed.append(spec)
    return tuple(renamed)
