"""``santorini backup``: a consistent copy of a data directory, taken while the daemon runs (SPEC.md section 16.1).

The database is copied with SQLite's ``VACUUM INTO`` (one read transaction: a consistent snapshot
whatever the writer does meanwhile), *then* the record files are copied. In that order the
records copied hold every game the copied database indexes, and perhaps a few more, which the
daemon indexes when it starts on the restored directory (a game is never in the index without
its record). Everything is written into a hidden sibling of ``OUT`` and renamed to ``OUT`` at the
end, so ``OUT`` is either a whole backup or absent. A backup is itself a data directory:
restoring is copying it back (or pointing ``--data`` at it).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .store import DB_FILE, Store, StoreError

__all__ = ["BackupSummary", "backup"]

#: The database and SQLite's companions: the database is copied by VACUUM INTO, these never.
_DATABASE_FILES = frozenset({DB_FILE, f"{DB_FILE}-wal", f"{DB_FILE}-shm", f"{DB_FILE}-journal"})


@dataclass(frozen=True, slots=True)
class BackupSummary:
    """What a backup holds."""

    files: int
    """Record (and other) files copied besides the database."""
    bytes: int
    """Total size of the backup, database included."""


def backup(data_dir: Path, out: Path) -> BackupSummary:
    """Copy ``data_dir`` (database and files) to the new folder ``out``.

    Raises:
        StoreError: ``out`` exists or lies inside ``data_dir``; no database in ``data_dir``; a
            file could not be copied (one line; nothing is left at ``out``).
    """
    data_dir, out = Path(data_dir), Path(out)
    if out.exists() or out.is_symlink():
        raise StoreError(f"{out} exists: a backup goes to a new folder")
    if out.resolve().is_relative_to(data_dir.resolve()):
        raise StoreError(f"{out} is inside {data_dir}: put the backup elsewhere")
    if not out.parent.is_dir():
        raise StoreError(f"{out.parent} is not a folder")
    partial = out.parent / f".{out.name}.partial-{os.getpid()}"
    with Store(data_dir, readonly=True) as store:
        try:
            partial.mkdir(mode=0o700)
            store.vacuum_into(partial / DB_FILE)
            files = _copy_files(data_dir, partial)
            os.rename(partial, out)
        except (OSError, sqlite3.Error) as exc:
            shutil.rmtree(partial, ignore_errors=True)
            raise StoreError(f"backup to {out} failed: {exc}") from None
    total = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    return BackupSummary(files, total)


def _copy_files(source: Path, target: Path) -> int:
    """Copy every regular file under ``source`` but the database, keeping modes and times."""
    copied = 0
    for folder, dirnames, filenames in os.walk(source):
        relative = Path(folder).relative_to(source)
        for name in dirnames:
            (target / relative / name).mkdir(mode=0o700, exist_ok=True)
        for name in filenames:
            path = Path(folder) / name
            if (relative == Path(".") and name in _DATABASE_FILES) or not path.is_file() or path.is_symlink():
                continue
            shutil.copy2(path, target / relative / name)
            copied += 1
    return copied
