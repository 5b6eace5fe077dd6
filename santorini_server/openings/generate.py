"""Make an opening suite from the bundled alpha-beta engine's play (SPEC.md section 19.3).

Theory of operation.  Candidate ``i`` is a game from the empty board played by the engine with
seeded randomness: at every placement (and each of ``plies`` turns after) the turns are scored by
:meth:`~santorini_engines.alphabeta.AlphaBeta.score_turns` (exact values, full windows) and one is
drawn uniformly among those within ``margin`` of the best, so the starts are moves a reasonable
player makes, not uniform noise.  The first two-seat placement is scored two plies deep (seat 1
then sees seat 2's reply), the others one ply deep (the leaf after the last placement is already a
full board).  The candidate is kept when it is *balanced*: the engine's ``depth``-ply value for the
side to move (:meth:`~santorini_engines.alphabeta.AlphaBeta.value`, one full-window alpha-beta
search) is within ``bound`` (three seats: the static scores of the seats, which a paranoid search
cannot give evenly, differ by at most ``bound``), and its class under the board's eight symmetries
is new.  The suite holds each class's canonical image.

Why a search value and not a few self-play games: it is exact, cheap (milliseconds at depth 2 for
most gods, under a second with Hermes) and reproducible, and with the engine's own near-best
placements most starts are balanced already; a few self-play games per candidate would cost a
thousand times more and still carry a standard error of a third of a point.

Reproducible: candidate ``i`` depends only on the recipe and ``i`` (its own random generator, the
engine's tables cleared first but for the leaf cache, a pure function of the board), and
candidates are accepted in index order, so ``--jobs`` changes the speed, never the file.
"""

from __future__ import annotations

import functools
import multiprocessing
import random
from collections.abc import Iterator
from dataclasses import dataclass

from santorini_engines.alphabeta import AlphaBeta
from santorini_engines.evaluation import evaluate_for

from ..rules import SIMPLE_GODS, Position, check_gods
from ..rules.symmetry import canonical_key, canonical_position

__all__ = ["Recipe", "Opening", "generate", "format_suite", "MAX_TRIES_PER_OPENING"]

#: Give up when this many candidates per opening asked for have not given enough distinct ones.
MAX_TRIES_PER_OPENING = 40
_CHUNK = 8


@dataclass(frozen=True)
class Recipe:
    """Everything a suite depends on: the same recipe makes the same file."""

    gods: tuple[str, ...] | None
    """One god per seat; None: drawn per opening from the eight-god pool (three or four seats)."""
    seats: int
    count: int
    seed: int
    plies: int = 0
    """Turns played after the placements."""
    depth: int = 2
    """Plies of the balance search."""
    bound: int = 30
    """Most the balance score may be from 0, in the engine's centi-levels."""
    margin: int = 20
    """How far below the best a drawn placement or turn may score."""

    def __post_init__(self) -> None:
        if self.seats not in (2, 3, 4):
            raise ValueError(f"--seats must be 2, 3 or 4, got {self.seats}")
        if self.gods is not None:
            if len(self.gods) != self.seats:
                raise ValueError(f"{'/'.join(self.gods)} names {len(self.gods)} gods for {self.seats} seats")
            check_gods(self.gods)
        elif self.seats == 2:
            raise ValueError("two seats name their gods (santorini openings --gods all writes a file per pairing)")
        for name, value, low in (("--count", self.count, 1), ("--depth", self.depth, 1), ("--bound", self.bound, 0),
                                 ("--margin", self.margin, 0), ("--plies", self.plies, 0)):
            if value < low:
                raise ValueError(f"{name} must be at least {low}, got {value}")

    def header(self) -> list[str]:
        """The comment lines a suite starts with: how to make it again, exactly."""
        gods = "all" if self.gods is None else "/".join(self.gods)
        balance = (f"the seats' static scores differ by at most {self.bound}" if self.seats == 3 else
                   f"|alphabeta value at depth {self.depth}| <= {self.bound} for the side to move")
        return [
            "# santorini opening suite (SPEC.md section 19): one SPS a line, each played as a pair",
            f"# gods {gods}, {self.seats} seats, {self.count} openings, distinct under the board's 8 symmetries",
            f"# engine santorini_engines.alphabeta: every placement and {self.plies} more turns drawn among those "
            f"within {self.margin} of the best (first placement of two seats scored at depth 2, others at depth 1)",
            f"# balance: {balance}",
            f"# made by: santorini openings --gods {gods} --seats {self.seats} --count {self.count} --seed {self.seed} "
            f"--plies {self.plies} --depth {self.depth} --bound {self.bound} --margin {self.margin}",
        ]


