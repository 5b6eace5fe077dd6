"""A game's progress as data: what a watcher of the game is told, in this process or another.

Theory of operation.  The referee tells a :class:`~.game.GameObserver` of each ruling by handing
it the adjudicator, which only works in the referee's own process.  The daemon's live dashboard
(SPEC.md section 17.3) referees its local games in worker processes, so what a watcher needs is
put into three small messages: :class:`Begin` (players, start position, clocks), one
:class:`Turn` per turn played (its record, the clocks after it, the wall time of its ruling) and
:class:`Ending` (result and reason).  A :class:`GameSink` takes them; :class:`ProgressObserver`
is the observer that makes them from the adjudicator.  In one process the observer calls the
sink directly; across processes the worker's sink encodes each message (:func:`encode`), the
pool carries the bytes, and the coordinator decodes them (:func:`decode`) and calls the same
methods of the real sink (:func:`tell`).  Either way the sink sees the same messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import msgspec

from ..records import TurnRecord

if TYPE_CHECKING:
    from ..adjudicator import Adjudicator, GameReport

__all__ = ["Begin", "Turn", "Ending", "Progress", "GameSink", "ProgressObserver", "encode", "decode", "tell", "clocks_of"]


class Begin(msgspec.Struct, frozen=True, array_like=True, tag="begin"):
    """A game begins (before its engines are readied)."""

    number: int
    """The game's number in its tournament (0 outside one)."""
    names: list[str]
    start: str
    """The start position, SPS."""
    clocks: list[int | None]
    """Every seat's clock in ms (None: a seat without a clock)."""
    t: float
    """Wall time (``time.time()``)."""


class Turn(msgspec.Struct, frozen=True, array_like=True, tag="turn"):
    """One turn played, as the record keeps it."""

    number: int
    record: TurnRecord
    clocks: list[int | None]
    """Every clock after the turn."""
    t: float
    """Wall time of the ruling."""


class Ending(msgspec.Struct, frozen=True, array_like=True, tag="end"):
    """The game has ended (never sent for a game cancelled from outside)."""

    number: int
    result: str
    termination: str
    detail: str
    words: str
    """The cutechess-style reason (``B loses on time by 37 ms``)."""
    turns: int
    t: float


Progress = Begin | Turn | Ending


class GameSink(Protocol):
    """Takes one game's progress (the live dashboard's feed of that game)."""

    def begin(self, event: Begin) -> None: ...

    def turn(self, event: Turn) -> None: ...

    def end(self, event: Ending) -> None: ...


def clocks_of(adjudicator: Adjudicator) -> list[int | None]:
    """Every seat's clock in whole ms (None for a seat without one)."""
    return [int(c.remaining_ms) if c.tc.base_ms is not None else None for c in adjudicator.clocks]


class ProgressObserver:
    """The referee's observer of game ``number`` that tells ``sink`` its progress.

    It runs in the game's own task between two turns: a turn costs it one record lookup and one
    small message (the sink decides what more to do with it).
    """

    __slots__ = ("_names", "_told", "clock", "number", "sink")

    def __init__(self, number: int, sink: GameSink, clock: Callable[[], float] = time.time) -> None:
        self.number = number
        self.sink = sink
        self.clock = clock
        self._names: tuple[str, ...] = ()
        self._told = 0

    def started(self, adjudicator: Adjudicator, names: Sequence[str]) -> None:
        self._names = tuple(names)
        self._told = adjudicator.turn_count
        self.sink.begin(Begin(self.number, list(names), adjudicator.position.sps(), clocks_of(adjudicator), self.clock()))

    def step(self, adjudicator: Adjudicator) -> None:
        # a ruling that played no turn (a fault waiting for its seat's turn) tells nothing
        while self._told < adjudicator.turn_count:
            record = adjudicator.turn_at(self._told)
            self._told += 1
            self.sink.turn(Turn(self.number, record, clocks_of(adjudicator), self.clock()))

    def over(self, report: GameReport) -> None:
        record = report.record
        self.sink.end(Ending(
            self.number, record.result, record.termination, report.outcome.detail,
            report.outcome.reason(self._names), len(record.turns), self.clock(),
        ))


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Progress)


def encode(event: Progress) -> bytes:
    """``event`` as msgpack (a tagged array)."""
    return _encoder.encode(event)


def decode(payload: bytes) -> Progress:
    """The message :func:`encode` made, checked field by field (a turn as a record's turn is).

    Raises:
        ValueError: not such a message.
    """
    try:
        return _decoder.decode(payload)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a game progress message: {exc}") from None


def tell(sink: GameSink, event: Progress) -> None:
    """Call the method of ``sink`` that takes ``event``."""
    if type(event) is Turn:
        sink.turn(event)
    elif type(event) is Begin:
        sink.begin(event)
    else:
        assert type(event) is Ending
        sink.end(event)
