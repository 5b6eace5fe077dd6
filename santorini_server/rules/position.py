"""Immutable positions: the board, the workers, whose turn it is, Athena's state.

A ``Position`` never changes: :meth:`Position.play` and :meth:`Position.transitions` return new
ones, so positions are shared freely between tasks and kept in records without copying (no
make/unmake stack).  The state is a handful of ints (see ``movegen``): three level masks, a dome
mask and one worker mask per player, so equality and hashing are cheap.

As python-chess keeps ``fen()`` and ``parse_san()`` on ``Board``, a position reads and writes
its own text forms (SPS through ``sps``, STN through ``stn``), and whether it is valid is its own
business (:meth:`Position.problems`).  Imports run one way: ``sps`` and ``stn`` read positions
but never build one, and only this module builds them.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple, final

from .explain import rejection
from .gods import MORTAL, check_gods
from .movegen import (
    WIN_CLIMB,
    WIN_NONE,
    WIN_PAN,
    RawState,
    athena_binds,
    count_turns,
    generate,
    has_turn,
    plain_turn,
    split_sides,
)
from .sps import format_sps, invalid_sps, read_sps
from .squares import SQUARE_NAMES, Bitboard, Square, scan
from .stn import canonical_stn, first_step_masks, format_stn, parse_stn

__all__ = ["Position", "Transition", "parse_sps"]


class Transition(NamedTuple):
    """A legal turn of a position: its canonical STN, how it wins, and the position after it."""

    stn: str
    win: int
    """``WIN_NONE`` (0), ``WIN_CLIMB`` (1) or ``WIN_PAN`` (2)."""
    position: Position

    @property
    def termination(self) -> str | None:
        """The record's ``Termination`` for a winning turn (``climb``/``pan-drop``), else None."""
        return _WIN_TAGS[self.win]


_WIN_TAGS = {WIN_NONE: None, WIN_CLIMB: "climb", WIN_PAN: "pan-drop"}


