"""Replay: re-validate a :class:`GameRecord` through the rules engine and check its result.

Unlike the rest of ``records`` (which treats turns as opaque strings, so a record the rules later
reject can still be stored and shown), this module imports the rules engine and its SPS/STN
parsers: replay *is* the place where a record meets the rules (SPEC.md section 14.1: "A record
is a regression test"; every turn is re-validated).  It is still pure: no I/O, no trio.

What is checked, and why each check holds for every record the referee writes:

* ``Start`` is ``startpos`` (the empty board with the ``Gods`` tag's gods) or a valid SPS whose
  gods equal the ``Gods`` tag; a ``Ruleset`` tag, if present, is the matchup's ruleset.
* Every turn is a legal complete turn of the position before it, written canonically (records
  hold canonical strings only, SPEC.md section 3), and no turn follows a winning turn.
* The result follows from the play: ``climb``/``pan-drop`` = the last turn wins that way and its
  mover is the winner; ``no-moves`` = the side to move after the last turn has no legal turn and
  is the loser; ``time``/``illegal``/``resign``/``crash``/``stall``/``engine-error`` = the side to
  move after the last turn is the loser (it still had a legal turn, else the referee would have
  recorded ``no-moves``).  One exception: with no turn played, ``crash``/``stall``/
  ``engine-error`` may name either side, since the referee starts both engines' games
  (``newgame``) before the first turn and either can fail there.  ``*`` goes with ``aborted``
  and no winning turn.

Speed: :func:`check_record` is the fast path (no position list is kept; an optional transition
cache shares work between games that repeat openings).  The per-turn cost is one filtered move
generation, ~15 us for a base-game turn.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field

from ..rules import IllegalTurnError, MalformedTurnError, NotationError, Position, Transition, check_matchup, ruleset_of
from ..termination import WINS_BY_RULE, Termination
from .game import GameRecord, start_side_and_turn

__all__ = [
    "ReplayProblem",
    "ReplayResult",
    "replay_record",
    "check_record",
    "move_label",
    "TransitionCache",
]

#: Failures that can also happen at ``newgame``, before the first turn, for either engine.
_PREGAME_FAILURES = (Termination.CRASH, Termination.STALL, Termination.ENGINE_ERROR)

#: ``(position, turn text) -> Transition``; see :func:`check_record`.
TransitionCache = MutableMapping[tuple[Position, str], Transition]
_CACHE_LIMIT = 200_000
#: Only the first turns are cached: games share openings, rarely middlegames, and hashing a
#: position costs about a quarter of validating a turn.
_CACHE_PLIES = 8


@dataclass(frozen=True, slots=True)
class ReplayProblem:
    """One reason a record does not re-validate, located as precisely as possible."""

    game_number: int | None
    """Game number (position in the file when the caller knows it, else the GameNumber tag)."""
    turn_index: int | None
    """1-based index into the record's turns, or None for a whole-game problem."""
    move: str | None
    """Move-number text of that turn (``6...``) and the turn, e.g. ``6... c4-c5+b5``."""
    reason: str
    """One line, quoting the offending text (and the SPS for an illegal turn)."""

    def __str__(self) -> str:
        game = f"game {self.game_number}" if self.game_number is not None else "game"
        if self.turn_index is None:
            return f"{game}: {self.reason}"
        return f"{game}, turn {self.turn_index} ({self.move}): {self.reason}"


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """A replayed record: positions reached, transitions taken, and every problem found."""

    record: GameRecord
    game_number: int | None
    positions: tuple[Position, ...] = ()
    """The start position then the position after each turn that re-validated (empty if the
    start itself is invalid).  ``positions[k]`` is the board after ``k`` turns."""
    transitions: tuple[Transition, ...] = ()
    """The canonical transition of each turn that re-validated, in order."""
    problems: tuple[ReplayProblem, ...] = field(default=())

    @property
    def ok(self) -> bool:
        """Whether every turn and the stated result re-validated."""
        return not self.problems

    @property
    def complete(self) -> bool:
        """Whether every turn of the record was replayed (a problem may still be in the result)."""
        return bool(self.positions) and len(self.transitions) == len(self.record.turns)


def move_label(start: str, index: int) -> str:
    """Move-number text of the 0-based ``index``-th turn of a game starting at ``start``.

    SGN numbers turns from the Start tag (``12.`` for player 1, ``12...`` for player 2).
    """
    side, number = start_side_and_turn(start)
    plies = index + (side - 1)
    number += plies // 2
    return f"{number}." if plies % 2 == 0 else f"{number}..."


def _start_position(record: GameRecord) -> tuple[Position | None, str | None]:
    """The start position, or None and the reason it cannot be built / disagrees with the tags."""
    gods_tag = record.tag("Gods") or ""
    try:
        g1, g2 = record.gods
        check_matchup(g1, g2)
    except ValueError as exc:
        return None, f"bad Gods tag {gods_tag!r}: {exc}"
    if record.start == "startpos":
        pos = Position.start((g1, g2))
    else:
        try:
            pos = Position.from_sps(record.start)
        except NotationError as exc:
            return None, f"bad Start tag: {exc}"
        if pos.gods != (g1, g2):
            return None, f"Gods tag {gods_tag!r} disagrees with the Start SPS (gods {'/'.join(pos.gods)})"
    ruleset = record.ruleset
    if ruleset is not None and ruleset != ruleset_of(g1, g2):
        return None, f"Ruleset tag {ruleset!r} is not the ruleset of {gods_tag} ({ruleset_of(g1, g2)})"
    return pos, None


