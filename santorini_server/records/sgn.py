"""SGN, the PGN-style text form of game records (SPEC.md section 13.2): parse and format.

Theory of operation
-------------------
A file is a sequence of games; a game is tag-pair lines, then movetext, then (usually) a blank
line. The reader is line driven so :func:`iter_sgn` can stream a large file; :func:`parse_sgn`
is the same reader over a string. Per game the states are *between games* -> *tags* (lines
``[Name "value"]``; blank lines are skipped) -> *movetext* (begun by the first other line) ->
back to *between* once the result token is read. Movetext is split into tokens: whitespace,
``{comment}``, and words; a word is a move number (``12.`` or ``12...``), a result (``1-0``,
``0-1``, ``*``, or placings such as ``1-3-2``), a turn, or an elimination (``eliminated:time``).
Move numbers are checked against the seat cycle (:class:`~.game.SeatCycle`) started from the
``Start`` tag, so a wrong or missing number is reported where it occurs.

Seats (SPEC.md section 13.4). One number per round, before its first slot; every seat still in
has a slot, a turn or its elimination, in seat order. Two seats are the special case PGN knows
(``n.`` before player 1, ``n...`` when player 2 begins the movetext). An elimination's comment is
its detail, verbatim.

Exactness. The writer emits one canonical text per record and the reader gives every record
back unchanged: ``parse_sgn(format_sgn(r)) == [r]`` for every :class:`GameRecord`, and
``format_sgn(parse_sgn(x)[0]) == x`` for canonical text ``x``. Non-canonical but unambiguous
input (extra spaces, other wrapping, ``0.870s``, ``2...`` after a comment) is accepted, and so
is a game lacking tags that only describe it (:data:`IMPORT_DEFAULTS`, read as unknown, as PGN's
import format reads a missing roster tag); the writer writes them, so its output is canonical.

Comment grammar (inside the braces; ``SP`` is one space)::

    body      = telemetry [ "," SP note ]      ; "{+21/6 0.87s}", "{win/1 0.05s, book}"
              | "," SP note                    ; note that would otherwise read as telemetry
              | note                           ; anything that does not parse as the above
    telemetry = [ slot1 ] [ SP time ] [ SP nodes ]   (fields space-separated, in this order)
    slot1     = score [ "/" depth ]            ; "+21/6", "-3", "win/1", "-win/3/12"
              | "d=" depth                     ; depth without a score
    score     = [ "+" | "-" ] ( "win/" N | N )
    time      = SECONDS "." 2*3DIGIT "s"       ; exact milliseconds, see below
    nodes     = "n=" N
    N         = "0" | nonzero-digit *17DIGIT   ; no leading zeros, at most 18 digits

The first ``", "`` ends the telemetry; the note after it is kept verbatim (it may hold commas and
spaces). A body whose part before ``", "`` is not valid telemetry is a note as a whole, which is
why the formatter writes a bare note only when the note would not parse as telemetry, and
``{, note}`` otherwise. ``{}`` is an empty comment (no fields).

Time is written in seconds with three decimals, shortened to two when the last digit is 0
(``870`` ms -> ``0.87s`` as cutechess writes it, ``1234`` -> ``1.234s``, ``5`` -> ``0.005s``).
Both forms are exact, so ``time_ms`` round-trips. The reader also accepts ``1s`` and one decimal;
a time with more than three decimals (not a whole number of milliseconds) is not telemetry, so
such a body is read as a note, verbatim.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator

from .game import (
    _NUM,
    _PLACINGS_RE,
    _SCORE_RE,
    _TURN_RE,
    ELIMINATION_TERMINATIONS,
    REQUIRED_TAGS,
    TAG_ORDER,
    Elimination,
    GameRecord,
    RecordError,
    SeatCycle,
    TurnRecord,
    check_tag,
    result_placings,
)

__all__ = [
    "SgnError", "MAX_LINE", "IMPORT_DEFAULTS", "ELIMINATED", "format_comment", "format_elimination", "format_sgn",
    "format_sgn_games", "parse_sgn", "iter_sgn",
]

#: Movetext line limit. PGN export format keeps lines under 80 columns; a full turn (number and
#: both turns) is never split unless it alone is longer, and a comment is never split.
MAX_LINE = 79


#: What a game that lacks these tags reads as: "unknown", as PGN's import format reads a missing
#: Seven Tag Roster tag (PGN's own unknown-date form for ``Date``).  They only describe the game,
#: so a file written by hand or by another tool replays and converts without them; the writer
#: then writes them, canonically.  A missing ``Result`` is the movetext's result token.  The tags
#: the rules need (``Gods``, ``Start``, ``Termination``) stay required.  ``Player3`` and ``Player4``
#: are supplied only when the ``Gods`` tag names three or four gods.
IMPORT_DEFAULTS: dict[str, str] = {
    "Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "Player1": "?", "Player2": "?", "Player3": "?",
    "Player4": "?", "TimeControl": "?",
}

#: The movetext token of an :class:`~.game.Elimination`, in the eliminated seat's place:
#: ``eliminated:time``, optionally followed by ``{detail}``.
ELIMINATED = "eliminated:"


def _import_defaults(nseats: int) -> dict[str, str]:
    """:data:`IMPORT_DEFAULTS` for a game of ``nseats`` seats (no player tag for a seat it lacks)."""
    return {k: v for k, v in IMPORT_DEFAULTS.items() if k not in ("Player3", "Player4")[nseats - 2:]}


def _complete(tags: list[tuple[str, str]], supplied: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """``tags`` with the ``supplied`` ones it lacks, each placed where the canonical order puts
    it (before the first present tag that comes later in :data:`TAG_ORDER`, or last)."""
    rank = {name: i for i, name in enumerate(TAG_ORDER)}
    present = {name for name, _ in tags}
    pending = sorted((rank[name], name) for name in supplied if name not in present)
    out: list[tuple[str, str]] = []
    for name, value in tags:
        while pending and pending[0][0] < rank.get(name, len(rank)):
            _, missing = pending.pop(0)
            out.append((missing, supplied[missing]))
        out.append((name, value))
    out.extend((name, supplied[name]) for _, name in pending)
    return tuple(out)


class SgnError(RecordError):
    """Malformed SGN text, with the 1-based ``line`` and ``column`` where it was noticed."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {message}")
        self.message = message
        self.line = line
        self.column = column


