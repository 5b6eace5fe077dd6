"""Static knowledge shared by the bundled engines: immediate wins and a positional evaluation.

Both work on raw boards (the ``h1, h2, h3, domes`` masks of ``santorini_server.rules`` and one
worker mask per side) so a search can score a successor without building a ``Position``.

``immediate_win`` answers "can the side to move win with its next turn?" exactly, for every god
(tests/test_engines.py checks it against the move generator); it is what lets a one-ply bot
avoid handing the opponent a win and lets a search stop at a won leaf.  ``evaluate`` is a
heuristic in centi-level units from the side to move's view; the weights come from what
decides Santorini games: height (a worker on level 2 is one step from winning), room to climb,
threats the opponent must answer, and staying central and close to the opponent to block it.

Three and four seats (SPEC.md section 15) reduce to two *sides* seen from one seat: its own
workers (with four seats, its team's two) against every opponent worker (with three seats, both
other seats' workers together).  :func:`evaluate_for` scores a ``Position`` that way whoever is
to move, and :func:`seat_wins` asks :func:`immediate_win` for any seat, not only the one to move.
"""

from __future__ import annotations

from santorini_server.rules import Position
from santorini_server.rules.movegen import athena_binds
from santorini_server.rules.squares import BB_ALL, NEIGHBOURS_BY_BIT, PUSH_TARGET

__all__ = [
    "immediate_win", "evaluate", "level_of", "WIN_SCORE", "same_side", "seat_sides", "seat_wins", "evaluate_for",
    "evaluate_groups", "can_step", "power_threats",
]

#: Score of a won position (mate-like: a search subtracts the distance in plies).
WIN_SCORE = 100_000

_NB = NEIGHBOURS_BY_BIT
_SQ = {1 << sq: sq for sq in range(25)}
_PUSH_BY_BIT = {(1 << a, 1 << b): 1 << c for (a, b), c in PUSH_TARGET.items()}

# Squares by ring: centre c3, the eight around it, the sixteen edge squares (corners worst).
_CENTRE = [0] * 25
for _sq in range(25):
    _r, _f = divmod(_sq, 5)
    _ring = max(abs(_r - 2), abs(_f - 2))
    _CENTRE[_sq] = (14, 7, 0)[_ring] - (3 if _ring == 2 and _r in (0, 4) and _f in (0, 4) else 0)
del _sq, _r, _f, _ring
_CENTRE_BY_BIT = {1 << sq: v for sq, v in enumerate(_CENTRE)}

