"""Durable files: an fsync'd append-only file, and whole files replaced atomically.

Both keep the promise the records make (SPEC.md section 10.4): what was reported
written is on disk, and a crash at any moment leaves either the old contents or the new, never a
half record. :class:`DurableAppender` is the base of the three record writers; each subclass
says only how to recognise and repair an interrupted last write of its own format.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO, Self

from .frames import ArchiveError

__all__ = ["DurableAppender", "atomic_file", "fsync_dir"]


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Make a newly created or renamed file's directory entry durable (POSIX needs the directory
    fsync'd); best effort, since some file systems refuse it."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Read once, at import (setting it is the only way to read it, and that is not thread safe).
_UMASK = _umask()


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], *, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file that replaces ``path`` only if the ``with`` block completes.

    Its permissions are ``mode`` if given, or else what ``open`` would give a new file (0666 less
    the umask): a temporary file alone would be 0600, and a report folder served by a web server
    or shared with a team must be readable as any file written the ordinary way.

    It is a temporary file in ``path``'s directory (so the rename cannot cross file systems);
    on success it is fsync'd and renamed over ``path``, on any exception it is removed. ``path``
    may be the file being read (the rename happens after the block).

    Raises:
        OSError: the temporary file cannot be created, written or renamed.
    """
    target = os.fspath(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp",
                               dir=os.path.dirname(target) or ".")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK if mode is None else mode)
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(target)


class DurableAppender:
    """An append-only file: one ``write`` per record, then ``fsync``; exclusive while open.

    Subclasses override :meth:`_recover` to cut or complete an interrupted last write when the
    file is opened, and add an ``append(record)`` built on :meth:`_append`.
    """

    def __init__(self, path: str | os.PathLike[str], *, durable: bool = True) -> None:
        """``durable=False`` skips the fsync after each append: for files that are rebuilt from
        a durable one after a crash (the tournament's SGN and JSON Lines are rebuilt from its
        archive), where an fsync per game would only cost time.

        Raises:
            ArchiveError: another process holds the file open for appending.
        """
        self.path = os.fspath(path)
        self.durable = durable
        existed = os.path.exists(self.path)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        self._lock = threading.Lock()
        try:
            try:
                import fcntl

                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except ImportError:  # pragma: no cover - not POSIX
                pass
            except BlockingIOError:
                raise ArchiveError(f"{self.path!r} is open for appending elsewhere") from None
            if not existed:
                fsync_dir(self.path)
            self._recover()
        except BaseException:
            os.close(self._fd)
            raise

    def _recover(self) -> None:
        """Subclasses: remove or repair an interrupted last write."""

    def _size(self) -> int:
        return os.fstat(self._fd).st_size

    def _read(self, offset: int, size: int) -> bytes:
        return os.pread(self._fd, size, offset)

    def _reader(self, offset: int = 0) -> Callable[[int], bytes]:
        """``read(n)`` over the file from byte ``offset`` (positioned reads: the file's own
        offset, at its end for appending, is not moved)."""
        at = offset

        def read(n: int) -> bytes:
            nonlocal at
            data = os.pread(self._fd, n, at)
            at += len(data)
            return data

        return read

    def _truncate(self, size: int) -> None:
        os.ftruncate(self._fd, size)
        os.fsync(self._fd)

    def _find_last(self, needle: bytes) -> int:
        """Offset of the last ``needle`` in the file, or -1; reads backwards in growing windows."""
        return self._find_last_before(needle, self._size())

    def _find_last_before(self, needle: bytes, size: int) -> int:
        """Offset of the last ``needle`` before byte ``size``, or -1 (growing windows backwards)."""
        window = 64 * 1024
        while True:
            start = max(0, size - window)
            pos = self._read(start, size - start).rfind(needle)
            if pos >= 0:
                return start + pos
            if start == 0:
                return -1
            window *= 4

    def _append(self, data: bytes) -> int:
        """Write ``data`` at the end in one ``write`` call (looping only on a short write), fsync;
        returns its offset.

        On failure the file is cut back to where it was, so no half record stays behind.
        """
        with self._lock:
            offset = os.lseek(self._fd, 0, os.SEEK_END)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
                if self.durable:
                    os.fsync(self._fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    self._truncate(offset)
                raise
            return offset

    def sync(self) -> None:
        """fsync what was appended (a writer opened with ``durable=False``, at a point that
        needs it: before a rebuilt file replaces another)."""
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file (idempotent). Everything appended is already on disk."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
