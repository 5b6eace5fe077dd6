"""What the viewer shows, as plain data: a game record replayed through the rules core.

Pure: a :class:`~santorini_server.records.GameRecord` goes in, a JSON-ready dict comes out, and
nothing here draws.  Every position the page shows is one the rules core produced
(``records.replay``), and every mark on the board (the move's arrows, the build markers, the
power used) is decoded here from the canonical STN and the positions around it, so the page's
JavaScript only places shapes and never judges a rule.

The data (one dict per game; a page carries it packed, :mod:`.packed`, and the page's script
unpacks it to exactly this):

* ``p``: the positions, start first, then the one after each turn (after any elimination that
  follows it): ``b`` the board, 25 characters in SPS square order (a5 ... e5, ..., a1 ... e1),
  ``0``-``3`` a level and ``A``-``D`` a dome standing on level 0-3 (the rules core keeps only
  "domed"; the level under a dome is what the turns built, 3 for a dome already in the Start
  position); ``w`` the worker squares of each worker group (0-24, the same order); ``m`` the
  seat to move, 1-based (0 once the game is over); ``x`` the eliminated seats as a bit mask;
  ``r`` the round; ``up`` the seat Athena's restriction binds this turn (0: none); ``pl`` 1 while
  the seat to move places its workers.
* ``t``: one dict per turn: ``s`` canonical STN, ``l`` its move number (``12...``), ``seat``,
  telemetry ``ms``/``clock``/``score``/``depth``/``nodes`` (``clock``: the mover's clock after
  the turn, from the TimeControl tag and the times used), ``win`` (a winning turn's termination),
  ``out`` (the eliminations right after it, in words), for a turn an engine analysed
  (``santorini analyse``, ``records.analysis``) ``ev`` the mover's win probability after it in
  percent, ``eb``/``ea`` the scores before/after, ``loss``, ``mk`` the mark and ``best`` with
  ``bm`` (the engine's best turn and its marks, when it is not the turn played), and ``a`` the
  annotation: ``place`` (the
  squares placed), ``mv`` (``[from, to, kind]``, kind ``move`` for the mover's steps, ``forced``
  for Apollo's and the Minotaur's victims), ``bd`` (``[square, kind]``, kind ``block``, ``dome``,
  ``atlas`` (a dome below level 3), ``double`` (Hephaestus' two blocks), ``pre`` (Prometheus'
  pre-build)) and ``txt`` (the god power used, in words).
* ``seats``: per seat ``player``, ``god``, ``letter``, ``group`` (the worker group, 1-based: the
  seat itself, or with four seats its team) and ``team`` (``A``/``B`` with four seats).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..adjudicator.clock import Clock, parse_tc
from ..adjudicator.outcome import Outcome
from ..records.analysis import ANALYSIS_TAG, DEFAULT_SCALE, parse_annotation
from ..records.game import GameRecord
from ..records.replay import ReplayResult, replay_record, turn_labels
from ..rules import NotationError, Position, Transition, parse_stn
from ..rules.squares import NEIGHBOURS, PUSH_TARGET, parse_square, scan, square_name

__all__ = [
    "LETTERS",
    "DOME_CHARS",
    "board_text",
    "position_data",
    "annotation",
    "analysis_scale",
    "game_data",
    "games_data",
    "decode_board",
    "seats_data",
    "track_dome_bases",
    "result_words",
    "DEFAULT_DOME_BASE",
]

#: Worker letters by group, as ``santorini show`` writes them: X/O, X/O/V, teams A/B.
LETTERS: dict[int, tuple[str, ...]] = {2: ("X", "O"), 3: ("X", "O", "V"), 4: ("A", "B")}
#: Board characters of a dome standing on level 0, 1, 2, 3.
DOME_CHARS = "ABCD"
#: The level assumed under a dome the record never saw built (one in the Start position).
DEFAULT_DOME_BASE = 3


def board_text(pos: Position, dome_base: Sequence[int] | None = None, *,
               previous: tuple[Position, str] | None = None) -> str:
    """The 25-character board of ``pos`` (levels ``0``-``3``; ``A``-``D`` a dome on level 0-3).

    Built from the level bitboards' set bits rather than 25 ``Position.level`` calls: every
    position of every game a report shows passes here.  With ``previous`` (the position before
    and its board text) only the squares whose bits differ are redone, a turn's one or two: a
    dome's base is set by the turn that builds it, on a square that differs."""
    if previous is not None:
        before, text = previous
        changed = (before.h1 ^ pos.h1) | (before.h2 ^ pos.h2) | (before.h3 ^ pos.h3) | (before.domes ^ pos.domes)
        if not changed:
            return text
        chars = list(text)
        for sq in scan(changed):
            if pos.domes >> sq & 1:
                chars[sq] = _dome_char(dome_base, sq)
            else:
                chars[sq] = _DIGITS[(pos.h1 >> sq & 1) + (pos.h2 >> sq & 1) + (pos.h3 >> sq & 1)]
        return "".join(chars)
    levels = [0] * 25
    for mask in (pos.h1, pos.h2, pos.h3):
        for sq in scan(mask):
            levels[sq] += 1
    out = [_DIGITS[level] for level in levels]
    for sq in scan(pos.domes):
        out[sq] = _dome_char(dome_base, sq)
    return "".join(out)


