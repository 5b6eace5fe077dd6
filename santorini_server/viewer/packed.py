"""The viewer's games as the page carries them: packed in columns, deflated, in base85 text.

Why: a tournament's ``games/`` files hold every game it played, and a game as :mod:`.model` lays
it out (a dict per turn and per position, as JSON) costs many times its record in the archive;
a page packed as below costs less per game than the archive (``tools/bench_viewer_pages.py``
measures whole files).  What each step does:

* columns: the turns of every game of the page one after the other, one list per field (the
  STN of every turn, then every time used, ...), so like values sit together for deflate;
* a position is the one before it plus what changed: the squares whose board character changed,
  the worker groups that changed (each with all its squares), the seat to move, and the other
  fields as differences (mostly 0);
* a turn's annotation is ``""`` when it is what the STN says on its face (``c3-d4+e5``: one
  arrow, one build, a dome where the board after it shows one; ``b2,d4``: two placings), the
  usual turn; otherwise its code (below);
* a clock as the difference from its seat's previous clock plus the time used (``c``), so a
  steady increment is one repeated number;
* then raw deflate (RFC 1951, level 9) of the JSON, as base85 (RFC 1924's alphabet, with ``.``
  for ``<``, so no ``</script`` or ``<!--`` can occur in the page).  Base85 is 4/5 of base64.

The page decodes all of this and never judges a rule: ``static/inflate.js`` turns the text back
into the JSON (the browser's own ``DecompressionStream``), and ``viewer.js``'s ``unpack`` does
what :func:`unpack_games` does here: it copies characters and squares Python wrote and adds
differences Python computed.  Every position, arrow, build marker and clock is still the rules
core's, decided in :mod:`.model`.

The packed form (``v`` 1) is ``{"v", "games", "turns"}``: ``games`` holds per game the
:func:`~.model.game_data` keys but ``p`` and ``t``, plus ``p0`` (its first position, or None
for a record whose start is not a position) and ``n`` (its number of turns); ``turns`` the
columns, each as long as all games' turns together (a column whose values are all absent is left
out): ``s`` ``l`` ``seat`` ``txt`` (``a.txt``) ``ms`` ``score`` ``depth`` ``nodes`` ``win`` ``out``
``ev`` ``eb`` ``ea`` ``loss`` ``mk`` ``best`` ``bm`` as in the model; ``a`` the annotation's code:
``@`` and the placed squares, or the arrows (from, to, kind ``m``/``f``: move, forced) then ``|``
then the builds (square, kind ``b`` block, ``d`` dome, ``a`` atlas, ``2`` double, ``p`` pre),
squares as letters ``a``-``y`` (0-24); ``c`` the clock code; ``b`` the changed squares (letter, new
board character); ``w`` the worker groups that changed (the group's index, 0-based, then all its
squares: ``0hm2``, the first group now on h and m, the third now empty); ``m`` the seat to move;
``x`` ``r`` ``up`` ``pl`` the differences from the previous position.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ..rules.squares import parse_square
from .model import DOME_CHARS
from .svg import geometry

__all__ = [
    "PACK_VERSION",
    "SQUARE_LETTERS",
    "pack_games",
    "unpack_games",
    "plain_annotation",
    "pack_text",
    "unpack_text",
    "encode_blob",
    "decode_blob",
    "packed_games",
]

PACK_VERSION = 1
#: Squares 0-24 (SPS order) as one letter each.
SQUARE_LETTERS = "abcdefghijklmnopqrstuvwxy"
_KIND_CODES = {"move": "m", "forced": "f", "block": "b", "dome": "d", "atlas": "a", "double": "2", "pre": "p"}
_KINDS = {code: kind for kind, code in _KIND_CODES.items()}
_MOVE_RE = re.compile(r"([a-e][1-5])-([a-e][1-5])\+([a-e][1-5])")
_PLACE_RE = re.compile(r"([a-e][1-5]),([a-e][1-5])")
#: Turn fields carried as they are (None: absent).
_PLAIN_FIELDS = ("ms", "score", "depth", "nodes", "win", "out", "ev", "eb", "ea", "loss", "mk", "best", "bm")
#: Position fields carried as differences from the previous position.
_DELTA_FIELDS = ("x", "r", "up", "pl")
#: RFC 1924's alphabet, which ``base64.b85encode`` writes, with ``.`` (not in it) for ``<``.
_B85_TO_PAGE = bytes.maketrans(b"<", b".")
_B85_FROM_PAGE = bytes.maketrans(b".", b"<")


def plain_annotation(stn: str, board: str) -> dict[str, Any] | None:
    """The annotation a turn's STN says on its face, or None if it says more than that.

    ``c3-d4+e5``: an arrow c3 to d4 and a build on e5 (a dome if ``board``, the board after the
    turn, shows one there); ``b2,d4``: placings.  This is notation read, not a rule applied; the
    packer uses it only where it equals the rules core's annotation.
    """
    m = _MOVE_RE.fullmatch(stn)
    if m:
        frm, to, build = (parse_square(s) for s in m.groups())
        return {"mv": [[frm, to, "move"]], "bd": [[build, "dome" if board[build] in DOME_CHARS else "block"]]}
    m = _PLACE_RE.fullmatch(stn)
    if m:
        return {"place": [parse_square(s) for s in m.groups()]}
    return None


def _squares(squares: Sequence[int]) -> str:
    return "".join(SQUARE_LETTERS[sq] for sq in squares)


def _annotation_code(a: Mapping[str, Any], stn: str, board: str) -> str:
    marks = {k: v for k, v in a.items() if k != "txt"}
    if plain_annotation(stn, board) == marks:
        return ""
    if "place" in marks:
        return "@" + _squares(marks["place"])
    arrows = "".join(_squares(m[:2]) + _KIND_CODES[m[2]] for m in marks["mv"])
    return arrows + "|" + "".join(SQUARE_LETTERS[sq] + _KIND_CODES[kind] for sq, kind in marks["bd"])


def _annotation(code: str, stn: str, board: str, txt: str) -> dict[str, Any]:
    if code == "":
        marks = plain_annotation(stn, board)
        if marks is None:
            raise ValueError(f"packed viewer data: turn {stn!r} has no annotation")
    elif code[0] == "@":
        marks = {"place": [SQUARE_LETTERS.index(c) for c in code[1:]]}
    else:
        arrows, builds = code.split("|")
        marks = {
            "mv": [[SQUARE_LETTERS.index(arrows[i]), SQUARE_LETTERS.index(arrows[i + 1]), _KINDS[arrows[i + 2]]]
                   for i in range(0, len(arrows), 3)],
            "bd": [[SQUARE_LETTERS.index(builds[i]), _KINDS[builds[i + 1]]] for i in range(0, len(builds), 2)],
        }
    return {**marks, "txt": txt}


def _workers(before: Sequence[Sequence[int]], changes: str) -> list[list[int]]:
    """The worker groups after a turn: ``before``'s, but those ``changes`` lists (a group's digit
    then its squares, for each group that changed)."""
    groups = [list(squares) for squares in before]
    for found in re.finditer(r"([0-9])([a-y]*)", changes):
        groups[int(found[1])] = [SQUARE_LETTERS.index(c) for c in found[2]]
    return groups


def pack_games(games: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The packed form (module docstring) of :func:`~.model.game_data` dicts."""
    heads: list[dict[str, Any]] = []
    cols: dict[str, list[Any]] = {k: [] for k in ("s", "l", "seat", "a", "txt", "c", *_PLAIN_FIELDS, "b", "w", "m",
                                                  *_DELTA_FIELDS)}
    for game in games:
        views, turns = game["p"], game["t"]
        heads.append({**{k: v for k, v in game.items() if k not in ("p", "t")},
                      "p0": views[0] if views else None, "n": len(turns)})
        clocks: dict[int, int] = {}
        for k, turn in enumerate(turns):
            before, after = views[k], views[k + 1]
            seat = turn["seat"]
            cols["s"].append(turn["s"])
            cols["l"].append(turn["l"])
            cols["seat"].append(seat)
            cols["a"].append(_annotation_code(turn["a"], turn["s"], after["b"]))
            cols["txt"].append(turn["a"]["txt"])
            clock = turn.get("clock")
            cols["c"].append(None if clock is None else clock - clocks.get(seat, 0) + (turn.get("ms") or 0))
            if clock is not None:
                clocks[seat] = clock
            for name in _PLAIN_FIELDS:
                cols[name].append(turn.get(name))
            board = zip(before["b"], after["b"], strict=True)
            cols["b"].append("".join(SQUARE_LETTERS[sq] + c for sq, (o, c) in enumerate(board) if o != c))
            groups = zip(before["w"], after["w"], strict=True)
            cols["w"].append("".join(f"{g}{_squares(now)}" for g, (was, now) in enumerate(groups) if was != now))
            cols["m"].append(after["m"])
            for name in _DELTA_FIELDS:
                cols[name].append(after[name] - before[name])
    turns_out = {k: v for k, v in cols.items() if any(x is not None for x in v)}
    return {"v": PACK_VERSION, "games": heads, "turns": turns_out}


