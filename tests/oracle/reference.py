"""Naive brute-force Santorini rules: an independent test oracle for the rules engine.

Why it exists: the referee's bitboard engine must be checked against something that shares none of
its code or structure.  This module re-derives every ruling of SPEC.md section 1 (and the
SPS/STN/perft contract of SPEC.md sections 2 and 3) the slow, obvious way:

* a square is a coordinate pair ``(file 0-4, rank 1-5)``; tuple order equals the canonical string
  order of square names (``a1 < a2 < ... < e5``);
* the board is a dict of 25 heights (0-3) plus a separate set of domed squares;
* a turn is found by walking its action sequence step by step (placement; [Prometheus pre-build]
  step [Artemis second step] build(s); or a Hermes power turn), writing its canonical STN as it goes,
  and collecting the results in a dict keyed by STN.  Two sequences that give one STN must give one
  successor, and the oracle checks that on every call.

It imports nothing from ``santorini_server`` on purpose.  Speed is not a goal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

__all__ = ["reference_legal", "reference_perft", "parse_sps", "format_sps", "Position"]

FILES = "abcde"
KNOWN_GODS = frozenset(
    {"mortal", "apollo", "artemis", "athena", "atlas", "demeter",
     "hephaestus", "hermes", "minotaur", "pan", "prometheus"}
)

Square = tuple[int, int]  # (file index 0-4, rank 1-5)

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


@dataclass(frozen=True)
class Position:
    """One SPS, unpacked.  ``workers[i]`` is player i+1's sorted worker pair, or None if unplaced."""

    gods: tuple[str, str]
    athena_up: bool  # Athena (the side *not* to move) moved up on her last turn
    height: dict[Square, int]  # 0-3 blocks; a domed square keeps the level it was domed at
    domes: frozenset[Square]
    workers: tuple[tuple[Square, Square] | None, tuple[Square, Square] | None]
    tomove: int  # 1 or 2
    turn: int


# ---------------------------------------------------------------------------------------------
# SPS

_SQ = r"[a-e][1-5]"
_GOD = r"[a-z]+(?:\[[a-z0-9,]*\])?"
_SIDE = rf"(?:-|{_SQ},{_SQ})"
_SPS_RE = re.compile(
    rf"(?P<g1>{_GOD})/(?P<g2>{_GOD});(?P<board>[0-4]{{5}}(?:/[0-4]{{5}}){{4}});"
    rf"(?P<w1>{_SIDE})/(?P<w2>{_SIDE});(?P<stm>[12]);(?P<turn>[1-9][0-9]*)"
)


def parse_sps(sps: str) -> Position:
    """Parse and validate an SPS (SPEC.md section 2); ValueError if it is not a legal position.

    Non-canonical spellings (unsorted worker squares, Athena state where it does not belong) are
    rejected rather than repaired: the oracle should only ever see canonical positions.
    """
    m = _SPS_RE.fullmatch(sps)
    if m is None:
        raise ValueError(f"not an SPS: {sps!r}")
    gods: list[str] = []
    states: list[str | None] = []
    for token in (m["g1"], m["g2"]):
        god, _, rest = token.partition("[")
        if god not in KNOWN_GODS:
            raise ValueError(f"unknown god {god!r}")
        gods.append(god)
        states.append(rest[:-1] if rest else None)
    if gods[0] == gods[1] and gods[0] != "mortal":
        raise ValueError("two players may not share one god")
    tomove = int(m["stm"])
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

    sides: list[tuple[Square, Square] | None] = []
    for text in (m["w1"], m["w2"]):
        if text == "-":
            sides.append(None)
            continue
        a, b = (square(t) for t in text.split(","))
        if not a < b:
            raise ValueError(f"worker squares not distinct and in canonical order: {text}")
        sides.append((a, b))
    placed = [s for s in sides if s is not None]
    all_workers = [sq for s in placed for sq in s]
    if len(set(all_workers)) != len(all_workers):
        raise ValueError("two workers on one square")
    if any(sq in domes for sq in all_workers):
        raise ValueError("worker on a dome")
    if sides[0] is None and not (sides[1] is None and tomove == 1):
        raise ValueError("player 1 places first")
    if sides[0] is not None and sides[1] is None and tomove != 2:
        raise ValueError("player 2 must place next")
    if (sides[0] is None or sides[1] is None) and turn != 1:
        raise ValueError("placement turns are turn 1")

    athena_up = False
    for i, state in enumerate(states):
        if state is None:
            continue
        if gods[i] != "athena" or state != "up":
            raise ValueError(f"unknown god state {gods[i]}[{state}]")
        if tomove == i + 1 or None in sides:
            raise ValueError("athena[up] is only written when Athena's opponent is to move")
        athena_up = True
    return Position(
        gods=(gods[0], gods[1]),
        athena_up=athena_up,
        height=height,
        domes=frozenset(domes),
        workers=(sides[0], sides[1]),
        tomove=tomove,
        turn=turn,
    )


