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

Three and four seats (SPEC.md section 15): each :class:`~.game.Elimination` of the record is
applied where it stands (``Position.eliminate``); one for ``no-moves`` needs the seat to have no
complete turn, one for a fault needs it to have one.  A seat with no complete turn must be
eliminated there (or, the last but one, end the game).  The ``Result`` placings must be the ones
the play implies: 3p the winner (by a winning turn, or the last seat standing) first, the seats
still in when another wins tied second, the others by how long they stayed in; 4p the winning
or losing seat's team as a whole.

Speed: :func:`check_record` is the fast path (no position list is kept; an optional transition
cache shares work between games that repeat openings).  The per-turn cost is one filtered move
generation, ~15 us for a base-game turn.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field

from ..rules import IllegalTurnError, MalformedTurnError, NotationError, Position, Transition, check_gods, ruleset_of
from ..termination import WINS_BY_RULE, Termination
from .game import Elimination, GameRecord, RecordError, start_side_and_turn, start_state

__all__ = [
    "ReplayProblem",
    "ReplayResult",
    "replay_record",
    "check_record",
    "move_label",
    "turn_labels",
    "implied_placings",
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
    start itself is invalid).  ``positions[k]`` is the board after ``k`` turns, and after the
    record's eliminations that follow them (three seats): the position turn ``k + 1`` is played in."""
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
    """Move-number text of the 0-based ``index``-th turn of a two-seat game starting at ``start``.

    SGN numbers turns from the Start tag (``12.`` for player 1, ``12...`` for player 2); for any
    seat count use :func:`turn_labels`.
    """
    side, number = start_side_and_turn(start)
    plies = index + (side - 1)
    number += plies // 2
    return f"{number}." if plies % 2 == 0 else f"{number}..."


def turn_labels(record: GameRecord) -> list[tuple[str, int]]:
    """``(move-number text, seat)`` of each turn of ``record``: ``("12.", 1)``, ``("12...", 2)``.

    The round's number as SGN writes it, with ``...`` for every seat but the round's first.
    """
    return [
        (f"{slot.round}{'.' if slot.opens_round else '...'}", slot.seat)
        for slot in record.slots()
        if not isinstance(slot.item, Elimination)
    ]


def _start_position(record: GameRecord) -> tuple[Position | None, str | None]:
    """The start position, or None and the reason it cannot be built / disagrees with the tags."""
    gods_tag = record.tag("Gods") or ""
    gods = record.gods
    try:
        check_gods(gods)
    except ValueError as exc:
        return None, f"bad Gods tag {gods_tag!r}: {exc}"
    if record.start == "startpos":
        pos = Position.start(gods)
    else:
        try:
            pos = Position.from_sps(record.start)
        except NotationError as exc:
            return None, f"bad Start tag: {exc}"
        if pos.gods != gods:
            return None, f"Gods tag {gods_tag!r} disagrees with the Start SPS (gods {'/'.join(pos.gods)})"
    ruleset = record.ruleset
    if ruleset is not None and ruleset != ruleset_of(*gods):
        return None, f"Ruleset tag {ruleset!r} is not the ruleset of {gods_tag} ({ruleset_of(*gods)})"
    return pos, None


def _walk(
    record: GameRecord, number: int | None, keep: bool, cache: TransitionCache | None
) -> tuple[list[Position], list[Transition], list[ReplayProblem]]:
    problems: list[ReplayProblem] = []
    start, why = _start_position(record)
    if start is None:
        return [], [], [ReplayProblem(number, None, None, why or "bad start")]
    if record.nseats != 2:
        return _walk_seats(record, number, start, keep)
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


def _walk_seats(
    record: GameRecord, number: int | None, start: Position, keep: bool
) -> tuple[list[Position], list[Transition], list[ReplayProblem]]:
    """:func:`_walk` for three and four seats: turns and eliminations in seat order."""
    problems: list[ReplayProblem] = []
    positions = [start]
    transitions: list[Transition] = []
    pos = start
    last: Transition | None = None
    exits: list[int] = []  # seats (1-based) eliminated during the record, in order
    i = 0  # turns played
    complete = True
    for slot in record.slots():
        item = slot.item
        label = f"{slot.round}{'.' if slot.opens_round else '...'}"
        if isinstance(item, Elimination):
            where = f"elimination of seat {item.seat} after turn {i}"
            why = _elimination_problem(pos, item, last)
            if why is not None:
                problems.append(ReplayProblem(number, None, None, f"{where}: {why}"))
                complete = False
                break
            nxt = pos.eliminate()
            assert nxt is not None  # the record never eliminates the last but one seat
            pos = nxt
            exits.append(item.seat)
            if keep:
                positions[-1] = pos
            continue
        text = item.turn
        move = f"{label} {text}, seat {slot.seat}"
        if last is not None and last.win:
            problems.append(ReplayProblem(
                number, i + 1, move,
                f"the game was already won by turn {i} ({last.stn}, {last.termination}); no turn may follow",
            ))
            break
        try:
            t = pos.play(text)
        except (MalformedTurnError, IllegalTurnError) as exc:
            reason = str(exc)
            if pos.nseats == 3 and pos.is_lost():
                reason = (f"seat {pos.player} has no complete turn in {pos.sps()}: the record must eliminate it "
                          "(eliminated:no-moves) before the next seat's turn")
            problems.append(ReplayProblem(number, i + 1, move, reason))
            break
        if t.stn != text:
            problems.append(ReplayProblem(
                number, i + 1, move, f"turn {text!r} is legal but not canonical (records hold {t.stn!r})"
            ))
        transitions.append(t)
        pos = t.position
        if keep:
            positions.append(pos)
        last = t
        i += 1
    if not keep:
        positions.append(pos)
    if complete and len(transitions) == len(record.turns):
        why = _result_problem_seats(record, pos, last, exits)
        if why is not None:
            problems.append(ReplayProblem(number, None, None, why))
    return positions, transitions, problems