@final
class Position:
    """A Santorini position (what an SPS token spells).

    Attributes are read-only ints so the move generator can work on them directly:
    ``gods`` has one god per seat (2, 3 or 4 seats, in turn order); ``h1``/``h2``/``h3`` are the
    squares at level >= 1/2/3, ``domes`` the domed squares (which carry no level bits);
    ``workers`` has one mask per worker *group* (0 while unplaced): a group per seat with two or
    three seats, a group per team with four (team A = seats 1 and 3, team B = seats 2 and 4,
    SPEC.md section 15); ``to_move`` is the seat index 0..N-1, ``turn`` the round counter,
    ``athena_up`` whether Athena moved up on her last turn (true only while she is not to move:
    the one state that lives between turns, SPEC.md sections 1.5 and 15.3), ``eliminated`` a
    mask of eliminated seat indices (three seats only).
    """

    __slots__ = ("_hash", "athena_up", "domes", "eliminated", "gods", "h1", "h2", "h3", "to_move", "turn", "workers")

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
    _hash: int | None

    def __init__(
        self,
        *,
        gods: tuple[str, ...] = (MORTAL, MORTAL),
        heights: dict[Square, int] | None = None,
        domes: Bitboard = 0,
        workers: tuple[Bitboard, ...] | None = None,
        to_move: int = 0,
        turn: int = 1,
        athena_up: bool = False,
        eliminated: int = 0,
    ) -> None:
        """Build a position from friendly values; raises ValueError for a position that cannot be.

        ``heights`` maps squares to levels 0-3 (a domed square's level is ignored); ``workers``
        defaults to every group unplaced.  The checks are :meth:`problems`, the same as for SPS.
        """
        gods = tuple(gods)
        check_gods(gods)
        if workers is None:
            workers = (0,) * _groups(len(gods))
        h = [0, 0, 0]
        for sq, level in (heights or {}).items():
            if not 0 <= level <= 3:
                raise ValueError(f"level {level} out of range 0-3")
            for k in range(level):
                h[k] |= 1 << sq
        h = [m & ~domes for m in h]
        _init(self, gods, h[0], h[1], h[2], domes, tuple(workers), to_move, turn, athena_up, eliminated)
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def start(cls, gods: tuple[str, ...] = (MORTAL, MORTAL)) -> Position:
        """The empty board before placement (SEI ``startpos``) with one god per seat (2-4 seats).

        Positions are immutable, so each matchup's start is built (and checked) once.
        """
        return _start(tuple(gods))  # a hashable key, whatever sequence was passed

    @classmethod
    def from_sps(cls, text: str) -> Position:
        """Parse an SPS token (see :func:`parse_sps`)."""
        return parse_sps(text)

    def sps(self) -> str:
        """The canonical SPS token of this position."""
        return format_sps(self)

    def successor(self, state: RawState) -> Position:
        """The position after one of this position's turns, from the raw state ``movegen`` gives it.

        For walkers of :func:`~santorini_server.rules.movegen.generate` (perft, search engines)
        that want successors of only some turns; ``state`` is trusted, not checked.
        """
        gods = self.gods
        if len(gods) != 2:
            return _successor_n(self, state)
        h1, h2, h3, domes, mine, theirs, up = state
        me = self.to_move
        # _init, inlined: a successor is built on every turn the referee checks
        child: Any = _new(_Unfrozen)
        child.gods = gods
        child.h1 = h1
        child.h2 = h2
        child.h3 = h3
        child.domes = domes
        child.workers = (mine, theirs) if me == 0 else (theirs, mine)
        child.to_move = 1 - me
        child.turn = self.turn + me
        child.athena_up = up
        child.eliminated = 0
        child._hash = None
        child.__class__ = Position
        return child  # type: ignore[no-any-return]  # a Position now

    def eliminate(self) -> Position | None:
        """Three seats: the position after the seat to move leaves the game (SPEC.md section 15.2).

        Its workers leave the board, its god's effects end, and the move passes to the next seat
        still in (elimination is not a turn; the round counter advances as if the eliminated seat
        had moved).  None when only one seat would remain: that seat has won.

        Raises:
            ValueError: not a three-seat position (two and four seats lose instead).
        """
        if len(self.gods) != 3:
            raise ValueError(f"only three-seat games eliminate a seat; this game has {len(self.gods)} seats")
        me = self.to_move
        eliminated = self.eliminated | 1 << me
        live = [s for s in range(3) if not eliminated >> s & 1]
        if len(live) < 2:
            return None
        nxt = _next_seat(me, eliminated, 3)
        workers = tuple(0 if g == me else w for g, w in enumerate(self.workers))
        up = self.athena_up and self.gods[nxt] != "athena"
        child = object.__new__(Position)
        _init(child, self.gods, self.h1, self.h2, self.h3, self.domes, workers, nxt,
              self.turn + (nxt <= me), up, eliminated)
        return child

    # --- queries ------------------------------------------------------------------------------

    @property
    def player(self) -> int:
        """The seat to move as SPS writes it: 1..N."""
        return self.to_move + 1

    @property
    def nseats(self) -> int:
        """How many seats the game has (2, 3 or 4): one god each."""
        return len(self.gods)

    @property
    def live_seats(self) -> tuple[int, ...]:
        """The seat indices still in the game (all of them, but in a three-seat game)."""
        return tuple(s for s in range(len(self.gods)) if not self.eliminated >> s & 1)

    def group_of(self, seat: int) -> int:
        """Index in ``workers`` of the group ``seat`` moves: its own, or with four seats its team's."""
        return seat & 1 if len(self.gods) == 4 else seat

    def teammate(self, seat: int) -> int | None:
        """The seat sharing ``seat``'s workers (four seats: 1 with 3, 2 with 4), else None."""
        return seat ^ 2 if len(self.gods) == 4 else None

    def sides(self) -> tuple[Bitboard, Bitboard]:
        """``(mine, theirs)``: the workers the seat to move may move, and every other worker.

        With three seats "theirs" is both opponents' workers; with four, the other team's.
        """
        return split_sides(self.workers, self.to_move)

    @property
    def no_up(self) -> bool:
        """Whether Athena's power stops the seat to move from moving up (SPEC.md section 15.3:
        every opponent seat until she moves again, never her teammate)."""
        return self.athena_up and athena_binds(self.gods, self.to_move)

    @property
    def is_placement(self) -> bool:
        """Whether the seat to move still has to place its workers (phase is derived, not stored)."""
        return not self.workers[self.group_of(self.to_move)]

    def level(self, sq: Square) -> int:
        """Level 0-3 of ``sq``; 4 for a domed square (as SPS writes it)."""
        bit = 1 << sq
        if self.domes & bit:
            return 4
        return (1 if self.h1 & bit else 0) + (1 if self.h2 & bit else 0) + (1 if self.h3 & bit else 0)

    def transitions(self) -> list[Transition]:
        """Every legal complete turn with its successor (empty: the side to move has lost)."""
        return [Transition(t.stn, t.win, self.successor(t.state)) for t in generate(self)]

    def legal_turns(self) -> list[str]:
        """Canonical STN of every legal complete turn."""
        return [t.stn for t in generate(self)]

    def count_turns(self) -> int:
        """How many legal complete turns there are (fast for the gods that build normally)."""
        return count_turns(self)

    def is_lost(self) -> bool:
        """SPEC.md section 1.4: a player whose legal set is empty at the start of their turn loses at once.

        With three seats that seat is eliminated instead (:meth:`eliminate`); with four its team loses.
        """
        return not has_turn(self)

    def play(self, text: str) -> Transition:
        """Check a submitted turn and return it canonicalised, with the successor.

        Any accepted spelling (SPEC.md section 3) is normalised first; only a handful of
        candidate turns (those starting with the same step) are generated to match it.

        Raises:
            MalformedTurnError: ``text`` is not STN.
            IllegalTurnError: well-formed, but not a legal complete turn here.
            Either error's ``reason`` says why (:func:`~santorini_server.rules.explain.explain_turn`).
        """
        plain = plain_turn(self, text)  # the usual turn: a table lookup and mask arithmetic
        if plain is not None:
            return Transition(text, plain[0], self.successor(plain[1]))
        # Engines normally send canonical text, so that is looked up first; only a miss pays
        # for canonicalisation and a second lookup.
        masks = first_step_masks(self, text)
        found = None if masks is None else self._find(text, masks)
        if found is None and masks is not None:
            canon = format_stn(canonical_stn(self, parse_stn(text)))
            if canon != text:  # (Hermes' ``a1-a1`` is a stay: it may canonicalise to no turn at all)
                masks = first_step_masks(self, canon)
                found = None if masks is None else self._find(canon, masks)
        if found is None:
            raise rejection(self, text)  # with the reason: only a refused turn pays for it
        return found

    def _find(self, canonical: str, masks: tuple[int, int]) -> Transition | None:
        for raw in generate(self, *masks):
            if raw.stn == canonical:
                return Transition(raw.stn, raw.win, self.successor(raw.state))
        return None

    def problems(self) -> list[str]:
        """Every reason this position is invalid (empty when valid), python-chess ``status()`` style.

        The checks of the meaning in SPEC.md sections 2.2 and 15.4.
        """
        if len(self.gods) != 2:
            return _problems_n(self)
        problems: list[str] = []
        try:
            check_gods(self.gods)
        except ValueError as exc:
            problems.append(str(exc))
        if len(self.workers) != 2:
            problems.append(f"two players have two worker groups, got {len(self.workers)}")
            return problems
        w1, w2 = self.workers
        for player, mask in ((1, w1), (2, w2)):
            if mask and mask.bit_count() != 2:
                problems.append(f"player {player} must have 0 or 2 workers, has {mask.bit_count()}")
            for sq in scan(mask & self.domes):
                problems.append(f"player {player}'s worker stands on a dome at {SQUARE_NAMES[sq]}")
        for sq in scan(w1 & w2):
            problems.append(f"two workers on {SQUARE_NAMES[sq]}")
        if not w1 and w2:
            problems.append("player 2 has placed but player 1 has not (player 1 places first)")
        elif not w1 and self.to_move == 1:
            problems.append("player 2 is to move but player 1 has not placed yet")
        elif w1 and not w2 and self.to_move == 0:
            problems.append("player 1 is to move but player 2 has not placed yet")
        if not (w1 and w2) and self.turn != 1:
            problems.append(f"placement happens on turn 1, got turn {self.turn}")
        if self.to_move not in (0, 1):
            problems.append(f"player {self.to_move + 1} to move in a two-player game")
        if self.eliminated:
            problems.append("only three-seat games have eliminated seats")
        if self.athena_up:
            if self.gods[1 - self.to_move] != "athena":
                problems.append("athena[up] is only written while Athena's opponent is to move")
            elif not (w1 and w2):
                problems.append("athena[up] before both sides have placed: Athena cannot have moved")
        if self.h2 & ~self.h1 or self.h3 & ~self.h2 or (self.h1 & self.domes):
            problems.append("inconsistent level masks")  # only reachable through the raw constructor
        return problems

    # --- value semantics ----------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (
            self.gods, self.h1, self.h2, self.h3, self.domes, self.workers, self.to_move, self.turn, self.athena_up,
            self.eliminated,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        h: int | None = self._hash
        if h is None:
            h = hash(self._key())
            _set(self, "_hash", h)
        return h

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __repr__(self) -> str:
        return f"Position.from_sps({self.sps()!r})"

    def __str__(self) -> str:
        return self.sps()