#: Chebyshev distance between squares (index by square numbers).
_DIST = [[max(abs(a // 5 - b // 5), abs(a % 5 - b % 5)) for b in range(25)] for a in range(25)]

# Weights (tuned by engine_duel self-play, see SPEC.md section 9).
_HEIGHT = (0, 45, 140, 110)  # worker standing on level 0/1/2/3 (3 only when forced there)
_MOBILITY = 4  # per free neighbour the worker can step to
_UP = (10, 22, 0, 0)  # per reachable square one level up, by the worker's level
_STUCK = 60  # a worker with nowhere to go
_THREAT_ONE = 160  # the opponent (to move next after us) has one winning square
_THREAT_MANY = 650  # ... two or more: usually decisive
_THREAT_SELF = 70  # the side to move has a win square blocked only by Athena
_NEAR = (0, 18, 10, 3, 0, 0)  # by distance: our worker near an opponent worker on level >= 1


def level_of(h1: int, h2: int, h3: int, bit: int) -> int:
    """Level 0-3 of the square ``bit`` (a domed square reads 0: domes carry no level bits)."""
    return (1 if h1 & bit else 0) + (1 if h2 & bit else 0) + (1 if h3 & bit else 0)


def immediate_win(
    h1: int, h2: int, h3: int, domes: int, mine: int, theirs: int, god: str, no_up: bool
) -> bool:
    """Whether the side to move (workers ``mine``, playing ``god``) has a winning turn now.

    SPEC.md sections 1.4 (winning) and 1.5 (the gods): a voluntary move up onto level 3 (not 3->3); Pan
    also by dropping two or more levels; Athena's opponent cannot move up (``no_up``) but Pan may
    still drop.  Apollo may climb onto a level-3 square an opponent stands on (swap), the Minotaur
    too if the push square is free and on the board; Artemis may climb to 3 with her second step.
    Hermes and Prometheus win only with a normal move (their power moves never go up).
    """
    if not mine:
        return False
    occupied = mine | theirs
    free = BB_ALL & ~(occupied | domes)
    if god == "pan" and power_threats(h1, h2, h3, domes, mine, theirs, god):
        return True  # a drop of two or more levels: Athena's restriction does not stop it
    if no_up:
        return False
    on2 = mine & h2 & ~h3
    if god == "artemis" and power_threats(h1, h2, h3, domes, mine, theirs, god):
        return True  # the second step climbs onto level 3
    while on2:
        s = on2 & -on2
        on2 ^= s
        tops = _NB[s] & h3
        if tops & free:
            return True
        if god == "apollo" and tops & theirs:
            return True
        if god == "minotaur":
            victims = tops & theirs
            while victims:
                d = victims & -victims
                victims ^= d
                push = _PUSH_BY_BIT.get((s, d))
                if push is not None and not push & (occupied | domes):
                    return True
    return False


def power_threats(h1: int, h2: int, h3: int, domes: int, workers: int, others: int, god: str) -> int:
    """The squares ``workers`` (playing ``god``) could win on next turn by its power alone: Pan's drops
    of two or more levels and Artemis' second step onto level 3 (0 for every other god).

    :func:`evaluate` counts only ordinary climbs as threats; with these a search sees a Pan worker
    on level 2 beside a level-0 square as the win threat it is.  ``others`` are every other worker.
    """
    if god != "pan" and god != "artemis":
        return 0
    free = BB_ALL & ~(workers | others | domes)
    squares = 0
    if god == "pan":
        high = workers & h2
        while high:
            w = high & -high
            high ^= w
            squares |= _NB[w] & free & (BB_ALL & ~h2 if h3 & w else BB_ALL & ~h1)
        return squares
    starts = workers & h1
    while starts:
        s = starts & -starts
        starts ^= s
        mids = _NB[s] & free & h2 & ~h3
        while mids:
            d = mids & -mids
            mids ^= d
            squares |= _NB[d] & h3 & free & ~s
    return squares


def evaluate(
    h1: int, h2: int, h3: int, domes: int, mine: int, theirs: int, no_up: bool = False, their_god: str = "",
    their_no_up: bool = False,
) -> int:
    """Heuristic score (centi-levels) of a position for the side to move (``mine``).

    Assumes the side to move has no immediate win (callers check :func:`immediate_win` first).
    Per worker: height, free neighbours, reachable squares one level up, a penalty when stuck,
    centrality; per side: the squares it could win on next turn (for the side not to move these
    are threats that must be answered; two are usually decisive); and for each of our workers,
    closeness to opponent workers that have started climbing (only a nearby worker can block).
    ``their_god``, when given, adds the opponent's :func:`power_threats` to its threats;
    ``their_no_up`` says Athena binds the opponent on its next turn too (four seats: her tag
    outlives her teammate's turn), so it has no climb and no climbing threat.
    """
    occupied = mine | theirs
    free = BB_ALL & ~(occupied | domes)
    le = (BB_ALL & ~h1, BB_ALL & ~h2, BB_ALL & ~h3, BB_ALL, BB_ALL)
    exact = (BB_ALL & ~h1, h1 & ~h2, h2 & ~h3, h3, 0)
    score = 0
    # the side to move
    m = mine
    my_levels = []
    threat_self = 0
    while m:
        w = m & -m
        m ^= w
        h = (1 if h1 & w else 0) + (1 if h2 & w else 0) + (1 if h3 & w else 0)
        my_levels.append((w, h))
        nb = _NB[w] & free
        reach = nb & le[h if no_up else h + 1]
        if reach:
            score += _MOBILITY * reach.bit_count()
            if not no_up:
                score += _UP[h] * (reach & exact[h + 1]).bit_count()
        else:
            score -= _STUCK
        if no_up and h == 2 and nb & h3:
            threat_self |= nb & h3
        score += _HEIGHT[h] + _CENTRE_BY_BIT[w]
    if threat_self:
        score += _THREAT_SELF
    # the opponent
    t = theirs
    threats = 0
    while t:
        w = t & -t
        t ^= w
        h = (1 if h1 & w else 0) + (1 if h2 & w else 0) + (1 if h3 & w else 0)
        nb = _NB[w] & free
        if their_no_up:
            reach = nb & le[h]
            score -= _MOBILITY * reach.bit_count() if reach else -_STUCK
        else:
            reach = nb & le[h + 1]
            if reach:
                score -= _MOBILITY * reach.bit_count() + _UP[h] * (reach & exact[h + 1]).bit_count()
            else:
                score += _STUCK
            if h == 2:
                threats |= nb & h3
        score -= _HEIGHT[h] + _CENTRE_BY_BIT[w]
        if h:
            ws = _SQ[w]
            for mw, _ in my_levels:
                score += _NEAR[_DIST[_SQ[mw]][ws]] * h
    if their_god and not (their_no_up and their_god == "artemis"):  # Pan's drop is no move up
        threats |= power_threats(h1, h2, h3, domes, theirs, mine, their_god)
    if threats:
        score -= _THREAT_MANY if threats & (threats - 1) else _THREAT_ONE
    return score



# --- N seats: two sides seen from one seat ----------------------------------------------------------


def same_side(nseats: int, a: int, b: int) -> bool:
    """Whether seats ``a`` and ``b`` (0-based) play for the same side: the same seat, or teammates
    with four seats (1 with 3, 2 with 4).  With three seats every other seat is an opponent."""
    return a == b or (nseats == 4 and a ^ 2 == b)


def seat_sides(position: Position, seat: int) -> tuple[int, int]:
    """``(ours, theirs)`` seen from ``seat``: the workers it moves (its team's with four seats) and
    every other worker on the board (both opponents' with three seats)."""
    workers = position.workers
    ours = workers[position.group_of(seat)]
    everyone = 0
    for w in workers:
        everyone |= w
    return ours, everyone ^ ours


def seat_wins(position: Position, seat: int) -> bool:
    """Whether ``seat`` could win with a turn on this board (exact for the seat to move).

    For another seat it is the board as it stands, as if that seat moved now: Athena's tag binds
    it when it is an opponent of hers (SPEC.md section 15: never Athena herself or her teammate).
    """
    if seat == position.to_move:
        mine, theirs = position.sides()
        no_up = position.no_up
    else:
        mine, theirs = seat_sides(position, seat)
        gods = position.gods
        no_up = position.athena_up and gods[seat] != "athena" and athena_binds(gods, seat)
    return immediate_win(position.h1, position.h2, position.h3, position.domes, mine, theirs, position.gods[seat], no_up)


def evaluate_for(position: Position, seat: int) -> int:
    """:func:`evaluate` of ``position`` from ``seat``'s side, whoever is to move.

    The side to move is the mover's (its team with four seats; with three seats an opponent of
    ``seat`` stands for both opponents, the paranoid view), so the two-seat score applies as is:
    for two seats it is exactly ``evaluate`` or its negation.
    """
    return evaluate_groups(position.h1, position.h2, position.h3, position.domes, position.workers, len(position.gods),
                           position.to_move, seat, position.no_up)


def evaluate_groups(
    h1: int, h2: int, h3: int, domes: int, workers: tuple[int, ...], nseats: int, mover: int, seat: int, no_up: bool
) -> int:
    """:func:`evaluate_for` on raw masks (``workers`` one mask per group, as ``Position.workers``)."""
    ours = workers[seat & 1 if nseats == 4 else seat]
    everyone = 0
    for w in workers:
        everyone |= w
    theirs = everyone ^ ours
    if same_side(nseats, mover, seat):
        return evaluate(h1, h2, h3, domes, ours, theirs, no_up)
    score = -evaluate(h1, h2, h3, domes, theirs, ours, no_up)
    if nseats == 3:
        # ``evaluate`` takes the side to move's threats for wins it would have taken; the other
        # opponent's are threats still to come, which ``seat`` must answer on its next turn.
        other = workers[3 - mover - seat]
        if other:
            free = BB_ALL & ~(everyone | domes)
            wins = 0
            on2 = other & h2 & ~h3
            while on2:
                w = on2 & -on2
                on2 ^= w
                wins |= _NB[w] & h3 & free
            if wins:
                score -= _THREAT_MANY if wins & (wins - 1) else _THREAT_ONE
    return score


def can_step(h1: int, h2: int, h3: int, domes: int, mine: int, theirs: int, no_up: bool) -> bool:
    """Whether a worker of ``mine`` has an ordinary step.  Then its seat has a complete turn, whatever
    its god (the vacated square can always be built on): a cheap first answer to "is it lost?"."""
    free = BB_ALL & ~(mine | theirs | domes)
    while mine:
        w = mine & -mine
        mine ^= w
        reach = free & _NB[w]
        if h1 & w:
            reach &= (BB_ALL & ~h3 if h2 & w else BB_ALL & ~h2) if no_up else (BB_ALL if h2 & w else BB_ALL & ~h3)
        else:
            reach &= BB_ALL & ~h1 if no_up else BB_ALL & ~h2
        if reach:
            return True
    return False
