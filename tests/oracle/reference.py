"""Naive brute-force Santorini rules: an independent test oracle for the rules engine.

Why it exists: the referee's bitboard engine must be checked against something that shares none of
its code or structure.  This module re-derives every ruling of SPEC.md section 1 (and the
SPS/STN/perft contract of SPEC.md sections 2 and 3), and the three- and four-seat game of SPEC.md
section 15, the slow, obvious way:

* a square is a coordinate pair ``(file 0-4, rank 1-5)``; tuple order equals the canonical string
  order of square names (``a1 < a2 < ... < e5``);
* the board is a dict of 25 heights (0-3) plus a separate set of domed squares;
* workers are kept per *group* exactly as SPS writes them (two players; three seats; two teams of
  four seats), and a mover's "opponents" are simply the workers of every other group;
* a turn is found by walking its action sequence step by step (placement; [Prometheus pre-build]
  step [Artemis second step] build(s); or a Hermes power turn), writing its canonical STN as it goes,
  and collecting the results in a dict keyed by STN.  Two sequences that give one STN must give one
  successor, and the oracle checks that on every call;
* a three-seat elimination is a separate step (``eliminate``) applied when the seat to move has no
  complete turn, never a turn.

It imports nothing from ``santorini_server`` on purpose.  Speed is not a goal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Union

__all__ = [
    "reference_legal", "reference_legal_json", "reference_perft", "parse_sps", "format_sps",
    "Position", "legal_turns", "eliminate", "ELIMINATED",
]

FILES = "abcde"
KNOWN_GODS = frozenset(
    {"mortal", "apollo", "artemis", "athena", "atlas", "demeter",
     "hephaestus", "hermes", "minotaur", "pan", "prometheus"}
)

Square = tuple[int, int]  # (file index 0-4, rank 1-5)
Pair = tuple[Square, Square]
#: One SPS worker group: a sorted pair of squares, None for "-" (not placed yet), ELIMINATED for "x".
Group = Union[Pair, None, str]
ELIMINATED = "x"

ALL_SQUARES: list[Square] = [(f, r) for f in range(5) for r in range(1, 6)]  # canonical order


def _on_board(sq: Square) -> bool:
    return 0 <= sq[0] <= 4 and 1 <= sq[1] <= 5


NEIGHBOURS: dict[Square, list[Square]] = {
    sq: [
        (sq[0] + df, sq[1] + dr)
        for df in (-1, 0, 1)
        for dr in (-1, 0, 1)
        if (df, dr) != (0, 0) and _on_board((sq[0] + df, sq[1] + dr))
    ]
    for sq in ALL_SQUARES
}


def name(sq: Square) -> str:
    """Square name such as ``c3``."""
    return f"{FILES[sq[0]]}{sq[1]}"


def square(text: str) -> Square:
    """Parse a square name such as ``c3``."""
    if len(text) != 2 or text[0] not in FILES or text[1] not in "12345":
        raise ValueError(f"bad square {text!r}")
    return (FILES.index(text[0]), int(text[1]))


# ---------------------------------------------------------------------------------------------
# Seats and groups.  Seats are numbered 1..N as in SPS.

def group_count(nseats: int) -> int:
    """SPS worker groups: one per player (2), one per seat (3), one per team (4)."""
    return 3 if nseats == 3 else 2


def group_of(nseats: int, seat: int) -> int:
    """Index of the worker group seat ``seat`` (1-based) moves: 4 seats share by team (1,3 / 2,4)."""
    return (seat - 1) % 2 if nseats == 4 else seat - 1


def placing_seat(nseats: int, group: int) -> int:
    """The seat that places group ``group``: in four seats seat 1 places team A and seat 2 team B."""
    return group + 1


@dataclass(frozen=True)
class Position:
    """One SPS, unpacked.

    ``workers[g]`` is worker group g (see ``group_of``): a sorted pair, None if not placed yet, or
    ELIMINATED (three seats only).  ``athena_up``: Athena moved up on her most recent turn and it is
    not her turn (the tag outlives the turns of the seats between, SPEC.md section 15).
    """

    gods: tuple[str, ...]  # one per seat
    athena_up: bool
    height: dict[Square, int]  # 0-3 blocks; a domed square keeps the level it was domed at
    domes: frozenset[Square]
    workers: tuple[Group, ...]
    tomove: int  # 1..N
    turn: int

    @property
    def nseats(self) -> int:
        return len(self.gods)

    def eliminated(self, seat: int) -> bool:
        return self.nseats == 3 and self.workers[seat - 1] == ELIMINATED

    def live_seats(self) -> list[int]:
        return [s for s in range(1, self.nseats + 1) if not self.eliminated(s)]

    def athena_seat(self) -> int | None:
        return self.gods.index("athena") + 1 if "athena" in self.gods else None


def _next_seat(nseats: int, workers: tuple[Group, ...] | list[Group], seat: int) -> int:
    """The next seat after ``seat`` in the cycle 1..N that is not eliminated."""
    candidate = seat
    for _ in range(nseats):
        candidate = candidate % nseats + 1
        if not (nseats == 3 and workers[candidate - 1] == ELIMINATED):
            return candidate
    raise AssertionError("no seat left")


def _restricted(pos: Position) -> bool:
    """May the seat to move not move up?  Athena's tag binds every opponent seat, never her teammate."""
    athena = pos.athena_seat()
    if not pos.athena_up or athena is None:
        return False
    return group_of(pos.nseats, pos.tomove) != group_of(pos.nseats, athena)


