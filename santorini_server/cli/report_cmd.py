"""``santorini report``: a tournament's ``report.html`` (and its ``games/`` viewer files), made
again from its records, or made for any SGN file or msgpack archive."""

from __future__ import annotations

import contextlib
import mmap
import tempfile
from collections.abc import Iterator
from pathlib import Path

import click

from ..records import CorruptFrame, GameRecord, RecordError, encode_frame
from ..records.archive import iter_archive_frames, scan_archive
from ..records.convert import detect_format, sgn_lines
from ..records.sgn import iter_sgn
from ..tournament.config import STATE_FILE, TournamentConfig, load_settings
from ..tournament.output import ARCHIVE, SGN
from ..tournament.report import RecordsHead, ReportInfo, config_info
from ..tournament.report_files import GAMES_DIR, REPORT, ReportWriter
from .output_files import map_records, same_file

__all__ = ["report"]


def _scan(path: Path, scratch: Path) -> tuple[RecordsHead, Path]:
    """Read every game of a record file once, as a stream: what the report's head says of them,
    and the archive to read them back from: the file itself, or for an SGN file a scratch
    archive in ``scratch`` each game is framed into as it is read (so that no game is held).
    Damaged archive regions are skipped with a warning."""
    head = RecordsHead()
    data = map_records(path)
    archive = path if detect_format(data) == "msgpack" else scratch / ARCHIVE
    try:
        with open(archive, "wb") if archive != path else contextlib.nullcontext() as spool:
            for item in scan_archive(data) if spool is None else iter_sgn(sgn_lines(data)):
                if isinstance(item, CorruptFrame):
                    click.echo(f"Warning: {path}: skipped damaged bytes at {item.offset}: {item.reason}", err=True)
                    continue
                head.add(item)
                if spool is not None:
                    spool.write(encode_frame(item))
    except (RecordError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    return head, archive


def _numbered(archive: Path, head: RecordsHead) -> Iterator[tuple[int, GameRecord, int]]:
    """Each game of ``archive`` (intact frames) with its number and its frame's offset."""
    with open(archive, "rb") as f:
        place = 0
        for item in iter_archive_frames(f):
            if isinstance(item, CorruptFrame):
                continue
            frame, record = item
            place += 1
            yield head.number(record, place), record, frame.offset


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
    out = out_dir or folder
    with tempfile.TemporaryDirectory(prefix="santorini-report-") as scratch:
        head, archive = _scan(records_path, Path(scratch))
        try:
            info = info or head.info(records_path.stem)
        except ValueError as exc:
            raise click.ClickException(f"{records_path}: {exc}") from None
        if same_file(records_path, out / REPORT) or same_file(records_path.parent, out / GAMES_DIR):
            raise click.ClickException(f"{records_path} is where the report writes: choose another folder with --out DIR")
        writer = ReportWriter(out, info, archive=archive)
        try:
            out.mkdir(parents=True, exist_ok=True)
            for number, record, offset in _numbered(archive, head):
                writer.add(record, number, offset)
                writer.settle()  # the rows of many games are written as they come, not held
            writer.write_now()
        except OSError as exc:
            raise click.ClickException(f"cannot write the report in {out}: {exc.strerror or exc}") from None
        except ValueError as exc:  # a record the viewer cannot show at all; a GameNumber twice
            raise click.ClickException(f"{records_path}: {exc}") from None
        blocks = writer.blocks()
    games = head.count
    click.echo(f"Wrote {out / REPORT}: {games} games, {len(blocks)} viewer files in {out / GAMES_DIR}")