# --- comments ------------------------------------------------------------------------------

_EVAL_RE = re.compile(rf"(?P<score>{_SCORE_RE.pattern})(?:/(?P<depth>{_NUM}))?")
_DEPTH_RE = re.compile(rf"d=(?P<depth>{_NUM})")
_TIME_RE = re.compile(r"(?P<sec>[0-9]{1,15})(?:\.(?P<frac>[0-9]{1,3}))?s")
_NODES_RE = re.compile(rf"n=(?P<nodes>{_NUM})")

def _parse_telemetry(head: str) -> tuple[str | None, int | None, int | None, int | None] | None:
    """(score, depth, time_ms, nodes) from the telemetry part, or None if it is not telemetry."""
    score: str | None = None
    depth: int | None = None
    time_ms: int | None = None
    nodes: int | None = None
    if head == "":
        return score, depth, time_ms, nodes
    slot = 0
    for word in head.split(" "):
        if slot == 0 and (m := _EVAL_RE.fullmatch(word)):
            score = m["score"]
            depth = None if m["depth"] is None else int(m["depth"])
            slot = 1
        elif slot == 0 and (m := _DEPTH_RE.fullmatch(word)):
            depth = int(m["depth"])
            slot = 1
        elif slot <= 1 and (m := _TIME_RE.fullmatch(word)):
            frac = (m["frac"] or "").ljust(3, "0")
            time_ms = int(m["sec"]) * 1000 + int(frac)
            slot = 2
        elif slot <= 2 and (m := _NODES_RE.fullmatch(word)):
            nodes = int(m["nodes"])
            slot = 3
        else:
            return None
    return score, depth, time_ms, nodes


