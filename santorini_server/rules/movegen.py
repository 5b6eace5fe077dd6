"""Legal complete turns: generation as mask arithmetic, one hook per god.

Theory of operation (SPEC.md section 1.4, "The complete-turn model"): the referee accepts only complete
turns, so the generator enumerates whole action sequences (placement, or [pre-build] move(s)
build(s)) and yields each as its canonical STN text (SPEC.md section 3) with the raw state of
the successor.  Dead ends (an Apollo swap that leaves no build, a Prometheus pre-build that leaves
no non-upward move) produce nothing, so they are simply not turns.  Nothing here builds a
``Position`` or parses text: ``position.py`` wraps the raw states, ``sps``/``stn`` the text.

A raw state is ``(h1, h2, h3, domes, mine, theirs, athena_up)``: ``hK`` is the mask of squares at
level >= K, a domed square has no level bits (a dome is a dome whatever it stands on), ``mine`` and
``theirs`` are the mover's and the opponent's workers *after* the turn, ``athena_up`` the state the
successor position carries (true only after Athena moved up).

Every generator takes ``frm_mask``/``to_mask`` filters (python-chess's ``from_mask``/``to_mask``):
only turns whose first step goes from a square of ``frm_mask`` to one of ``to_mask`` (for a
placement: whose first and second canonical squares) are produced.  Hermes' power turns are
labelled by endpoints, not paths, so for Hermes the filters are ignored.  Filters exist so that
checking one submitted turn generates a handful of candidates, not the whole legal set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple

from .squares import (
    BB_ALL,
    CANONICAL_KEY,
    NEIGHBOURS_BY_BIT,
    PUSH_TARGET,
    SQUARE_NAMES,
    Bitboard,
    Square,
)

if TYPE_CHECKING:
    from .position import Position

__all__ = [
    "RawState",
    "RawTurn",
    "WIN_NONE",
    "WIN_CLIMB",
    "WIN_PAN",
    "generate",
    "count_turns",
    "has_turn",
    "plain_turn",
    "split_sides",
    "athena_binds",
]

RawState = tuple[int, int, int, int, int, int, bool]

#: Win kinds, as the referee names them in records (SPEC.md section 4.6).
WIN_NONE, WIN_CLIMB, WIN_PAN = 0, 1, 2


class RawTurn(NamedTuple):
    """One complete turn: canonical STN, how it wins (``WIN_*``), the successor's raw state."""

    stn: str
    win: int
    state: RawState


_NAMES = SQUARE_NAMES
_KEY = CANONICAL_KEY


def _sq(bit: Bitboard) -> Square:
    return bit.bit_length() - 1


def _level(h1: int, h2: int, h3: int, bit: Bitboard) -> int:
    return (1 if h1 & bit else 0) + (1 if h2 & bit else 0) + (1 if h3 & bit else 0)


def _build(h1: int, h2: int, h3: int, domes: int, bit: Bitboard) -> tuple[int, int, int, int]:
    """One ordinary build on ``bit``: 0->1->2->3->dome (SPEC.md section 1.3)."""
    if h3 & bit:
        return h1 & ~bit, h2 & ~bit, h3 & ~bit, domes | bit
    if h2 & bit:
        return h1, h2, h3 | bit, domes
    if h1 & bit:
        return h1, h2 | bit, h3, domes
    return h1 | bit, h2, h3, domes


def _dome(h1: int, h2: int, h3: int, domes: int, bit: Bitboard) -> tuple[int, int, int, int]:
    return h1 & ~bit, h2 & ~bit, h3 & ~bit, domes | bit


def _ceilings(h1: int, h2: int, h3: int) -> tuple[int, int, int, int, int]:
    """``le[k]``: squares at level <= k, for k = 0..3 (index 4 repeats 3 for ``hs + 1``)."""
    return BB_ALL & ~h1, BB_ALL & ~h2, BB_ALL & ~h3, BB_ALL, BB_ALL


