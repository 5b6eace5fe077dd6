"""Time controls and clocks: pure arithmetic, no trio (the referee reads the time, we account it).

Grammar of a time control (the ``--tc`` flag and an engine spec's ``tc=``), cutechess-style,
several parts joined by ``,``:

=====================  =====================================================================
``60+0.5``             Fischer: 60 s on the clock, 0.5 s added after every turn
``0.2+0.002``          the same at bullet speed
``40/60+0``            60 s for every 40 turns (``movestogo`` is sent), no increment
``60``                 sudden death, no increment
``movetime=0.1``       a fixed 0.1 s per turn (hard deadline ``movetime + timemargin``)
``depth=6``            passed through to ``go``; a hard deadline still applies (``hard=``)
``nodes=20000``        passed through to ``go``; likewise
``hard=30``            the hard per-turn deadline, in seconds, for untimed turns (default 60)
``inf``                no clock at all (only with depth/nodes, or for analysis)
=====================  =====================================================================

Clock rule (SPEC.md section 4.5): the elapsed time of a turn is charged to the mover, then the
increment is added (placement turns included); the mover loses on time when its clock would go
below ``-timemargin``.  In ``movetime`` mode the turn loses when it takes longer than
``movetime + timemargin``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..rules.errors import quote

__all__ = ["TimeControl", "Clock", "parse_tc", "tc_warnings", "DEFAULT_HARD_DEADLINE_MS", "MAX_TC_SECONDS", "MAX_TC_COUNT"]

#: Per-turn hard deadline when nothing else bounds a turn (depth/nodes limits): engines that
#: ignore the limit must still lose eventually (fastchess#1029 asks for exactly this).
DEFAULT_HARD_DEADLINE_MS = 60_000

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_CLOCK_RE = re.compile(
    rf"(?:(?P<moves>[1-9]\d*)/)?(?P<base>{_NUMBER}|\d+:\d{{1,2}}(?:\.\d*)?)(?:\+(?P<inc>{_NUMBER}))?"
)


#: A comma between digits: a decimal comma (``2+0,02``), which the grammar reads as two parts.
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
#: The number holding the first decimal comma, and the character before it (what it is).
_COMMA_NUMBER = re.compile(r"(?P<before>^|[^\d.:,])(?P<number>[\d.:]*\d,\d[\d.:]*)")
#: Base times from this up are suspect (milliseconds or minutes typed where seconds are meant:
#: ``--tc 2000`` meant as 2 s); every base over an hour is among them.
SUSPECT_BASE_MS = 1_000_000
#: Longest time a time control gives (base, increment, movetime, hard): 10**9 s (about 31
#: years) is 10**12 ms, a whole number exact in a double, JSON, msgpack and any engine's int64.
MAX_TC_SECONDS = 10**9
#: Largest count a time control gives (``depth=``, ``nodes=``, the moves of ``40/60``): what an
#: engine's signed 64-bit integer holds, as they go to ``go`` as they are.
MAX_TC_COUNT = 2**63 - 1


class _TooLong(ValueError):
    """A time beyond :data:`MAX_TC_SECONDS` (its own message, not the grammar's)."""


def _seconds(text: str) -> float:
    if ":" in text:
        minutes, seconds = text.split(":")
        return int(minutes) * 60 + float(seconds)
    return float(text)


def _ms(text: str) -> int:
    """``text`` seconds in whole ms; beyond the bound (also ``1e400``, which floats to inf) is an error."""
    try:
        seconds = _seconds(text)
    except OverflowError:  # minutes:seconds with a minute count beyond a float
        seconds = math.inf
    if math.isnan(seconds):
        raise ValueError
    if not seconds <= MAX_TC_SECONDS:
        raise _TooLong
    return round(seconds * 1000)


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A parsed time control; ``str()`` spells it back (the SGN ``TimeControl`` tag)."""

    base_ms: int | None = None
    """Clock at the start (None: no clock)."""
    inc_ms: int = 0
    moves: int | None = None
    """Turns per period; the base is added again after each period."""
    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    hard_ms: int = DEFAULT_HARD_DEADLINE_MS

    def __str__(self) -> str:
        parts = []
        if self.base_ms is not None:
            clock = _fmt(self.base_ms)
            if self.moves:
                clock = f"{self.moves}/{clock}"
            if self.inc_ms:
                clock += "+" + _fmt(self.inc_ms)
            parts.append(clock)
        if self.movetime_ms is not None:
            parts.append(f"movetime={_fmt(self.movetime_ms)}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.hard_ms != DEFAULT_HARD_DEADLINE_MS:
            parts.append(f"hard={_fmt(self.hard_ms)}")
        return ",".join(parts) or "inf"

    @property
    def is_timed(self) -> bool:
        return self.base_ms is not None or self.movetime_ms is not None


def _fmt(ms: int) -> str:
    text = f"{ms / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def parse_tc(text: str) -> TimeControl:
    """Parse a time control (grammar in the module docstring).

    Raises:
        ValueError: a one-line message quoting the offending part.
    """
    if not text.strip():
        raise ValueError("empty time control (e.g. 60+0.5, 40/60, movetime=0.1, depth=6)")
    try:
        return _parse_parts(text)
    except ValueError:
        hint = _decimal_comma_hint(text)
        if hint is None:
            raise
        raise ValueError(hint) from None


def _decimal_comma_hint(text: str) -> str | None:
    """The error for a time control that is valid once its decimal commas are points, else None.

    ``2+0,02`` reads as the parts ``2+0`` and ``02``; quoting the part ``'02'`` sends the user
    the wrong way, so the whole number is quoted and the decimal point named.
    """
    fixed = _DECIMAL_COMMA.sub(".", text)
    m = _COMMA_NUMBER.search(text)
    if fixed == text or m is None:
        return None
    try:
        _parse_parts(fixed)
    except ValueError:
        return None
    before = m["before"]
    if before == "+":
        what = "increment"
    elif before == "=":  # movetime=, hard=
        what = text[: m.start("number")].rsplit(",", 1)[-1].rstrip("=")
    else:
        what = "base time"
    return (
        f"bad time control {text!r}: the {what} {m['number']!r} has a decimal comma; "
        f"write a decimal point: {fixed!r}"
    )


def _count(text: str) -> int:
    """A positive count that fits an engine's 64-bit integer (:data:`MAX_TC_COUNT`)."""
    count = int(text)
    if not 1 <= count <= MAX_TC_COUNT:
        raise ValueError
    return count


def _parse_parts(text: str) -> TimeControl:
    base = moves = movetime = depth = nodes = None
    inc = 0
    hard = DEFAULT_HARD_DEADLINE_MS
    for part in text.split(","):
        part = part.strip()
        key, sep, value = part.partition("=")
        try:
            if part == "inf":
                continue
            if not sep:
                m = _CLOCK_RE.fullmatch(part)
                if m is None or base is not None:
                    raise ValueError
                base = _ms(m["base"])
                inc = _ms(m["inc"]) if m["inc"] else 0
                moves = _count(m["moves"]) if m["moves"] else None
                if base <= 0:
                    raise ValueError
            elif key in ("movetime", "st"):
                movetime = _ms(value)
                if movetime <= 0:
                    raise ValueError
            elif key == "depth":
                depth = _count(value)
            elif key == "nodes":
                nodes = _count(value)
            elif key == "hard":
                hard = _ms(value)
                if hard <= 0:
                    raise ValueError
            else:
                raise ValueError
        except _TooLong:
            raise ValueError(
                f"bad time control part {quote(part)}: a time is at most {MAX_TC_SECONDS:,} s (about 31 years)"
            ) from None
        except ValueError:
            raise ValueError(
                f"bad time control part {part!r} in {text!r} "
                "(expected e.g. 60+0.5, 40/60+0, movetime=0.1, depth=6, nodes=20000, hard=30, inf)"
            ) from None
    if base is not None and movetime is not None:
        raise ValueError(f"time control {text!r} has both a clock and movetime: choose one")
    return TimeControl(base, inc, moves, movetime, depth, nodes, hard)


def tc_warnings(tc: TimeControl) -> list[str]:
    """What is legal in a time control but likely a slip: a base of 1,000 s or more (``--tc 2000``
    is 2,000 s, not 2; so is every base over an hour), an increment larger than the base.  One
    line each, for the command to print."""
    warnings = []
    if tc.base_ms is not None and tc.base_ms >= SUSPECT_BASE_MS:
        minutes = tc.base_ms / 60_000
        span = f"{minutes:.0f} minutes" if minutes < 120 else f"{minutes / 60:.1f} hours"
        warnings.append(f"time control {str(tc)!r} gives {_fmt(tc.base_ms)} s ({span}) on the clock: times are in seconds")
    if tc.base_ms is not None and tc.inc_ms > tc.base_ms:
        warnings.append(
            f"time control {str(tc)!r} adds {_fmt(tc.inc_ms)} s a turn, more than its {_fmt(tc.base_ms)} s base"
        )
    return warnings


@dataclass(slots=True)
class Clock:
    """One player's clock in one game.  ``remaining_ms`` may go negative by up to the margin."""

    tc: TimeControl
    margin_ms: int = 0
    remaining_ms: float = 0.0
    turns: int = 0

    def __post_init__(self) -> None:
        self.remaining_ms = float(self.tc.base_ms or 0)

    @property
    def wire_ms(self) -> int | None:
        """The clock as ``go`` states it: whole ms, never negative; None without a clock."""
        return max(0, int(self.remaining_ms)) if self.tc.base_ms is not None else None

    @property
    def movestogo(self) -> int | None:
        """Turns left in this period (``go movestogo``), or None without periods."""
        if not self.tc.moves:
            return None
        return self.tc.moves - self.turns % self.tc.moves

    def allowance_ms(self) -> float:
        """How long the mover may think before it has lost (the per-turn deadline)."""
        tc = self.tc
        if tc.movetime_ms is not None:
            return tc.movetime_ms + self.margin_ms
        if tc.base_ms is not None:
            return max(0.0, self.remaining_ms + self.margin_ms)
        return float(tc.hard_ms)

    def charge(self, elapsed_ms: float) -> float | None:
        """Charge a finished turn; return the overrun in ms if it lost on time, else None.

        Fischer: subtract, check against ``-margin``, then add the increment (and the base
        again at the end of a period).
        """
        tc = self.tc
        self.turns += 1
        if tc.movetime_ms is not None:
            over = elapsed_ms - tc.movetime_ms
            return over if over > self.margin_ms else None
        if tc.base_ms is None:
            return elapsed_ms - tc.hard_ms if elapsed_ms > tc.hard_ms else None
        self.remaining_ms -= elapsed_ms
        if self.remaining_ms < -self.margin_ms:
            return -self.remaining_ms
        self.remaining_ms += tc.inc_ms
        if tc.moves and self.turns % tc.moves == 0:
            self.remaining_ms += tc.base_ms
        return None
