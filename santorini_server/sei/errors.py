"""SEI protocol errors, split by whose fault it is (as h11 splits Local/RemoteProtocolError).

The split matters to the caller: a :class:`RemoteProtocolError` is the engine's fault and feeds
the game result (the game layer decides which termination tag), a :class:`LocalProtocolError` is
a referee bug and should never be caught and ignored.  Both put the connection in ``ERROR``.
"""

from __future__ import annotations

__all__ = [
    "MAX_QUOTE_LENGTH",
    "SeiProtocolError",
    "LocalProtocolError",
    "RemoteProtocolError",
    "quote",
]

#: Longest excerpt of an offending line quoted in an error message.  Messages end up in logs and
#: game records; 200 characters identify the line without letting a 256 KiB garbage line through.
MAX_QUOTE_LENGTH = 200


def quote(text: str | bytes) -> str:
    """Return ``repr(text)``, cut to :data:`MAX_QUOTE_LENGTH` characters of input.

    ``repr`` keeps control characters and replacement characters visible; the cut keeps error
    messages small whatever the engine sent.
    """
    if len(text) <= MAX_QUOTE_LENGTH:
        return repr(text)
    return f"{text[:MAX_QUOTE_LENGTH]!r}... ({len(text)} in all)"


class SeiProtocolError(ValueError):
    """Base of the SEI protocol errors; abstract: raise a subclass.

    A ``ValueError`` because the problem is a bad value (a line or a command), so generic
    ``except ValueError`` code around parsing keeps working.
    """

    def __init__(self, msg: str) -> None:
        if type(self) is SeiProtocolError:
            raise TypeError(
                "SeiProtocolError is abstract; raise LocalProtocolError or RemoteProtocolError"
            )
        super().__init__(msg)


class LocalProtocolError(SeiProtocolError):
    """We (the referee) broke the protocol: a bad command value, or a command the state forbids."""


class RemoteProtocolError(SeiProtocolError):
    """The engine broke the protocol: a malformed, overlong or out-of-sequence line."""