def _dome_char(dome_base: Sequence[int] | None, sq: int) -> str:
    return DOME_CHARS[DEFAULT_DOME_BASE if dome_base is None else dome_base[sq]]


_DIGITS = "0123"


def decode_board(board: str) -> list[tuple[int, bool]]:
    """``(level, domed)`` per square of a board text (the level under a dome when domed)."""
    return [(DOME_CHARS.index(c), True) if c in DOME_CHARS else (int(c), False) for c in board]


@functools.lru_cache(maxsize=1024)
def _squares_of(mask: int) -> tuple[int, ...]:
    """A worker group's squares: a few hundred masks (two workers of 25 squares) recur all game."""
    return tuple(scan(mask))


def position_data(pos: Position, dome_base: Sequence[int] | None = None, *, over: bool = False,
                  previous: tuple[Position, str] | None = None) -> dict[str, Any]:
    """The compact view of one position (the module docstring's ``p`` entries); ``previous``
    as :func:`board_text` takes it."""
    bound = 0
    if pos.no_up and not over:
        bound = pos.player
    return {
        "b": board_text(pos, dome_base, previous=previous),
        "w": [list(_squares_of(mask)) for mask in pos.workers],
        "m": 0 if over else pos.player,
        "x": pos.eliminated,
        "r": pos.turn,
        "up": bound,
        "pl": int(pos.is_placement and not over),
    }


