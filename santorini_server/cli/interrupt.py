"""Ctrl-C as the commands see it: bare, or wrapped in an exception group by a trio nursery.

trio delivers ``KeyboardInterrupt`` to whichever task is running; raised inside a nursery, it
leaves ``trio.run`` inside a ``BaseExceptionGroup``.  A command that caught only the bare
exception printed a traceback and exited 1 instead of its one line and 130.
"""

from __future__ import annotations

__all__ = ["is_interrupt", "INTERRUPTED_STATUS"]

#: The shell's status for a program ended by SIGINT (128 + 2).
INTERRUPTED_STATUS = 130


def is_interrupt(exc: BaseException) -> bool:
    """True for a Ctrl-C: bare, or an exception group that holds one."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    return isinstance(exc, BaseExceptionGroup) and exc.subgroup(KeyboardInterrupt) is not None
