"""Dask worker preload: refuse to start a worker that advertises an engine it cannot run.

``dask worker ... --preload santorini_server.backends.dask_preload`` (what ``santorini worker``
runs, also as ``--preload-nanny``) calls :func:`dask_setup` before the worker joins the scheduler.  A worker whose engines
file names a missing program would otherwise accept games and lose every one of them, so it is
better not to start at all, with a message that says which engine and why.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import threading
from typing import Any

from .dask_worker import ENGINES_ENV, close_host, host, load_engines_file

__all__ = ["check_engines", "dask_setup", "dask_teardown", "LOCAL_WORKER_ENV"]

#: Set (to 1) in the workers of a coordinator's own LocalCluster.
LOCAL_WORKER_ENV = "SANTORINI_LOCAL_WORKER"


def check_engines(path: str | os.PathLike[str]) -> list[str]:
    """The engine names of the file at ``path``, each checked to be runnable here.

    Raises:
        ValueError: one line naming the file, the engine and what is missing.
    """
    engines = load_engines_file(path)
    for name, spec in engines.items():
        if spec.bundled is not None and importlib.util.find_spec("santorini_engines") is None:
            raise ValueError(f"{path}: engine {name!r}: the bundled engines are not installed (pip install santorini-server)")
        program = spec.argv[0]
        if os.sep in program:
            full = program if os.path.isabs(program) or spec.cwd is None else os.path.join(spec.cwd, program)
            if not os.path.isfile(full):
                raise ValueError(f"{path}: engine {name!r}: program {full} not found")
            if not os.access(full, os.X_OK):
                raise ValueError(f"{path}: engine {name!r}: program {full} is not executable")
        elif shutil.which(program) is None:
            raise ValueError(f"{path}: engine {name!r}: program {program!r} not found on PATH")
        if spec.cwd is not None and not os.path.isdir(spec.cwd):
            raise ValueError(f"{path}: engine {name!r}: dir={spec.cwd} is not a directory")
    return sorted(engines)


def dask_setup(server: Any) -> None:
    """Check this machine's engines, then (in a worker) start the engine host.

    Used as ``--preload-nanny`` (checked before any worker process starts: a clean one-line
    refusal) and as ``--preload`` (also for a LocalCluster).  Dask logs and ignores a preload's
    exceptions, so the refusal is a ``SystemExit``, which stops the process.
    """
    path = os.environ.get(ENGINES_ENV)
    if path:
        try:
            check_engines(path)
        except ValueError as exc:
            raise SystemExit(f"santorini worker refused: {exc}") from None
    if type(server).__name__ != "Nanny":
        if os.environ.get(LOCAL_WORKER_ENV) == "1" and threading.current_thread() is threading.main_thread():
            # a coordinator's own local cluster: a terminal's Ctrl-C reaches the whole process
            # group, and it is the coordinator's to handle (abort, then close these workers)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        host()  # the first game's engines start without waiting for the host's thread


def dask_teardown(server: Any) -> None:
    """Close this worker's engines through the process layer's bounded shutdown."""
    if type(server).__name__ != "Nanny":
        close_host()