# --- builds -------------------------------------------------------------------------------------
# A build hook gets the board after the move and the mask of squares the builder may build on
# (free neighbours of its square); it yields (stn suffix, h1, h2, h3, domes).

BuildGen = Iterator[tuple[str, int, int, int, int]]


def _builds_standard(h1: int, h2: int, h3: int, domes: int, targets: Bitboard) -> BuildGen:
    while targets:
        b = targets & -targets
        targets ^= b
        yield ("+" + _NAMES[_sq(b)], *_build(h1, h2, h3, domes, b))


def _builds_atlas(h1: int, h2: int, h3: int, domes: int, targets: Bitboard) -> BuildGen:
    """Atlas: "Your Worker may build a dome at any level" (a dome on level 3 is written ``+sq``)."""
    while targets:
        b = targets & -targets
        targets ^= b
        name = "+" + _NAMES[_sq(b)]
        yield (name, *_build(h1, h2, h3, domes, b))
        if not h3 & b:
            yield (name + "D", *_dome(h1, h2, h3, domes, b))


def _builds_demeter(h1: int, h2: int, h3: int, domes: int, targets: Bitboard) -> BuildGen:
    """Demeter: optional second build on a different square; both orders are one turn."""
    ordered = sorted((_KEY[_sq(b)], b) for b in _bits(targets))
    for i, (_, b1) in enumerate(ordered):
        name1 = "+" + _NAMES[_sq(b1)]
        after = _build(h1, h2, h3, domes, b1)
        yield (name1, *after)
        for _, b2 in ordered[i + 1 :]:
            yield (name1 + "+" + _NAMES[_sq(b2)], *_build(*after, b2))


def _builds_hephaestus(h1: int, h2: int, h3: int, domes: int, targets: Bitboard) -> BuildGen:
    """Hephaestus: optional second block on the same square, never a dome (0->2 and 1->3 only)."""
    while targets:
        b = targets & -targets
        targets ^= b
        name = "+" + _NAMES[_sq(b)]
        after = _build(h1, h2, h3, domes, b)
        yield (name, *after)
        if not h2 & b:  # level 0 or 1 before the first build: the second one still makes a block
            yield (name + name, *_build(*after, b))


def _bits(mask: int) -> Iterator[int]:
    while mask:
        b = mask & -mask
        mask ^= b
        yield b


_BUILD_HOOKS: dict[str, Callable[[int, int, int, int, int], BuildGen]] = {
    "atlas": _builds_atlas,
    "demeter": _builds_demeter,
    "hephaestus": _builds_hephaestus,
}


# --- moves --------------------------------------------------------------------------------------


def _win_kind(pan: bool, hs: int, hd: int) -> int:
    """SPEC.md section 1.4: moving up onto level 3; Pan also by moving down two or more levels."""
    if hd == 3 and hs < 3:
        return WIN_CLIMB
    if pan and hs - hd >= 2:
        return WIN_PAN
    return WIN_NONE


