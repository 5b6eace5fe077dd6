"""Why a turn is not legal, in one line, derived from the legal-turn generator.

Theory of operation.  Legality is the generator's alone (SPEC.md 1.4, "The complete-turn
model").  A turn is cut into the atoms canonical STN writes (SPEC.md section 3: pre-build, move,
Artemis' second step, Hermes' second worker, builds) and compared with the atoms of every legal
turn.  The longest run of atoms some legal turn begins with is sound as far as it goes; the first
atom after it is the fault, or, when there is none, the turn stops too early.  Only then are the
rules consulted, to *word* why that atom fails (a dome, a climb of two levels, Athena's state):
each wording is a fact of the position checked before it is said, and when no fact fits the
reason says only what the generator says ("no legal turn begins b3-c4").  So an explanation never
calls a legal turn illegal, and a turn it offers as an example is one of the legal turns.

Cost: one full generation and a parse of each legal turn, paid only for a turn already refused
(:meth:`Position.play` calls :func:`rejection` on its way to raising).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .errors import IllegalTurnError, MalformedTurnError, quote
from .movegen import WIN_CLIMB, RawTurn, generate
from .squares import NEIGHBOURS, PUSH_TARGET, SQUARE_NAMES, parse_square
from .stn import TurnText, canonical_stn, format_stn, parse_stn, respell_stn

if TYPE_CHECKING:
    from .position import Position

__all__ = ["Explanation", "explain_turn", "rejection"]


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a turn is refused: ``text`` is the one line to show (``str()`` gives it)."""

    text: str
    example: str | None = None
    """A legal turn (canonical STN) the text offers, if any; it appears in ``text``."""
    refuted: str | None = None
    """The canonical STN of the turn's first atoms that no legal turn begins with (the claim the
    text words), or None when the turn stops short, is malformed or is for the other phase."""
    malformed: bool = False
    """The text is not STN at all (the error to raise is then :class:`MalformedTurnError`)."""

    def __str__(self) -> str:
        return self.text


def rejection(pos: Position, text: str) -> MalformedTurnError | IllegalTurnError:
    """The error :meth:`Position.play` raises for ``text``, which it has found not legal in ``pos``."""
    why = explain_turn(pos, text)
    if why.malformed:
        return MalformedTurnError(f"malformed turn {quote(text)}: {why}", reason=why.text)
    return IllegalTurnError(f"illegal turn {quote(text)} in {pos.sps()}: {why}", reason=why.text)


def explain_turn(pos: Position, text: str) -> Explanation:
    """Why ``text`` is not a legal complete turn of ``pos``.

    Raises:
        ValueError: ``text`` is a legal turn (in any accepted spelling): there is nothing to explain.
    """
    try:
        turn = parse_stn(text)
    except MalformedTurnError as exc:
        return _malformed(pos, text, exc.reason)
    legal = list(generate(pos))
    if not legal:
        return Explanation(f"player {pos.player} has no legal turn here: the game is over")
    if pos.is_placement != (turn.place is not None):
        return _wrong_phase(pos, legal)
    canonical = canonical_stn(pos, turn)
    if any(t.stn == format_stn(canonical) for t in legal):
        raise ValueError(f"{text!r} is a legal turn in {pos.sps()}")
    if canonical.place is not None:
        return _placement(pos, canonical.place)
    return _Diagnosis(pos, canonical, legal).explain()


# --- text that is not STN, and the wrong phase ------------------------------------------------------


def _malformed(pos: Position, text: str, why: str) -> Explanation:
    """The grammar's reason, and what the likely intended spelling would be in ``pos``."""
    meant = respell_stn(text)
    if meant == text:
        return Explanation(why, malformed=True)
    try:
        parse_stn(meant)
    except MalformedTurnError:
        return Explanation(why, malformed=True)
    try:
        inner = explain_turn(pos, meant)
    except ValueError:  # legal: say so, canonically
        canon = format_stn(canonical_stn(pos, parse_stn(meant)))
        return Explanation(f"{why} ({canon} is legal here)", example=canon, malformed=True)
    return Explanation(f"{why} (and {meant} would be illegal: {inner})", example=inner.example, malformed=True)


