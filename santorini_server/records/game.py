"""The game record: one finished (or aborted) game as an immutable value.

A :class:`GameRecord` is what the game layer hands to the writers and what replay reads back.
It holds tag pairs (PGN's "seven tag roster" idea, with our own names) and one
:class:`TurnRecord` per turn played. Turns and positions are *opaque* strings here: the record
layer checks only that a turn is one SGN-safe token, and the rules engine re-validates every turn
during replay (SPEC.md section 14.1: "A record is a regression test"). Keeping the rules out
of this layer means a record that the rules later reject can still be stored, read and shown.

Three and four seats (SPEC.md section 13.4): ``Player3``/``Player4`` tags, placings in
``Result``, and the :class:`Elimination` of each seat that left a three-seat game while it went
on. Those are recorded explicitly, so this layer knows whose turn each entry is (the
:class:`SeatCycle`) without the rules.

Validation happens in ``__post_init__`` so that every value that exists can be written as SGN
and msgpack and read back equal: both formats are lossless by construction, and the checks below
are exactly the conditions under which that holds (no control characters, no braces in turn
comments, bounded integers, required tags present).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import msgspec

from ..rules.sps import MAX_TURN
from ..termination import Termination

__all__ = [
    "RecordError",
    "TurnRecord",
    "Elimination",
    "GameRecord",
    "Slot",
    "SeatCycle",
    "RESULTS",
    "ELIMINATION_TERMINATIONS",
    "placings_result",
    "result_placings",
    "check_placings",
    "REQUIRED_TAGS",
    "TAG_ORDER",
    "MAX_COUNT",
    "start_side_and_turn",
    "start_state",
    "check_tag",
    "check_text",
    "check_label",
    "MAX_LABEL",
    "clean_text",
]


class RecordError(ValueError):
    """A value cannot be a game record (bad tag, bad turn field, bad file contents).

    Base of :class:`~santorini_server.records.sgn.SgnError` and
    :class:`~santorini_server.records.archive.ArchiveError`, so a caller that only wants to
    report "this record is bad" catches one type.
    """


#: Two-seat results as written in SGN and in the ``Result`` tag. ``*`` = unfinished or aborted (not
#: scored). Three and four seats write placings instead (``1-3-2``, ``2-1-2-1``) or ``*``.
RESULTS: tuple[str, ...] = ("1-0", "0-1", "*")
#: A placings result: one placing per seat in seat order (3 or 4 seats).
_PLACINGS_RE = re.compile(r"[1-4](?:-[1-4]){2,3}")

#: ``Termination`` values: the tags of :class:`~santorini_server.termination.Termination`.
_TERMINATION_TAGS: frozenset[str] = frozenset(t.value for t in Termination)
#: How a seat can leave a three-seat game that goes on: every loss (no turn, a fault, resigning);
#: a win ends the game and ``aborted`` is no one's loss.
ELIMINATION_TERMINATIONS: frozenset[str] = _TERMINATION_TAGS - {Termination.CLIMB, Termination.PAN_DROP, Termination.ABORTED}

#: Tags every record carries: the ones SPEC.md section 13.1 marks required. The referee also
#: writes ``Ruleset`` and ``TerminationDetail``, but the sample SGN game has neither, so a record
#: read from elsewhere may lack them.
REQUIRED_TAGS: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "Player1", "Player2", "Gods",
    "Start", "TimeControl", "Result", "Termination",
)

#: Order used by :meth:`GameRecord.build` (stored records keep whatever order they were given).
TAG_ORDER: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "GameNumber", "Player1", "Player2", "Player3", "Player4", "Gods", "Ruleset",
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
# The SPS grammar of SPEC.md sections 2.1 and 15 (syntax only; the rules engine checks meaning at
# replay): 2 to 4 gods, 2 or 3 worker groups, ``x`` for an eliminated seat, seat to move 1-4.
_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_SIDE = rf"(?:-|x|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<gods>{_GOD}(?:/{_GOD}){{1,3}});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<workers>{_SIDE}(?:/{_SIDE}){{1,2}});(?P<stm>[1-4]);(?P<turn>[1-9][0-9]*)"
)
# A turn counter beyond this is not a game: the SPS parser's bound.
_MAX_START_TURN = MAX_TURN
_GODS_RE = re.compile(r"[a-z]+(?:/[a-z]+){1,3}")
_GAME_NUMBER_RE = re.compile(r"[1-9][0-9]{0,17}")
# Unicode categories that cannot appear in a tag value or comment: control characters (they
# would break lines or be invisible), surrogates (not encodable as UTF-8), line/paragraph
# separators (some tools split lines on them).
_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# What the referee writes holds no format character either (invisible, and the bidi controls such
# as U+202E reorder the text around them, so a name could be made to look like another): a name
# or title given is refused (check_label), an engine's text has them turned into spaces
# (clean_text).  A record is not refused for one when read: records written before kept them.
_WRITTEN_BAD_CATEGORIES = _BAD_CATEGORIES | {"Cf"}
#: Longest name or title a user gives a record (an engine's name, a tournament's event): every
#: record of a run repeats it, so it is bounded where it is given (:func:`check_label`).
MAX_LABEL = 200


def _bad_char(text: str, bad: frozenset[str] = _BAD_CATEGORIES) -> int:
    """Index of the first character of a category in ``bad`` in ``text``, or -1."""
    if text.isascii() and text.isprintable():
        return -1  # the usual text: printable ASCII holds none of the bad categories
    for i, ch in enumerate(text):
        if unicodedata.category(ch) in bad:
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


def check_label(what: str, text: str) -> str:
    """Return ``text`` if it may be a name or title a user gives (an engine's name, an event):
    at most :data:`MAX_LABEL` characters, and a tag value (:func:`check_text`).  Checked where the
    text is given, not when a record is read, so a record written before the bound still reads.

    Raises:
        RecordError: one line (a text too long is not quoted).
    """
    if len(text) > MAX_LABEL:
        raise RecordError(f"{what} is {len(text):,} characters long: at most {MAX_LABEL}")
    i = _bad_char(text, _WRITTEN_BAD_CATEGORIES)
    if i >= 0 and unicodedata.category(text[i]) == "Cf":
        raise RecordError(f"{what} holds a format character {text[i]!r} at index {i}: {text!r}")
    return check_text(what, text)


def clean_text(text: str, *, braces: bool = True) -> str:
    """Make arbitrary text (engine output, an exception message) storable.

    Control and separator characters become spaces; with ``braces=False`` braces become
    parentheses. The game layer uses this before putting foreign text into a record, so a
    misbehaving engine cannot make a record unwritable.
    """
    out = "".join(" " if unicodedata.category(ch) in _WRITTEN_BAD_CATEGORIES else ch for ch in text)
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
    """Seat to move (1..N) and round counter of a ``Start`` tag value.

    SGN numbers its movetext from these, as PGN continues a FEN's fullmove number.

    Raises:
        RecordError: ``start`` is neither ``startpos`` nor an SPS (syntax only).
    """
    seat, turn, _, _ = start_state(start)
    return seat, turn


def start_state(start: str) -> tuple[int, int, int, int | None]:
    """``(seat to move, round, eliminated seats mask, seat count)`` of a ``Start`` tag value.

    The mask has bit ``k - 1`` for each seat ``k`` written ``x`` (three seats); the seat count is
    None for ``startpos`` (the ``Gods`` tag says it).

    Raises:
        RecordError: ``start`` is neither ``startpos`` nor an SPS (syntax only).
    """
    if start == "startpos":
        return 1, 1, 0, None
    m = _SPS_RE.fullmatch(start)
    if m is None:
        raise RecordError(f"Start must be 'startpos' or an SPS: {start!r}")
    if len(m["turn"]) > len(str(_MAX_START_TURN)):
        raise RecordError(f"Start has a turn counter out of range: {start!r}")
    eliminated = 0
    for k, group in enumerate(m["workers"].split("/")):
        if group == "x":
            eliminated |= 1 << k
    return int(m["stm"]), int(m["turn"]), eliminated, m["gods"].count("/") + 1


def placings_result(placings: Iterable[int]) -> str:
    """The ``Result`` text of a finished game's placings (one per seat, seat order, 1 = first).

    Two seats keep PGN's form: ``(1, 2)`` -> ``1-0``, ``(2, 1)`` -> ``0-1``; three and four seats
    join the placings: ``(1, 3, 2)`` -> ``1-3-2``.

    Raises:
        RecordError: not a possible outcome (:func:`check_placings`).
    """
    places = tuple(placings)
    check_placings(places)
    if len(places) == 2:
        return "1-0" if places[0] == 1 else "0-1"
    return "-".join(map(str, places))


def result_placings(result: str, nseats: int) -> tuple[int, ...] | None:
    """The placings a ``Result`` states for an ``nseats`` game, or None for ``*``.

    Raises:
        RecordError: ``result`` is not a result of an ``nseats`` game (the message says what is).
    """
    if result == "*":
        return None
    if nseats == 2:
        if result == "1-0":
            return (1, 2)
        if result == "0-1":
            return (2, 1)
        raise RecordError(f"a two-seat game's Result is 1-0, 0-1 or *: {result!r}")
    if _PLACINGS_RE.fullmatch(result) is None:
        raise RecordError(
            f"a {nseats}-seat game's Result is the seats' placings joined by '-' (like "
            f"{'1-3-2' if nseats == 3 else '2-1-2-1'}) or *: {result!r}"
        )
    places = tuple(int(p) for p in result.split("-"))
    if len(places) != nseats:
        raise RecordError(f"Result {result!r} has {len(places)} placings for a {nseats}-seat game")
    check_placings(places)
    return places


def check_placings(places: tuple[int, ...]) -> None:
    """Raise :class:`RecordError` unless ``places`` can end a game (SPEC.md section 15).

    Two seats: one wins. Three: one seat first, the others second and third or tied second.
    Four: teams (seats 1, 3) and (2, 4) share their placing, one team first, the other second.
    """
    n = len(places)
    if n not in (2, 3, 4):
        raise RecordError(f"a game has 2, 3 or 4 seats, got {n} placings: {places!r}")
    text = _dashed(places)
    if n == 4:
        if places[0] != places[2] or places[1] != places[3]:
            raise RecordError(f"placings {text}: teammates (seats 1 and 3, seats 2 and 4) share their placing")
        if sorted(places[:2]) != [1, 2]:
            raise RecordError(f"placings {text}: one team places 1 and the other 2")
        return
    if places.count(1) != 1:
        raise RecordError(f"placings {text}: exactly one seat places first")
    if n == 2 and sorted(places) != [1, 2]:
        raise RecordError(f"placings {text}: the seat that does not win places 2")
    if n == 3 and sorted(places) not in ([1, 2, 2], [1, 2, 3]):
        raise RecordError(f"placings {text}: after the winner the other two seats place 2 and 3, or tie at 2")


def _dashed(places: tuple[int, ...]) -> str:
    return "-".join(map(str, places))


def _check_tag_value(name: str, value: str) -> None:
    """Syntax of the tags whose meaning this layer relies on (the rest are free text)."""
    if name == "Result" and value not in RESULTS and _PLACINGS_RE.fullmatch(value) is None:
        raise RecordError(f"Result must be one of {', '.join(RESULTS)} or placings like 1-3-2: {value!r}")
    if name == "Termination" and value not in _TERMINATION_TAGS:
        raise RecordError(f"Termination must be one of {', '.join(Termination)}: {value!r}")
    if name == "Start":
        start_side_and_turn(value)
    if name == "Gods" and _GODS_RE.fullmatch(value) is None:
        raise RecordError(f"Gods must be 'god1/god2' (up to four gods, one per seat) in lowercase: {value!r}")
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



class Elimination(msgspec.Struct, frozen=True):
    """A seat leaving a three-seat game that goes on (SPEC.md section 13.2): "seat ``seat``
    eliminated by ``termination`` after turn ``after``".

    Every such elimination is recorded, a seat with no complete turn as well as a fault, so the
    movetext says whose turn each token is without the rules (a fault between turns takes effect
    at the start of the seat's next turn, so the eliminated seat is always the seat to move).
    The elimination that ends the game is not one of these: the ``Result``, ``Termination`` and
    ``TerminationDetail`` tags describe it, as in two-seat games.
    """

    after: int
    """How many turns of the record (placements included) were played before it."""
    seat: int
    """The eliminated seat, 1-based."""
    termination: str
    """Why: a loss's termination tag (:data:`ELIMINATION_TERMINATIONS`), e.g. ``time``, ``no-moves``."""
    detail: str | None = None
    """One line like ``TerminationDetail`` (no braces, no control characters)."""

    def __post_init__(self) -> None:
        if type(self.after) is not int or not 0 <= self.after <= MAX_COUNT:
            raise RecordError(f"elimination: after must be a turn count, not {self.after!r}")
        if type(self.seat) is not int or not 1 <= self.seat <= 4:
            raise RecordError(f"elimination: seat must be 1..4, not {self.seat!r}")
        if self.termination not in ELIMINATION_TERMINATIONS:
            raise RecordError(
                f"elimination: termination must be one of {', '.join(sorted(ELIMINATION_TERMINATIONS))}: "
                f"{self.termination!r}"
            )
        if self.detail is not None:
            check_text("elimination detail", self.detail, braces=False)


class Slot(NamedTuple):
    """One place in the movetext's seat cycle: a seat's turn or its elimination."""

    seat: int
    """The seat (1-based) whose turn it is."""
    round: int
    """The round counter (SGN's move number)."""
    opens_round: bool
    """Whether the slot is the round's first (SGN writes ``n.`` before it, else ``n...``)."""
    item: TurnRecord | Elimination


#: Builds a :class:`Slot` from a tuple without the named tuple's Python-level ``__new__`` (one per
#: turn written or replayed).
_slot = functools.partial(tuple.__new__, Slot)


class SeatCycle:
    """Whose turn comes next in the movetext, without the rules: the seats in turn order, the
    eliminated ones skipped, the round counter (SPEC.md section 15.2: +1 when the next seat has a
    lower number than the seat that just moved; an eliminated seat counts as having moved)."""

    __slots__ = ("eliminated", "nseats", "opens_round", "round", "seat")

    def __init__(self, nseats: int, seat: int, round: int, eliminated: int = 0) -> None:
        self.nseats = nseats
        self.seat = seat
        self.round = round
        self.eliminated = eliminated
        live = [k for k in range(1, nseats + 1) if not eliminated >> (k - 1) & 1]
        self.opens_round = bool(live) and seat == live[0]

    @classmethod
    def of(cls, nseats: int, start: str) -> SeatCycle:
        """The cycle from a ``Start`` tag value (raises RecordError as :func:`start_state`)."""
        seat, round, eliminated, _ = start_state(start)
        return cls(nseats, seat, round, eliminated)

    @property
    def live(self) -> int:
        """How many seats are still in."""
        return self.nseats - self.eliminated.bit_count()

    def advance(self, *, eliminate: bool = False) -> None:
        """Pass the move on after the current seat's slot (a turn, or ``eliminate``: it leaves)."""
        seat = self.seat
        if eliminate:
            self.eliminated |= 1 << (seat - 1)
        nxt = seat % self.nseats + 1
        while self.eliminated >> (nxt - 1) & 1 and nxt != seat:
            nxt = nxt % self.nseats + 1
        self.opens_round = nxt <= seat
        self.round += self.opens_round
        self.seat = nxt



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
    eliminations: tuple[Elimination, ...] = field(default=())
    """Three seats: the seats that left while the game went on, in order (:class:`Elimination`)."""

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
        eliminations = tuple(self.eliminations)
        for e in eliminations:
            if not isinstance(e, Elimination):
                raise RecordError(f"eliminations must be Elimination values: {e!r}")
        object.__setattr__(self, "tags", tags)
        object.__setattr__(self, "turns", turns)
        object.__setattr__(self, "eliminations", eliminations)
        self._check_seats(seen)

    def _check_seats(self, names: set[str]) -> None:
        """The tags and eliminations agree with the seat count the ``Gods`` tag gives."""
        n = self.nseats
        if n == 2 and not self.eliminations and "Player3" not in names and "Player4" not in names:
            if self.result not in RESULTS:
                result_placings(self.result, 2)  # raises: placings in a two-seat game
            _, _, _, sps_seats = start_state(self.start)
            if sps_seats not in (None, 2):
                raise RecordError(f"Start is a {sps_seats}-seat SPS but the Gods tag names 2 gods")
            return  # the two-seat record: nothing else to check
        for k in (3, 4):
            if k <= n and f"Player{k}" not in names:
                raise RecordError(f"missing required tag Player{k}: the Gods tag names {n} gods")
            if k > n and f"Player{k}" in names:
                raise RecordError(f"tag Player{k} in a {n}-seat game (the Gods tag names {n} gods)")
        result_placings(self.result, n)
        _, _, _, sps_seats = start_state(self.start)
        if sps_seats not in (None, n):
            raise RecordError(f"Start is a {sps_seats}-seat SPS but the Gods tag names {n} gods")
        if self.eliminations:
            if n != 3:
                raise RecordError(f"only three-seat games eliminate a seat while the game goes on; this one has {n}")
            for _ in self.slots():  # checks each elimination's place in the seat cycle
                pass

    def slots(self) -> Iterator[Slot]:
        """The movetext in order: each turn and elimination with its seat and round.

        Raises:
            RecordError: an elimination out of order, beyond the turns, naming a seat that is not
                to move, or leaving fewer than two seats (that one ends the game: the tags say it).
        """
        if not self.eliminations:
            yield from self._plain_slots()
            return
        cycle = SeatCycle.of(self.nseats, self.start)
        pending = iter(self.eliminations)
        elim = next(pending, None)
        last_after = 0
        for i in range(len(self.turns) + 1):
            while elim is not None and elim.after == i:
                if elim.seat != cycle.seat:
                    raise RecordError(
                        f"elimination after turn {i} names seat {elim.seat}, but seat {cycle.seat} is to move"
                    )
                if cycle.live <= 2:
                    raise RecordError(
                        f"elimination of seat {elim.seat} after turn {i} would leave one seat: the game's "
                        "last elimination is its Result and Termination, not an elimination"
                    )
                yield Slot(cycle.seat, cycle.round, cycle.opens_round, elim)
                cycle.advance(eliminate=True)
                last_after = elim.after
                elim = next(pending, None)
            if elim is not None and elim.after < last_after:
                raise RecordError(f"eliminations out of order: after turn {last_after}, then after turn {elim.after}")
            if i < len(self.turns):
                yield Slot(cycle.seat, cycle.round, cycle.opens_round, self.turns[i])
                cycle.advance()
        if elim is not None:
            raise RecordError(f"elimination after turn {elim.after}, but the record has {len(self.turns)} turns")

    def _plain_slots(self) -> Iterator[Slot]:
        """:meth:`slots` without eliminations: the live seats in turn, round after round (the
        path every two-seat record takes, so it does without :class:`SeatCycle`'s bookkeeping)."""
        seat, round, eliminated, _ = start_state(self.start)
        live = [k for k in range(1, self.nseats + 1) if not eliminated >> (k - 1) & 1]
        if seat not in live:  # an SPS with an eliminated seat to move: let the cycle say what it can
            cycle = SeatCycle(self.nseats, seat, round, eliminated)
            for t in self.turns:
                yield Slot(cycle.seat, cycle.round, cycle.opens_round, t)
                cycle.advance()
            return
        k = live.index(seat)
        last = len(live) - 1
        for t in self.turns:
            yield _slot((live[k], round, k == 0, t))
            if k == last:
                k = 0
                round += 1
            else:
                k += 1

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
        player3: str | None = None,
        player4: str | None = None,
        eliminations: Iterable[Elimination] = (),
    ) -> GameRecord:
        """The referee's constructor: every tag it writes, in :data:`TAG_ORDER`, extras last.

        ``player3``/``player4`` are required for three/four gods; ``result`` for three or four
        seats is :func:`placings_result` of the placings.
        """
        values = {
            "Event": event, "Site": site, "Date": date, "Round": round,
            "GameNumber": None if game_number is None else str(game_number),
            "Player1": player1, "Player2": player2, "Player3": player3, "Player4": player4,
            "Gods": gods, "Ruleset": ruleset,
            "Start": start, "Opening": opening, "TimeControl": time_control, "Result": result,
            "Termination": termination, "TerminationDetail": termination_detail,
        }
        tags = [(name, values[name]) for name in TAG_ORDER if values[name] is not None]
        return cls(tuple(tags) + tuple(extra_tags), tuple(turns), tuple(eliminations))  # type: ignore[arg-type]

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
        """``1-0``, ``0-1`` or ``*``; with three or four seats placings like ``1-3-2`` or ``*``."""
        return self._required("Result")

    @property
    def placings(self) -> tuple[int, ...] | None:
        """Each seat's placing in seat order (1 = first), None for ``*``; ``1-0`` is ``(1, 2)``."""
        return result_placings(self.result, self.nseats)

    @property
    def nseats(self) -> int:
        """How many seats the game has: the number of gods in the ``Gods`` tag (2, 3 or 4)."""
        return self._required("Gods").count("/") + 1

    @property
    def termination(self) -> str:
        """A :class:`~santorini_server.termination.Termination` tag's text."""
        return self._required("Termination")

    @property
    def termination_detail(self) -> str | None:
        """Human-readable reason (``loses on time by 37 ms``), if recorded."""
        return self.tag("TerminationDetail")

    @property
    def players(self) -> tuple[str, ...]:
        """The players' names in seat order: (Player1, Player2[, Player3[, Player4]])."""
        return tuple(self._required(f"Player{k}") for k in range(1, self.nseats + 1))

    @property
    def gods(self) -> tuple[str, ...]:
        """One god per seat in seat order, e.g. ``("mortal", "mortal")``."""
        return tuple(self._required("Gods").split("/"))

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