def _parse_comment_body(body: str) -> tuple[str | None, int | None, int | None, int | None, str | None]:
    """(score, depth, time_ms, nodes, note) of a comment's text between the braces."""
    head, sep, note = body.partition(", ")
    telemetry = _parse_telemetry(head)
    if telemetry is None:
        return None, None, None, None, body
    return (*telemetry, note if sep else None)


def _format_time(ms: int) -> str:
    sec, rest = divmod(ms, 1000)
    if rest % 10 == 0:
        return f"{sec}.{rest // 10:02d}s"
    return f"{sec}.{rest:03d}s"


def format_comment(t: TurnRecord) -> str | None:
    """The ``{...}`` token for a turn's telemetry and note, or None if it has none (as SGN holds
    it: ``santorini replay`` shows this too, so a turn reads the same on screen and in the file)."""
    fields: list[str] = []
    if t.score is not None:
        fields.append(t.score if t.depth is None else f"{t.score}/{t.depth}")
    elif t.depth is not None:
        fields.append(f"d={t.depth}")
    if t.time_ms is not None:
        fields.append(_format_time(t.time_ms))
    if t.nodes is not None:
        fields.append(f"n={t.nodes}")
    telemetry = " ".join(fields)
    if t.comment is None:
        return "{" + telemetry + "}" if telemetry else None
    if telemetry:
        return "{" + telemetry + ", " + t.comment + "}"
    if _parse_comment_body(t.comment) == (None, None, None, None, t.comment):
        return "{" + t.comment + "}"
    return "{, " + t.comment + "}"


# --- formatting ----------------------------------------------------------------------------


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def format_elimination(e: Elimination) -> list[str]:
    """The tokens of an elimination: ``eliminated:time`` and, if it has one, ``{detail}``."""
    token = ELIMINATED + e.termination
    return [token] if e.detail is None else [token, "{" + e.detail + "}"]


def _movetext_groups(record: GameRecord) -> list[list[list[str]]]:
    """Movetext as rounds -> seats' slots -> tokens, for :func:`_wrap`.

    A two-seat round is ``[["n.", t1, "{c1}"], [t2, "{c2}"]]``; the result is a group of its own.
    """
    groups: list[list[list[str]]] = []
    for slot in record.slots():
        item = slot.item
        if isinstance(item, TurnRecord):
            unit = [item.turn]
            comment = format_comment(item)
            if comment is not None:
                unit.append(comment)
        else:
            unit = format_elimination(item)
        if slot.opens_round:
            groups.append([[f"{slot.round}.", *unit]])
        elif not groups:
            groups.append([[f"{slot.round}...", *unit]])
        else:
            groups[-1].append(unit)
    groups.append([[record.result]])
    return groups


def _wrap(groups: list[list[list[str]]]) -> list[str]:
    """Fill lines up to :data:`MAX_LINE`, breaking between full turns; a full turn too long for
    a line breaks between its half turns (a turn stays with its comment), and only a half turn
    too long for a line breaks between its tokens. A single token may exceed the limit."""
    lines: list[str] = []
    line = ""

    def put(text: str, *, token: bool = False) -> bool:
        """Add ``text`` to the line if it fits; a token always goes on an empty line."""
        nonlocal line
        candidate = f"{line} {text}" if line else text
        if len(candidate) > MAX_LINE and (line or not token):
            return False
        line = candidate
        return True

    def put_on_fresh_line(text: str, *, token: bool = False) -> bool:
        nonlocal line
        if put(text, token=token):
            return True
        if line:
            lines.append(line)
            line = ""
        return put(text, token=token)

    for group in groups:
        if put_on_fresh_line(" ".join(" ".join(unit) for unit in group)):
            continue
        for unit in group:
            if put_on_fresh_line(" ".join(unit)):
                continue
            for item in unit:
                put_on_fresh_line(item, token=True)
    lines.append(line)
    return lines


def format_sgn(record: GameRecord) -> str:
    """Canonical SGN text of one game: tag lines, a blank line, movetext; ends with ``\\n``.

    Tags keep the record's order; values are quoted with ``\\\\`` and ``\\"`` escapes (PGN).
    """
    lines = [f'[{name} "{_escape(value)}"]' for name, value in record.tags]
    lines.append("")
    lines.extend(_wrap(_movetext_groups(record)))
    return "\n".join(lines) + "\n"