# ---------------------------------------------------------------------------------------------
# SPS

_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_GROUP = rf"(?:-|x|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<gods>{_GOD}(?:/{_GOD}){{1,3}});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<workers>{_GROUP}(?:/{_GROUP}){{1,2}});(?P<stm>[1-4]);(?P<turn>[1-9][0-9]*)"
)


def parse_sps(sps: str) -> Position:
    """Parse and validate an SPS of 2, 3 or 4 seats; ValueError if it is not a legal position.

    Non-canonical spellings (unsorted worker squares, Athena state where it does not belong) are
    rejected rather than repaired: the oracle should only ever see canonical positions.
    """
    m = _SPS_RE.fullmatch(sps)
    if m is None:
        raise ValueError(f"not an SPS: {sps!r}")
    gods: list[str] = []
    states: list[str | None] = []
    for token in m["gods"].split("/"):
        god, _, rest = token.partition("[")
        if god not in KNOWN_GODS:
            raise ValueError(f"unknown god {god!r}")
        gods.append(god)
        states.append(rest[:-1] if rest else None)
    nseats = len(gods)
    if nseats == 2:
        if gods[0] == gods[1] and gods[0] != "mortal":
            raise ValueError("two players may not share one god")
    else:
        if "mortal" in gods:
            raise ValueError("three and four seats play with gods only")
        if len(set(gods)) != nseats:
            raise ValueError("every seat has its own god")
    tomove = int(m["stm"])
    if tomove > nseats:
        raise ValueError(f"seat {tomove} to move in a {nseats}-seat game")
    turn = int(m["turn"])

    height: dict[Square, int] = {}
    domes: set[Square] = set()
    for row_index, row in enumerate(m["board"].split("/")):
        rank = 5 - row_index
        for f, ch in enumerate(row):
            value = int(ch)
            height[(f, rank)] = 3 if value == 4 else value  # underlying level of a dome is unknown
            if value == 4:
                domes.add((f, rank))

    texts = m["workers"].split("/")
    if len(texts) != group_count(nseats):
        raise ValueError(f"{nseats} seats write {group_count(nseats)} worker groups, not {len(texts)}")
    groups: list[Group] = []
    for text in texts:
        if text == "-":
            groups.append(None)
        elif text == ELIMINATED:
            if nseats != 3:
                raise ValueError("'x' (eliminated) exists only in three-seat games")
            groups.append(ELIMINATED)
        else:
            a, b = (square(t) for t in text.split(","))
            if not a < b:
                raise ValueError(f"worker squares not distinct and in canonical order: {text}")
            groups.append((a, b))
    all_workers = [sq for g in groups if isinstance(g, tuple) for sq in g]
    if len(set(all_workers)) != len(all_workers):
        raise ValueError("two workers on one square")
    if any(sq in domes for sq in all_workers):
        raise ValueError("worker on a dome")
    if groups.count(ELIMINATED) > nseats - 2:
        raise ValueError("at least two seats stay in")

    # Placement goes in seat order (four seats: seats 1 and 2 place teams A and B): the groups not
    # yet placed are the last ones, the first of them belongs to the seat to move, all in round 1.
    unplaced = [g for g, w in enumerate(groups) if w is None]
    if unplaced:
        first = unplaced[0]
        if unplaced != list(range(first, len(groups))):
            raise ValueError("a later seat has placed before an earlier one")
        if tomove != placing_seat(nseats, first):
            raise ValueError(f"seat {placing_seat(nseats, first)} must place next")
        if turn != 1:
            raise ValueError("placement turns are turn 1")
    if nseats == 3 and groups[tomove - 1] == ELIMINATED:
        raise ValueError("the seat to move is eliminated")

    athena_up = False
    for i, state in enumerate(states):
        if state is None:
            continue
        if gods[i] != "athena" or state != "up":
            raise ValueError(f"unknown god state {gods[i]}[{state}]")
        if tomove == i + 1 or None in groups:
            raise ValueError("athena[up] is only written when Athena is not to move, after placement")
        if nseats == 3 and groups[i] == ELIMINATED:
            raise ValueError("an eliminated Athena restricts nobody")
        athena_up = True
    return Position(
        gods=tuple(gods),
        athena_up=athena_up,
        height=height,
        domes=frozenset(domes),
        workers=tuple(groups),
        tomove=tomove,
        turn=turn,
    )