def _elimination_problem(pos: Position, elim: Elimination, last: Transition | None) -> str | None:
    """Why ``elim`` cannot happen in ``pos``, or None."""
    if last is not None and last.win:
        return f"the game was already won ({last.stn}, {last.termination})"
    if pos.player != elim.seat:
        return f"seat {pos.player} is to move in {pos.sps()}"
    stuck = pos.is_lost()
    if elim.termination == Termination.NO_MOVES and not stuck:
        return f"no-moves, but seat {elim.seat} has a complete turn in {pos.sps()}"
    if elim.termination != Termination.NO_MOVES and stuck:
        return f"{elim.termination}, but seat {elim.seat} had no complete turn in {pos.sps()}: the reason is no-moves"
    return None


def implied_placings(
    nseats: int, winner: int | None, loser: int | None, live: tuple[int, ...], exits: list[int]
) -> tuple[int, ...]:
    """The placings (seat order, 1 = first) the play gives, SPEC.md section 15: ``winner`` (by a
    winning turn) or ``loser`` (no turn or a fault) is a 1-based seat, ``live`` the seats still
    in (1-based) before that loss, ``exits`` the seats eliminated earlier, first out first.

    3p: the winner (or the last seat standing) first, seats still in tie second, the others
    ranked by how long they stayed in; 4p: the team of the winner (or of the loser's opponents)
    first. Two seats: (1, 2) or (2, 1).
    """
    if nseats == 4 or nseats == 2:
        if winner is None:
            assert loser is not None
            winner = loser % nseats + 1  # the next seat: always on the other side
        return tuple(1 if (s - winner) % 2 == 0 else 2 for s in range(1, nseats + 1))
    order = list(exits)
    if winner is None:
        assert loser is not None
        order.append(loser)
        (winner,) = [s for s in live if s != loser]
    places = {winner: 1}
    for k, seat in enumerate(order):
        places[seat] = nseats - k  # the first out is last
    for seat in live:
        places.setdefault(seat, 2)
    return tuple(places[s] for s in range(1, nseats + 1))


def _aborted_problem(stated: str, result: str, term: str, last: Transition | None) -> str | None:
    """For a record that says it was aborted (any seat count): why the play disagrees, or None."""
    if result != "*" or term != Termination.ABORTED:
        return f"{stated}: an aborted game has result * and termination aborted"
    if last is not None and last.win:
        return f"{stated} but the last turn ({last.stn}) wins by {last.termination}"
    return None


def _result_problem_seats(record: GameRecord, final: Position, last: Transition | None, exits: list[int]) -> str | None:
    """:func:`_result_problem` for three and four seats: the placings must be the play's."""
    result, term = record.result, record.termination
    stated = f"result {result} {term}"
    n = record.nseats
    if result == "*" or term == Termination.ABORTED:
        return _aborted_problem(stated, result, term, last)
    try:
        stated_places = record.placings
    except RecordError as exc:  # cannot happen: GameRecord checked it
        return f"{stated}: {exc}"
    assert stated_places is not None
    out_at_start = start_state(record.start)[2]
    exits = [s + 1 for s in range(n) if out_at_start >> s & 1] + exits
    live = tuple(s + 1 for s in final.live_seats)
    mover = _last_mover(record)
    if term in WINS_BY_RULE:
        if last is None or not last.win:
            return f"{stated} but the last turn does not win"
        if last.termination != term:
            return f"{stated} but the last turn ({last.stn}) wins by {last.termination}"
        implied = implied_placings(n, mover, None, live, exits)
        why = f"seat {mover} wins by {term}"
    else:
        if last is not None and last.win:
            return f"{stated} but the last turn ({last.stn}) already wins by {last.termination} for seat {mover}"
        stuck = final.is_lost()
        if term == Termination.NO_MOVES and not stuck:
            return f"{stated} but seat {final.player} to move has a complete turn in {final.sps()}"
        if term != Termination.NO_MOVES and stuck and last is not None:
            return f"{stated} but seat {final.player} had no complete turn: the termination is no-moves"
        if n == 3 and len(live) > 2:
            return (f"{stated} but three seats are still in: seat {final.player}'s loss eliminates it and the game "
                    f"goes on (record it as eliminated:{term})")
        candidates = [final.player]
        if last is None and term in _PREGAME_FAILURES:
            candidates = list(live)  # any engine may have failed at newgame
        options = [implied_placings(n, None, loser, live, exits) for loser in candidates]
        if stated_places in options:
            return None
        implied = options[0]
        why = f"seat {final.player} to move loses by {term}"
    if stated_places != implied:
        return f"{stated} but the play implies {'-'.join(map(str, implied))} ({why})"
    return None


def _last_mover(record: GameRecord) -> int | None:
    """The seat (1-based) that played the record's last turn, or None without turns."""
    seat = None
    for slot in record.slots():
        if not isinstance(slot.item, Elimination):
            seat = slot.seat
    return seat


def _label(side: int, number: int, text: str) -> str:
    return f"{number}{'.' if side == 1 else '...'} {text}"


def _result_problem(record: GameRecord, final: Position, last: Transition | None) -> str | None:
    """Why the stated result does not follow from the play, or None if it does."""
    result, term = record.result, record.termination
    stated = f"result {result} {term}"
    if result == "*" or term == Termination.ABORTED:
        return _aborted_problem(stated, result, term, last)
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

