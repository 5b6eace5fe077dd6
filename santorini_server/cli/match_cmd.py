"""``santorini match``: games between two engines, with cutechess-cli's output lines."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import trio

from ..adjudicator import TimeControl
from ..records import ArchiveError, DeferredSgnWriter
from ..referee.engine import EngineFailure
from ..referee.engine_spec import EngineSpec
from ..referee.iolog import make_io_log
from ..referee.match import MatchConfig, run_match
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, GODS, SPS, TC, warn_time_controls

__all__ = ["match"]


@click.command()
@click.argument("engine1", type=ENGINE)
@click.argument("engine2", type=ENGINE)
@click.option("--games", "-n", default=2, show_default=True, type=click.IntRange(min=1), help="Games to play; colours alternate.")
@click.option(
    "--tc", type=TC, default="10+0.1", show_default=True, help="Time control: 60+0.5, 40/60+0, movetime=0.1, depth=6, nodes=N."
)
@click.option("--gods", type=GODS, default="mortal/mortal", show_default=True, help="Gods of player 1 / player 2 in game 1.")
@click.option("--opening", type=SPS, help="Start every game from this SPS instead of the empty board.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Append every game to this SGN file (fsync'd).")
@click.option("--ping", is_flag=True, help="Send isready before every go (off the clock) for engines that parse slowly.")
@click.option("--debug", is_flag=True, help="Log every SEI line, timestamped, per engine, to stderr (JSON when not a terminal).")
def match(
    engine1: EngineSpec,
    engine2: EngineSpec,
    games: int,
    tc: TimeControl,
    gods: tuple[str, str],
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

    \b
    Example:
      santorini match alphabeta greedy --games 20 --tc 2+0.02 --out games.sgn
    """
    warn_time_controls(tc, engine1.tc, engine2.tc)
    if engine1.name == engine2.name:
        engine2 = EngineSpec(**{**engine2.__dict__, "name": engine2.name + "-2"})
    writer = None
    if out is not None:
        try:
            writer = DeferredSgnWriter(out)  # the file appears with the first game
        except (OSError, ArchiveError) as exc:
            raise click.ClickException(f"cannot write {out}: {exc}") from None
    config = MatchConfig((engine1, engine2), games, tc, gods, opening, ping)
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

