"""SPS, the Santorini Position String: read and write (SPEC.md section 2).

Reading is staged as python-chess does it: the grammar (``re.fullmatch`` of the SPS regex,
field by field so the error names the field), then the checks a single token can fail (an
unknown god, a god state that god does not have, two workers written on one square).  What the
text spells comes back as raw :class:`SpsFields`; :func:`santorini_server.rules.parse_sps` turns
them into a ``Position``, whose ``problems()`` are the semantic checks of the whole position.
This module never builds a ``Position``, so ``position.py`` imports it and not the reverse.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from .errors import InvalidPositionError, MalformedPositionError, quote
from .gods import GODS
from .squares import SQUARE_NAMES, parse_square, scan

if TYPE_CHECKING:
    from .position import Position

__all__ = ["START_SPS", "MAX_TURN", "SpsFields", "read_sps", "format_sps", "invalid_sps"]

START_SPS = "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"

#: Largest turn counter an SPS may hold (games end within ~100 turns): it keeps the counter a
#: small integer, and a long digit string from reaching Python's int-string limit (a traceback).
#: The record reader bounds a ``Start`` tag's counter by it too.
MAX_TURN = 10**9 - 1
_TURN = rf"[1-9][0-9]{{0,{len(str(MAX_TURN)) - 1}}}"

_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_GROUP = rf"(?:-|x|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<gods>{_GOD}(?:/{_GOD}){{1,3}});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<workers>{_GROUP}(?:/{_GROUP}){{1,3}});(?P<stm>[1-4]);(?P<turn>{_TURN})"
)
_FIELD_RES = [
    ("gods", re.compile(rf"{_GOD}(?:/{_GOD}){{1,3}}"), "GOD/GOD, one god per seat (2-4), e.g. mortal/athena"),
    ("board", re.compile(r"[0-4]{5}(?:/[0-4]{5}){4}"), "five rows of five digits 0-4 separated by '/'"),
    ("workers", re.compile(rf"{_GROUP}(?:/{_GROUP}){{1,3}}"), "groups 'sq,sq' or '-' separated by '/', e.g. b3,d3/c2,c4"),
    ("side to move", re.compile(r"[1-4]"), "a seat number 1-4"),
    ("turn", re.compile(_TURN), f"a positive integer up to {MAX_TURN}"),
]
_GOD_STATE_RE = re.compile(r"(?P<name>[a-z]+)(?:\[(?P<state>[a-z0-9,]*)\])?")


class SpsFields(NamedTuple):
    """What an SPS token spells, as the raw values a ``Position`` holds (see its attributes)."""

    gods: tuple[str, ...]
    h1: int
    h2: int
    h3: int
    domes: int
    workers: tuple[int, ...]
    to_move: int
    turn: int
    athena_up: bool
    eliminated: int


def _grammar_error(text: str) -> MalformedPositionError:
    fields = text.split(";")
    if len(fields) != 5:
        return MalformedPositionError(
            f"malformed SPS {quote(text)}: expected 5 fields separated by ';' "
            f"(gods;board;workers;side;turn), got {len(fields)}"
        )
    for (name, regex, expected), field in zip(_FIELD_RES, fields, strict=True):
        if not regex.fullmatch(field):
            return MalformedPositionError(
                f"malformed SPS {quote(text)}: {name} field {quote(field)}: expected {expected}"
            )
    return MalformedPositionError(f"malformed SPS {quote(text)}")  # pragma: no cover - fields cover the regex


def invalid_sps(text: str, problems: list[str]) -> InvalidPositionError:
    """The error for well-formed SPS with ``problems`` (one message listing every problem)."""
    return InvalidPositionError(f"invalid SPS {quote(text)}: " + "; ".join(problems))


def read_sps(text: str) -> SpsFields:
    """The raw fields of an SPS token, with the checks of each token on its own.

    Raises:
        MalformedPositionError: the text does not follow the SPS grammar (the message names the
            field).
        InvalidPositionError: a token is impossible on its own (unknown god, a state its god
            does not have, two workers on one square); the message lists every such problem.
    """
    m = _SPS_RE.fullmatch(text)
    if m is None:
        raise _grammar_error(text)
    tokens = m["gods"].split("/")
    n = len(tokens)
    groups = m["workers"].split("/")
    _check_seats(text, n, groups, m["stm"])
    problems: list[str] = []
    gods: list[str] = []
    athena_up = False
    for seat, token in enumerate(tokens, 1):
        side = f"player {seat}" if n == 2 else f"seat {seat}"
        gm = _GOD_STATE_RE.fullmatch(token)
        assert gm is not None
        name, state = gm["name"], gm["state"]
        gods.append(name)
        if name not in GODS:
            problems.append(f"unknown god {name!r} for {side} (expected one of {', '.join(GODS)})")
        if state is not None:
            if name != "athena":
                problems.append(f"{side}'s god {name!r} has no state, got [{state}]")
            elif state != "up":
                problems.append(f"Athena's only state is [up], got [{state}]")
            else:
                athena_up = True
    h = [0, 0, 0]
    domes = 0
    for i, ch in enumerate(m["board"].replace("/", "")):
        level = int(ch)
        if level == 4:
            domes |= 1 << i
        else:
            for k in range(level):
                h[k] |= 1 << i
    workers = []
    eliminated = 0
    for g, group in enumerate(groups):
        mask = 0
        if group == "x":
            eliminated |= 1 << g
        elif group != "-":
            a, b = (parse_square(s) for s in group.split(","))
            if a == b:
                problems.append(f"two workers on {SQUARE_NAMES[a]}")
            mask = (1 << a) | (1 << b)
        workers.append(mask)
    stm = int(m["stm"])
    if problems:
        raise invalid_sps(text, problems)
    return SpsFields(tuple(gods), h[0], h[1], h[2], domes, tuple(workers), stm - 1, int(m["turn"]), athena_up, eliminated)


def _check_seats(text: str, n: int, groups: list[str], stm: str) -> None:
    """The grammar's seat-count rules (SPEC.md section 15.4): the gods say how many seats there are,
    and so how many worker groups, whether ``x`` may appear, and which seat may be to move."""
    want = 2 if n == 4 else n
    if len(groups) != want:
        what = "one per team: A (seats 1, 3) then B (seats 2, 4)" if n == 4 else "one per seat"
        raise MalformedPositionError(
            f"malformed SPS {quote(text)}: workers field: {n} gods need {want} worker groups ({what}), got {len(groups)}"
        )
    if n != 3 and "x" in groups:
        raise MalformedPositionError(
            f"malformed SPS {quote(text)}: workers field: 'x' (an eliminated seat) is only written with three seats"
        )
    if int(stm) > n:
        raise MalformedPositionError(
            f"malformed SPS {quote(text)}: side to move field {quote(stm)}: expected a seat 1-{n} (one seat per god)"
        )


def _side(mask: int) -> str:
    if not mask:
        return "-"
    return ",".join(sorted(SQUARE_NAMES[sq] for sq in scan(mask)))


def format_sps(pos: Position) -> str:
    """The canonical SPS of ``pos``: workers in canonical order, Athena's state only when set."""
    gods = list(pos.gods)
    if pos.athena_up:
        i = gods.index("athena")
        gods[i] = "athena[up]"
    digits = []
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    for sq in range(25):
        bit = 1 << sq
        if domes & bit:
            digits.append("4")
        else:
            digits.append(str((1 if h1 & bit else 0) + (1 if h2 & bit else 0) + (1 if h3 & bit else 0)))
    board = "/".join("".join(digits[r * 5 : r * 5 + 5]) for r in range(5))
    out = pos.eliminated
    groups = "/".join("x" if out >> g & 1 else _side(w) for g, w in enumerate(pos.workers))
    return f"{'/'.join(gods)};{board};{groups};{pos.to_move + 1};{pos.turn}"