def _group_text(group: Group) -> str:
    if group is None:
        return "-"
    if group == ELIMINATED:
        return ELIMINATED
    assert isinstance(group, tuple)
    return f"{name(group[0])},{name(group[1])}"


def format_sps(pos: Position) -> str:
    """Canonical SPS of a position."""
    god_tokens = []
    for i, god in enumerate(pos.gods):
        tagged = god == "athena" and pos.athena_up and pos.tomove != i + 1 and not pos.eliminated(i + 1)
        god_tokens.append(god + ("[up]" if tagged else ""))
    rows = []
    for rank in range(5, 0, -1):
        rows.append("".join(
            "4" if (f, rank) in pos.domes else str(pos.height[(f, rank)]) for f in range(5)
        ))
    groups = "/".join(_group_text(g) for g in pos.workers)
    return f"{'/'.join(god_tokens)};{'/'.join(rows)};{groups};{pos.tomove};{pos.turn}"


# ---------------------------------------------------------------------------------------------
# Turn enumeration

Build = tuple[Square, bool]  # (square, True for an Atlas dome below level 3)
Others = dict[Square, int]  # square of every worker the mover does not control -> its group


def _apply_builds(height: dict[Square, int], domes: set[Square], builds: list[Build]) -> None:
    """Apply builds in order: a block raises 0-2 by one; level 3 or an Atlas dome closes the square."""
    for sq, atlas_dome in builds:
        assert sq not in domes, "building on a dome"
        if atlas_dome or height[sq] == 3:
            domes.add(sq)
        else:
            height[sq] += 1


