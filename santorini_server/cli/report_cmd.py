"""``santorini report``: a tournament's ``report.html`` (and its ``games/`` viewer files), made
again from its records, or made for any SGN file or msgpack archive."""

from __future__ import annotations

import mmap
from pathlib import Path

import click

from ..records import CorruptFrame, GameRecord, RecordError, iter_records, map_file
from ..tournament.config import STATE_FILE, TournamentConfig, load_settings
from ..tournament.output import ARCHIVE, SGN
from ..tournament.report import ReportInfo, config_info, game_blocks, numbered, records_info
from ..tournament.report_files import GAMES_DIR, REPORT, ReportWriter
from .output_files import same_file

__all__ = ["report"]


def _read(path: Path) -> list[GameRecord]:
    """Every game of a record file; damaged archive regions are skipped with a warning."""
    try:
        with open(path, "rb") as f:
            data = map_file(f)
    except IsADirectoryError:
        raise click.ClickException(f"{path} is a directory, not a game record file") from None
    except OSError as exc:
        raise click.ClickException(f"cannot read {path}: {exc.strerror or exc}") from None
    records = []
    try:
        for item in iter_records(data):
            if isinstance(item, CorruptFrame):
                click.echo(f"Warning: {path}: skipped damaged bytes at {item.offset}: {item.reason}", err=True)
            else:
                records.append(item)
    except (RecordError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return records


def _tournament_info(folder: Path) -> ReportInfo | None:
    """The report head of a tournament folder's saved settings (None: there are none)."""
    if not (folder / STATE_FILE).exists():
        return None
    try:
        return config_info(TournamentConfig.from_settings(load_settings(folder)), folder.resolve().name)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


@click.command()
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for report.html and games/ (default: the tournament folder, or the record file's folder).")
def report(source: Path, out_dir: Path | None) -> None:
    """Write report.html for a tournament folder, an SGN file or a msgpack archive.

    The page shows the standings and crosstable, a chart of each engine's score over the games,
    the terminations, and every game: a link opens it in the game viewer (games/, 100 games a
    file).  It needs no server and no network: open it from disk.  A tournament writes its
    report by itself as games finish; this makes it again, or makes one for any record file.

    \b
    Examples:
      santorini report tournaments/20261130-041500
      santorini report games.sgn --out pages/
    """
    if source.is_dir():
        records_path = source / ARCHIVE if (source / ARCHIVE).exists() else source / SGN
        if not records_path.exists():
            raise click.ClickException(f"{source} holds no {ARCHIVE} or {SGN}")
        info = _tournament_info(source)
        folder = source
    else:
        records_path, info, folder = source, None, source.parent
    games = numbered(_read(records_path))
    try:
        info = info or records_info(records_path.stem, games)
    except ValueError as exc:
        raise click.ClickException(f"{records_path}: {exc}") from None
    out = out_dir or folder
    writer = ReportWriter(out, info)
    for number, record in games:
        writer.add(record, number)
    written = [out / REPORT, *(out / block.path for block in game_blocks((n for n, _ in games), writer.block_size))]
    if any(same_file(records_path, path) for path in written):  # the records are never replaced
        raise click.ClickException(f"{records_path} is a file the report writes: choose another folder with --out DIR")
    try:
        out.mkdir(parents=True, exist_ok=True)
        writer.write_now()
    except OSError as exc:
        raise click.ClickException(f"cannot write the report in {out}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a record the viewer cannot show at all
        raise click.ClickException(f"{records_path}: {exc}") from None
    blocks = len(game_blocks((n for n, _ in games), writer.block_size))
    click.echo(f"Wrote {out / REPORT}: {len(games)} games, {blocks} viewer files in {out / GAMES_DIR}")