def _turns_standard(
    pos: Position, god: str, mine: int, theirs: int, no_up: bool, frm_mask: int, to_mask: int
) -> Iterator[RawTurn]:
    """One worker moves (Apollo/Minotaur may move into an opponent), then builds."""
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    builds = _BUILD_HOOKS.get(god, _builds_standard)
    athena = god == "athena"
    pan = god == "pan"
    le = _ceilings(h1, h2, h3)
    free = BB_ALL & ~(mine | theirs | domes)
    for s in _bits(mine & frm_mask):
        hs = _level(h1, h2, h3, s)
        reach = NEIGHBOURS_BY_BIT[s] & le[hs if no_up else hs + 1] & to_mask
        prefix = _NAMES[_sq(s)]
        for d in _bits(reach & free):
            hd = _level(h1, h2, h3, d)
            new_mine = mine ^ s ^ d
            up = athena and hd > hs
            stn = prefix + "-" + _NAMES[_sq(d)]
            win = _win_kind(pan, hs, hd)
            if win:
                yield RawTurn(stn, win, (h1, h2, h3, domes, new_mine, theirs, up))
                continue
            targets = NEIGHBOURS_BY_BIT[d] & ~(new_mine | theirs | domes)
            for suffix, b1, b2, b3, bd in builds(h1, h2, h3, domes, targets):
                yield RawTurn(stn + suffix, WIN_NONE, (b1, b2, b3, bd, new_mine, theirs, up))
        if god == "apollo" or god == "minotaur":
            for d in _bits(reach & theirs):
                if god == "apollo":  # the opponent is forced onto the square Apollo vacated
                    new_theirs = theirs ^ d ^ s
                else:  # Minotaur: pushed one square straight back, onto a free square
                    push = PUSH_TARGET.get((_sq(s), _sq(d)))
                    if push is None:
                        continue
                    pb = 1 << push
                    if pb & (mine | theirs | domes):
                        continue
                    new_theirs = theirs ^ d ^ pb
                new_mine = mine ^ s ^ d
                stn = prefix + "x" + _NAMES[_sq(d)]
                hd = _level(h1, h2, h3, d)
                win = _win_kind(pan, hs, hd)
                if win:
                    yield RawTurn(stn, win, (h1, h2, h3, domes, new_mine, new_theirs, False))
                    continue
                targets = NEIGHBOURS_BY_BIT[d] & ~(new_mine | new_theirs | domes)
                for suffix, b1, b2, b3, bd in builds(h1, h2, h3, domes, targets):
                    yield RawTurn(stn + suffix, WIN_NONE, (b1, b2, b3, bd, new_mine, new_theirs, False))


def _turns_artemis(
    pos: Position, god: str, mine: int, theirs: int, no_up: bool, frm_mask: int, to_mask: int
) -> Iterator[RawTurn]:
    """Artemis: an optional second step, not back to the start square; the path is the turn."""
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    le = _ceilings(h1, h2, h3)
    free = BB_ALL & ~(mine | theirs | domes)
    for s in _bits(mine & frm_mask):
        hs = _level(h1, h2, h3, s)
        prefix = _NAMES[_sq(s)]
        others = mine ^ s
        for d in _bits(NEIGHBOURS_BY_BIT[s] & le[hs if no_up else hs + 1] & free & to_mask):
            hd = _level(h1, h2, h3, d)
            stn = prefix + "-" + _NAMES[_sq(d)]
            if hd == 3 and hs < 3:
                yield RawTurn(stn, WIN_CLIMB, (h1, h2, h3, domes, others | d, theirs, False))
                continue
            targets = NEIGHBOURS_BY_BIT[d] & ~(others | d | theirs | domes)
            for suffix, b1, b2, b3, bd in _builds_standard(h1, h2, h3, domes, targets):
                yield RawTurn(stn + suffix, WIN_NONE, (b1, b2, b3, bd, others | d, theirs, False))
            # second step: from d, never back to s (s is not in ``free``: it was occupied)
            for e in _bits(NEIGHBOURS_BY_BIT[d] & le[hd if no_up else hd + 1] & free):
                he = _level(h1, h2, h3, e)
                stn2 = stn + "-" + _NAMES[_sq(e)]
                if he == 3 and hd < 3:
                    yield RawTurn(stn2, WIN_CLIMB, (h1, h2, h3, domes, others | e, theirs, False))
                    continue
                targets = NEIGHBOURS_BY_BIT[e] & ~(others | e | theirs | domes)
                for suffix, b1, b2, b3, bd in _builds_standard(h1, h2, h3, domes, targets):
                    yield RawTurn(stn2 + suffix, WIN_NONE, (b1, b2, b3, bd, others | e, theirs, False))