def _wrong_phase(pos: Position, legal: list[RawTurn]) -> Explanation:
    example = _prefer(legal, lambda t: t.stn == "b3,d3")
    if pos.is_placement:
        return Explanation(f"place both workers first, on two empty squares (e.g. {example})", example)
    return Explanation(f"your workers are placed: move one, then build (e.g. {example})", example)


def _placement(pos: Position, place: tuple[str, str]) -> Explanation:
    a, b = place
    refuted = ",".join(place)
    if a == b:
        return Explanation(f"both workers cannot stand on {a}", refuted=refuted)
    for sq in place:
        s = parse_square(sq)
        if sum(pos.workers) >> s & 1:  # groups never share a square
            return Explanation(f"{sq} is occupied: place on two empty squares", refuted=refuted)
        if pos.domes >> s & 1:
            return Explanation(f"{sq} is domed: place on two empty squares", refuted=refuted)
    return Explanation(f"{refuted} is not a legal placement", refuted=refuted)  # pragma: no cover - every free pair is


def _prefer(legal: list[RawTurn], good: Callable[[RawTurn], bool]) -> str:
    """The first legal turn ``good`` accepts, else the first legal turn (always a legal turn)."""
    return next((t.stn for t in legal if good(t)), legal[0].stn)


# --- a well-formed turn of the right phase -------------------------------------------------------------


class _Atom(NamedTuple):
    """One step of a turn as STN writes it: ``kind`` is pre, move, step, move2 or build."""

    kind: str
    text: str
    a: str
    b: str = ""


def _atoms(turn: TurnText) -> tuple[_Atom, ...]:
    out: list[_Atom] = []
    if turn.pre:
        out.append(_Atom("pre", "+" + turn.pre, turn.pre))
    if turn.frm and turn.to:
        out.append(_Atom("move", f"{turn.frm}{turn.op}{turn.to}", turn.frm, turn.to))
        if turn.to2:
            out.append(_Atom("step", "-" + turn.to2, turn.to2))
        if turn.frm_b and turn.to_b:
            out.append(_Atom("move2", f",{turn.frm_b}-{turn.to_b}", turn.frm_b, turn.to_b))
    for sq, dome in turn.builds:
        out.append(_Atom("build", "+" + sq + ("D" if dome else ""), sq, "D" if dome else ""))
    return tuple(out)


def _text(atoms: tuple[_Atom, ...]) -> str:
    return "".join(a.text for a in atoms)


_LEVEL_WORDS = {2: "two levels", 3: "three levels"}


class _Board:
    """The board as a turn's first atoms leave it: only to *word* facts, never to rule."""

    def __init__(self, pos: Position) -> None:
        self.levels = [pos.level(sq) for sq in range(25)]
        mine, theirs = pos.sides()
        self.mine = {sq for sq in range(25) if mine >> sq & 1}
        self.theirs = {sq for sq in range(25) if theirs >> sq & 1}
        self.forced: set[int] = set()  # squares an opponent was forced onto this turn
        self.movers: list[int] = []  # where the workers that moved stand now
        self.pre: int | None = None

    def apply(self, atom: _Atom, god: str) -> None:
        a = parse_square(atom.a)
        if atom.kind in ("pre", "build"):
            self.levels[a] = 4 if atom.b == "D" else min(4, self.levels[a] + 1)
            if atom.kind == "pre":
                self.pre = a
            return
        if atom.kind == "step":
            self.mine.remove(self.movers[-1])
            self.mine.add(a)
            self.movers[-1] = a
            return
        b = parse_square(atom.b)
        if b in self.theirs:  # Apollo swaps, the Minotaur pushes
            self.theirs.remove(b)
            forced = a if god == "apollo" else PUSH_TARGET[(a, b)]
            self.theirs.add(forced)
            self.forced.add(forced)
        self.mine.remove(a)
        self.mine.add(b)
        self.movers.append(b)

    def workers(self) -> set[int]:
        return self.mine | self.theirs