@dataclass(frozen=True)
class Opening:
    """An accepted start: its canonical SPS, its balance score, and the candidate it came from."""

    sps: str
    score: int
    candidate: int


_ENGINE: AlphaBeta | None = None


def _engine() -> AlphaBeta:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = AlphaBeta()
    return _ENGINE


def _fresh(engine: AlphaBeta) -> None:
    """Clear what makes a search depend on earlier ones (the leaf cache is a pure function: kept)."""
    for searcher in (engine.two, engine.teams, engine.paranoid):
        searcher.tt.clear()
        searcher.history.clear()
    engine.paranoid.ntt.clear()


@functools.lru_cache(maxsize=128)
def _first_placement(gods: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    engine = _engine()
    _fresh(engine)
    return tuple(engine.score_turns(Position.start(gods), 2))


def _pick(scored: list[tuple[str, int]] | tuple[tuple[str, int], ...], margin: int, rng: random.Random) -> str:
    best = max(v for _, v in scored)
    return rng.choice(sorted(stn for stn, v in scored if v >= best - margin))


def balance_score(position: Position, depth: int) -> int:
    """The balance measure of a start (see the module docstring): 0 is even."""
    if position.nseats == 3:
        values = [evaluate_for(position, seat) for seat in range(3)]
        return max(values) - min(values)
    return int(_engine().value(position, depth))


def candidate(recipe: Recipe, index: int) -> tuple[Position, int] | None:
    """Candidate ``index`` of ``recipe``: the start and its balance score, or None if a game ended."""
    rng = random.Random(f"santorini-openings/{recipe.seed}/{recipe.gods}/{recipe.seats}/{index}")
    gods = recipe.gods if recipe.gods is not None else tuple(rng.sample(SIMPLE_GODS, recipe.seats))
    engine = _engine()
    _fresh(engine)
    pos = Position.start(gods)
    first = True
    while pos.is_placement:
        scored = _first_placement(gods) if first and recipe.seats == 2 else engine.score_turns(pos, 1)
        pos = pos.play(_pick(scored, recipe.margin, rng)).position
        first = False
    for _ in range(recipe.plies):
        scored = engine.score_turns(pos, 1)
        if not scored:
            return None
        played = pos.play(_pick(scored, recipe.margin, rng))
        if played.win:
            return None
        pos = played.position
    if pos.is_lost():
        return None
    _fresh(engine)
    return pos, balance_score(pos, recipe.depth)


def _chunk(args: tuple[Recipe, int]) -> list[tuple[int, str | None, tuple[object, ...] | None, int]]:
    recipe, start = args
    out: list[tuple[int, str | None, tuple[object, ...] | None, int]] = []
    for i in range(start, start + _CHUNK):
        got = candidate(recipe, i)
        if got is None:
            out.append((i, None, None, 0))
        else:
            pos, score = got
            out.append((i, canonical_position(pos).sps(), canonical_key(pos), score))
    return out


def generate(recipe: Recipe, jobs: int = 1) -> list[Opening]:
    """The suite of ``recipe``: ``recipe.count`` distinct balanced openings, in candidate order.

    Raises:
        ValueError: bad ``jobs``, or too few distinct balanced openings within
            :data:`MAX_TRIES_PER_OPENING` candidates per opening (one line: widen the recipe).
    """
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1, got {jobs}")
    limit = recipe.count * MAX_TRIES_PER_OPENING
    tasks = ((recipe, start) for start in range(0, limit, _CHUNK))
    found: list[Opening] = []
    seen: set[tuple[object, ...]] = set()
    pool = multiprocessing.get_context("spawn").Pool(jobs) if jobs > 1 else None
    try:
        results: Iterator[list[tuple[int, str | None, tuple[object, ...] | None, int]]] = (
            pool.imap(_chunk, tasks) if pool is not None else map(_chunk, tasks)
        )
        for chunk in results:
            for index, sps, key, score in chunk:
                if sps is None or key is None or abs(score) > recipe.bound or key in seen:
                    continue
                seen.add(key)
                found.append(Opening(sps, score, index))
                if len(found) == recipe.count:
                    return found
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    raise ValueError(
        f"only {len(found)} distinct balanced openings in {limit:,} candidates: raise --bound, --margin or --plies"
    )


def format_suite(recipe: Recipe, openings: list[Opening]) -> str:
    """The suite file's text: the header, then one SPS a line with its balance score."""
    what = "spread" if recipe.seats == 3 else "score"
    lines = [*recipe.header(), *(f"{o.sps}  # {what} {o.score}" for o in openings)]
    return "\n".join(lines) + "\n"