def _turns_prometheus(
    pos: Position, god: str, mine: int, theirs: int, no_up: bool, frm_mask: int, to_mask: int
) -> Iterator[RawTurn]:
    """Prometheus: a normal turn, or pre-build + a move that does not go up + build."""
    yield from _turns_standard(pos, "mortal", mine, theirs, no_up, frm_mask, to_mask)
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    occupied = mine | theirs
    for s in _bits(mine & frm_mask):
        hs = _level(h1, h2, h3, s)
        for p in _bits(NEIGHBOURS_BY_BIT[s] & ~(occupied | domes)):
            p1, p2, p3, pd = _build(h1, h2, h3, domes, p)
            # the move is measured on the board after the pre-build
            le = _ceilings(p1, p2, p3)
            pre = "+" + _NAMES[_sq(p)] + _NAMES[_sq(s)] + "-"
            for d in _bits(NEIGHBOURS_BY_BIT[s] & le[hs] & ~(occupied | pd) & to_mask):
                new_mine = mine ^ s ^ d
                stn = pre + _NAMES[_sq(d)]
                targets = NEIGHBOURS_BY_BIT[d] & ~(new_mine | theirs | pd)
                for suffix, b1, b2, b3, bd in _builds_standard(p1, p2, p3, pd, targets):
                    yield RawTurn(stn + suffix, WIN_NONE, (b1, b2, b3, bd, new_mine, theirs, False))


def _turns_hermes(
    pos: Position, god: str, mine: int, theirs: int, no_up: bool, frm_mask: int, to_mask: int
) -> Iterator[RawTurn]:
    """Hermes: a normal turn, or any same-level moves by both workers then one build.

    A power turn is identified by the workers' final squares and the build (SPEC.md section 1.5, Hermes), so it is
    generated from the set of reachable end configurations (a breadth-first search in which the
    workers block each other) and labelled by endpoints (SPEC.md section 3.2).  A
    normal level move is also a power turn with the same label; the ``seen`` set keeps one.
    """
    seen: set[str] = set()
    for turn in _turns_standard(pos, "mortal", mine, theirs, no_up, BB_ALL, BB_ALL):
        seen.add(turn.stn)
        yield turn
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    free = BB_ALL & ~(mine | theirs | domes)
    a = mine & -mine
    b = mine ^ a
    same = [_same_level_mask(h1, h2, h3, a), _same_level_mask(h1, h2, h3, b)]
    start = (a, b)
    frontier = [start]
    reached = {start}
    while frontier:
        nxt = []
        for wa, wb in frontier:
            for i, (w, other) in enumerate(((wa, wb), (wb, wa))):
                for n in _bits(NEIGHBOURS_BY_BIT[w] & same[i] & (free | a | b) & ~other):
                    config = (n, wb) if i == 0 else (wa, n)
                    if config not in reached:
                        reached.add(config)
                        nxt.append(config)
        frontier = nxt
    for wa, wb in reached:
        end = wa | wb
        vacated = sorted((_KEY[_sq(x)], x) for x in _bits(mine & ~end))
        occupied = sorted((_KEY[_sq(x)], x) for x in _bits(end & ~mine))
        label = ",".join(
            _NAMES[_sq(v)] + "-" + _NAMES[_sq(o)] for (_, v), (_, o) in zip(vacated, occupied, strict=True)
        )
        targets = (NEIGHBOURS_BY_BIT[wa] | NEIGHBOURS_BY_BIT[wb]) & ~(end | theirs | domes)
        for suffix, b1, b2, b3, bd in _builds_standard(h1, h2, h3, domes, targets):
            stn = label + suffix
            if stn not in seen:
                seen.add(stn)
                yield RawTurn(stn, WIN_NONE, (b1, b2, b3, bd, end, theirs, False))


def _same_level_mask(h1: int, h2: int, h3: int, bit: int) -> int:
    """Squares at exactly the level of ``bit`` (Hermes' power moves never change level)."""
    level = _level(h1, h2, h3, bit)
    masks = (BB_ALL & ~h1, h1 & ~h2, h2 & ~h3, h3)
    return masks[level]


