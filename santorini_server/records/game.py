"""The game record: one finished (or aborted) game as an immutable value.

A :class:`GameRecord` is what the game layer hands to the writers and what replay reads back.
It holds tag pairs (PGN's "seven tag roster" idea, with our own names) and one
:class:`TurnRecord` per turn played. Turns and positions are *opaque* strings here: the record
layer checks only that a turn is one SGN-safe token, and the rules engine re-validates every turn
during replay (SPEC.md section 14.1: "A record is a regression test"). Keeping the rules out
of this layer means a record that the rules later reject can still be stored, read and shown.

Validation happens in ``__post_init__`` so that every value that exists can be written as SGN
and msgpack and read back equal: both formats are lossless by construction, and the checks below
are exactly the conditions under which that holds (no control characters, no braces in turn
comments, bounded integers, required tags present).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from ..termination import Termination

__all__ = [
    "RecordError",
    "TurnRecord",
    "GameRecord",
    "RESULTS",
    "REQUIRED_TAGS",
    "TAG_ORDER",
    "MAX_COUNT",
    "start_side_and_turn",
    "check_tag",
    "check_text",
    "clean_text",
]


class RecordError(ValueError):
    """A value cannot be a game record (bad tag, bad turn field, bad file contents).

    Base of :class:`~santorini_server.records.sgn.SgnError` and
    :class:`~santorini_server.records.archive.ArchiveError`, so a caller that only wants to
    report "this record is bad" catches one type.
    """


#: Results as written in SGN and in the ``Result`` tag. ``*`` = unfinished or aborted (not scored).
RESULTS: tuple[str, ...] = ("1-0", "0-1", "*")

#: ``Termination`` values: the tags of :class:`~santorini_server.termination.Termination`.
_TERMINATION_TAGS: frozenset[str] = frozenset(t.value for t in Termination)

#: Tags every record carries: the ones SPEC.md section 13.1 marks required. The referee also
#: writes ``Ruleset`` and ``TerminationDetail``, but the sample SGN game has neither, so a record
#: read from elsewhere may lack them.
REQUIRED_TAGS: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "Player1", "Player2", "Gods",
    "Start", "TimeControl", "Result", "Termination",
)

#: Order used by :meth:`GameRecord.build` (stored records keep whatever order they were given).
TAG_ORDER: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "GameNumber", "Player1", "Player2", "Gods", "Ruleset",
    "Start", "Opening", "TimeControl", "Result", "Termination", "TerminationDetail",
)

#: Largest integer in a turn's telemetry (time, depth, nodes). Bounded so that SGN numbers stay
#: at most 18 digits (parsing never meets Python's int-string limit) and msgpack needs no bigint.
MAX_COUNT = 10**18 - 1

_TAG_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# One SGN-safe token. STN turns use a-e, 1-5, "-", "x", ",", "+", "D" (SPEC.md section 3.1);
# we admit any letters and digits so the rules engine, not this layer, reports a bad turn. A turn
# must hold a letter: every STN turn names a square, and it cannot then be confused with a move
# number ("12.") or a result ("1-0").
_TURN_RE = re.compile(r"[A-Za-z0-9+,\-]*[A-Za-z][A-Za-z0-9+,\-]*")
# Engine score: "score cp <x>" -> "+21"/"-3"/"0", "score win <n>" -> "win/1", "-win/3"
# (SPEC.md section 13.1: ``score``). No leading zeros, at most 18 digits.
_NUM = r"(?:0|[1-9][0-9]{0,17})"
_SCORE_RE = re.compile(rf"[+-]?(?:win/{_NUM}|{_NUM})")
# The SPS grammar of SPEC.md section 2.1 (syntax only; the rules engine checks meaning at replay).
_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_SIDE = rf"(?:-|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<g1>{_GOD})/(?P<g2>{_GOD});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<w1>{_SIDE})/(?P<w2>{_SIDE});(?P<stm>[12]);(?P<turn>[1-9][0-9]*)"
)
# A turn counter beyond this is not a game (games end within ~100 turns); the bound keeps move
# numbers small integers.
_MAX_START_TURN = 10**9 - 1
_GODS_RE = re.compile(r"[a-z]+/[a-z]+")
_GAME_NUMBER_RE = re.compile(r"[1-9][0-9]{0,17}")
# Unicode categories that cannot appear in a tag value or comment: control characters (they
# would break lines or be invisible), surrogates (not encodable as UTF-8), line/paragraph
# separators (some tools split lines on them).
_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def _bad_char(text: str) -> int:
    """Index of the first character a record text may not contain, or -1."""
    if text.isascii() and text.isprintable():
        return -1  # the usual text: printable ASCII holds none of the bad categories
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in _BAD_CATEGORIES:
            return i
    return -1


def check_text(what: str, text: object, *, braces: bool = True) -> str:
    """Return ``text`` if it may be stored as a tag value (or, ``braces=False``, a comment).

    Raises:
        RecordError: not a str, or it holds a control/separator character (or a brace, for
            comments, since ``}`` would end the SGN comment early).
    """
    if not isinstance(text, str):
        raise RecordError(f"{what} must be a str, not {type(text).__name__}: {text!r}")
    i = _bad_char(text)
    if i >= 0:
        raise RecordError(f"{what} holds a control character {text[i]!r} at index {i}: {text!r}")
    if not braces and ("{" in text or "}" in text):
        raise RecordError(f"{what} may not contain braces: {text!r}")
    return text


def clean_text(text: str, *, braces: bool = True) -> str:
    """Make arbitrary text (engine output, an exception message) storable.

    Control and separator characters become spaces; with ``braces=False`` braces become
    parentheses. The game layer uses this before putting foreign text into a record, so a
    misbehaving engine cannot make a record unwritable.
    """
    out = "".join(" " if unicodedata.category(ch) in _BAD_CATEGORIES else ch for ch in text)
    if not braces:
        out = out.replace("{", "(").replace("}", ")")
    return out


def _check_count(what: str, value: object) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value <= MAX_COUNT:
        raise RecordError(f"{what} must be None or an int in 0..{MAX_COUNT}: {value!r}")
    return value


def start_side_and_turn(start: str) -> tuple[int, int]:
    """Side to move (1 or 2) and full-turn counter of a ``Start`` tag value.

    SGN numbers its movetext from these, as PGN continues a FEN's fullmove number.

    Raises:
        RecordError: ``start`` is neither ``startpos`` nor an SPS (syntax only).
    """
    if start == "startpos":
        return 1, 1
    m = _SPS_RE.fullmatch(start)
    if m is None:
        raise RecordError(f"Start must be 'startpos' or an SPS: {start!r}")
    if len(m["turn"]) > len(str(_MAX_START_TURN)):
        raise RecordError(f"Start has a turn counter out of range: {start!r}")
    return int(m["stm"]), int(m["turn"])


def _check_tag_value(name: str, value: str) -> None:
    """Syntax of the tags whose meaning this layer relies on (the rest are free text)."""
    if name == "Result" and value not in RESULTS:
        raise RecordError(f"Result must be one of {', '.join(RESULTS)}: {value!r}")
    if name == "Termination" and value not in _TERMINATION_TAGS:
        raise RecordError(f"Termination must be one of {', '.join(Termination)}: {value!r}")
    if name == "Start":
        start_side_and_turn(value)
    if name == "Gods" and _GODS_RE.fullmatch(value) is None:
        raise RecordError(f"Gods must be 'god1/god2' in lowercase: {value!r}")
    if name == "GameNumber" and _GAME_NUMBER_RE.fullmatch(value) is None:
        raise RecordError(f"GameNumber must be a positive integer: {value!r}")


def check_tag(name: object, value: object) -> None:
    """Raise :class:`RecordError` unless ``[name "value"]`` may appear in a record."""
    if type(name) is str and type(value) is str:
        _check_str_tag(name, value)  # remembered: most tags repeat from game to game
        return
    _check_tag(name, value)


@functools.lru_cache(maxsize=4096)
def _check_str_tag(name: str, value: str) -> None:
    _check_tag(name, value)  # a bad tag raises, and errors are not cached


def _check_tag(name: object, value: object) -> None:
    if not isinstance(name, str) or _TAG_NAME_RE.fullmatch(name) is None:
        raise RecordError(f"bad tag name {name!r} (letters, digits, '_', starting with a letter)")
    check_text(f"tag {name}", value)
    assert isinstance(value, str)
    _check_tag_value(name, value)


class TurnRecord(msgspec.Struct, frozen=True):
    """One turn as played, with the telemetry the referee measured or the engine reported.

    A ``msgspec.Struct`` (constructor in C): one is made for every turn of every game and every
    turn read from a file, and each is checked (the checks are written inline, one test per field).
    """

    turn: str
    """The turn token (canonical STN when written by the referee; checked at replay)."""
    time_ms: int | None = None
    """Wall time the referee measured for the turn, in whole milliseconds."""
    score: str | None = None
    """Engine's last score: ``+21`` (cp units), ``win/1``, ``-win/3``."""
    depth: int | None = None
    """Engine's last reported search depth, in turns."""
    nodes: int | None = None
    """Engine's last reported node count."""
    comment: str | None = None
    """Free text (no braces, no control characters)."""

    def __post_init__(self) -> None:
        if type(self.turn) is not str or _TURN_RE.fullmatch(self.turn) is None:
            raise RecordError(
                f"turn must be one token of letters, digits and '+,-' holding a letter: {self.turn!r}"
            )
        for what, value in (("time_ms", self.time_ms), ("depth", self.depth), ("nodes", self.nodes)):
            if value is not None and (type(value) is not int or not 0 <= value <= MAX_COUNT):
                _check_count(what, value)
        if self.score is not None and (type(self.score) is not str or _SCORE_RE.fullmatch(self.score) is None):
            raise RecordError(f"score must look like '+21', '-3', 'win/1' or '-win/3': {self.score!r}")
        if self.comment is not None:
            check_text("comment", self.comment, braces=False)