def _successor(
    pos: Position,
    mine: tuple[Square, Square],
    others: Others,
    height: dict[Square, int],
    domes: set[Square],
    athena_moved_up: bool,
) -> Position:
    """The position after the seat to move completed a turn that did not win."""
    n = pos.nseats
    me = group_of(n, pos.tomove)
    groups: list[Group] = list(pos.workers)
    groups[me] = (min(mine), max(mine))
    for g, old in enumerate(pos.workers):
        if g != me and isinstance(old, tuple) and not all(others.get(sq) == g for sq in old):
            squares = sorted(sq for sq, owner in others.items() if owner == g)  # one was displaced
            assert len(squares) == 2
            groups[g] = (squares[0], squares[1])
    nxt = _next_seat(n, groups, pos.tomove)
    # The tag is Athena's: her own turn sets or clears it; anyone else's turn leaves it alone; it is
    # dropped as soon as she is to move again.
    athena_up = athena_moved_up if pos.gods[pos.tomove - 1] == "athena" else pos.athena_up
    if nxt == pos.athena_seat():
        athena_up = False
    return Position(
        gods=pos.gods,
        athena_up=athena_up,
        height=height,
        domes=frozenset(domes),
        workers=tuple(groups),
        tomove=nxt,
        turn=pos.turn + 1 if nxt < pos.tomove else pos.turn,
    )


def _build_label(builds: list[Build]) -> str:
    return "".join(f"+{name(sq)}{'D' if dome else ''}" for sq, dome in builds)


def _build_choices(god: str, final: Square, height: dict[Square, int], domes: set[Square],
                   occupied: set[Square]) -> list[list[Build]]:
    """Every build sequence the mover's god allows from the worker's final square."""
    free = [b for b in NEIGHBOURS[final] if b not in domes and b not in occupied]
    choices: list[list[Build]] = [[(b, False)] for b in free]
    if god == "atlas":
        choices += [[(b, True)] for b in free if height[b] <= 2]
    elif god == "demeter":
        choices += [[(a, False), (b, False)] for a in free for b in free if a < b]
    elif god == "hephaestus":
        # Second block on the same square only if it is still a block: 0->2 and 1->3.
        choices += [[(b, False), (b, False)] for b in free if height[b] <= 1]
    return choices


def _step(god: str, frm: Square, to: Square, height: dict[Square, int], domes: set[Square],
          partner: Square, others: Others, max_up: int, *, may_enter_opponent: bool
          ) -> tuple[str, Others] | None:
    """One voluntary step; returns (operator, the other workers afterwards) or None if illegal.

    Every worker in ``others`` is an opponent's (the mover controls ``frm`` and ``partner``).
    """
    if to in domes or to == partner or height[to] - height[frm] > max_up:
        return None
    if to not in others:
        return "-", others
    if not may_enter_opponent:
        return None
    owner = others[to]
    if god == "apollo":
        after = {sq: g for sq, g in others.items() if sq != to}
        after[frm] = owner
        return "x", after
    if god == "minotaur":
        push = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
        # The push square must be on the board and hold no dome and no worker of any seat.
        if not _on_board(push) or push in domes or push == partner or push in others:
            return None
        after = {sq: g for sq, g in others.items() if sq != to}
        after[push] = owner
        return "x", after
    return None


def _wins(god: str, frm: Square, to: Square, height: dict[Square, int]) -> bool:
    """Does a voluntary step win?  Up onto level 3 always; a drop of 2+ levels for Pan."""
    if height[to] == 3 and height[frm] < 3:
        return True
    return god == "pan" and height[frm] - height[to] >= 2


def _others(pos: Position) -> Others:
    me = group_of(pos.nseats, pos.tomove)
    return {sq: g for g, w in enumerate(pos.workers) if g != me and isinstance(w, tuple) for sq in w}


def _placements(pos: Position) -> Iterator[tuple[str, Position | None]]:
    others = _others(pos)
    free = [sq for sq in ALL_SQUARES if sq not in pos.domes and sq not in others]
    for i, a in enumerate(free):
        for b in free[i + 1:]:
            yield (f"{name(a)},{name(b)}",
                   _successor(pos, (a, b), others, dict(pos.height), set(pos.domes), False))