def _placements(pos: Position, mine: int, theirs: int, frm_mask: int, to_mask: int) -> Iterator[RawTurn]:
    """Both workers on two empty squares, written in canonical order (SPEC.md section 1.2)."""
    free = sorted((_KEY[sq], sq) for sq in range(25) if not (1 << sq) & (theirs | pos.domes))
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    for i, (_, x) in enumerate(free):
        if not (1 << x) & frm_mask:
            continue
        for _, y in free[i + 1 :]:
            if (1 << y) & to_mask:
                yield RawTurn(
                    _NAMES[x] + "," + _NAMES[y], WIN_NONE, (h1, h2, h3, domes, (1 << x) | (1 << y), theirs, False)
                )


def split_sides(w: tuple[int, ...], me: int) -> tuple[int, int]:
    """``(mine, theirs)`` of seat ``me``: its group, and every other worker (SPEC.md section 15)."""
    if len(w) == 2:  # two players, or four seats in two teams (seat 1 and 3 move group 0)
        g = me & 1
        return w[g], w[g ^ 1]
    mine = w[me]
    return mine, (w[0] | w[1] | w[2]) ^ mine


def athena_binds(gods: tuple[str, ...], me: int) -> bool:
    """Whether a set ``athena[up]`` binds seat ``me``: every seat but Athena's teammate's."""
    return len(gods) != 4 or gods[me ^ 2] != "athena"


_TURN_HOOKS = {
    "artemis": _turns_artemis,
    "hermes": _turns_hermes,
    "prometheus": _turns_prometheus,
}


def generate(pos: Position, frm_mask: Bitboard = BB_ALL, to_mask: Bitboard = BB_ALL) -> Iterator[RawTurn]:
    """Every legal complete turn of ``pos`` (filtered by first step), each exactly once."""
    me = pos.to_move
    mine, theirs = split_sides(pos.workers, me)
    if not mine:
        return _placements(pos, mine, theirs, frm_mask, to_mask)
    god = pos.gods[me]
    no_up = pos.athena_up and athena_binds(pos.gods, me)  # the tag is never set while Athena is to move
    hook = _TURN_HOOKS.get(god, _turns_standard)
    return hook(pos, god, mine, theirs, no_up, frm_mask, to_mask)


_FAST_COUNT = frozenset({"mortal", "athena", "pan"})


def has_turn(pos: Position) -> bool:
    """Whether the side to move has any complete turn (the referee asks before every ``go``).

    For gods that move and build normally every legal step completes a turn (a win, or a
    build on the square just vacated), so one reachable square per worker settles it.
    """
    me = pos.to_move
    w = pos.workers
    if len(w) == 2:  # split_sides, inlined: asked before every turn the referee requests
        g = me & 1
        mine, theirs = w[g], w[g ^ 1]
    else:
        mine, theirs = split_sides(w, me)
    if not mine:  # a placement needs two free squares
        return (BB_ALL & ~(theirs | pos.domes)).bit_count() >= 2
    if pos.gods[me] in _FAST_COUNT:
        h1, h2, h3 = pos.h1, pos.h2, pos.h3
        free = BB_ALL & ~(mine | theirs | pos.domes)
        le = (BB_ALL & ~h1, BB_ALL & ~h2, BB_ALL & ~h3, BB_ALL, BB_ALL)
        no_up = pos.athena_up and athena_binds(pos.gods, me)
        while mine:
            s = mine & -mine
            mine ^= s
            hs = (1 if h1 & s else 0) + (1 if h2 & s else 0) + (1 if h3 & s else 0)
            if NEIGHBOURS_BY_BIT[s] & free & le[hs if no_up else hs + 1]:
                return True
        return False
    return next(iter(generate(pos)), None) is not None