def format_sgn_games(records: Iterable[GameRecord]) -> str:
    """Canonical SGN file: every game followed by a blank line (what :class:`SgnWriter` appends)."""
    return "".join(format_sgn(r) + "\n" for r in records)


# --- parsing -------------------------------------------------------------------------------

_TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r]+)|(?P<comment>\{[^{}]*\})|(?P<open>\{)|(?P<close>\})|(?P<word>[^ \t\r{}]+)"
)
_NUMBER_RE = re.compile(r"(?P<n>[1-9][0-9]{0,17})\.(?P<dots>\.\.)?")
_TAG_NAME_START_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_WS = " \t\r"


def _skip_ws(line: str, i: int) -> int:
    while i < len(line) and line[i] in _WS:
        i += 1
    return i


def _parse_tag_line(line: str, lineno: int) -> tuple[str, str, int]:
    """(name, value, value column) of a ``[Name "value"]`` line."""
    i = _skip_ws(line, 0)
    assert line[i] == "["
    j = _skip_ws(line, i + 1)
    m = _TAG_NAME_START_RE.match(line, j)
    end = j
    while end < len(line) and line[end] not in _WS + '"]':
        end += 1
    if m is None or m.end() != end:
        raise SgnError(f"bad tag name {line[j:end]!r} in {line!r}", lineno, j + 1)
    name = m[0]
    k = _skip_ws(line, end)
    if k == len(line):
        raise SgnError(f"unterminated tag pair {line!r}: no value", lineno, k + 1)
    if line[k] != '"' or k == end:
        raise SgnError(f"expected a space and '\"' after tag name {name!r} in {line!r}", lineno, k + 1)
    value_col = k + 1
    chars: list[str] = []
    p = k + 1
    while True:
        if p >= len(line):
            raise SgnError(f"unterminated tag value in {line!r}", lineno, value_col)
        ch = line[p]
        if ch == '"':
            break
        if ch == "\\":
            if line[p + 1 : p + 2] not in ("\\", '"'):
                raise SgnError(
                    f"bad escape {line[p:p + 2]!r} in tag value (only \\\\ and \\\" exist): {line!r}",
                    lineno, p + 1,
                )
            chars.append(line[p + 1])
            p += 2
            continue
        chars.append(ch)
        p += 1
    q = _skip_ws(line, p + 1)
    if q == len(line):
        raise SgnError(f"unterminated tag pair {line!r}: missing ']'", lineno, q + 1)
    if line[q] != "]":
        raise SgnError(f"unexpected {line[q:]!r} after tag value in {line!r}", lineno, q + 1)
    r = _skip_ws(line, q + 1)
    if r != len(line):
        raise SgnError(f"unexpected {line[r:]!r} after tag pair", lineno, r + 1)
    return name, "".join(chars), value_col