def unpack_games(packed: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The :func:`~.model.game_data` dicts back from :func:`pack_games` (what ``viewer.js``'s
    ``unpack`` does in the page).

    Raises:
        ValueError: not a packed form of this version.
    """
    if packed.get("v") != PACK_VERSION:
        raise ValueError(f"packed viewer data: version {packed.get('v')!r}, not {PACK_VERSION}")
    cols = packed["turns"]

    def column(name: str, i: int) -> Any:
        values = cols.get(name)
        return None if values is None else values[i]

    games: list[dict[str, Any]] = []
    i = 0
    for head in packed["games"]:
        game = {k: v for k, v in head.items() if k not in ("p0", "n")}
        views: list[dict[str, Any]] = [dict(head["p0"])] if head["p0"] is not None else []
        turns: list[dict[str, Any]] = []
        clocks: dict[int, int] = {}
        for _ in range(head["n"]):
            before = views[-1]
            board = list(before["b"])
            changes = column("b", i)
            for j in range(0, len(changes), 2):
                board[SQUARE_LETTERS.index(changes[j])] = changes[j + 1]
            after = {"b": "".join(board), "w": _workers(before["w"], column("w", i)), "m": column("m", i)}
            for name in _DELTA_FIELDS:
                after[name] = before[name] + column(name, i)
            views.append({k: after[k] for k in ("b", "w", "m", "x", "r", "up", "pl")})
            seat = column("seat", i)
            turn: dict[str, Any] = {"s": column("s", i), "l": column("l", i), "seat": seat,
                                    "a": _annotation(column("a", i), column("s", i), after["b"], column("txt", i))}
            code = column("c", i)
            if code is not None:
                clocks[seat] = clocks.get(seat, 0) - (column("ms", i) or 0) + code
                turn["clock"] = clocks[seat]
            for name in _PLAIN_FIELDS:
                value = column(name, i)
                if value is not None:
                    turn[name] = value
            turns.append(turn)
            i += 1
        game["p"], game["t"] = views, turns
        games.append(game)
    return games


def pack_text(text: str) -> str:
    """``text`` as page text: UTF-8, raw deflate (level 9), base85 (module docstring)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    packed = deflate.compress(text.encode("utf-8")) + deflate.flush()
    return base64.b85encode(packed).translate(_B85_TO_PAGE).decode("ascii")


def unpack_text(text: str) -> str:
    """:func:`pack_text`'s ``text`` back (what ``static/inflate.js`` does in the page).

    Raises:
        ValueError: ``text`` is not such a block.
    """
    try:
        return zlib.decompress(base64.b85decode(text.encode("ascii").translate(_B85_FROM_PAGE)), -15).decode("utf-8")
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"not a packed viewer block: {exc}") from exc


def encode_blob(data: Any) -> str:
    """``data``'s compact JSON as :func:`pack_text`."""
    return pack_text(json.dumps(data, separators=(",", ":"), ensure_ascii=False))


def decode_blob(text: str) -> Any:
    """:func:`encode_blob`'s ``data`` back.

    Raises:
        ValueError: ``text`` is not such a block.
    """
    return json.loads(unpack_text(text))


def packed_games(games: Sequence[Mapping[str, Any]]) -> Markup:
    """The ``#viewer-data`` block of a page showing ``games`` (:func:`~.model.game_data` dicts),
    here and on the daemon's game page: their packed form and the board's ``geometry``.

    Markup as it is: base85 has no ``<``, and a script block decodes no ``&``, so no record text
    can end the block or be read as markup.
    """
    return Markup(encode_blob({**pack_games(games), "geometry": geometry()}))