def count_turns(pos: Position) -> int:
    """Number of legal complete turns, counted without building them where the god allows.

    For gods that move and build normally (mortal, Athena, Pan) each non-winning move
    contributes one turn per buildable neighbour of its destination (the vacated square
    included), and each winning move one turn: mask arithmetic, no strings, no successors.
    This is what makes perft fast; other gods fall back to generation.
    """
    me = pos.to_move
    mine, theirs = split_sides(pos.workers, me)
    god = pos.gods[me]
    if not mine:  # a placement: any two free squares, in canonical order
        k = (BB_ALL & ~(theirs | pos.domes)).bit_count()
        return k * (k - 1) // 2
    if god not in _FAST_COUNT:
        if god in _COUNTED:
            return _count_builders(pos, god, mine, theirs)
        return sum(1 for _ in generate(pos))
    h1, h2, h3 = pos.h1, pos.h2, pos.h3
    free = BB_ALL & ~(mine | theirs | pos.domes)
    le = (BB_ALL & ~h1, BB_ALL & ~h2, BB_ALL & ~h3, BB_ALL, BB_ALL)
    no_up = pos.athena_up and athena_binds(pos.gods, me)
    pan = god == "pan"
    nb = NEIGHBOURS_BY_BIT
    total = 0
    while mine:
        s = mine & -mine
        mine ^= s
        hs = (1 if h1 & s else 0) + (1 if h2 & s else 0) + (1 if h3 & s else 0)
        dests = nb[s] & free & le[hs if no_up else hs + 1]
        if hs == 2:
            wins = dests & h3
            if wins:
                total += wins.bit_count()
                dests ^= wins
        if pan and hs >= 2:
            drops = dests & le[hs - 2]
            total += drops.bit_count()
            dests ^= drops
        buildable = free | s
        while dests:
            d = dests & -dests
            dests ^= d
            total += (nb[d] & buildable).bit_count()
    return total


#: Gods whose turns are one move (into an opponent for Apollo and the Minotaur) and builds that
#: depend only on the builder's square: their turns are counted, not generated.
_COUNTED = frozenset({"apollo", "minotaur", "atlas", "demeter", "hephaestus"})


def _count_builders(pos: Position, god: str, mine: int, theirs: int) -> int:
    """:func:`count_turns` for the gods of ``_COUNTED``: each move times its build options.

    The build options of ``targets`` (free neighbours of the mover's new square): Atlas may also
    dome any non-level-3 square, Hephaestus may add a block where the first build leaves level 2
    or less, Demeter may build once or on two different squares; the others build once.
    """
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    free = BB_ALL & ~(mine | theirs | domes)
    le = (BB_ALL & ~h1, BB_ALL & ~h2, BB_ALL & ~h3, BB_ALL, BB_ALL)
    no_up = pos.athena_up and athena_binds(pos.gods, pos.to_move)
    nb = NEIGHBOURS_BY_BIT
    atlas, hephaestus, demeter = god == "atlas", god == "hephaestus", god == "demeter"
    forcing = god == "apollo" or god == "minotaur"
    total = 0
    for s in _bits(mine):
        hs = (1 if h1 & s else 0) + (1 if h2 & s else 0) + (1 if h3 & s else 0)
        reach = nb[s] & le[hs if no_up else hs + 1]
        for d in _bits(reach & free):
            if hs < 3 and h3 & d:  # climbing onto level 3 wins: one turn
                total += 1
                continue
            targets = nb[d] & ~((mine ^ s ^ d) | theirs | domes)
            k = targets.bit_count()
            if atlas:
                total += k + (targets & ~h3).bit_count()
            elif hephaestus:
                total += k + (targets & ~h2).bit_count()
            elif demeter:
                total += k + k * (k - 1) // 2
            else:
                total += k
        if forcing:
            for d in _bits(reach & theirs):
                if god == "apollo":
                    forced = s
                else:
                    push = PUSH_TARGET.get((_sq(s), _sq(d)))
                    if push is None or (1 << push) & (mine | theirs | domes):
                        continue
                    forced = 1 << push
                if hs < 3 and h3 & d:
                    total += 1
                    continue
                total += (nb[d] & ~((mine ^ s ^ d) | (theirs ^ d ^ forced) | domes)).bit_count()
    return total


