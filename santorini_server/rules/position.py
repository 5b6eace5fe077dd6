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
from .gods import MORTAL, check_matchup
from .movegen import WIN_CLIMB, WIN_NONE, WIN_PAN, RawState, count_turns, generate, has_turn, plain_turn
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
    ``h1``/``h2``/``h3`` are the squares at level >= 1/2/3, ``domes`` the domed squares (which
    carry no level bits), ``workers[i]`` the squares of player ``i + 1``'s workers (0 while
    unplaced), ``to_move`` is 0 or 1 (player 1 or 2), ``turn`` the full-turn counter,
    ``athena_up`` whether Athena moved up on her last turn; it is only ever true while Athena's
    opponent is to move (the one state that lives between turns, SPEC.md section 1.5, Athena).
    """

    __slots__ = ("_hash", "athena_up", "domes", "gods", "h1", "h2", "h3", "to_move", "turn", "workers")

    gods: tuple[str, str]
    h1: int
    h2: int
    h3: int
    domes: int
    workers: tuple[int, int]
    to_move: int
    turn: int
    athena_up: bool
    _hash: int | None

    def __init__(
        self,
        *,
        gods: tuple[str, str] = (MORTAL, MORTAL),
        heights: dict[Square, int] | None = None,
        domes: Bitboard = 0,
        workers: tuple[Bitboard, Bitboard] = (0, 0),
        to_move: int = 0,
        turn: int = 1,
        athena_up: bool = False,
    ) -> None:
        """Build a position from friendly values; raises ValueError for a position that cannot be.

        ``heights`` maps squares to levels 0-3 (a domed square's level is ignored).  The
        checks are :meth:`problems`, the same as for SPS.
        """
        check_matchup(*gods)
        h = [0, 0, 0]
        for sq, level in (heights or {}).items():
            if not 0 <= level <= 3:
                raise ValueError(f"level {level} out of range 0-3")
            for k in range(level):
                h[k] |= 1 << sq
        h = [m & ~domes for m in h]
        _init(self, (gods[0], gods[1]), h[0], h[1], h[2], domes, (workers[0], workers[1]), to_move, turn, athena_up)
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def start(cls, gods: tuple[str, str] = (MORTAL, MORTAL)) -> Position:
        """The empty board before placement (SEI ``startpos``) with the given gods.

        Positions are immutable, so each matchup's start is built (and checked) once.
        """
        return _start((gods[0], gods[1]))  # a hashable key, whatever sequence was passed

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
        h1, h2, h3, domes, mine, theirs, up = state
        me = self.to_move
        child = object.__new__(Position)
        _init(
            child,
            self.gods,
            h1,
            h2,
            h3,
            domes,
            (mine, theirs) if me == 0 else (theirs, mine),
            1 - me,
            self.turn + me,
            up,
        )
        return child

    # --- queries ------------------------------------------------------------------------------

    @property
    def player(self) -> int:
        """The side to move as SPS writes it: 1 or 2."""
        return self.to_move + 1

    @property
    def is_placement(self) -> bool:
        """Whether the side to move still has to place its workers (phase is derived, not stored)."""
        return not self.workers[self.to_move]

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
        """SPEC.md section 1.4: a player whose legal set is empty at the start of their turn loses at once."""
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
            if canon != text:
                masks = first_step_masks(self, canon)
                assert masks is not None
                found = self._find(canon, masks)
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

        The checks of the meaning in SPEC.md section 2.2.
        """
        problems: list[str] = []
        try:
            check_matchup(*self.gods)
        except ValueError as exc:
            problems.append(str(exc))
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
        return (self.gods, self.h1, self.h2, self.h3, self.domes, self.workers, self.to_move, self.turn, self.athena_up)

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
def _start(gods: tuple[str, str]) -> Position:
    return Position(gods=gods)


_set = object.__setattr__
# The slots' own setters: the immutable class refuses ``setattr``, and calling a member
# descriptor directly is about twice as fast as ``object.__setattr__`` (a successor is built on
# every turn the referee checks).
(_set_gods, _set_h1, _set_h2, _set_h3, _set_domes, _set_workers, _set_to_move, _set_turn, _set_athena_up, _set_hash) = (
    Position.__dict__[name].__set__
    for name in ("gods", "h1", "h2", "h3", "domes", "workers", "to_move", "turn", "athena_up", "_hash")
)


def _init(
    pos: Position,
    gods: tuple[str, str],
    h1: int,
    h2: int,
    h3: int,
    domes: int,
    workers: tuple[int, int],
    to_move: int,
    turn: int,
    athena_up: bool,
) -> None:
    _set_gods(pos, gods)
    _set_h1(pos, h1)
    _set_h2(pos, h2)
    _set_h3(pos, h3)
    _set_domes(pos, domes)
    _set_workers(pos, workers)
    _set_to_move(pos, to_move)
    _set_turn(pos, turn)
    _set_athena_up(pos, athena_up)
    _set_hash(pos, None)