def _hermes_power_turns(pos: Position, start: Pair) -> Iterator[tuple[str, Position | None]]:
    """Hermes power turns: each worker roams at its own level; then one build by either worker."""
    others = _others(pos)
    levels = (pos.height[start[0]], pos.height[start[1]])
    seen = {start}
    frontier = [start]
    while frontier:
        config = frontier.pop()
        for i in (0, 1):
            here, other = config[i], config[1 - i]
            for n in NEIGHBOURS[here]:
                if n in pos.domes or n == other or n in others or pos.height[n] != levels[i]:
                    continue
                nxt = (n, other) if i == 0 else (other, n)
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
    for config in seen:
        vacated = sorted(set(start) - set(config))
        entered = sorted(set(config) - set(start))
        label = ",".join(f"{name(v)}-{name(e)}" for v, e in zip(vacated, entered))
        occupied = set(config) | set(others)
        targets = {b for w in config for b in NEIGHBOURS[w]
                   if b not in pos.domes and b not in occupied}
        for b in targets:
            height = dict(pos.height)
            domes = set(pos.domes)
            _apply_builds(height, domes, [(b, False)])
            yield f"{label}+{name(b)}", _successor(pos, config, others, height, domes, False)


def _play_turns(pos: Position, mine: Pair) -> Iterator[tuple[str, Position | None]]:
    god = pos.gods[pos.tomove - 1]
    others = _others(pos)
    if god == "hermes":
        yield from _hermes_power_turns(pos, mine)
    restricted = _restricted(pos)
    for w in mine:
        partner = mine[1] if w == mine[0] else mine[0]
        # Prometheus: optional pre-build next to the worker that will move.
        pre_builds: list[Square | None] = [None]
        if god == "prometheus":
            pre_builds += [b for b in NEIGHBOURS[w]
                           if b not in pos.domes and b != partner and b not in others]
        for pre in pre_builds:
            height = dict(pos.height)
            domes = set(pos.domes)
            prefix = ""
            if pre is not None:
                _apply_builds(height, domes, [(pre, False)])
                prefix = f"+{name(pre)}"
            max_up = 0 if (restricted or pre is not None) else 1
            for to in NEIGHBOURS[w]:
                step = _step(god, w, to, height, domes, partner, others, max_up,
                             may_enter_opponent=True)
                if step is None:
                    continue
                op, others_after = step
                label = f"{prefix}{name(w)}{op}{name(to)}"
                if _wins(god, w, to, height):
                    yield label, None
                    continue
                # (label, final square) of every way the move can end.
                endings = [(label, to)]
                if god == "artemis":
                    for to2 in NEIGHBOURS[to]:
                        if to2 == w:
                            continue  # may not end where the turn started
                        if _step(god, to, to2, height, domes, partner, others, max_up,
                                 may_enter_opponent=False) is None:
                            continue
                        label2 = f"{label}-{name(to2)}"
                        if _wins(god, to, to2, height):
                            yield label2, None
                            continue
                        endings.append((label2, to2))
                athena_up = god == "athena" and height[to] > height[w]
                for end_label, final in endings:
                    occupied = {final, partner, *others_after}
                    for builds in _build_choices(god, final, height, domes, occupied):
                        h2 = dict(height)
                        d2 = set(domes)
                        _apply_builds(h2, d2, builds)
                        yield (end_label + _build_label(builds),
                               _successor(pos, (final, partner), others_after, h2, d2, athena_up))