def parse_sps(text: str) -> Position:
    """Parse an SPS token into a :class:`Position` (also spelled :meth:`Position.from_sps`).

    Raises:
        MalformedPositionError: the text does not follow the SPS grammar (the message names the
            field).
        InvalidPositionError: well-formed but impossible (unknown god, workers on a dome, ...);
            the message lists every problem.
    """
    pos = object.__new__(Position)
    _init(pos, *read_sps(text))
    problems = pos.problems()
    if problems:
        raise invalid_sps(text, problems)
    return pos


@functools.cache
def _start(gods: tuple[str, ...]) -> Position:
    return Position(gods=gods)


def _groups(nseats: int) -> int:
    """Worker groups of an ``nseats`` game: one a seat, but one a team with four seats."""
    return 2 if nseats == 4 else nseats


def _next_seat(seat: int, eliminated: int, n: int) -> int:
    """The seat after ``seat`` in turn order, skipping eliminated seats."""
    nxt = (seat + 1) % n
    while eliminated >> nxt & 1:
        nxt = (nxt + 1) % n
    return nxt


def _successor_n(pos: Position, state: RawState) -> Position:
    """:meth:`Position.successor` for three and four seats (SPEC.md section 15).

    The raw state has the mover's group and the union of every other worker; an Apollo swap or
    a Minotaur push moved exactly one of those, so the group it belongs to is found by the one
    square that emptied.  Athena's tag persists until she is to move again.
    """
    h1, h2, h3, domes, mine, theirs, up = state
    me = pos.to_move
    gods = pos.gods
    n = len(gods)
    old = pos.workers
    if n == 4:
        workers: tuple[int, ...] = (mine, theirs) if me & 1 == 0 else (theirs, mine)
        nxt = (me + 1) & 3
        eliminated = 0
    else:
        eliminated = pos.eliminated
        groups = list(old)
        before = (old[0] | old[1] | old[2]) ^ old[me]
        groups[me] = mine
        if theirs != before:  # an Apollo swap or a Minotaur push moved one opponent worker
            gone, came = before & ~theirs, theirs & ~before
            for g, w in enumerate(groups):
                if g != me and w & gone:
                    groups[g] = w ^ gone ^ came
        workers = tuple(groups)
        nxt = me + 1 if me < 2 else 0
        if eliminated >> nxt & 1:
            nxt = _next_seat(nxt, eliminated, 3)
    if gods[me] != "athena":
        up = pos.athena_up and gods[nxt] != "athena"
    child: Any = _new(_Unfrozen)  # see Position.successor
    child.gods = gods
    child.h1 = h1
    child.h2 = h2
    child.h3 = h3
    child.domes = domes
    child.workers = workers
    child.to_move = nxt
    child.turn = pos.turn + (nxt <= me)
    child.athena_up = up
    child.eliminated = eliminated
    child._hash = None
    child.__class__ = Position
    return child  # type: ignore[no-any-return]  # a Position now