def format_sps(pos: Position) -> str:
    """Canonical SPS of a position."""
    god_tokens = []
    for i, god in enumerate(pos.gods):
        state = "[up]" if god == "athena" and pos.athena_up and pos.tomove != i + 1 else ""
        god_tokens.append(god + state)
    rows = []
    for rank in range(5, 0, -1):
        rows.append("".join(
            "4" if (f, rank) in pos.domes else str(pos.height[(f, rank)]) for f in range(5)
        ))
    sides = ["-" if s is None else f"{name(s[0])},{name(s[1])}" for s in pos.workers]
    return f"{'/'.join(god_tokens)};{'/'.join(rows)};{'/'.join(sides)};{pos.tomove};{pos.turn}"


# ---------------------------------------------------------------------------------------------
# Turn enumeration

Build = tuple[Square, bool]  # (square, True for an Atlas dome below level 3)


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
    theirs: tuple[Square, Square] | None,
    height: dict[Square, int],
    domes: set[Square],
    athena_moved_up: bool,
) -> Position:
    me = pos.tomove - 1
    workers: list[tuple[Square, Square] | None] = [None, None]
    workers[me] = (min(mine), max(mine))
    workers[1 - me] = None if theirs is None else (min(theirs), max(theirs))
    return Position(
        gods=pos.gods,
        athena_up=athena_moved_up,
        height=height,
        domes=frozenset(domes),
        workers=(workers[0], workers[1]),
        tomove=2 if pos.tomove == 1 else 1,
        turn=pos.turn + 1 if pos.tomove == 2 else pos.turn,
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
          partner: Square, theirs: tuple[Square, Square], max_up: int, *, may_enter_opponent: bool
          ) -> tuple[str, tuple[Square, Square]] | None:
    """One voluntary step; returns (operator, opponent workers afterwards) or None if illegal."""
    if to in domes or to == partner or height[to] - height[frm] > max_up:
        return None
    if to not in theirs:
        return "-", theirs
    if not may_enter_opponent:
        return None
    if god == "apollo":
        return "x", tuple(frm if w == to else w for w in theirs)  # type: ignore[return-value]
    if god == "minotaur":
        push = (2 * to[0] - frm[0], 2 * to[1] - frm[1])
        if not _on_board(push) or push in domes or push == partner or push in theirs:
            return None
        return "x", tuple(push if w == to else w for w in theirs)  # type: ignore[return-value]
    return None


def _wins(god: str, frm: Square, to: Square, height: dict[Square, int]) -> bool:
    """Does a voluntary step win?  Up onto level 3 always; a drop of 2+ levels for Pan."""
    if height[to] == 3 and height[frm] < 3:
        return True
    return god == "pan" and height[frm] - height[to] >= 2


def _placements(pos: Position) -> Iterator[tuple[str, Position | None]]:
    me = pos.tomove - 1
    theirs = pos.workers[1 - me]
    taken = set(theirs or ())
    free = [sq for sq in ALL_SQUARES if sq not in pos.domes and sq not in taken]
    for i, a in enumerate(free):
        for b in free[i + 1:]:
            yield (f"{name(a)},{name(b)}",
                   _successor(pos, (a, b), theirs, dict(pos.height), set(pos.domes), False))


