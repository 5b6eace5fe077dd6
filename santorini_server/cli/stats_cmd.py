"""``santorini stats FILE --gods``: what a records file's games say about the gods (SPEC.md section
19.6), read as a stream (one game at a time: flat memory whatever the file's size)."""

from __future__ import annotations

import json
import mmap
from pathlib import Path

import click

from ..records import CorruptFrame, RecordError
from ..records.convert import iter_records
from ..stats.gods import GodStats, format_god_matrix, god_stats_json
from .output_files import map_records

__all__ = ["stats", "god_stats_of_file"]


def god_stats_of_file(path: Path, warn: bool = True) -> GodStats:
    """Fold every scored game of an SGN file or msgpack archive into :class:`GodStats`.

    Raises:
        click.ClickException: unreadable, or malformed SGN (one line).
    """
    out = GodStats()
    data = map_records(path)
    try:
        for item in iter_records(data):
            if isinstance(item, CorruptFrame):
                if warn:
                    click.echo(f"Warning: {path}: skipped damaged bytes at {item.offset}: {item.reason}", err=True)
                continue
            out.add(item.gods, item.placings)
    except (RecordError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return out


@click.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("--gods", "by_gods", is_flag=True, help="The god statistics (for now the only ones; required).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def stats(source: Path, by_gods: bool, as_json: bool) -> None:
    """Statistics of the games of an SGN file, a msgpack archive or a tournament folder.

    --gods: a matrix of god against god for two seats (games, the row god's score, its 95%
    interval, seat 1's advantage), Bradley-Terry ratings per god, and placings per god for three
    and four seats.

    \b
    Examples:
      santorini stats tournaments/20261130-041500 --gods
      santorini stats games.sgn --gods --json
    """
    if not by_gods:
        raise click.ClickException("say which statistics: --gods (the god matrix and ratings)")
    if source.is_dir():
        found = [source / name for name in ("games.msgpack", "games.sgn") if (source / name).exists()]
        if not found:
            raise click.ClickException(f"{source} holds no games.msgpack or games.sgn")
        source = found[0]
    result = god_stats_of_file(source)
    if as_json:
        click.echo(json.dumps(god_stats_json(result), indent=1))
    else:
        click.echo(format_god_matrix(result))