def legal_turns(pos: Position) -> dict[str, Position | None]:
    """Canonical STN -> successor position (None for a winning turn) for the seat to move."""
    mine = pos.workers[group_of(pos.nseats, pos.tomove)]
    if mine is None:
        sequences = _placements(pos)
    else:
        assert isinstance(mine, tuple)
        sequences = _play_turns(pos, mine)
    turns: dict[str, Position | None] = {}
    for stn, succ in sequences:
        if stn in turns and turns[stn] != succ:
            raise AssertionError(f"one STN {stn} for two different results")
        turns[stn] = succ
    return turns


def eliminate(pos: Position) -> Position | int:
    """Three seats: the seat to move, which has no complete turn, leaves the game.

    Its workers leave the board and its god's effects end; the move passes to the next seat still in,
    and the round counter treats the eliminated seat as the seat that just moved.  Returns the
    position after, or the winning seat's number (1-based) when only one seat would remain.
    """
    if pos.nseats != 3:
        raise ValueError("only a three-seat game eliminates a seat")
    groups: list[Group] = list(pos.workers)
    groups[pos.tomove - 1] = ELIMINATED
    live = [s for s in (1, 2, 3) if groups[s - 1] != ELIMINATED]
    if len(live) == 1:
        return live[0]
    nxt = _next_seat(3, groups, pos.tomove)
    athena = pos.athena_seat()
    athena_up = pos.athena_up and athena not in (pos.tomove, nxt)
    return Position(
        gods=pos.gods,
        athena_up=athena_up,
        height=pos.height,
        domes=pos.domes,
        workers=tuple(groups),
        tomove=nxt,
        turn=pos.turn + 1 if nxt < pos.tomove else pos.turn,
    )


def reference_legal(sps: str) -> dict[str, str | None]:
    """Every legal complete turn of ``sps`` as canonical STN -> successor SPS (None: the turn wins).

    The oracle the rules engine's legal-move generator is compared against.  Empty when the seat to
    move has no complete turn (it loses, or in three seats it is eliminated: see ``eliminate``).
    """
    return {
        stn: None if succ is None else format_sps(succ)
        for stn, succ in legal_turns(parse_sps(sps)).items()
    }


def reference_legal_json(sps: str) -> dict[str, object]:
    """What ``santorini legal --json`` prints for ``sps``, as the parsed JSON object.

    ``{"sps", "status": "ongoing" | "lost" | "eliminated", "turns": {STN: SPS or "win"}}``; a
    three-seat position whose seat to move has no complete turn is ``"eliminated"`` with ``"next"``
    (the position after the elimination) or, when one seat would remain, ``"winner"`` (its number).
    """
    pos = parse_sps(sps)
    turns = legal_turns(pos)
    out: dict[str, object] = {
        "sps": format_sps(pos),
        "status": "ongoing" if turns else ("eliminated" if pos.nseats == 3 else "lost"),
        "turns": {stn: "win" if succ is None else format_sps(succ) for stn, succ in sorted(turns.items())},
    }
    if not turns and pos.nseats == 3:
        after = eliminate(pos)
        if isinstance(after, int):
            out["winner"] = after
        else:
            out["next"] = format_sps(after)
    return out


def _perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    turns = legal_turns(pos)
    if not turns:
        if pos.nseats != 3:
            return 0
        after = eliminate(pos)  # an elimination is not a turn: it consumes no depth
        return 0 if isinstance(after, int) else _perft(after, depth)
    if depth == 1:
        return len(turns)
    return sum(1 if succ is None else _perft(succ, depth - 1) for succ in turns.values())


def reference_perft(sps: str, depth: int) -> int:
    """Leaf count of the turn tree (SPEC.md sections 3.4 and 15): distinct canonical STN at the leaves.

    A winning turn is a leaf counted once at any remaining depth; a side with no legal turn has no
    children (two and four seats) or is eliminated without using depth (three seats: the count is the
    next seat's, or 0 if one seat would remain); perft(p, 0) is 1; placing both workers is one turn.
    """
    if depth < 0:
        raise ValueError("depth must be >= 0")
    return _perft(parse_sps(sps), depth)