def _hermes_power_turns(pos: Position) -> Iterator[tuple[str, Position | None]]:
    """Hermes power turns: each worker roams at its own level; then one build by either worker."""
    me = pos.tomove - 1
    start = pos.workers[me]
    theirs = pos.workers[1 - me]
    assert start is not None and theirs is not None
    levels = (pos.height[start[0]], pos.height[start[1]])
    seen = {start}
    frontier = [start]
    while frontier:
        config = frontier.pop()
        for i in (0, 1):
            here, other = config[i], config[1 - i]
            for n in NEIGHBOURS[here]:
                if n in pos.domes or n == other or n in theirs or pos.height[n] != levels[i]:
                    continue
                nxt = (n, other) if i == 0 else (other, n)
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
    for config in seen:
        vacated = sorted(set(start) - set(config))
        entered = sorted(set(config) - set(start))
        label = ",".join(f"{name(v)}-{name(e)}" for v, e in zip(vacated, entered))
        occupied = set(config) | set(theirs)
        targets = {b for w in config for b in NEIGHBOURS[w]
                   if b not in pos.domes and b not in occupied}
        for b in targets:
            height = dict(pos.height)
            domes = set(pos.domes)
            _apply_builds(height, domes, [(b, False)])
            yield f"{label}+{name(b)}", _successor(pos, config, theirs, height, domes, False)


def _play_turns(pos: Position) -> Iterator[tuple[str, Position | None]]:
    me = pos.tomove - 1
    god = pos.gods[me]
    mine = pos.workers[me]
    theirs = pos.workers[1 - me]
    assert mine is not None and theirs is not None
    if god == "hermes":
        yield from _hermes_power_turns(pos)
    for w in mine:
        partner = mine[1] if w == mine[0] else mine[0]
        # Prometheus: optional pre-build next to the worker that will move.
        pre_builds: list[Square | None] = [None]
        if god == "prometheus":
            pre_builds += [b for b in NEIGHBOURS[w]
                           if b not in pos.domes and b != partner and b not in theirs]
        for pre in pre_builds:
            height = dict(pos.height)
            domes = set(pos.domes)
            prefix = ""
            if pre is not None:
                _apply_builds(height, domes, [(pre, False)])
                prefix = f"+{name(pre)}"
            max_up = 0 if (pos.athena_up or pre is not None) else 1
            for to in NEIGHBOURS[w]:
                step = _step(god, w, to, height, domes, partner, theirs, max_up,
                             may_enter_opponent=True)
                if step is None:
                    continue
                op, theirs_after = step
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
                        if _step(god, to, to2, height, domes, partner, theirs, max_up,
                                 may_enter_opponent=False) is None:
                            continue
                        label2 = f"{label}-{name(to2)}"
                        if _wins(god, to, to2, height):
                            yield label2, None
                            continue
                        endings.append((label2, to2))
                athena_up = god == "athena" and height[to] > height[w]
                for end_label, final in endings:
                    occupied = {final, partner, *theirs_after}
                    for builds in _build_choices(god, final, height, domes, occupied):
                        h2 = dict(height)
                        d2 = set(domes)
                        _apply_builds(h2, d2, builds)
                        yield (end_label + _build_label(builds),
                               _successor(pos, (final, partner), theirs_after, h2, d2, athena_up))


def legal_turns(pos: Position) -> dict[str, Position | None]:
    """Canonical STN -> successor position (None for a winning turn)."""
    me = pos.tomove - 1
    sequences = _placements(pos) if pos.workers[me] is None else _play_turns(pos)
    turns: dict[str, Position | None] = {}
    for stn, succ in sequences:
        if stn in turns and turns[stn] != succ:
            raise AssertionError(f"one STN {stn} for two different results")
        turns[stn] = succ
    return turns


def reference_legal(sps: str) -> dict[str, str | None]:
    """Every legal complete turn of ``sps`` as canonical STN -> successor SPS (None: the turn wins).

    The oracle the rules engine's legal-move generator is compared against.
    """
    return {
        stn: None if succ is None else format_sps(succ)
        for stn, succ in legal_turns(parse_sps(sps)).items()
    }


def _perft(pos: Position, depth: int) -> int:
    if depth == 0:
        return 1
    turns = legal_turns(pos)
    if depth == 1:
        return len(turns)
    return sum(1 if succ is None else _perft(succ, depth - 1) for succ in turns.values())


def reference_perft(sps: str, depth: int) -> int:
    """Leaf count of the turn tree (SPEC.md section 3.4): distinct canonical STN at the leaves.

    A winning turn is a leaf counted once at any remaining depth; a side with no legal turn has no
    children; placing both workers is one turn.
    """
    if depth < 0:
        raise ValueError("depth must be >= 0")
    return _perft(parse_sps(sps), depth)
