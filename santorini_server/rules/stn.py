"""STN, the Santorini Turn Notation: parse, format, canonicalise (SPEC.md section 3).

Theory of operation (SPEC.md section 3.3): parse with the STN
regex (``re.fullmatch``, never ``$``), canonicalise the spelling against the position (placement
order, ``x`` versus ``-``, Demeter's build order, a needless ``D``, Hermes' endpoint labels),
then look the canonical text up among the legal turns that start with the same step
(:func:`first_step_masks` gives the generator's filters).  The lookup itself is
``Position.play``'s: this module reads positions but never builds one, so ``position.py``
imports it and not the reverse.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import MalformedTurnError, quote
from .squares import BB_ALL, CANONICAL_KEY, SQUARE_NAMES, parse_square

if TYPE_CHECKING:
    from .position import Position

__all__ = ["TurnText", "parse_stn", "format_stn", "canonical_stn", "first_step_masks", "malformed_reason", "respell_stn"]

_SQ = r"[a-e][1-5]"
_PLACE_RE = re.compile(rf"(?P<w1>{_SQ}),(?P<w2>{_SQ})")
_STAY_RE = re.compile(rf"\+(?P<b1>{_SQ})")
_TURN_RE = re.compile(
    rf"(?:\+(?P<pre>{_SQ}))?"
    rf"(?P<frm>{_SQ})(?P<op>[-x])(?P<to>{_SQ})(?:-(?P<to2>{_SQ}))?"
    rf"(?:,(?P<frm_b>{_SQ})-(?P<to_b>{_SQ}))?"
    rf"(?:\+(?P<b1>{_SQ})(?P<d1>D)?(?:\+(?P<b2>{_SQ})(?P<d2>D)?)?)?"
)


@dataclass(frozen=True, slots=True)
class TurnText:
    """The syntax of one STN token, before any position is consulted.

    Squares are names (``"c3"``); ``builds`` pairs each build square with its ``D`` flag.
    """

    place: tuple[str, str] | None = None
    pre: str | None = None
    frm: str | None = None
    op: str = "-"
    to: str | None = None
    to2: str | None = None
    frm_b: str | None = None
    to_b: str | None = None
    builds: tuple[tuple[str, bool], ...] = ()

    def __str__(self) -> str:
        return format_stn(self)


def parse_stn(text: str) -> TurnText:
    """Parse the syntax of an STN token (legality is the rules engine's business).

    Raises:
        MalformedTurnError: ``text`` is not STN.
    """
    m = _PLACE_RE.fullmatch(text)
    if m:
        return TurnText(place=(m["w1"], m["w2"]))
    m = _STAY_RE.fullmatch(text)
    if m:
        return TurnText(builds=((m["b1"], False),))
    m = _TURN_RE.fullmatch(text)
    if m is None:
        why = malformed_reason(text)
        raise MalformedTurnError(f"malformed turn {quote(text)}: {why}", reason=why)
    builds: tuple[tuple[str, bool], ...] = ()
    if m["b1"]:
        builds = ((m["b1"], bool(m["d1"])),)
        if m["b2"]:
            builds += ((m["b2"], bool(m["d2"])),)
    return TurnText(
        pre=m["pre"], frm=m["frm"], op=m["op"], to=m["to"], to2=m["to2"], frm_b=m["frm_b"], to_b=m["to_b"],
        builds=builds,
    )


#: The usual slips, each with what to say (the first that fits is said).
_SLIPS = (
    (re.compile(r"\s"), "no spaces inside a turn"),
    (re.compile(r"[A-E][1-5]"), "squares are lowercase"),
    (re.compile(r"\+[a-e][1-5]d(?![1-5])"), "a dome is a capital D (+c3D)"),
    (re.compile(r"(?:^|[^+a-e1-5])[a-e][1-5][a-e][1-5]"), "squares of a move are joined by '-' (b3-b4), of a placement by ','"),
)
_SQUARE_LIKE = re.compile(r"[a-wyz][0-9]{1,3}")  # (x is the capture mark; a bounded quote: engines may send megabytes)
_SQUARE = re.compile(_SQ)


def malformed_reason(text: str) -> str:
    """Why ``text`` is not STN, in a few words: the first usual slip that fits, else the grammar's
    examples.  Positionless (what the text should have been is the caller's business)."""
    if not text:
        return "an empty turn"
    for pattern, why in _SLIPS:
        if pattern.search(text):
            return why
    for m in _SQUARE_LIKE.finditer(text):
        if not _SQUARE.fullmatch(m[0]):
            return f"{m[0]} is not a square (files a-e, ranks 1-5)"
    return "not STN (e.g. b3,d3 or b3-b4+c5)"


def respell_stn(text: str) -> str:
    """The STN a person most likely meant: no spaces, lowercase squares, ``D`` for a dome.

    STN itself is strict (SPEC.md section 3: ``B3-C3+D4`` is malformed); this is for people
    typing turns and for explaining an engine's slip, never for accepting one.
    """
    t = "".join(text.split()).lower()
    return re.sub(r"(\+[a-e][1-5])d", r"\1D", t)


def format_stn(turn: TurnText) -> str:
    """The STN text of ``turn`` as spelled (use :func:`canonical_stn` to normalise first)."""
    if turn.place:
        return ",".join(turn.place)
    out = []
    if turn.pre:
        out.append("+" + turn.pre)
    if turn.frm:
        out.append(f"{turn.frm}{turn.op}{turn.to}")
        if turn.to2:
            out.append("-" + turn.to2)
        if turn.frm_b:
            out.append(f",{turn.frm_b}-{turn.to_b}")
    for sq, dome in turn.builds:
        out.append("+" + sq + ("D" if dome else ""))
    return "".join(out)


def _key(name: str) -> int:
    return CANONICAL_KEY[parse_square(name)]


def canonical_stn(pos: Position, turn: TurnText) -> TurnText:
    """Normalise an accepted spelling to the canonical one for ``pos`` (SPEC.md section 3)."""
    if turn.place:
        a, b = turn.place
        return TurnText(place=(a, b) if _key(a) <= _key(b) else (b, a))
    god = pos.gods[pos.to_move]
    theirs = pos.sides()[1]
    op = turn.op
    frm, to, frm_b, to_b = turn.frm, turn.to, turn.frm_b, turn.to_b
    if to is not None:
        op = "x" if theirs >> parse_square(to) & 1 else "-"  # rule 3
    if god == "hermes" and frm is not None and turn.to2 is None and turn.pre is None:
        starts = {frm} | ({frm_b} if frm_b else set())
        ends = {to} | ({to_b} if to_b else set())
        if len(starts) == len(ends):  # rule 7: endpoints, vacated paired with occupied
            vacated = sorted(starts - ends)
            occupied = sorted(ends - starts)  # type: ignore[type-var]
            pairs = list(zip(vacated, occupied, strict=True))
            frm, to = pairs[0] if pairs else (None, None)
            frm_b, to_b = pairs[1] if len(pairs) > 1 else (None, None)
            op = "-"
    builds = turn.builds
    h3 = pos.h3
    # rule 6: a D on a square already at level 3 is the ordinary dome
    builds = tuple((sq, dome and not h3 >> parse_square(sq) & 1) for sq, dome in builds)
    if god == "demeter" and len(builds) == 2 and builds[0][0] != builds[1][0]:
        builds = tuple(sorted(builds, key=lambda b: _key(b[0])))  # rule 5
    return TurnText(pre=turn.pre, frm=frm, op=op, to=to, to2=turn.to2, frm_b=frm_b, to_b=to_b, builds=builds)


_BIT = {name: 1 << sq for sq, name in enumerate(SQUARE_NAMES)}


def first_step_masks(pos: Position, text: str) -> tuple[int, int] | None:
    """The generator's ``frm_mask``/``to_mask`` for the turns ``text`` may spell in ``pos``.

    None when ``text`` does not have the shape of the phase's turns (a placement during the
    moves, or the reverse, or not STN at all).  Hermes' endpoint labels need not be a real
    first step, so for Hermes every turn is a candidate.
    """
    if pos.is_placement:
        m = _PLACE_RE.fullmatch(text)
        return None if m is None else (_BIT[m["w1"]], _BIT[m["w2"]])
    m = _TURN_RE.fullmatch(text)
    if m is None:
        return (BB_ALL, BB_ALL) if _STAY_RE.fullmatch(text) else None
    if pos.gods[pos.to_move] == "hermes":
        return BB_ALL, BB_ALL
    return _BIT[m["frm"]], _BIT[m["to"]]