class _Reader:
    """Line-driven SGN reader; :meth:`feed` returns a game when its result token is read."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._state = "between"
        self._tags: list[tuple[str, str]] = []
        self._names: set[str] = set()
        self._result_at = (0, 0)  # line and column of the Result tag's value

    def _begin_movetext(self, lineno: int, column: int) -> None:
        missing = [n for n in REQUIRED_TAGS if n not in self._names and n not in IMPORT_DEFAULTS and n != "Result"]
        try:
            if missing:
                raise RecordError(f"missing required tag(s): {', '.join(missing)}")
            tags = dict(self._tags)
            self._nseats = tags["Gods"].count("/") + 1
            self._cycle = SeatCycle.of(self._nseats, tags["Start"])
        except RecordError as e:
            raise SgnError(f"movetext begins but {e}", lineno, column) from None
        self._result: str | None = dict(self._tags).get("Result")  # None: the result token's
        if self._result is not None:
            try:
                result_placings(self._result, self._nseats)
            except RecordError as e:
                raise SgnError(str(e), *self._result_at) from None
        self._turns: list[TurnRecord] = []
        self._eliminations: list[Elimination] = []
        self._after_elimination = False  # the last token was an elimination (its detail may follow)
        self._numbered = False  # a move number was read for the turn to come
        self._commentable = False  # the last token was a turn (a comment may follow)
        self._state = "movetext"

    def feed(self, lineno: int, line: str) -> GameRecord | None:
        stripped = line.lstrip(_WS)
        if self._state in ("between", "tags"):
            if not stripped:
                return None
            if stripped.startswith("["):
                name, value, col = _parse_tag_line(line, lineno)
                if name in self._names:
                    raise SgnError(f"duplicate tag {name!r}", lineno, len(line) - len(stripped) + 1)
                try:
                    check_tag(name, value)
                except RecordError as e:
                    raise SgnError(str(e), lineno, col) from None
                self._tags.append((name, value))
                self._names.add(name)
                if name == "Result":
                    self._result_at = (lineno, col)
                self._state = "tags"
                return None
            if self._state == "between":
                raise SgnError(
                    f"expected a tag pair '[Name \"value\"]' to begin a game, found {line!r}",
                    lineno, len(line) - len(stripped) + 1,
                )
            self._begin_movetext(lineno, len(line) - len(stripped) + 1)
        elif stripped.startswith("["):
            raise SgnError(
                f"missing result: a tag pair {stripped!r} begins before the game's result token",
                lineno, len(line) - len(stripped) + 1,
            )
        return self._movetext_line(lineno, line)

    def _movetext_line(self, lineno: int, line: str) -> GameRecord | None:
        pos = 0
        while pos < len(line):
            m = _TOKEN_RE.match(line, pos)
            assert m is not None  # the alternatives cover every character
            col = pos + 1
            pos = m.end()
            kind = m.lastgroup
            token = m[0]
            if kind == "ws":
                continue
            if kind == "open":
                rest = line[col - 1 :]
                if "}" in rest:
                    raise SgnError(f"'{{' inside a comment: {rest!r}", lineno, col)
                raise SgnError(f"unterminated comment {rest!r} (comments end on their line)", lineno, col)
            if kind == "close":
                raise SgnError(f"'}}' without a comment: {line[col - 1:]!r}", lineno, col)
            if kind == "comment":
                self._comment(token, lineno, col)
                continue
            if token in ("1-0", "0-1", "*") or _PLACINGS_RE.fullmatch(token):
                game = self._finish(token, lineno, col)
                rest = line[pos:].strip(_WS)
                if rest:
                    raise SgnError(f"unexpected {rest!r} after the result", lineno, line.index(rest, pos) + 1)
                return game
            if nm := _NUMBER_RE.fullmatch(token):
                self._move_number(token, nm, lineno, col)
                continue
            if _TURN_RE.fullmatch(token):
                self._turn(token, lineno, col)
                continue
            if token.startswith(ELIMINATED):
                self._elimination(token, lineno, col)
                continue
            raise SgnError(f"expected a turn, move number or result, found {token!r}", lineno, col)
        return None

    def _expected_number(self) -> str:
        cycle = self._cycle
        return f"{cycle.round}." if cycle.opens_round else f"{cycle.round}..."

    def _move_number(self, token: str, m: re.Match[str], lineno: int, col: int) -> None:
        if self._numbered:
            raise SgnError(f"move number {token!r} follows another move number", lineno, col)
        dots = m["dots"] is not None
        if int(m["n"]) != self._cycle.round or dots == self._cycle.opens_round:
            raise SgnError(f"bad move number {token!r}: expected {self._expected_number()!r}", lineno, col)
        self._numbered = True
        self._commentable = False
        self._after_elimination = False

    def _slot(self, token: str, lineno: int, col: int) -> None:
        """A turn or an elimination takes the next seat's slot: numbered where a round opens."""
        if not self._numbered and (self._cycle.opens_round or not (self._turns or self._eliminations)):
            raise SgnError(
                f"missing move number before {token!r}: expected {self._expected_number()!r}", lineno, col
            )
        self._numbered = False

    def _turn(self, token: str, lineno: int, col: int) -> None:
        self._slot(token, lineno, col)
        self._turns.append(TurnRecord(token))
        self._commentable = True
        self._after_elimination = False
        self._cycle.advance()

    def _elimination(self, token: str, lineno: int, col: int) -> None:
        self._slot(token, lineno, col)
        termination = token[len(ELIMINATED):]
        cycle = self._cycle
        if self._nseats != 3:
            raise SgnError(f"{token!r} in a {self._nseats}-seat game: only three-seat games eliminate a seat "
                           "while the game goes on", lineno, col)
        if termination not in ELIMINATION_TERMINATIONS:
            raise SgnError(f"bad elimination {token!r}: the reason is one of "
                           f"{', '.join(sorted(ELIMINATION_TERMINATIONS))}", lineno, col)
        if cycle.live <= 2:
            raise SgnError(f"{token!r} would leave one seat: the game's last elimination is its result, "
                           "not a movetext token", lineno, col)
        self._eliminations.append(Elimination(len(self._turns), cycle.seat, termination))
        self._commentable = False
        self._after_elimination = True
        cycle.advance(eliminate=True)

    def _comment(self, token: str, lineno: int, col: int) -> None:
        if self._after_elimination:
            last = self._eliminations[-1]
            try:
                self._eliminations[-1] = Elimination(last.after, last.seat, last.termination, token[1:-1])
            except RecordError as e:
                raise SgnError(f"bad comment {token!r}: {e}", lineno, col) from None
            self._after_elimination = False
            return
        if not self._commentable:
            where = "a second comment on one turn" if self._turns and not self._numbered else "a comment"
            raise SgnError(f"{where} {token!r} must directly follow a turn", lineno, col)
        score, depth, time_ms, nodes, note = _parse_comment_body(token[1:-1])
        try:
            self._turns[-1] = TurnRecord(self._turns[-1].turn, time_ms, score, depth, nodes, note)
        except RecordError as e:
            raise SgnError(f"bad comment {token!r}: {e}", lineno, col) from None
        self._commentable = False

    def _finish(self, token: str, lineno: int, col: int) -> GameRecord:
        if self._numbered:
            raise SgnError(f"result {token!r} follows a move number", lineno, col)
        if self._result is not None and token != self._result:
            raise SgnError(f"result {token!r} differs from the Result tag {self._result!r}", lineno, col)
        try:
            supplied = {**_import_defaults(self._nseats), "Result": token}
            game = GameRecord(_complete(self._tags, supplied), tuple(self._turns), tuple(self._eliminations))
        except RecordError as e:
            raise SgnError(str(e), lineno, col) from None
        self._reset()
        return game

    def finish(self, lineno: int, column: int) -> None:
        if self._state == "tags":
            raise SgnError("end of input after tag pairs: movetext and result missing", lineno, column)
        if self._state == "movetext":
            expected = (f"expected {self._result!r}" if self._result is not None
                        else "1-0, 0-1 or *" if self._nseats == 2 else "placings like 1-3-2, or *")
            raise SgnError(f"end of input: missing result ({expected})", lineno, column)


def iter_sgn(stream: Iterable[str]) -> Iterator[GameRecord]:
    """Games from an iterable of lines (a text file opened with ``encoding="utf-8"``), lazily.

    Raises:
        SgnError: at the first malformed game, with its line and column (games before it have
            been yielded). Undecodable bytes in a file are reported as SgnError too.
    """
    reader = _Reader()
    lineno = 0
    line = ""
    it = iter(stream)
    while True:
        try:
            raw = next(it)
        except StopIteration:
            break
        except UnicodeDecodeError as e:
            raise SgnError(f"text is not valid UTF-8 ({e.reason} at byte {e.start})", lineno + 1, 1) from None
        lineno += 1
        line = raw.rstrip("\r\n")
        if lineno == 1 and line.startswith("\ufeff"):
            line = line[1:]
        game = reader.feed(lineno, line)
        if game is not None:
            yield game
    reader.finish(max(lineno, 1), len(line) + 1)


def parse_sgn(text: str) -> list[GameRecord]:
    """Every game in ``text`` (zero or more, separated by blank lines).

    Raises:
        SgnError: malformed text, with line/column and the offending text quoted.
    """
    return list(iter_sgn(io.StringIO(text, newline=None)))
