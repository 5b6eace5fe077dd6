"""The alpha-beta engine: iterative-deepening negamax with a transposition table.

Theory of operation.  ``depth`` counts complete turns (plies).  Every node first asks
:func:`~santorini_engines.evaluation.immediate_win` (exact for every god), so a won node costs
no move generation and a depth-``d`` search sees wins ``d + 1`` plies deep.  Interior nodes are
``Position`` objects built with ``Position.successor``; the last ply is scored straight from the raw
successor state (no ``Position``), with a cache keyed by that state, because leaves are ~98% of
the nodes.  Move order: the transposition-table move, two killer turns per ply, then history
counts plus a bonus for turns that leave our workers higher.  The table stores depth, a bounded
value (mate scores relative to the node) and the best turn, keyed by the board, the workers,
the side to move and Athena's flag (not the turn counter, so transpositions meet).

Time: ``Limits.budget_for`` gives the budget; a new iteration starts only while less than
:data:`NEXT_ITERATION_FRACTION` of it is spent, and the search aborts (checked every 512 nodes)
at the budget, at ``stop``, or at the ``nodes`` limit; the best turn of the last completed
iteration is played, or of the interrupted one if it already beat the previous best.

Four seats (SPEC.md section 15) are two teams moving alternately (A, B, A, B): a two-player
zero-sum game, so :class:`Searcher` plays them unchanged, negamax over teams: the group a node
moves is its team's (``to_move & 1``), each seat generates its turns with its own god over the
team's two workers, and a leaf is scored with the god of the seat that moves next (Athena's tag,
which outlives her teammate's turn, is carried to the leaf by :func:`_next_mover`).

Three seats are searched *paranoid* (:class:`ParanoidSearcher`, the same driver): the seat to
move at the root maximises and both other seats are assumed to minimise its score together, which
makes the game two-sided again (root against a coalition; turn order root, O1, O2), so alpha-beta
pruning applies at every depth.  We chose paranoid over max-n because max-n (each seat maximising
its own score) prunes at most shallowly: at a one-second clock that costs the ply that sees an
opponent's climb coming, while paranoid's worst case is exactly the danger that decides a free-for-
all (either opponent reaching level 3 before the root seat moves again, or the two of them boxing
it in).  An elimination is not a ply: a seat with no turn leaves the game (``Position.eliminate``)
and the search goes on at the same depth; the root seat's own elimination scores as its loss and
the last opponent's as its win.

With three or four seats a seat's clock runs on its own turns only, about half as many a game as
with two: budgets assume :data:`NSEAT_MOVES_TO_GO` turns left (four seats: :data:`TEAM_MOVES_TO_GO`),
and a new iteration starts while less than :data:`NSEAT_NEXT_ITERATION_FRACTION` of the budget is
spent (two seats: unchanged).

Four-seat leaves also know what the two-seat evaluation cannot: the god of the seat after next
(whose Pan or Artemis threats count, :func:`~santorini_engines.evaluation.power_threats`) and
whether Athena's tag surely binds it (set, and the seat between is her teammate), so its climbs
are no threat.

Option ``Hash`` (spin, default 1000): the table's size limit in thousands of entries; a table
past it is cleared before the next search.  All tables are cleared on ``newgame``.
"""

from __future__ import annotations

import dataclasses
import threading
import time

from santorini_server.rules import Position
from santorini_server.rules.movegen import RawState, RawTurn, generate, has_turn
from santorini_server.rules.squares import BB_ALL

from .evaluation import WIN_SCORE, can_step, evaluate, evaluate_for, evaluate_groups, immediate_win, seat_wins
from .sei_bot import Info, Limits, Option, run_bot

__all__ = ["main", "Searcher", "ParanoidSearcher", "AlphaBeta", "format_score"]

