"""The archive payload: one game record as a msgpack map, schema version 1, checked by a schema.

Schema, version 1 (SPEC.md section 13.3; strings are msgpack str, UTF-8)::

    {"v": 1,
     "tags":  [[name, value], ...],                       # in record order
     "turns": [[turn, time_ms, score, depth, nodes, comment], ...],
     "elim":  [[after, seat, termination, detail], ...]}  # optional: three seats, games with one

Each turn array drops trailing nils (``["b3,d3"]`` is a turn with no telemetry), so arrays have 1
to 6 elements; a nil inside means "absent"; an ``elim`` array likewise has 3 or 4. ``elim`` (the
:class:`~.game.Elimination` values) is written only when there is one, so a two-seat payload is
what it always was. Readers ignore map keys they do not know (room for optional additions); a
different ``v`` is refused. A reader older than ``elim`` could not read a three-seat record anyway
(its ``Gods`` tag check refuses three gods), so the addition needs no new version.

The schema is declared once, as msgspec structs: the decoder checks every type while it parses
(no intermediate dicts) and its errors name the field ("Expected `int | null`, got `str` - at
`$.turns[3][1]`"), which is what a user needs to find a damaged record. What the types cannot
say (tag names, turn syntax, number ranges) :class:`~.game.GameRecord` checks, as it does for
every record from anywhere.
"""

from __future__ import annotations

import sys
from typing import Any, Literal, TypeVar

import msgspec
from msgspec.structs import astuple

from .frames import ArchiveError
from .game import Elimination, GameRecord, RecordError, TurnRecord

__all__ = ["SCHEMA_VERSION", "encode_record", "decode_record", "decode_record_without_turns"]

SCHEMA_VERSION = 1


class _TurnRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True, gc=False):
    """A turn array: the turn, then optional telemetry (trailing nils may be left out)."""

    turn: str
    time_ms: int | None = None
    score: str | None = None
    depth: int | None = None
    nodes: int | None = None
    comment: str | None = None


class _ElimRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True, gc=False):
    """An elimination array: turns before it, seat (1-based), termination, optional detail."""

    after: int
    seat: int
    termination: str
    detail: str | None = None


class _PayloadV1(msgspec.Struct):
    """The payload map. ``v`` comes first in every payload we write, so a future version is
    refused by its number before its other fields are looked at."""

    v: Literal[1]
    tags: list[tuple[str, str]]
    turns: list[_TurnRow]
    elim: list[_ElimRow] = msgspec.field(default_factory=list)


class _HeadV1(msgspec.Struct):
    """The payload map with its turns kept as raw bytes (skipped, not decoded)."""

    v: Literal[1]
    tags: list[tuple[str, str]]
    turns: msgspec.Raw
    elim: list[_ElimRow] = msgspec.field(default_factory=list)


_T = TypeVar("_T")
_DECODER = msgspec.msgpack.Decoder(_PayloadV1)
_HEAD_DECODER = msgspec.msgpack.Decoder(_HeadV1)
_ENCODER = msgspec.msgpack.Encoder()


def encode_record(record: GameRecord) -> bytes:
    """The msgpack payload (schema version 1) of ``record``; deterministic."""
    turns = []
    for t in record.turns:
        row: list[Any] = [t.turn, t.time_ms, t.score, t.depth, t.nodes, t.comment]
        while row[-1] is None:
            row.pop()
        turns.append(row)
    obj: dict[str, Any] = {"v": SCHEMA_VERSION, "tags": record.tags, "turns": turns}
    if record.eliminations:
        obj["elim"] = [
            [e.after, e.seat, e.termination] + ([] if e.detail is None else [e.detail]) for e in record.eliminations
        ]
    return _ENCODER.encode(obj)


def _decoded(decoder: msgspec.msgpack.Decoder[_T], payload: bytes) -> _T:
    """``payload`` through ``decoder``, its failures worded as the archive's.

    Raises:
        ArchiveError: not msgpack, or not schema version 1 (the message names the field).
    """
    try:
        return decoder.decode(payload)
    except msgspec.ValidationError as e:
        raise ArchiveError(f"payload is not a version-{SCHEMA_VERSION} game record: {e}") from None
    except msgspec.DecodeError as e:
        raise ArchiveError(f"payload is not msgpack: {e}") from None


#: Tags whose values a tournament keeps per game (its standings and report name the players and
#: the termination): decoded once per distinct value, not once per game.
_SHARED = frozenset({"Player1", "Player2", "Player3", "Player4", "Termination", "Gods", "Result"})


def _tags(tags: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple([(name, sys.intern(value)) if name in _SHARED else (name, value) for name, value in tags])


def decode_record(payload: bytes) -> GameRecord:
    """The record in a msgpack payload.

    Raises:
        ArchiveError: not msgpack, not schema version 1 (the message names the field), or not a
            valid record.
    """
    obj = _decoded(_DECODER, payload)
    try:
        eliminations = tuple([Elimination(*astuple(e)) for e in obj.elim])
        return GameRecord(_tags(obj.tags), tuple([TurnRecord(*astuple(t)) for t in obj.turns]), eliminations)
    except RecordError as e:
        raise ArchiveError(f"payload is not a valid record: {e}") from None


def decode_record_without_turns(payload: bytes) -> GameRecord:
    """The record in a msgpack payload with no turns, the turns skipped undecoded: its tags are
    what standings count, at a fraction of :func:`decode_record`'s cost.  A record with
    eliminations (three and four seats) is decoded whole, turns included: an elimination is
    placed after a turn, and checked against them.

    Raises:
        ArchiveError: as :func:`decode_record`.
    """
    obj = _decoded(_HEAD_DECODER, payload)
    if obj.elim:
        return decode_record(payload)
    try:
        return GameRecord(_tags(obj.tags), ())
    except RecordError as e:
        raise ArchiveError(f"payload is not a valid record: {e}") from None