def annotation(before: Position, transition: Transition) -> dict[str, Any]:
    """What a turn did, decoded from its canonical STN and the positions before and after it.

    Squares are 0-24 (SPS order).  The kinds are the module docstring's; ``txt`` names the power
    used (empty for an ordinary turn).
    """
    turn = parse_stn(transition.stn)
    after = transition.position
    god = before.gods[before.to_move]
    if turn.place:
        return {"place": [parse_square(s) for s in turn.place], "txt": ""}
    moves: list[list[Any]] = []
    notes: list[str] = []
    if turn.frm is not None and turn.to is not None:
        frm, to = parse_square(turn.frm), parse_square(turn.to)
        moves.append([frm, to, "move"])
        if turn.op == "x" and god == "apollo":
            moves.append([to, frm, "forced"])
            notes.append(f"Apollo swaps: the worker on {turn.to} is forced to {turn.frm}")
        elif turn.op == "x" and god == "minotaur":
            push = PUSH_TARGET[(frm, to)]
            moves.append([to, push, "forced"])
            notes.append(f"Minotaur pushes the worker on {turn.to} to {square_name(push)}")
        if turn.to2 is not None:
            moves.append([to, parse_square(turn.to2), "move"])
            notes.append(f"Artemis moves twice ({turn.frm}-{turn.to}-{turn.to2})")
        if turn.frm_b is not None and turn.to_b is not None:
            moves.append([parse_square(turn.frm_b), parse_square(turn.to_b), "move"])
        if god == "hermes" and (turn.frm_b is not None or not NEIGHBOURS[frm] >> to & 1):
            notes.append("Hermes moves along his level (start and end squares shown)")
    elif god == "hermes":
        notes.append("Hermes: no worker moves, then a build")
    builds: list[list[Any]] = []
    if turn.pre is not None:
        builds.append([parse_square(turn.pre), "pre"])
        notes.append(f"Prometheus builds on {turn.pre} before moving")
    squares = [s for s, _ in turn.builds]
    if len(squares) == 2 and squares[0] == squares[1]:
        builds.append([parse_square(squares[0]), "double"])
        notes.append(f"Hephaestus builds twice on {squares[0]}")
    else:
        for sq_name, dome in turn.builds:
            sq = parse_square(sq_name)
            if dome:
                kind = "atlas"
                notes.append(f"Atlas domes {sq_name} at level {_level_at_build(before, turn.pre, sq)}")
            elif after.domes >> sq & 1:
                kind = "dome"
            else:
                kind = "block"
            builds.append([sq, kind])
        if len(squares) == 2:
            notes.append(f"Demeter builds twice ({squares[0]} and {squares[1]})")
    if transition.win:
        notes.append("wins by moving up onto level 3" if transition.termination == "climb" else "Pan wins by dropping two levels")
    if before.gods[before.to_move] == "athena" and after.athena_up:
        notes.append("Athena moved up: her opponents may not move up next turn")
    return {"mv": moves, "bd": builds, "txt": "; ".join(notes)}


def _level_at_build(before: Position, pre: str | None, sq: int) -> int:
    """The level of ``sq`` when the turn's last build lands on it (after a Prometheus pre-build)."""
    level = before.level(sq)
    return level + 1 if pre is not None and parse_square(pre) == sq else level


def seats_data(players: Sequence[str], gods: Sequence[str]) -> list[dict[str, Any]]:
    """The module docstring's ``seats``: per seat its player, god, worker letter, group and team."""
    n = len(players)
    letters = LETTERS[n]
    seats = []
    for seat, (player, god) in enumerate(zip(players, gods, strict=True)):
        group = seat % 2 if n == 4 else seat
        seats.append({
            "player": player, "god": god, "letter": letters[group], "group": group + 1,
            "team": letters[group] if n == 4 else None,
        })
    return seats


def result_words(record: GameRecord) -> str:
    """The result in words (``B loses on time by 37 ms``), or the tags as written if they say
    nothing the outcome can name (a record from elsewhere)."""
    try:
        return Outcome.from_record(record).reason(record.players)
    except (ValueError, IndexError, KeyError):
        return f"{record.result} {record.termination}"


def _clocks(record: GameRecord) -> list[Clock] | None:
    """One clock per seat from the TimeControl tag, or None when it names no clock."""
    try:
        tc = parse_tc(record.tag("TimeControl") or "")
    except ValueError:
        return None
    if tc.base_ms is None:
        return None
    return [Clock(tc) for _ in range(record.nseats)]


def analysis_scale(record: GameRecord) -> float:
    """The ``scale=`` of the record's Analysis tag (how its scores become win probabilities)."""
    for word in (record.tag(ANALYSIS_TAG) or "").split():
        name, _, value = word.partition("=")
        if name == "scale":
            try:
                scale = float(value)
            except ValueError:
                break
            if scale > 0 and scale != float("inf"):
                return scale
    return DEFAULT_SCALE


def _analysis_data(entry: dict[str, Any], comment: str | None, before: Position, stn: str, scale: float) -> None:
    """Add a turn's analysis (its ``[%an ...]`` annotation) to its ``entry``, if it has one."""
    _rest, a = parse_annotation(comment)
    if a is None:
        return
    entry.update(ev=round(a.after.win_probability(scale) * 100, 1), eb=a.before.text(), ea=a.after.text(), loss=a.loss)
    if a.mark is not None:
        entry["mk"] = a.mark
    if a.best is not None and a.best != stn:
        try:
            best = before.play(a.best)
        except NotationError:
            return  # an annotation naming no legal turn: shown without its arrow
        entry["best"] = best.stn
        entry["bm"] = {k: v for k, v in annotation(before, best).items() if k != "txt"}