def _next_to(a: int, b: int) -> bool:
    return bool(NEIGHBOURS[a] >> b & 1)


def _names(squares: set[int]) -> str:
    return " and ".join(sorted(SQUARE_NAMES[s] for s in squares))


class _Diagnosis:
    """One refused move-phase turn against the legal set (see the module docstring)."""

    def __init__(self, pos: Position, turn: TurnText, legal: list[RawTurn]) -> None:
        self.pos = pos
        self.god = pos.gods[pos.to_move]
        self.atoms = _atoms(turn)
        self.legal = legal
        self.legal_atoms = {t.stn: _atoms(parse_stn(t.stn)) for t in legal}
        self.wins = {t.stn: t.win for t in legal}
        self.start = {sq for sq in range(25) if pos.sides()[0] >> sq & 1}
        """The mover's workers before the turn."""

    def explain(self) -> Explanation:
        atoms = self.atoms
        prefixes = {atoms_[:i] for atoms_ in self.legal_atoms.values() for i in range(1, len(atoms_) + 1)}
        k = 0
        while k < len(atoms) and atoms[: k + 1] in prefixes:
            k += 1
        board = _Board(self.pos)
        for atom in atoms[:k]:
            board.apply(atom, self.god)
        if k == len(atoms):
            return self._too_short(board)
        prefix, fault = atoms[:k], atoms[k]
        refuted = _text(atoms[: k + 1])
        done = _text(prefix)
        if prefix and done in self.wins:
            return self._after_complete(board, done, fault, refuted)
        why = self._fact(board, prefix, fault)
        if why is None and fault.kind == "pre" and k + 1 < len(atoms):
            # a sound pre-build that no turn continues: the move after it says why
            board.apply(fault, self.god)
            why = self._move_fact(board, atoms[k + 1])
            if why is not None:
                refuted = _text(atoms[: k + 2])
        if why is None:
            why = f"no legal turn begins {refuted}"
        return Explanation(why, refuted=refuted)

    # --- the three shapes of a fault ---------------------------------------------------------------

    def _too_short(self, board: _Board) -> Explanation:
        """Every atom is sound but the turn is not complete: it lacks its build."""
        start = self.atoms
        n = len(start)
        if not n:  # Hermes' stay spelled as a move to its own square: nothing moves, nothing is built
            shortest = min(len(atoms) for atoms in self.legal_atoms.values())
            example = _prefer(self.legal, lambda t: len(self.legal_atoms[t.stn]) == shortest)
            return Explanation(f"the turn builds nothing: every turn ends with a build (e.g. {example})", example)
        longer = [t for t in self.legal if self.legal_atoms[t.stn][:n] == start]
        vacated = start[0].a if start[0].kind == "move" else ""
        nearest = min(len(self.legal_atoms[t.stn]) for t in longer)
        example = _prefer(
            [t for t in longer if len(self.legal_atoms[t.stn]) == nearest],
            lambda t: self.legal_atoms[t.stn][-1].a == vacated,
        )
        hermes_power = len(board.movers) == 2 or (
            start[0].kind == "move" and self.pos.level(parse_square(start[0].a)) == self.pos.level(board.movers[0])
        )
        where = "either worker" if self.god == "hermes" and hermes_power else SQUARE_NAMES[board.movers[-1]]
        return Explanation(f"after moving, build next to {where} (e.g. {example})", example)

    def _after_complete(self, board: _Board, done: str, fault: _Atom, refuted: str) -> Explanation:
        """The turn goes on after a complete turn: past a win, or a build too many."""
        if self.wins[done]:
            how = "moving up to level 3" if self.wins[done] == WIN_CLIMB else "Pan's drop of two levels"
            return Explanation(f"{done} already wins by {how}: the turn ends there (e.g. {done})", done, refuted)
        builds = [a for a in self.atoms if a.kind == "build"]
        first = builds[0].a
        if self.god not in ("demeter", "hephaestus"):
            why = f"one build per turn (only Demeter and Hephaestus build twice): {done} is complete"
            return Explanation(f"{why} (e.g. {done})", done, refuted)
        if self.god == "demeter" and fault.a == first:
            return Explanation(f"Demeter's second build must be on another square than {first} (e.g. {done})", done, refuted)
        fact = self._fact(board, (), fault) if fault.kind == "build" else None
        if fact is not None:
            return Explanation(fact, refuted=refuted)
        if self.god == "demeter":  # pragma: no cover - a sound other square is a legal second build
            why = f"no legal turn begins {refuted}"
        elif fault.a != first:
            why = f"Hephaestus' second build goes on {first} again"
        else:
            why = f"Hephaestus' second build must be a block, not a dome ({first} would be domed)"
        return Explanation(f"{why} (e.g. {done})", done, refuted)

    # --- facts about one atom ----------------------------------------------------------------------

    def _fact(self, board: _Board, prefix: tuple[_Atom, ...], fault: _Atom) -> str | None:
        """Why ``fault`` fails after ``prefix``, when a fact of the position says it; else None."""
        if fault.kind == "pre":
            return self._pre_fact(board, fault)
        if fault.kind == "move":
            return self._move_fact(board, fault)
        if fault.kind == "step":
            return self._step_fact(board, prefix, fault)
        if fault.kind == "move2":
            return self._move2_fact(board, prefix, fault)
        return self._build_fact(board, fault)

    def _pre_fact(self, board: _Board, atom: _Atom) -> str | None:
        if self.god != "prometheus":
            return "only Prometheus builds before moving"
        sq = parse_square(atom.a)
        if board.levels[sq] == 4:
            return f"{atom.a} is domed"
        if sq in board.workers():
            return f"{atom.a} is occupied"
        if not any(_next_to(sq, w) for w in board.mine):
            return f"{atom.a} is not next to your workers ({_names(board.mine)})"
        return None

    def _move_fact(self, board: _Board, atom: _Atom) -> str | None:
        frm, to = parse_square(atom.a), parse_square(atom.b)
        if frm not in board.mine:
            whose = "holds your opponent's worker" if frm in board.theirs else "has no worker of yours"
            return f"{atom.a} {whose}: yours are on {_names(self.start)}"
        if board.pre is not None and not _next_to(board.pre, frm):
            return f"the pre-build on {SQUARE_NAMES[board.pre]} is not next to {atom.a}, the worker that moves"
        if frm == to:
            return f"the worker on {atom.a} must move to another square"
        hermes_far = self.god == "hermes" and not _next_to(frm, to)
        if not _next_to(frm, to) and not hermes_far:
            return f"{atom.b} is not next to {atom.a}: a worker moves one square"
        if hermes_far and board.levels[to] != board.levels[frm]:
            return f"{atom.b} is not next to {atom.a}, and Hermes goes farther only across his own level"
        return self._entry_fact(board, frm, to, atom.a, atom.b)

    def _entry_fact(self, board: _Board, frm: int, to: int, frm_name: str, to_name: str) -> str | None:
        """Why a worker on ``frm`` may not step onto ``to`` (a neighbour)."""
        if board.levels[to] == 4:
            return f"{to_name} is domed"
        if to in board.mine:
            return f"{to_name} holds your other worker"
        if to in board.theirs:
            if self.god not in ("apollo", "minotaur"):
                return f"{to_name} holds your opponent's worker (only Apollo and the Minotaur move into one)"
            if self.god == "minotaur":
                push = PUSH_TARGET.get((frm, to))
                if push is None:
                    return f"the Minotaur cannot push the worker on {to_name}: the square beyond is off the board"
                if board.levels[push] == 4:
                    return f"the Minotaur cannot push the worker on {to_name}: {SQUARE_NAMES[push]} beyond it is domed"
                if push in board.workers():
                    return f"the Minotaur cannot push the worker on {to_name}: {SQUARE_NAMES[push]} beyond it is occupied"
        up = board.levels[to] - board.levels[frm]
        if up >= 2:
            return f"{to_name} is {_LEVEL_WORDS[up]} up from {frm_name}: a worker moves up at most one level"
        if up == 1 and self.pos.no_up:
            if self.pos.nseats == 2:
                return "Athena moved up last turn: no worker may move up this turn"
            return "Athena moved up on her last turn: her opponents may not move up until she moves again"
        if up == 1 and board.pre is not None:
            return f"after building first, Prometheus may not move up ({frm_name} is level {board.levels[frm]}, " \
                   f"{to_name} is now {board.levels[to]})"
        if self._no_build_after(board, frm, to):
            return f"{frm_name} to {to_name} leaves no square to build on, so no complete turn begins with it"
        return None

    def _no_build_after(self, board: _Board, frm: int, to: int) -> bool:
        """Whether the worker stepping ``frm`` -> ``to`` would have no square to build on (a dead end)."""
        if self.god == "hermes":
            return False
        after = _Board(self.pos)
        after.levels, after.mine, after.theirs = list(board.levels), set(board.mine), set(board.theirs)
        # (a Minotaur's push square exists: _entry_fact has said so first)
        after.apply(_Atom("move", "", SQUARE_NAMES[frm], SQUARE_NAMES[to]), self.god)
        occupied = after.workers()
        return not any(_next_to(to, sq) and sq not in occupied and after.levels[sq] != 4 for sq in range(25))

    def _step_fact(self, board: _Board, prefix: tuple[_Atom, ...], atom: _Atom) -> str | None:
        if self.god != "artemis":
            return "only Artemis moves twice"
        start = prefix[-1].a
        here = board.movers[-1]
        to = parse_square(atom.a)
        if atom.a == start:
            return f"Artemis may not move back to {start}, where she started"
        if not _next_to(here, to):
            return f"{atom.a} is not next to {SQUARE_NAMES[here]}: each step goes one square"
        return self._entry_fact(board, here, to, SQUARE_NAMES[here], atom.a)

    def _move2_fact(self, board: _Board, prefix: tuple[_Atom, ...], atom: _Atom) -> str | None:
        if self.god != "hermes":
            return "only Hermes moves both workers"
        first = prefix[-1]
        a, b = parse_square(first.a), parse_square(first.b)
        if self.pos.level(a) != self.pos.level(b):
            return f"{first.text} changes level: Hermes moves both workers only when neither does"
        frm, to = parse_square(atom.a), parse_square(atom.b)
        if frm == a:
            return f"{first.text} already moves the worker on {atom.a}: the second move is your other worker's"
        if frm not in self.start:
            return f"{atom.a} has no worker of yours: yours are on {_names(self.start)}"
        if board.levels[to] == 4:
            return f"{atom.b} is domed"
        if to in board.workers():
            return f"{atom.b} is occupied"
        if board.levels[to] != board.levels[frm]:
            return f"{atom.b} is not at {atom.a}'s level: when both workers move, neither changes level"
        return None

    def _build_fact(self, board: _Board, atom: _Atom) -> str | None:
        sq = parse_square(atom.a)
        if not board.movers and self.god != "hermes":
            return "a worker moves before it builds (only Hermes may build without moving)"
        builders = board.movers or sorted(board.mine)
        if not any(_next_to(b, sq) for b in builders):
            if len(builders) == 1:
                return f"{atom.a} is not next to {SQUARE_NAMES[builders[0]]}: build next to the worker that moved"
            return f"{atom.a} is not next to either worker"
        if board.levels[sq] == 4:
            return f"{atom.a} is domed"
        if sq in board.forced:
            return f"{atom.a} is occupied: the opponent's worker was forced there"
        if sq in board.workers():
            return f"{atom.a} is occupied"
        if atom.b == "D" and self.god != "atlas":
            return f"only Atlas builds a dome below level 3 ({atom.a} is level {board.levels[sq]})"
        return None