@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole game: ordered tag pairs plus the turns, hashable and comparable by value.

    Build one with :meth:`build` (tags in the canonical order) or directly from a tag tuple
    (order kept exactly, which is what makes SGN round trips byte-exact).
    """

    tags: tuple[tuple[str, str], ...]
    """Tag pairs in file order; names unique; :data:`REQUIRED_TAGS` present."""
    turns: tuple[TurnRecord, ...] = field(default=())
    """Turns in the order played, starting with the side to move in ``Start``."""

    def __post_init__(self) -> None:
        try:
            tags = tuple((name, value) for name, value in self.tags)
        except (TypeError, ValueError):
            raise RecordError(f"tags must be (name, value) pairs: {self.tags!r}") from None
        seen: set[str] = set()
        for name, value in tags:
            check_tag(name, value)
            if name in seen:
                raise RecordError(f"duplicate tag {name!r}")
            seen.add(name)
        missing = [t for t in REQUIRED_TAGS if t not in seen]
        if missing:
            raise RecordError(f"missing required tag(s): {', '.join(missing)}")
        turns = tuple(self.turns)
        for t in turns:
            if not isinstance(t, TurnRecord):
                raise RecordError(f"turns must be TurnRecord values: {t!r}")
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "turns", turns)

    @classmethod
    def build(
        cls,
        *,
        event: str,
        site: str,
        date: str,
        round: str,
        player1: str,
        player2: str,
        gods: str,
        ruleset: str,
        start: str,
        time_control: str,
        result: str,
        termination: str,
        termination_detail: str,
        opening: str | None = None,
        game_number: int | None = None,
        extra_tags: Iterable[tuple[str, str]] = (),
        turns: Iterable[TurnRecord] = (),
    ) -> GameRecord:
        """The referee's constructor: every tag it writes, in :data:`TAG_ORDER`, extras last."""
        values = {
            "Event": event, "Site": site, "Date": date, "Round": round,
            "GameNumber": None if game_number is None else str(game_number),
            "Player1": player1, "Player2": player2, "Gods": gods, "Ruleset": ruleset,
            "Start": start, "Opening": opening, "TimeControl": time_control, "Result": result,
            "Termination": termination, "TerminationDetail": termination_detail,
        }
        tags = [(name, values[name]) for name in TAG_ORDER if values[name] is not None]
        return cls(tuple(tags) + tuple(extra_tags), tuple(turns))  # type: ignore[arg-type]

    def tag(self, name: str, default: str | None = None) -> str | None:
        """Value of tag ``name``, or ``default`` if absent."""
        for n, v in self.tags:
            if n == name:
                return v
        return default

    def _required(self, name: str) -> str:
        value = self.tag(name)
        assert value is not None  # guaranteed by __post_init__
        return value

    @property
    def result(self) -> str:
        """``1-0``, ``0-1`` or ``*``."""
        return self._required("Result")

    @property
    def termination(self) -> str:
        """A :class:`~santorini_server.termination.Termination` tag's text."""
        return self._required("Termination")

    @property
    def termination_detail(self) -> str | None:
        """Human-readable reason (``loses on time by 37 ms``), if recorded."""
        return self.tag("TerminationDetail")

    @property
    def players(self) -> tuple[str, str]:
        """(Player1, Player2) names."""
        return self._required("Player1"), self._required("Player2")

    @property
    def gods(self) -> tuple[str, str]:
        """(player 1's god, player 2's god), e.g. ``("mortal", "mortal")``."""
        g1, g2 = self._required("Gods").split("/")
        return g1, g2

    @property
    def start(self) -> str:
        """``startpos`` or the starting SPS."""
        return self._required("Start")

    @property
    def ruleset(self) -> str | None:
        """``santorini-base-v1`` etc., if recorded."""
        return self.tag("Ruleset")

    @property
    def opening(self) -> str | None:
        """Opening-book label, if any."""
        return self.tag("Opening")

    @property
    def game_number(self) -> int | None:
        """Index of the game in its tournament schedule, if recorded."""
        value = self.tag("GameNumber")
        return None if value is None else int(value)