def _turn_data(
    record: GameRecord, k: int, before: Position, transition: Transition, label: str, clocks: list[Clock] | None,
    clock_known: list[bool], scale: float,
) -> dict[str, Any]:
    t = record.turns[k]
    seat = before.player
    entry: dict[str, Any] = {"s": transition.stn, "l": label, "seat": seat, "a": annotation(before, transition)}
    if t.time_ms is not None:
        entry["ms"] = t.time_ms
    if clocks is not None:
        if t.time_ms is None:
            clock_known[seat - 1] = False
        if clock_known[seat - 1]:
            clock = clocks[seat - 1]
            clock.charge(t.time_ms or 0)
            entry["clock"] = int(clock.remaining_ms)
    for name in ("score", "depth", "nodes"):
        value = getattr(t, name)
        if value is not None:
            entry[name] = value
    if transition.win:
        entry["win"] = transition.termination
    _analysis_data(entry, t.comment, before, transition.stn, scale)
    return entry


def game_data(record: GameRecord, number: int | None = None, result: ReplayResult | None = None) -> dict[str, Any]:
    """Everything the page shows of one game (the module docstring's layout).

    ``result`` is the record's replay when the caller already has it.  A record that does not
    re-validate is shown up to its last valid turn, with the problem in ``problem``.
    """
    if result is None:
        result = replay_record(record, number)
    positions, transitions = result.positions, result.transitions
    labels = turn_labels(record)
    clocks = _clocks(record)
    known = [True] * record.nseats
    base = [DEFAULT_DOME_BASE] * 25
    names = {seat: f"seat {seat} ({player})" for seat, player in enumerate(record.players, 1)}
    scale = analysis_scale(record)
    turns: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    if positions:
        views.append(position_data(positions[0], base, over=not transitions and _ended(record, result)))
    for k, transition in enumerate(transitions):
        before = positions[k]
        track_dome_bases(base, before, transition)
        entry = _turn_data(record, k, before, transition, labels[k][0], clocks, known, scale)
        out = [e for e in record.eliminations if e.after == k + 1]
        if out:
            entry["out"] = [
                f"{names[e.seat]} eliminated: {e.termination}" + (f" ({e.detail})" if e.detail else "") for e in out
            ]
        turns.append(entry)
        last = k == len(transitions) - 1
        previous = (before, views[-1]["b"])  # the board before this turn, which the next is made from
        views.append(position_data(positions[k + 1], base, over=last and _ended(record, result), previous=previous))
    problem = "; ".join(str(p) for p in result.problems) or None
    return {
        "number": number,
        "nseats": record.nseats,
        "seats": seats_data(record.players, record.gods),
        "letters": list(LETTERS[record.nseats]),
        "tags": [list(pair) for pair in record.tags],
        "result": record.result,
        "termination": record.termination,
        "words": result_words(record),
        "problem": problem,
        "p": views,
        "t": turns,
    }


def _ended(record: GameRecord, result: ReplayResult) -> bool:
    """Whether the last position is the game's end (every turn replayed: nobody is to move)."""
    return result.complete and record.result != "*"


def track_dome_bases(base: list[int], before: Position, transition: Transition) -> None:
    """Record the level each dome built by ``transition`` stands on (the rules core keeps only
    "domed"): the level before the turn plus the blocks the turn put there under the dome."""
    new = transition.position.domes & ~before.domes
    if not new:
        return
    turn = parse_stn(transition.stn)
    built = [s for s, _ in turn.builds] + ([turn.pre] if turn.pre else [])
    for sq in range(25):
        if new >> sq & 1:
            base[sq] = before.level(sq) + built.count(square_name(sq)) - 1


def games_data(records: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """:func:`game_data` of each record, numbered from 1 in the order given."""
    return [game_data(record, k) for k, record in enumerate(records, 1)]
