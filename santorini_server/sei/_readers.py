"""Line -> event: the grammar of what an engine says (SPEC.md section 4.3).

Theory of operation: a line arrives here already framed (LF removed, one trailing CR removed)
and decoded (UTF-8, invalid bytes replaced by U+FFFD).  It is split into tokens on runs of
spaces and tabs only (``str.split()`` would also split on form feeds, U+0085 and friends, which
the protocol does not call separators).  The first token picks a reader.  Lines the referee acts
on (``bestmove``, ``seiok``, ``readyok``, ``legalmoves``, ``perft``, handshake lines) are read
strictly and raise :class:`RemoteProtocolError`; ``info`` is read leniently and never raises (as
python-chess does); a first token the protocol does not define gives :class:`Unknown`.  Keywords
are case-sensitive.  Integers are matched by ASCII-only regexes with a digit cap before ``int()``,
so Unicode digits, ``1_000`` and 5000-digit numbers (a ``ValueError`` in ``int()``) cannot slip
through or escape as the wrong exception.

Sequencing (is this line allowed now?) is not decided here but in ``_state.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import RemoteProtocolError, quote
from .messages import (
    OPTION_TYPES,
    TOKEN_RE,
    BestMove,
    EngineError,
    EngineMessage,
    Feature,
    Gods,
    Id,
    Info,
    LegalMoves,
    Option,
    PerftResult,
    ReadyOk,
    Resign,
    SeiOk,
    Unknown,
)

__all__ = ["ReadContext", "read_line"]

_TOKEN_SPAN = re.compile(r"[^ \t]+")
# 20 digits hold any count a search can produce (2**64 has 20 digits).
_UINT = re.compile(r"[0-9]{1,20}")
_SINT = re.compile(r"[+-]?[0-9]{1,20}")
_VERSION = re.compile(r"[1-9][0-9]{0,8}")

# Words that end a `pv` list: ours plus UCI's, so a UCI-style line does not grow the pv.
_INFO_KEYWORDS = frozenset(
    {
        "depth", "seldepth", "time", "nodes", "nps", "score", "wdl", "pv", "string",
        "multipv", "currmove", "currmovenumber", "hashfull", "tbhits", "sbhits", "cpuload",
        "refutation", "currline", "lowerbound", "upperbound",
    }
)  # fmt: skip
_INFO_COUNTS = ("depth", "seldepth", "time", "nodes", "nps")
# Fields that take one unsigned integer: the counts read above, and UCI's others (checked, not kept).
_INFO_UINTS = frozenset(
    {*_INFO_COUNTS, "multipv", "currmovenumber", "hashfull", "tbhits", "sbhits", "cpuload"}
)
_MAX_INFO_QUOTE = 60
_OPTION_KEYWORDS = frozenset({"name", "type", "default", "min", "max", "var"})
#: The feature naming the seat counts an engine plays, and the counts it may name.
PLAYERS_FEATURE = "players"
_SEAT_COUNTS = {"2": 2, "3": 3, "4": 4}


class ReadContext:
    """What the reader needs to know about the requests in flight."""

    __slots__ = ("requested_perft_depth", "requested_version", "strict_info")

    def __init__(self, *, strict_info: bool = False) -> None:
        #: Version sent in ``sei`` (``seiok`` may not exceed it).
        self.requested_version: int | None = None
        #: Depth sent in the outstanding ``perft`` (the reply must echo it).
        self.requested_perft_depth: int | None = None
        #: Say why an ``info`` line is malformed (``Info.problem``), for ``santorini check``.
        self.strict_info = strict_info


Tokens = list[re.Match[str]]


def _rest(line: str, token: re.Match[str]) -> str:
    """The rest of the line after ``token`` and the separator run after it, verbatim."""
    return line[token.end() :].lstrip(" \t")


def _strict_token(what: str, token: str, line: str) -> str:
    if TOKEN_RE.fullmatch(token) is None:
        raise RemoteProtocolError(f"{what} is not printable ASCII: {quote(line)}")
    return token


def _uint(what: str, token: str, line: str) -> int:
    if _UINT.fullmatch(token) is None:
        raise RemoteProtocolError(f"{what} is not a non-negative integer: {quote(line)}")
    return int(token)


def _read_bestmove(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    # Exactly one token (decision: v1 has no pondering, so UCI's `ponder <move>` tail is an error).
    if len(tokens) != 2:
        raise RemoteProtocolError(f"bestmove takes exactly one turn: {quote(line)}")
    turn = _strict_token("bestmove turn", tokens[1].group(), line)
    if turn == "resign":
        return Resign()
    return BestMove(turn=turn)


def _read_seiok(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    if len(tokens) != 2 or _VERSION.fullmatch(tokens[1].group()) is None:
        raise RemoteProtocolError(f"seiok takes one positive integer version: {quote(line)}")
    version = int(tokens[1].group())
    if ctx.requested_version is not None and version > ctx.requested_version:
        raise RemoteProtocolError(
            f"seiok version {version} is above the requested {ctx.requested_version}: {quote(line)}"
        )
    return SeiOk(version=version)


def _read_readyok(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    if len(tokens) != 1:
        raise RemoteProtocolError(f"readyok takes no arguments: {quote(line)}")
    return ReadyOk()


def _read_id(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    field = tokens[1].group() if len(tokens) > 1 else ""
    if field == "name":
        return Id(field="name", value=_rest(line, tokens[1]))
    if field == "author":
        return Id(field="author", value=_rest(line, tokens[1]))
    # `id version ...` and other future fields: tolerated, like any line we do not know.
    return Unknown(line=line)


def _read_names(line: str, tokens: Tokens) -> tuple[str, ...]:
    return tuple(_strict_token(f"{tokens[0].group()} name", t.group(), line) for t in tokens[1:])


def _read_gods(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    return Gods(names=_read_names(line, tokens))


def _read_feature(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    names = _read_names(line, tokens)
    if PLAYERS_FEATURE not in names:
        return Feature(names=names)
    # `players` takes the rest of the line: seat counts (decision: one rule, no count/name guessing).
    at = names.index(PLAYERS_FEATURE) + 1
    counts = names[at:]
    if not counts or any(count not in _SEAT_COUNTS for count in counts):
        raise RemoteProtocolError(
            f"feature players takes seat counts 2, 3 or 4 up to the end of the line: {quote(line)}"
        )
    return Feature(names=names[:at], players=frozenset(_SEAT_COUNTS[count] for count in counts))


def _read_option(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    # UCI: option name <id> type <t> [default <x>] [min <x>] [max <x>] [var <x>]*.  A name runs
    # until `type` (UCI names contain spaces); other values run until the next keyword.
    parts: dict[str, list[str]] = {}
    var_values: list[list[str]] = []
    current: list[str] | None = None
    key = ""
    for match in tokens[1:]:
        word = match.group()
        if word in _OPTION_KEYWORDS and (key != "name" or word == "type"):
            key = word
            current = []
            if word == "var":
                var_values.append(current)
            else:
                parts[word] = current
        elif current is None:
            raise RemoteProtocolError(f"option must start with 'name': {quote(line)}")
        else:
            current.append(word)
    name = " ".join(parts.get("name", ()))
    type_ = " ".join(parts.get("type", ()))
    if not name:
        raise RemoteProtocolError(f"option without a name: {quote(line)}")
    if type_ not in OPTION_TYPES:
        raise RemoteProtocolError(
            f"option type must be one of {sorted(OPTION_TYPES)}: {quote(line)}"
        )
    bounds: dict[str, int | None] = {"min": None, "max": None}
    for bound in bounds:
        if bound in parts:
            text = " ".join(parts[bound])
            if _SINT.fullmatch(text) is None:
                raise RemoteProtocolError(f"option {bound} is not an integer: {quote(line)}")
            bounds[bound] = int(text)
    default = " ".join(parts["default"]) if "default" in parts else None
    return Option(
        name=name,
        type=type_,
        default=default,
        min=bounds["min"],
        max=bounds["max"],
        vars=tuple(" ".join(v) for v in var_values),
    )


def _info_quote(text: str) -> str:
    return repr(text if len(text) <= _MAX_INFO_QUOTE else text[:_MAX_INFO_QUOTE] + "...")


def _read_info(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    # Lenient by design: a field whose value is missing or garbled is skipped, unknown words are
    # skipped, the last occurrence of a field wins.  Nothing here raises.  Read strictly
    # (ctx.strict_info), the first garbled field is named in ``problem``: the telemetry an
    # engine author would lose.
    words = [t.group() for t in tokens]
    counts: dict[str, int] = {}
    score_cp: int | None = None
    score_win: int | None = None
    wdl: tuple[int, int, int] | None = None
    pv: tuple[str, ...] = ()
    string: str | None = None
    problems: list[str] = []
    n = len(words)
    i = 1
    while i < n:
        word = words[i]
        if word in _INFO_UINTS:
            value = words[i + 1] if i + 1 < n else ""
            if _UINT.fullmatch(value):
                if word in _INFO_COUNTS:
                    counts[word] = int(value)
                i += 2
            else:
                problems.append(f"{word} needs an unsigned integer, got {_info_quote(value)}")
                i += 1
        elif word == "score":
            kind = words[i + 1] if i + 1 < n else ""
            value = words[i + 2] if i + 2 < n else ""
            if kind in ("cp", "win") and _SINT.fullmatch(value):
                if kind == "cp":
                    score_cp = int(value)
                else:
                    score_win = int(value)
                i += 3
            else:
                if kind not in ("cp", "win"):
                    problems.append(f"score must be 'cp <x>' or 'win <n>', got {_info_quote(kind)}")
                else:
                    problems.append(f"score {kind} needs an integer, got {_info_quote(value)}")
                i += 1
        elif word == "wdl":
            values = words[i + 1 : i + 4]
            if len(values) == 3 and all(_UINT.fullmatch(w) for w in values):
                wdl = (int(values[0]), int(values[1]), int(values[2]))
                i += 4
            else:
                problems.append(f"wdl needs three unsigned integers, got {_info_quote(' '.join(values))}")
                i += 1
        elif word == "pv":
            j = i + 1
            while j < n and words[j] not in _INFO_KEYWORDS:
                j += 1
            pv = tuple(words[i + 1 : j])
            i = j
        elif word == "string":
            string = _rest(line, tokens[i])
            break
        else:
            i += 1
    return Info(
        depth=counts.get("depth"),
        seldepth=counts.get("seldepth"),
        time=counts.get("time"),
        nodes=counts.get("nodes"),
        nps=counts.get("nps"),
        score_cp=score_cp,
        score_win=score_win,
        wdl=wdl,
        pv=pv,
        string=string,
        raw=line,
        problem=problems[0] if problems and ctx.strict_info else None,
    )


def _read_error(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    return EngineError(text=_rest(line, tokens[0]))


def _read_legalmoves(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    if len(tokens) < 2:
        raise RemoteProtocolError(f"legalmoves needs a count: {quote(line)}")
    count = _uint("legalmoves count", tokens[1].group(), line)
    turns = tuple(_strict_token("legal turn", t.group(), line) for t in tokens[2:])
    if count != len(turns):
        raise RemoteProtocolError(
            f"legalmoves count {count} but {len(turns)} turns listed: {quote(line)}"
        )
    return LegalMoves(count=count, turns=turns)


def _read_perft(line: str, tokens: Tokens, ctx: ReadContext) -> EngineMessage:
    if len(tokens) != 3:
        raise RemoteProtocolError(f"perft reply is 'perft <depth> <count>': {quote(line)}")
    depth = _uint("perft depth", tokens[1].group(), line)
    count = _uint("perft count", tokens[2].group(), line)
    expected = ctx.requested_perft_depth
    if expected is not None and depth != expected:
        raise RemoteProtocolError(
            f"perft reply for depth {depth}, but depth {expected} was asked: {quote(line)}"
        )
    return PerftResult(depth=depth, count=count)


_Reader = Callable[[str, Tokens, ReadContext], EngineMessage]

READERS: dict[str, _Reader] = {
    "bestmove": _read_bestmove,
    "seiok": _read_seiok,
    "readyok": _read_readyok,
    "id": _read_id,
    "option": _read_option,
    "gods": _read_gods,
    "feature": _read_feature,
    "info": _read_info,
    "error": _read_error,
    "legalmoves": _read_legalmoves,
    "perft": _read_perft,
}


def read_line(line: str, ctx: ReadContext) -> EngineMessage | None:
    """Parse one framed, decoded line.

    Returns:
        The event, or ``None`` for a blank line (only spaces/tabs), which carries nothing.

    Raises:
        RemoteProtocolError: a line the referee acts on is malformed.
    """
    tokens = list(_TOKEN_SPAN.finditer(line))
    if not tokens:
        return None
    reader = READERS.get(tokens[0].group())
    if reader is None:
        return Unknown(line=line)
    return reader(line, tokens, ctx)