#: Scores beyond this are forced wins/losses (distance encoded in the remaining part).
WIN_THRESHOLD = WIN_SCORE - 1000
INF = 10 * WIN_SCORE
#: Start another iteration only while less than this share of the budget is spent: the next one
#: costs several times the last, and an interrupted iteration is mostly wasted.
NEXT_ITERATION_FRACTION = 0.3
MAX_DEPTH = 100  # a game has at most ~100 play turns (SPEC.md section 1.4)
EXACT, LOWER, UPPER = 0, 1, 2
CHECK_EVERY = 512
#: Three-seat nodes cost more (a ``Position`` each, a turn-existence test per leaf): check the clock
#: more often, so that a budget of a few milliseconds is kept.
CHECK_EVERY_PARANOID = 8
#: With three or four seats a seat plays about half as many turns a game as with two (its clock
#: runs only on its own turns), so its budget assumes this many turns left instead of the helper's 20.
NSEAT_MOVES_TO_GO = 10
#: Four seats: a seat plays a quarter of the turns, about 4 in a median game of the bundled engines
#: and 12 in the longest (SPEC.md section 9): budgeting for 6 spends most of a clock in a typical
#: game (measured through the referee at 1+0.01: 88.6% against greedy, 86.1% budgeting for 8).
TEAM_MOVES_TO_GO = 6
#: With three or four seats a search rarely gets past depth 2 or 3 at a one-second clock, and an
#: interrupted iteration still counts (every root turn searched after the first is proved better or
#: not): start the next iteration while less than this share of the budget is spent.
NSEAT_NEXT_ITERATION_FRACTION = 0.6
#: Score depth-1 nodes with lazily generated, height-layered children (see `_frontier`).
LAZY_FRONTIER = True


class _Abort(Exception):
    """Raised inside the search when time, ``stop`` or the node limit ends it."""


def format_score(score: int) -> str:
    """SEI ``score`` field: ``cp <x>`` or ``win <n>`` (n = own turns to win, negative: to lose)."""
    if score >= WIN_THRESHOLD:
        return f"win {(WIN_SCORE - score) // 2 + 1}"
    if score <= -WIN_THRESHOLD:
        return f"win -{(WIN_SCORE + score + 1) // 2}"
    return f"cp {score}"


