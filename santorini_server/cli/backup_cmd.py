"""``santorini backup --data DIR OUT``: copy a server's data directory (SPEC.md section 16.1)."""

from __future__ import annotations

from pathlib import Path

import click

from ..server.backup import backup as backup_data
from ..server.store import StoreError
from .bot_cmd import DATA_OPTION

__all__ = ["backup"]


@click.command()
@click.argument("out", type=click.Path(path_type=Path))
@DATA_OPTION
def backup(out: Path, data_dir: Path) -> None:
    """Copy the server's database and record files to the new folder OUT, safely while it runs.

    OUT is itself a data directory: restore by stopping the server and copying OUT back to DIR
    (or start the server with --data OUT).
    """
    try:
        summary = backup_data(data_dir, out)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"backed up {data_dir} to {out}: the database and {summary.files} file(s), {summary.bytes} bytes")
