"""Why a handshake never reached ``seiok``, in words an engine author can act on.

A handshake that times out used to say only "no seiok within 10 s", whether the engine wrote
nothing (its output sits in a buffer it never flushes), wrote ``SEIOK 1`` (keywords are
case-sensitive: SPEC.md, SEI "Transport"), or wrote a banner of debug text.  :class:`HandshakeTrace`
keeps what arrived (the first few lines, bounded) and :meth:`HandshakeTrace.explain` names the
likeliest mistake, quoting what was received.  Pure: the channel feeds it events.
"""

from __future__ import annotations

from ._readers import READERS
from .messages import EngineMessage, Unknown

__all__ = ["HandshakeTrace", "MAX_QUOTED_LINES", "MAX_QUOTED_CHARS"]

#: Lines of unexpected output quoted in the explanation (the rest are counted).
MAX_QUOTED_LINES = 3
#: Characters of each quoted line (an engine's banner can be a kilobyte of ASCII art).
MAX_QUOTED_CHARS = 60


def _quote(text: str) -> str:
    """``ascii`` (control characters and anything not ASCII escaped), cut to :data:`MAX_QUOTED_CHARS`."""
    return ascii(text) if len(text) <= MAX_QUOTED_CHARS else ascii(text[:MAX_QUOTED_CHARS]) + "..."


class HandshakeTrace:
    """What an engine said between ``sei`` and the end of the wait for ``seiok``."""

    __slots__ = ("understood", "unknown", "unknown_count")

    def __init__(self) -> None:
        self.understood = 0
        """Handshake lines read as the protocol means them (``id``, ``option``, ``gods``, ...)."""
        self.unknown: list[str] = []
        """The first :data:`MAX_QUOTED_LINES` lines the protocol does not define."""
        self.unknown_count = 0

    def saw(self, event: EngineMessage) -> None:
        if type(event) is Unknown:
            self.unknown_count += 1
            if len(self.unknown) < MAX_QUOTED_LINES:
                self.unknown.append(event.line)
        else:
            self.understood += 1

    @property
    def confusing(self) -> bool:
        """Whether anything arrived that the protocol does not define."""
        return self.unknown_count > 0

    def explain(self, partial: bytes = b"") -> str:
        """What arrived and the likely mistake; ``partial`` is output with no line end yet.

        In order: a keyword in the wrong case; an unterminated line; lines that are not SEI
        (quoted); handshake lines but no ``seiok``; nothing at all (unflushed output).
        """
        for line in self.unknown:
            word = line.split(maxsplit=1)[0] if line.split() else ""
            if word.lower() in READERS and word != word.lower():
                return f"got {_quote(line)}: keywords are lowercase"
        if partial.strip():
            text = partial.decode("utf-8", "replace")
            return f"got {_quote(text)} with no line end: end every line with a newline and flush"
        if self.unknown:
            quoted = ", ".join(_quote(line) for line in self.unknown)
            more = self.unknown_count - len(self.unknown)
            rest = f" and {more} more line{'s' if more > 1 else ''}" if more else ""
            return f"got {quoted}{rest}, none of them 'seiok 1'"
        if self.understood:
            lines = f"{self.understood} handshake line{'s' if self.understood > 1 else ''}"
            return f"got {lines} (id, option, gods, feature) but no 'seiok 1' to end them"
        return "no output at all: does the engine flush stdout after each line?"