def _walk(
    record: GameRecord, number: int | None, keep: bool, cache: TransitionCache | None
) -> tuple[list[Position], list[Transition], list[ReplayProblem]]:
    problems: list[ReplayProblem] = []
    start, why = _start_position(record)
    if start is None:
        return [], [], [ReplayProblem(number, None, None, why or "bad start")]
    positions = [start]
    transitions: list[Transition] = []
    pos = start
    last: Transition | None = None
    side, move_no = start_side_and_turn(record.start)  # for labels; kept incrementally
    for i, tr in enumerate(record.turns):
        text = tr.turn
        if last is not None and last.win:
            problems.append(ReplayProblem(
                number, i + 1, _label(side, move_no, text),
                f"the game was already won by turn {i} ({last.stn}, {last.termination}); no turn may follow",
            ))
            break
        cached = cache is not None and i < _CACHE_PLIES
        t = cache.get((pos, text)) if cached else None  # type: ignore[union-attr]
        if t is None:
            try:
                t = pos.play(text)
            except (MalformedTurnError, IllegalTurnError) as exc:
                problems.append(ReplayProblem(number, i + 1, _label(side, move_no, text), str(exc)))
                break
            if cached:
                if len(cache) >= _CACHE_LIMIT:  # type: ignore[arg-type]
                    cache.clear()  # type: ignore[union-attr]
                cache[(pos, text)] = t  # type: ignore[index]
        if t.stn != text:
            problems.append(ReplayProblem(
                number, i + 1, _label(side, move_no, text),
                f"turn {text!r} is legal but not canonical (records hold {t.stn!r})",
            ))
        transitions.append(t)
        pos = t.position
        if keep:
            positions.append(pos)
        last = t
        if side == 2:
            move_no += 1
        side = 3 - side
    if not keep:
        positions.append(pos)
    if len(transitions) == len(record.turns):
        why = _result_problem(record, pos, last)
        if why is not None:
            problems.append(ReplayProblem(number, None, None, why))
    return positions, transitions, problems


def _label(side: int, number: int, text: str) -> str:
    return f"{number}{'.' if side == 1 else '...'} {text}"


def _result_problem(record: GameRecord, final: Position, last: Transition | None) -> str | None:
    """Why the stated result does not follow from the play, or None if it does."""
    result, term = record.result, record.termination
    stated = f"result {result} {term}"
    if result == "*" or term == Termination.ABORTED:
        if result != "*" or term != Termination.ABORTED:
            return f"{stated}: an aborted game has result * and termination aborted"
        if last is not None and last.win:
            return f"{stated} but the last turn ({last.stn}) wins by {last.termination}"
        return None
    winner = 1 if result == "1-0" else 2
    if term in WINS_BY_RULE:
        if last is None or not last.win:
            return f"{stated} but the last turn does not win"
        if last.termination != term:
            return f"{stated} but the last turn ({last.stn}) wins by {last.termination}"
        mover = 3 - final.player  # the side that played the last turn
        if mover != winner:
            return f"{stated} but the winning turn ({last.stn}) was played by player {mover}"
        return None
    if last is not None and last.win:
        return f"{stated} but the last turn ({last.stn}) already wins by {last.termination} for player {3 - final.player}"
    loser = 3 - winner
    if term == Termination.NO_MOVES:
        if not final.is_lost():
            return f"{stated} but player {final.player} to move has a legal turn in {final.sps()}"
        if final.player != loser:
            return f"{stated} but player {final.player} is the one without a legal turn"
        return None
    if last is None and term in _PREGAME_FAILURES:
        return None  # either engine may have failed at newgame
    if final.player != loser:
        return f"{stated} but player {final.player} was to move (the loser must be the side to move)"
    if last is not None and final.is_lost():
        return f"{stated} but player {final.player} had no legal turn: the termination is no-moves"
    return None


def replay_record(record: GameRecord, number: int | None = None) -> ReplayResult:
    """Replay ``record`` from its Start, keeping every position (for showing the game).

    Args:
        number: the game's number for problem reports (its position in a file); defaults to
            the record's GameNumber tag.
    """
    if number is None:
        number = record.game_number
    positions, transitions, problems = _walk(record, number, True, None)
    return ReplayResult(record, number, tuple(positions), tuple(transitions), tuple(problems))


def check_record(
    record: GameRecord, number: int | None = None, cache: TransitionCache | None = None
) -> list[ReplayProblem]:
    """The problems of ``record`` (empty if it re-validates): the fast path for big archives.

    Keeps no positions.  ``cache`` (a dict the caller keeps across games) memoises the
    transitions of each game's first eight turns by (position, turn text): games of a tournament
    share openings; it is cleared when it reaches 200,000 entries.
    """
    if number is None:
        number = record.game_number
    return _walk(record, number, False, cache)[2]