def _problems_n(pos: Position) -> list[str]:
    """:meth:`Position.problems` for three and four seats (SPEC.md section 15.4)."""
    problems: list[str] = []
    n = len(pos.gods)
    try:
        check_gods(pos.gods)
    except ValueError as exc:
        problems.append(str(exc))
    groups = pos.workers
    if len(groups) != _groups(n):
        return [*problems, f"{n} seats have {_groups(n)} worker groups, got {len(groups)}"]
    names = [f"seat {g + 1}" for g in range(n)] if n == 3 else ["team A (seats 1, 3)", "team B (seats 2, 4)"]
    if not 0 <= pos.to_move < n:
        return [*problems, f"seat {pos.to_move + 1} to move in a {n}-seat game"]
    if pos.eliminated and n != 3:
        problems.append("only three-seat games have eliminated seats")
    seen = 0
    for g, mask in enumerate(groups):
        if n == 3 and pos.eliminated >> g & 1:
            if mask:
                problems.append(f"{names[g]} is eliminated but has workers on the board")
            continue
        if mask and mask.bit_count() != 2:
            problems.append(f"{names[g]} must have 0 or 2 workers, has {mask.bit_count()}")
        for sq in scan(mask & pos.domes):
            problems.append(f"{names[g]}'s worker stands on a dome at {SQUARE_NAMES[sq]}")
        for sq in scan(mask & seen):
            problems.append(f"two workers on {SQUARE_NAMES[sq]}")
        seen |= mask
    live = [s for s in range(n) if not pos.eliminated >> s & 1]
    if n == 3 and len(live) < 2:
        problems.append("at least two seats must still be in the game")
    if pos.eliminated >> pos.to_move & 1:
        problems.append(f"seat {pos.to_move + 1} is to move but has been eliminated")
    placed = [bool(w) or bool(pos.eliminated >> g & 1) for g, w in enumerate(groups)]
    if not all(placed):
        # placement: groups place in seat order, in round 1, and the first unplaced group places
        # (a seat that faulted while placing is out, 'x', and counts as done)
        first = placed.index(False)
        if any(placed[first:]):
            problems.append(f"{names[first]} has not placed but a later group has (groups place in seat order)")
        elif pos.to_move != first:
            problems.append(f"seat {pos.to_move + 1} is to move but {names[first]} places next")
        if pos.turn != 1:
            problems.append(f"placement happens in round 1, got round {pos.turn}")
    if pos.athena_up:
        athena = pos.gods.index("athena") if "athena" in pos.gods else None
        if athena is None or pos.eliminated >> athena & 1:
            problems.append("athena[up] without Athena in the game")
        elif athena == pos.to_move:
            problems.append("athena[up] is only written while Athena is not to move")
        elif not all(placed):
            problems.append("athena[up] before every group has placed: Athena cannot have moved")
    if pos.h2 & ~pos.h1 or pos.h3 & ~pos.h2 or (pos.h1 & pos.domes):
        problems.append("inconsistent level masks")
    return problems


_set = object.__setattr__
_new = object.__new__


class _Unfrozen:
    """A :class:`Position`'s slot layout without its immutability: positions are filled in here and
    then become Positions by ``__class__`` assignment (allowed between identical layouts).  Why:
    storing a slot directly costs about a third of calling the frozen class's slot setters, and a
    position is built on every turn the referee checks and at every perft node."""

    __slots__ = Position.__slots__


def _init(
    pos: Position,
    gods: tuple[str, ...],
    h1: int,
    h2: int,
    h3: int,
    domes: int,
    workers: tuple[int, ...],
    to_move: int,
    turn: int,
    athena_up: bool,
    eliminated: int,
) -> None:
    """Fill ``pos`` (a fresh ``_new(_Unfrozen)`` or ``_new(Position)``) and make it a Position."""
    _set(pos, "__class__", _Unfrozen)  # Position's own __setattr__ refuses every name
    raw: Any = pos
    raw.gods = gods
    raw.h1 = h1
    raw.h2 = h2
    raw.h3 = h3
    raw.domes = domes
    raw.workers = workers
    raw.to_move = to_move
    raw.turn = turn
    raw.athena_up = athena_up
    raw.eliminated = eliminated
    raw._hash = None
    raw.__class__ = Position
