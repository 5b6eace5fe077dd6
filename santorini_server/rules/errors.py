"""Notation errors, graded as python-chess grades them: malformed text versus illegal content.

All are ``ValueError``s whose message quotes the input with ``!r`` and, where a position is
involved, its SPS, so a one-line report says exactly what was wrong and where.
"""

from __future__ import annotations

__all__ = [
    "NotationError",
    "MalformedPositionError",
    "InvalidPositionError",
    "MalformedTurnError",
    "IllegalTurnError",
]

#: Longest piece of offending input quoted in a message (engines may send megabytes).
MAX_QUOTED = 120


def quote(text: str) -> str:
    """``repr`` of ``text``, cut to :data:`MAX_QUOTED` characters."""
    if len(text) > MAX_QUOTED:
        return repr(text[:MAX_QUOTED]) + f"... ({len(text)} characters)"
    return repr(text)


class NotationError(ValueError):
    """Base of every SPS/STN problem; never raised itself."""

    def __init__(self, *args: object) -> None:
        if type(self) is NotationError:
            raise TypeError("NotationError is abstract; raise a subclass")
        super().__init__(*args)


class MalformedPositionError(NotationError):
    """The text is not an SPS token at all (fails the grammar of SPEC.md section 2.1)."""


class InvalidPositionError(NotationError):
    """Well-formed SPS that describes an impossible position (semantic checks)."""


class _TurnError(NotationError):
    """A rejected turn; :attr:`reason` is why, in a few words, without the quoted input."""

    def __init__(self, message: str, *, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        """Why the turn was rejected (what a referee appends to the quoted turn), or ``""``."""

    def __reduce__(self) -> tuple[object, ...]:  # keep the reason across pickling (process pools)
        return _rebuild, (type(self), str(self), self.reason)


def _rebuild(cls: type[_TurnError], message: str, reason: str) -> _TurnError:
    return cls(message, reason=reason)


class MalformedTurnError(_TurnError):
    """The text is not an STN token (fails the grammar of SPEC.md section 3.1)."""


class IllegalTurnError(_TurnError):
    """A well-formed turn that is not a legal complete turn in the given position."""
