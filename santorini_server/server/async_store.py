"""The daemon's store facade: one writer thread, read-only readers (SPEC.md section 16.1).

Every write runs on one connection through ``trio.to_thread.run_sync`` with a
``CapacityLimiter(1)`` (one writer, in order), every read on a read-only connection of its own, so
the trio loop never blocks on the disk and a read never waits for a write (WAL).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import trio

from .store import Store

__all__ = ["AsyncStore"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class AsyncStore:
    """The daemon's store: writes in order on one thread, reads on read-only connections.

    ``await store.write(Store.add_remote_bot, "alpha")`` runs the method on the writer connection
    through ``trio.to_thread.run_sync`` under a ``CapacityLimiter(1)``, so writes never overlap and
    never block the trio loop; ``await store.read(Store.bots)`` runs on a read-only connection from
    a small pool (a read never waits for a write, thanks to WAL). A read-only connection refuses
    writes, so a write passed to :meth:`read` fails instead of racing the writer.
    """

    def __init__(self, writer: Store, readers: int = 4) -> None:
        self._writer = writer
        self.data_dir = writer.data_dir
        self._write_limiter = trio.CapacityLimiter(1)
        self._read_limiter = trio.CapacityLimiter(readers)
        self._idle: list[Store] = []
        self._lock = threading.Lock()

    @classmethod
    async def open(cls, data_dir: Path, readers: int = 4) -> AsyncStore:
        """Open (creating and migrating if need be) the store of ``data_dir`` off the trio loop."""
        writer = await trio.to_thread.run_sync(functools.partial(Store, data_dir, create=True))
        return cls(writer, readers)

    async def write(self, fn: Callable[Concatenate[Store, _P], _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn(writer_store, *args, **kwargs)`` on the one writer thread."""
        return await trio.to_thread.run_sync(functools.partial(fn, self._writer, *args, **kwargs), limiter=self._write_limiter)

    async def read(self, fn: Callable[Concatenate[Store, _P], _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn(reader_store, *args, **kwargs)`` on a read-only connection, in a worker thread."""
        return await trio.to_thread.run_sync(functools.partial(self._read, fn, *args, **kwargs), limiter=self._read_limiter)

    def _read(self, fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
        with self._lock:
            reader = self._idle.pop() if self._idle else None
        if reader is None:
            reader = Store(self.data_dir, readonly=True)
        try:
            return fn(reader, *args, **kwargs)
        finally:
            with self._lock:
                self._idle.append(reader)

    def close(self) -> None:
        """Close every connection (after the last read and write)."""
        with self._lock:
            for reader in self._idle:
                reader.close()
            self._idle.clear()
        self._writer.close()
