"""Files a command writes at a path the user names: the one rule for replacing them.

``convert``, ``replay --html`` and ``show --svg`` replace an existing file only with ``--force``
(one line otherwise, before any work), and a command never writes over the records it reads.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

__all__ = ["refuse_existing", "same_file"]


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