class Searcher:
    """Search state that survives between turns of a game (tables, history)."""

    next_iteration_fraction = NEXT_ITERATION_FRACTION

    def __init__(self, max_entries: int = 1_000_000) -> None:
        self.max_entries = max_entries
        self.tt: dict[tuple[int, ...], tuple[int, int, int, str | None]] = {}
        self.leaf_cache: dict[tuple[object, ...], int] = {}
        self.history: dict[str, int] = {}
        self.nodes = 0
        self.deadline: float | None = None
        self.node_limit: int | None = None
        self.stop = threading.Event()
        self.killers: list[list[str | None]] = []
        self._partial: tuple[int, int] | None = None

    def new_game(self) -> None:
        """Forget everything (positions of another game never come back)."""
        self.tt.clear()
        self.leaf_cache.clear()
        self.history.clear()

    # --- driver -------------------------------------------------------------------------------

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        """Iterative deepening within the limits; returns the best turn found (canonical STN)."""
        started = limits.started
        budget = limits.budget_for(position.player)
        self.deadline = None if budget is None else started + budget
        self.node_limit = limits.nodes
        self.stop = stop
        self.nodes = 0
        self.killers = [[None, None] for _ in range(MAX_DEPTH + 2)]
        if len(self.tt) > self.max_entries:
            self.tt.clear()
        if len(self.leaf_cache) > 2 * self.max_entries:
            self.leaf_cache.clear()
        # decay history so old games/turns do not dominate
        self.history = {k: v >> 2 for k, v in self.history.items() if v >= 4}

        turns = list(generate(position))
        for t in turns:
            if t.win:
                info(f"depth 1 time {self._ms(started)} nodes 1 score win 1 pv {t.stn}")
                return t.stn
        children = [(t, position.successor(t.state)) for t in turns]
        order = list(range(len(children)))
        scores = [0] * len(children)
        best_index = 0
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        for depth in range(1, max_depth + 1):
            try:
                score, idx = self._root(position, children, order, scores, depth)
            except _Abort:
                if self._partial is not None and self._partial[0] != best_index:
                    best_index = self._partial[0]
                    info(f"string depth {depth} interrupted, switching to {children[best_index][0].stn}")
                break
            best_index = idx
            order.sort(key=lambda i: -scores[i])
            pv = self._pv(children[idx][1], depth - 1, [children[idx][0].stn])
            ms = self._ms(started)
            nps = self.nodes * 1000 // max(ms, 1)
            info(f"depth {depth} time {ms} nodes {self.nodes} nps {nps} score {format_score(score)} pv {' '.join(pv)}")
            if abs(score) >= WIN_THRESHOLD or stop.is_set():
                break
            if budget is not None and time.monotonic() - started > self.next_iteration_fraction * budget:
                break
            if self.node_limit is not None and self.nodes >= self.node_limit:
                break
        return children[best_index][0].stn

    def score_turns(self, position: Position, depth: int) -> list[tuple[str, int]]:
        """Every legal turn of ``position`` with its exact value at ``depth`` plies for the side to
        move (full windows: no score is a bound, unlike the driver's).  For tools that choose among
        near-best turns, such as the opening generator (SPEC.md section 19.3); no time limit."""
        self.deadline = self.node_limit = None
        self.stop = threading.Event()
        self.killers = [[None, None] for _ in range(MAX_DEPTH + 2)]
        opp_god, carry, threat_god, threat_bound = _next_mover(position)
        out = []
        for t in generate(position):
            if t.win:
                v = WIN_SCORE
            elif depth <= 1:
                v = -self._leaf(_bound(t.state) if carry else t.state, opp_god, threat_god, threat_bound, 1)
            else:
                v = -self._negamax(position.successor(t.state), depth - 1, -INF, INF, 1)
            out.append((t.stn, v))
        return out

    def value(self, position: Position, depth: int) -> int:
        """The exact ``depth``-ply value of ``position`` for the side to move (one full-window
        alpha-beta search: the best of :meth:`score_turns`, at a fraction of its cost)."""
        self.deadline = self.node_limit = None
        self.stop = threading.Event()
        self.killers = [[None, None] for _ in range(MAX_DEPTH + 2)]
        return self._negamax(position, depth, -INF, INF, 0)

    @staticmethod
    def _ms(started: float) -> int:
        return int((time.monotonic() - started) * 1000)

    def _check(self) -> None:
        if self.stop.is_set():
            raise _Abort
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _Abort
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Abort

    def _root(
        self,
        position: Position,
        children: list[tuple[RawTurn, Position]],
        order: list[int],
        scores: list[int],
        depth: int,
    ) -> tuple[int, int]:
        self._partial = None
        alpha = -INF
        best = order[0]
        opp_god, carry, threat_god, threat_bound = _next_mover(position)
        leaf = self._leaf
        for n, i in enumerate(order):
            turn, child = children[i]
            if depth == 1:
                v = -leaf(_bound(turn.state) if carry else turn.state, opp_god, threat_god, threat_bound, 1)
            elif n == 0:
                v = -self._negamax(child, depth - 1, -INF, INF, 1)
            else:  # principal variation search: a null window proves the others worse
                v = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1)
                if v > alpha:
                    v = -self._negamax(child, depth - 1, -INF, -alpha, 1)
            scores[i] = v
            if v > alpha:
                alpha = v
                best = i
            self._partial = (best, alpha)
        return alpha, best

    def _pv(self, pos: Position, depth: int, line: list[str]) -> list[str]:
        """The principal variation, followed through the transposition table."""
        for _ in range(depth):
            entry = self.tt.get(_key(pos))
            if entry is None or entry[3] is None:
                break
            stn = entry[3]
            nxt = next((t for t in generate(pos) if t.stn == stn), None)
            if nxt is None:
                break
            line.append(stn)
            if nxt.win:
                break
            pos = pos.successor(nxt.state)
        return line

    # --- search -------------------------------------------------------------------------------

    def _leaf(self, state: RawState, god: str, threat_god: str, threat_bound: bool, ply: int) -> int:
        """Score of a successor state for its side to move (``god``), without building a Position
        (``threat_god``: the god of the seat after it, ``threat_bound``: whether Athena's tag
        surely binds that seat, see `_next_mover`).
        """
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check()  # a Hermes node can have thousands of leaves
        key = (state, god, threat_god, threat_bound)
        cached = self.leaf_cache.get(key)
        if cached is None:
            h1, h2, h3, domes, mover, other, up = state
            if immediate_win(h1, h2, h3, domes, other, mover, god, up):
                cached = WIN_SCORE
            else:
                cached = evaluate(h1, h2, h3, domes, other, mover, up, threat_god, threat_bound)
            self.leaf_cache[key] = cached
        return cached - ply if cached == WIN_SCORE else cached

    def _negamax(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0:
            self._check()
        me = pos.to_move
        g = me & 1  # two seats, or four in two teams (seats 1 and 3 move group 0)
        mine, theirs = pos.workers[g], pos.workers[g ^ 1]
        h1, h2, h3, domes = pos.h1, pos.h2, pos.h3, pos.domes
        gods = pos.gods
        up = pos.athena_up
        if immediate_win(h1, h2, h3, domes, mine, theirs, gods[me], up and (len(gods) == 2 or pos.no_up)):
            return WIN_SCORE - ply
        key = (h1, h2, h3, domes, mine, theirs, me, up)
        entry = self.tt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_move = entry
            if e_depth >= depth:
                value = _from_tt(e_value, ply)
                if e_flag == EXACT:
                    return value
                if e_flag == LOWER and value > alpha:
                    alpha = value
                elif e_flag == UPPER and value < beta:
                    beta = value
                if alpha >= beta:
                    return value
        if depth == 1 and LAZY_FRONTIER:
            return self._frontier(pos, key, alpha, beta, ply)
        turns = list(generate(pos))
        if not turns:
            return -(WIN_SCORE - ply)  # SPEC.md section 1.4: no complete turn loses
        killers = self.killers[ply]
        history = self.history

        def priority(t: RawTurn) -> int:
            stn = t.stn
            if stn == tt_move:
                return 1 << 40
            if stn == killers[0] or stn == killers[1]:
                return 1 << 30
            nm = t.state[4]
            return history.get(stn, 0) + 8 * ((h1 & nm).bit_count() + (h2 & nm).bit_count())

        turns.sort(key=priority, reverse=True)
        alpha0 = alpha
        best = -INF
        best_move: str | None = None
        opp_god, carry, threat_god, threat_bound = _next_mover(pos)
        leaf = self._leaf
        child_of = pos.successor
        for t in turns:
            if t.win:
                v = WIN_SCORE - ply
            elif depth == 1:
                v = -leaf(_bound(t.state) if carry else t.state, opp_god, threat_god, threat_bound, ply + 1)
            else:
                v = -self._negamax(child_of(t.state), depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best = v
                best_move = t.stn
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        if killers[0] != t.stn:
                            killers[1] = killers[0]
                            killers[0] = t.stn
                        history[t.stn] = history.get(t.stn, 0) + depth * depth
                        break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta else EXACT
        self.tt[key] = (depth, _to_tt(best, ply), flag, best_move)
        return best


    def _frontier(self, pos: Position, key: tuple[int, ...], alpha: int, beta: int, ply: int) -> int:
        """A depth-1 node: children are scored as leaves, generated lazily, highest steps first.

        Most frontier nodes are cut off after a few children, so sorting a full turn list (the
        profile's top cost) is wasted; the generator's destination filter gives a cheap order
        instead: turns stepping onto level 2-3, then 1, then 0.  (Hermes' power turns ignore the
        filter and placement filters both squares: those are generated in one layer.)
        """
        alpha0 = alpha
        best = -INF
        best_move: str | None = None
        opp_god, carry, threat_god, threat_bound = _next_mover(pos)
        leaf = self._leaf
        h1, h2 = pos.h1, pos.h2
        any_turn = False
        me = pos.to_move
        layered = pos.workers[me & 1] and pos.gods[me] != "hermes"
        for layer in (h2, h1 & ~h2, BB_ALL & ~h1) if layered else (BB_ALL,):
            for t in generate(pos, BB_ALL, layer):
                any_turn = True
                if t.win:
                    v = WIN_SCORE - ply
                else:
                    v = -leaf(_bound(t.state) if carry else t.state, opp_god, threat_god, threat_bound, ply + 1)
                if v > best:
                    best = v
                    best_move = t.stn
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            self.tt[key] = (1, _to_tt(best, ply), LOWER, best_move)
                            return best
        if not any_turn:
            return -(WIN_SCORE - ply)
        self.tt[key] = (1, _to_tt(best, ply), UPPER if best <= alpha0 else EXACT, best_move)
        return best


class ParanoidSearcher(Searcher):
    """Three seats: paranoid alpha-beta, values from the root seat's side (see the module docstring).

    The driver (:meth:`Searcher.choose`: iterative deepening, time, partial iterations) is the
    two-seat one; nodes are ``Position`` objects throughout, as a three-seat raw state does not say
    which opponent owns which worker.  A node is maximising when the root seat is to move.  Leaves
    are scored by :func:`~santorini_engines.evaluation.evaluate_for` after three exact checks: the
    seat to move wins now; it has no turn (the root seat: a loss; an opponent: it is eliminated and
    the leaf is the position after); an opponent is to move and the other opponent, who moves
    next, can already win (the root seat gets no turn in between to stop it).
    """

    def __init__(self, max_entries: int = 1_000_000) -> None:
        super().__init__(max_entries)
        self.root = 0
        self.ntt: dict[tuple[object, ...], tuple[int, int, int, str | None]] = {}
        self.static_cache: dict[tuple[object, ...], int] = {}

    def new_game(self) -> None:
        super().new_game()
        self.ntt.clear()
        self.static_cache.clear()

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        """As :meth:`Searcher.choose`, from the side of the seat to move."""
        self.root = position.to_move
        if len(self.ntt) > self.max_entries:
            self.ntt.clear()
        if len(self.static_cache) > 2 * self.max_entries:
            self.static_cache.clear()
        return super().choose(position, limits, stop, info)

    def score_turns(self, position: Position, depth: int) -> list[tuple[str, int]]:
        """As :meth:`Searcher.score_turns`, values from the side of the seat to move (paranoid)."""
        self.root = position.to_move
        self.deadline = self.node_limit = None
        self.stop = threading.Event()
        self.killers = [[None, None] for _ in range(MAX_DEPTH + 2)]
        return [(t.stn, WIN_SCORE if t.win else self._search(position.successor(t.state), depth - 1, -INF, INF, 1))
                for t in generate(position)]

    def _root(
        self,
        position: Position,
        children: list[tuple[RawTurn, Position]],
        order: list[int],
        scores: list[int],
        depth: int,
    ) -> tuple[int, int]:
        self._partial = None
        alpha = -INF
        best = order[0]
        for n, i in enumerate(order):
            child = children[i][1]
            if n == 0:
                v = self._search(child, depth - 1, -INF, INF, 1)
            else:  # a null window proves the others no better
                v = self._search(child, depth - 1, alpha, alpha + 1, 1)
                if v > alpha:
                    v = self._search(child, depth - 1, alpha, INF, 1)
            scores[i] = v
            if v > alpha:
                alpha = v
                best = i
            self._partial = (best, alpha)
        return alpha, best

    def _pv(self, pos: Position, depth: int, line: list[str]) -> list[str]:
        for _ in range(depth):
            entry = self.ntt.get(self._nkey(pos))
            if entry is None or entry[3] is None:
                break
            nxt = next((t for t in generate(pos) if t.stn == entry[3]), None)
            if nxt is None:
                break
            line.append(nxt.stn)
            if nxt.win:
                break
            pos = pos.successor(nxt.state)
        return line

    def _nkey(self, pos: Position) -> tuple[object, ...]:
        return (pos.h1, pos.h2, pos.h3, pos.domes, pos.workers, pos.to_move, pos.athena_up, pos.eliminated, self.root)

    def _search(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The value of ``pos`` for the root seat's side, ``depth`` plies deep (eliminations are free)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY_PARANOID == 0:
            self._check()
        mover = pos.to_move
        ours = mover == self.root
        mine, theirs = pos.sides()
        if immediate_win(pos.h1, pos.h2, pos.h3, pos.domes, mine, theirs, pos.gods[mover], pos.no_up):
            return WIN_SCORE - ply if ours else ply - WIN_SCORE
        if depth <= 0:
            return self._static(pos, alpha, beta, ply)
        key = self._nkey(pos)
        entry = self.ntt.get(key)
        tt_move = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_move = entry
            if e_depth >= depth:
                value = _from_tt(e_value, ply)
                if e_flag == EXACT:
                    return value
                if e_flag == LOWER and value > alpha:
                    alpha = value
                elif e_flag == UPPER and value < beta:
                    beta = value
                if alpha >= beta:
                    return value
        if depth == 1 and LAZY_FRONTIER:
            return self._nfrontier(pos, key, ours, alpha, beta, ply)
        turns = list(generate(pos))
        if not turns:
            return self._no_turn(pos, ours, depth, alpha, beta, ply)
        killers = self.killers[ply]
        history = self.history
        h1, h2 = pos.h1, pos.h2

        def priority(t: RawTurn) -> int:
            stn = t.stn
            if stn == tt_move:
                return 1 << 40
            if stn == killers[0] or stn == killers[1]:
                return 1 << 30
            nm = t.state[4]
            return history.get(stn, 0) + 8 * ((h1 & nm).bit_count() + (h2 & nm).bit_count())

        turns.sort(key=priority, reverse=True)
        alpha0, beta0 = alpha, beta
        best = -INF if ours else INF
        best_move: str | None = None
        child_of = pos.successor
        for t in turns:
            if t.win:
                v = WIN_SCORE - ply if ours else ply - WIN_SCORE
            else:
                v = self._search(child_of(t.state), depth - 1, alpha, beta, ply + 1)
            if (v > best) if ours else (v < best):
                best = v
                best_move = t.stn
                if ours and v > alpha:
                    alpha = v
                elif not ours and v < beta:
                    beta = v
                if alpha >= beta:
                    if killers[0] != t.stn:
                        killers[1] = killers[0]
                        killers[0] = t.stn
                    history[t.stn] = history.get(t.stn, 0) + depth * depth
                    break
        flag = UPPER if best <= alpha0 else LOWER if best >= beta0 else EXACT
        self.ntt[key] = (depth, _to_tt(best, ply), flag, best_move)
        return best

    def _nfrontier(self, pos: Position, key: tuple[object, ...], ours: bool, alpha: int, beta: int, ply: int) -> int:
        """A depth-1 node: children scored as leaves, generated lazily, highest steps first (as
        :meth:`Searcher._frontier`: most frontier nodes are cut off after a few children)."""
        alpha0, beta0 = alpha, beta
        best = -INF if ours else INF
        best_move: str | None = None
        h1, h2 = pos.h1, pos.h2
        leaf = self._leaf3
        any_turn = False
        layered = pos.sides()[0] and pos.gods[pos.to_move] != "hermes"
        for layer in (h2, h1 & ~h2, BB_ALL & ~h1) if layered else (BB_ALL,):
            for t in generate(pos, BB_ALL, layer):
                any_turn = True
                v = (WIN_SCORE - ply if ours else ply - WIN_SCORE) if t.win else leaf(pos, t.state, ply + 1)
                if (v > best) if ours else (v < best):
                    best = v
                    best_move = t.stn
                    if ours and v > alpha:
                        alpha = v
                    elif not ours and v < beta:
                        beta = v
                    if alpha >= beta:
                        self.ntt[key] = (1, _to_tt(best, ply), LOWER if ours else UPPER, best_move)
                        return best
        if not any_turn:
            return self._no_turn(pos, ours, 1, alpha, beta, ply)
        flag = UPPER if best <= alpha0 else LOWER if best >= beta0 else EXACT
        self.ntt[key] = (1, _to_tt(best, ply), flag, best_move)
        return best

    def _leaf3(self, pos: Position, state: RawState, ply: int) -> int:
        """A child of ``pos`` scored as a leaf from its raw state, as :meth:`_search` at depth 0 would
        (same table entries), without building a ``Position`` unless the turn moved an opponent's
        worker (Apollo, Minotaur) or leaves the next seat without an ordinary step."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY_PARANOID == 0:
            self._check()
        h1, h2, h3, domes, mine, theirs, up = state
        me = pos.to_move
        old = pos.workers
        if theirs != (old[0] | old[1] | old[2]) ^ old[me]:
            return self._search(pos.successor(state), 0, -INF, INF, ply)
        workers = (mine, old[1], old[2]) if me == 0 else (old[0], mine, old[2]) if me == 1 else (old[0], old[1], mine)
        gods = pos.gods
        eliminated = pos.eliminated
        nxt = (me + 1) % 3
        if eliminated >> nxt & 1:
            nxt = (nxt + 1) % 3
        if gods[me] != "athena":
            up = pos.athena_up and gods[nxt] != "athena"
        root = self.root
        nmine = workers[nxt]
        others = (mine | theirs) ^ nmine
        if immediate_win(h1, h2, h3, domes, nmine, others, gods[nxt], up):
            return WIN_SCORE - ply if nxt == root else ply - WIN_SCORE
        key = (h1, h2, h3, domes, workers, nxt, up, eliminated, root)
        cached = self.static_cache.get(key)
        if cached is not None:
            return _from_tt(cached, ply)
        if not can_step(h1, h2, h3, domes, nmine, others, up):
            return self._static(pos.successor(state), -INF, INF, ply)
        value = None
        if nxt != root:
            partner = (nxt + 1) % 3
            if eliminated >> partner & 1:
                partner = (partner + 1) % 3
            if partner != root:
                pmine = workers[partner]
                if immediate_win(h1, h2, h3, domes, pmine, (mine | theirs) ^ pmine, gods[partner],
                                 up and gods[partner] != "athena"):
                    value = 1 - WIN_SCORE
        if value is None:
            value = evaluate_groups(h1, h2, h3, domes, workers, 3, nxt, root, up)
        self.static_cache[key] = value
        return _from_tt(value, ply)

    def _no_turn(self, pos: Position, ours: bool, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The seat to move has no complete turn: it leaves the game (the root seat: a loss)."""
        if ours:
            return ply - WIN_SCORE
        after = pos.eliminate()
        if after is None:  # the root seat is the last one standing
            return WIN_SCORE - ply
        return self._search(after, depth, alpha, beta, ply)

    def _static(self, pos: Position, alpha: int, beta: int, ply: int) -> int:
        """A leaf (the seat to move cannot win now): exact ends first, then the evaluation."""
        key = self._nkey(pos)
        cached = self.static_cache.get(key)
        if cached is not None:
            return _from_tt(cached, ply)
        ours = pos.to_move == self.root
        if not can_step(pos.h1, pos.h2, pos.h3, pos.domes, *pos.sides(), pos.no_up) and not has_turn(pos):
            if ours:
                value = -WIN_SCORE
            else:
                after = pos.eliminate()
                value = WIN_SCORE if after is None else _to_tt(self._search(after, 0, alpha, beta, ply), ply)
        else:
            partner = None if ours else _coalition_next(pos, self.root)
            value = 1 - WIN_SCORE if partner is not None and seat_wins(pos, partner) else evaluate_for(pos, self.root)
        self.static_cache[key] = value
        return _from_tt(value, ply)


def _coalition_next(pos: Position, root: int) -> int | None:
    """The live seat after the seat to move, when it is not ``root`` (else None)."""
    nxt = (pos.to_move + 1) % 3
    if pos.eliminated >> nxt & 1:
        nxt = (nxt + 1) % 3
    return None if nxt == root else nxt


class AlphaBeta:
    """The engine's ``choose``: :class:`Searcher` for two and four seats, :class:`ParanoidSearcher` for three."""

    def __init__(self, max_entries: int = 1_000_000) -> None:
        self.two = Searcher(max_entries)
        self.teams = Searcher(max_entries)
        self.paranoid = ParanoidSearcher(max_entries)
        self.teams.next_iteration_fraction = self.paranoid.next_iteration_fraction = NSEAT_NEXT_ITERATION_FRACTION

    def set_max_entries(self, max_entries: int) -> None:
        self.two.max_entries = self.teams.max_entries = self.paranoid.max_entries = max_entries

    def new_game(self) -> None:
        self.two.new_game()
        self.teams.new_game()
        self.paranoid.new_game()

    def score_turns(self, position: Position, depth: int) -> list[tuple[str, int]]:
        """Every legal turn with its exact ``depth``-ply value for the seat to move (see
        :meth:`Searcher.score_turns`), by the searcher this seat count uses."""
        n = len(position.gods)
        return (self.two if n == 2 else self.paranoid if n == 3 else self.teams).score_turns(position, depth)

    def value(self, position: Position, depth: int) -> int:
        """The exact ``depth``-ply value for the side to move of a two- or four-seat position."""
        if len(position.gods) == 3:
            raise ValueError("a three-seat position has no two-sided value (paranoid values are the root seat's)")
        return (self.two if len(position.gods) == 2 else self.teams).value(position, depth)

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        n = len(position.gods)
        cap = NSEAT_MOVES_TO_GO if n == 3 else TEAM_MOVES_TO_GO
        if n != 2 and (limits.movestogo is None or limits.movestogo > cap):  # a Fischer clock sends none
            limits = dataclasses.replace(limits, movestogo=cap)
        searcher = self.two if n == 2 else self.paranoid if n == 3 else self.teams
        return searcher.choose(position, limits, stop, info)


def _key(pos: Position) -> tuple[int, ...]:
    me = pos.to_move
    g = me & 1
    return (pos.h1, pos.h2, pos.h3, pos.domes, pos.workers[g], pos.workers[g ^ 1], me, pos.athena_up)


def _next_mover(pos: Position) -> tuple[str, bool, str, bool]:
    """What a leaf after a turn of ``pos``'s mover needs to know about the two seats after it.

    The god of the seat moving next, and whether Athena's tag, set before this turn, still binds
    that seat (four seats: it lasts until Athena moves again, over her teammate's turn; a raw
    state only carries the tag a moving Athena sets); then the god of the seat after that (four
    seats: the mover's teammate; two seats: none, the evaluation stays the two-seat one),
    whose threats the leaf scores, and whether the tag surely binds that seat too (four seats:
    it is set and the seat moving next is Athena's teammate, so she does not move in between).
    """
    gods = pos.gods
    me = pos.to_move
    if len(gods) == 2:
        return gods[1 - me], False, "", False  # the two-seat evaluation, unchanged
    nxt = (me + 1) & 3
    up = pos.athena_up
    return gods[nxt], up and "athena" not in (gods[nxt], gods[nxt ^ 2]), gods[me ^ 2], up and gods[nxt ^ 2] == "athena"


def _bound(state: RawState) -> RawState:
    """``state`` with the successor's seat to move bound by Athena's tag."""
    return (*state[:6], True)


def _to_tt(value: int, ply: int) -> int:
    """Mate scores are stored relative to the node, so they stay right wherever it recurs."""
    if value >= WIN_THRESHOLD:
        return value + ply
    if value <= -WIN_THRESHOLD:
        return value - ply
    return value


def _from_tt(value: int, ply: int) -> int:
    if value >= WIN_THRESHOLD:
        return value - ply
    if value <= -WIN_THRESHOLD:
        return value + ply
    return value


def main() -> None:
    """Serve SEI on stdin/stdout."""
    searcher = AlphaBeta()
    hash_option = Option("Hash", "spin", default=1000, min=10, max=100_000)

    def set_hash(value: object) -> None:
        searcher.set_max_entries(int(hash_option.value or 1000) * 1000)

    hash_option.on_change = set_hash
    raise SystemExit(
        run_bot(
            searcher.choose,
            name="AlphaBeta",
            author="santorini-server",
            options=[hash_option],
            on_newgame=lambda gods: searcher.new_game(),
            players=(2, 3, 4),
        )
    )


if __name__ == "__main__":
    main()
