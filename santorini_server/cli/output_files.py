"""Files a command writes at a path the user names: the one rule for replacing them.

``convert``, ``replay --html`` and ``show --svg`` replace an existing file only with ``--force``
(one line otherwise, before any work), and a command never writes over the records it reads.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path
from typing import Any

import click

from ..records import map_file
from ..records.convert import format_of_name

__all__ = ["SGN_OUT", "map_records", "refuse_existing", "same_file"]


def map_records(path: Path) -> bytes | mmap.mmap:
    """The record file at ``path``, mapped (``records.map_file``) for a command to read as a
    stream; what cannot be read is the one-line error.

    Raises:
        click.ClickException: a folder, a missing or unreadable file.
    """
    try:
        with open(path, "rb") as f:
            return map_file(f)
    except IsADirectoryError:
        raise click.ClickException(f"{path} is a directory, not a game record file") from None
    except OSError as exc:
        raise click.ClickException(f"cannot read {path}: {exc.strerror or exc}") from None


def refuse_existing(out: Path, force: bool) -> None:
    """Raise the one-line error for an ``out`` that exists, unless ``force``."""
    if out.exists() and not force:
        raise click.ClickException(f"{out} exists: pass --force to replace it")


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (a link or another spelling of the path included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (or cannot be examined): not the same file
        return False


class _SgnOut(click.Path):
    """``--out`` of ``match`` and ``play``: the SGN file the games are appended to.  A name that
    says it is an archive (``.msgpack``) is refused, not filled with SGN text under that name."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        if format_of_name(path) == "msgpack":
            self.fail(
                f"{path} names an archive, and games are appended as SGN text: name it .sgn "
                f"(santorini convert FILE.sgn FILE.msgpack makes the archive)", param, ctx,
            )
        return path


SGN_OUT = _SgnOut()
