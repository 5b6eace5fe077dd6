"""SPS, the Santorini Position String: parse, check, format (protocol.md section 2).

Parsing is staged as python-chess does it: the grammar (``re.fullmatch`` of protocol.md's
regex, field by field so the error names the field), then the semantic checks of
:func:`position_problems`, which lists *every* problem rather than the first.
"""

from __future__ import annotations

import re

from ..rules.gods import GODS, check_matchup
from ..rules.position import Position, _init
from ..rules.squares import SQUARE_NAMES, parse_square
from .errors import InvalidPositionError, MalformedPositionError, quote

__all__ = ["parse_sps", "format_sps", "position_problems", "START_SPS"]

START_SPS = "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"

_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_SIDE = rf"(?:-|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<g1>{_GOD})/(?P<g2>{_GOD});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<w1>{_SIDE})/(?P<w2>{_SIDE});(?P<stm>[12]);(?P<turn>[1-9][0-9]*)"
)
_FIELD_RES = [
    ("gods", re.compile(rf"{_GOD}/{_GOD}"), "GOD/GOD, e.g. mortal/athena"),
    ("board", re.compile(r"[0-4]{5}(?:/[0-4]{5}){4}"), "five rows of five digits 0-4 separated by '/'"),
    ("workers", re.compile(rf"{_SIDE}/{_SIDE}"), "two sides 'sq,sq' or '-', e.g. b3,d3/c2,c4"),
    ("side to move", re.compile(r"[12]"), "1 or 2"),
    ("turn", re.compile(r"[1-9][0-9]*"), "a positive integer"),
]
_GOD_STATE_RE = re.compile(r"(?P<name>[a-z]+)(?:\[(?P<state>[a-z0-9,]*)\])?")


def _grammar_error(text: str) -> MalformedPositionError:
    fields = text.split(";")
    if len(fields) != 5:
        return MalformedPositionError(
            f"malformed SPS {quote(text)}: expected 5 fields separated by ';' "
            f"(gods;board;workers;side;turn), got {len(fields)}"
        )
    for (name, regex, expected), field in zip(_FIELD_RES, fields):
        if not regex.fullmatch(field):
            return MalformedPositionError(f"malformed SPS {quote(text)}: {name} field {quote(field)}: expected {expected}")
    return MalformedPositionError(f"malformed SPS {quote(text)}")  # pragma: no cover - fields cover the regex


def parse_sps(text: str) -> Position:
    """Parse an SPS token into a :class:`Position`.

    Raises:
        MalformedPositionError: the text does not follow the SPS grammar (the message names the
            field).
        InvalidPositionError: well-formed but impossible (unknown god, workers on a dome, ...);
            the message lists every problem.
    """
    m = _SPS_RE.fullmatch(text)
    if m is None:
        raise _grammar_error(text)
    problems: list[str] = []
    gods: list[str] = []
    athena_up = False
    for side, token in (("player 1", m["g1"]), ("player 2", m["g2"])):
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
    for side in (m["w1"], m["w2"]):
        mask = 0
        if side != "-":
            a, b = (parse_square(s) for s in side.split(","))
            if a == b:
                problems.append(f"two workers on {SQUARE_NAMES[a]}")
            mask = (1 << a) | (1 << b)
        workers.append(mask)
    pos = object.__new__(Position)
    _init(pos, (gods[0], gods[1]), h[0], h[1], h[2], domes, (workers[0], workers[1]), int(m["stm"]) - 1, int(m["turn"]), athena_up)
    if not problems:
        problems = position_problems(pos)
    if problems:
        raise InvalidPositionError(f"invalid SPS {quote(text)}: " + "; ".join(problems))
    return pos


def position_problems(pos: Position) -> list[str]:
    """Every semantic problem of ``pos`` (protocol.md section 2, "Semantic checks")."""
    problems: list[str] = []
    try:
        check_matchup(*pos.gods)
    except ValueError as exc:
        problems.append(str(exc))
    w1, w2 = pos.workers
    for player, mask in ((1, w1), (2, w2)):
        if mask and mask.bit_count() != 2:
            problems.append(f"player {player} must have 0 or 2 workers, has {mask.bit_count()}")
        for sq in _squares(mask & pos.domes):
            problems.append(f"player {player}'s worker stands on a dome at {SQUARE_NAMES[sq]}")
    for sq in _squares(w1 & w2):
        problems.append(f"two workers on {SQUARE_NAMES[sq]}")
    if not w1 and w2:
        problems.append("player 2 has placed but player 1 has not (player 1 places first)")
    elif not w1 and pos.to_move == 1:
        problems.append("player 2 is to move but player 1 has not placed yet")
    elif w1 and not w2 and pos.to_move == 0:
        problems.append("player 1 is to move but player 2 has not placed yet")
    if not (w1 and w2) and pos.turn != 1:
        problems.append(f"placement happens on turn 1, got turn {pos.turn}")
    if pos.athena_up:
        if pos.gods[1 - pos.to_move] != "athena":
            problems.append("athena[up] is only written while Athena's opponent is to move")
        elif not (w1 and w2):
            problems.append("athena[up] before both sides have placed: Athena cannot have moved")
    if pos.h2 & ~pos.h1 or pos.h3 & ~pos.h2 or (pos.h1 & pos.domes):
        problems.append("inconsistent level masks")  # only reachable through the raw constructor
    return problems


def _squares(mask: int) -> list[int]:
    return [sq for sq in range(25) if mask >> sq & 1]


def _side(mask: int) -> str:
    if not mask:
        return "-"
    return ",".join(sorted(SQUARE_NAMES[sq] for sq in _squares(mask)))


def format_sps(pos: Position) -> str:
    """The canonical SPS of ``pos``: workers in canonical order, Athena's state only when set."""
    g1, g2 = pos.gods
    if pos.athena_up:
        if g1 == "athena":
            g1 = "athena[up]"
        else:
            g2 = "athena[up]"
    digits = []
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    for sq in range(25):
        bit = 1 << sq
        if domes & bit:
            digits.append("4")
        else:
            digits.append(str((1 if h1 & bit else 0) + (1 if h2 & bit else 0) + (1 if h3 & bit else 0)))
    board = "/".join("".join(digits[r * 5 : r * 5 + 5]) for r in range(5))
    return f"{g1}/{g2};{board};{_side(pos.workers[0])}/{_side(pos.workers[1])};{pos.to_move + 1};{pos.turn}"