def _plain_shapes() -> dict[str, tuple[int, int, int]]:
    """Every ``a1-b2+c3`` and ``a1-b2`` text of a step to a neighbour and a build next to it,
    with its (from, to, build) bits (build 0 for the bare move of a win)."""
    shapes = {}
    for s in range(25):
        for d in _bits(NEIGHBOURS_BY_BIT[1 << s]):
            move = _NAMES[s] + "-" + _NAMES[_sq(d)]
            shapes[move] = (1 << s, d, 0)
            for b in _bits(NEIGHBOURS_BY_BIT[d]):
                shapes[move + "+" + _NAMES[_sq(b)]] = (1 << s, d, b)
    return shapes


_PLAIN_SHAPES = _plain_shapes()

#: Gods for whom ``a1-b2+c3`` onto a free square is an ordinary move and one ordinary build (a
#: build on level 3 is a dome for Atlas too; the other builds are optional extras).
_PLAIN_GODS = _FAST_COUNT | _COUNTED

#: Every placement text in canonical order (``b3,d3``), with its two bits.
_PLACEMENT_SHAPES = {
    _NAMES[x] + "," + _NAMES[y]: (1 << x, 1 << y)
    for x in range(25)
    for y in range(25)
    if _KEY[x] < _KEY[y]
}


def plain_turn(pos: Position, text: str) -> tuple[int, RawState] | None:
    """``(win, successor state)`` of ``text`` if it is a legal plain canonical move-and-build of
    a plain god (the canonical text is ``text`` itself), else None.

    The referee's per-turn check (why it exists: checking a submitted turn is on every turn's
    path, and engines nearly always send this shape).  For the gods that move and build
    normally (mortal, Athena, Pan), and for the one-build turns onto a free square of Apollo,
    the Minotaur, Atlas, Demeter and Hephaestus, ``a1-b2+c3`` or a winning ``a1-b2`` is looked up in a table
    of such texts (steps and builds between neighbours) and checked by mask arithmetic, with
    no generation and no formatting; so is a placement in canonical order, for every god.
    None means "not decided here" (another shape, another god, or not legal): the caller falls
    back to the general matcher, which also words the error.  Agreement with :func:`generate` is
    tested on every legal turn of random games and on near misses.
    """
    me = pos.to_move
    w = pos.workers
    if len(w) == 2:  # split_sides, inlined: this is on every checked turn's path
        g = me & 1
        mine, theirs = w[g], w[g ^ 1]
    else:
        mine, theirs = split_sides(w, me)
    if not mine:
        place = _PLACEMENT_SHAPES.get(text)
        if place is None or (place[0] | place[1]) & (theirs | pos.domes):
            return None
        return WIN_NONE, (pos.h1, pos.h2, pos.h3, pos.domes, place[0] | place[1], theirs, False)
    god = pos.gods[me]
    shape = _PLAIN_SHAPES.get(text)
    if shape is None or god not in _PLAIN_GODS:
        return None
    s, d, b = shape
    h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
    if not s & mine or d & (mine | theirs | domes):
        return None
    hs = (1 if h1 & s else 0) + (1 if h2 & s else 0) + (1 if h3 & s else 0)
    hd = (1 if h1 & d else 0) + (1 if h2 & d else 0) + (1 if h3 & d else 0)
    if hd > (hs if pos.athena_up and athena_binds(pos.gods, me) else hs + 1):
        return None
    new_mine = mine ^ s ^ d
    up = god == "athena" and hd > hs
    win = _win_kind(god == "pan", hs, hd)
    if win:
        return None if b else (win, (h1, h2, h3, domes, new_mine, theirs, up))
    if not b or b & (new_mine | theirs | domes):
        return None
    return WIN_NONE, (*_build(h1, h2, h3, domes, b), new_mine, theirs, up)
