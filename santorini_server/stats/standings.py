"""Live standings for a tournament of any number of engines.

``Standings`` accumulates finished games (no I/O) and renders the text the
runner prints: cutechess's ``Score of`` line, fastchess's results block, a
ranking table and a crosstable.  Every string is a deterministic function of
the recorded games.

Game pairs: fastchess and OpenBench treat games ``2k-1`` and ``2k`` (1-based
schedule numbers) as one colour-swapped pair; the referee's scheduler numbers
games the same way.  Pass ``game_number`` to ``record`` so that games that
finish out of order (concurrency) still pair correctly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .bradley_terry import DEFAULT_PRIOR, JointRating, JointRatings, format_joint_columns, joint_ratings
from .elo import (
    EloEstimate,
    _fixed,
    format_elo_pm,
    format_los,
    format_nelo_pm,
    pentanomial_elo,
    trinomial_elo,
)
from .sprt import SprtConfig, format_llr_line, llr_pentanomial, llr_trinomial

__all__ = [
    "DRAW",
    "EngineTally",
    "ScoredGame",
    "PairCounts",
    "RankingRow",
    "Standings",
    "format_results_block",
    "format_score_line",
    "pair_counts",
]

DRAW = 0
"""``winner`` value for a drawn game: Santorini has none, but an adjudication rule may."""


@dataclass(frozen=True)
class ScoredGame:
    """One finished game as the standings score it: who played and who won (the full game is a
    ``records.GameRecord``).  ``winner``: 1 or 2 (player1/player2 won), 0 draw, None not scored
    (aborted or interrupted: counted per termination, excluded from W/D/L)."""

    number: int
    player1: str
    player2: str
    winner: int | None
    termination: str = ""

    def points_for(self, name: str) -> float | None:
        """Points ``name`` scored (1, 0.5, 0), or None if the game was not scored."""
        if self.winner is None:
            return None
        if self.winner == DRAW:
            return 0.5
        won = self.player1 if self.winner == 1 else self.player2
        return 1.0 if won == name else 0.0


@dataclass(frozen=True)
class PairCounts:
    """Pentanomial counts of one engine over complete colour-swapped pairs.

    ``ptnml[k]``: pairs in which the engine scored ``k/2`` of 2 points.
    Bucket 2 splits into ``wl`` (one win, one loss) and ``dd`` (two draws).
    ``incomplete``: pairs with a missing or unscored game, left out.
    """

    ptnml: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    wl: int = 0
    dd: int = 0
    incomplete: int = 0

    @property
    def pairs(self) -> int:
        return sum(self.ptnml)


def pair_counts(games: Iterable[ScoredGame], name: str, opponent: str | None = None) -> PairCounts:
    """Group ``name``'s games into pairs ``(2k-1, 2k)`` and count pentanomial buckets.

    Only pairs where both games exist, both are scored, and both are between
    the same two engines count (with ``opponent`` set, only pairs against it).
    """
    by_pair: dict[int, list[ScoredGame]] = {}
    for g in games:
        if name not in (g.player1, g.player2):
            continue
        if opponent is not None and opponent not in (g.player1, g.player2):
            continue
        by_pair.setdefault((g.number + 1) // 2, []).append(g)
    buckets = [0, 0, 0, 0, 0]
    wl = dd = incomplete = 0
    for key in sorted(by_pair):
        pair = by_pair[key]
        if len(pair) != 2 or {pair[0].player1, pair[0].player2} != {pair[1].player1, pair[1].player2}:
            incomplete += 1
            continue
        points = [g.points_for(name) for g in pair]
        if points[0] is None or points[1] is None:
            incomplete += 1
            continue
        total = points[0] + points[1]
        buckets[round(total * 2)] += 1
        if total == 1.0:
            if points[0] == 0.5:
                dd += 1
            else:
                wl += 1
    return PairCounts((buckets[0], buckets[1], buckets[2], buckets[3], buckets[4]), wl, dd, incomplete)


@dataclass(frozen=True)
class EngineTally:
    """One engine's record.  ``games`` counts scored games only; ``unscored`` the rest.

    ``terminations``: every game the engine took part in, by termination tag.
    ``losses_by``: the games it lost, by tag (e.g. its time forfeits).
    """

    name: str
    wins: int
    draws: int
    losses: int
    unscored: int
    terminations: dict[str, int] = field(default_factory=dict)
    losses_by: dict[str, int] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per scored game, 0.5 with no games (neutral, never nan)."""
        return self.points / self.games if self.games else 0.5


@dataclass(frozen=True)
class RankingRow:
    """``estimate``: the engine's Elo against the field it met; ``joint``: its joint
    (Bradley-Terry) rating when the ranking was asked for one."""

    rank: int
    name: str
    estimate: EloEstimate
    tally: EngineTally
    pairs: PairCounts | None
    joint: JointRating | None = None


def _tally(games: Sequence[ScoredGame], name: str, opponent: str | None = None) -> EngineTally:
    wins = draws = losses = unscored = 0
    terminations: dict[str, int] = {}
    losses_by: dict[str, int] = {}
    for g in games:
        if name not in (g.player1, g.player2):
            continue
        if opponent is not None and opponent not in (g.player1, g.player2):
            continue
        terminations[g.termination] = terminations.get(g.termination, 0) + 1
        pts = g.points_for(name)
        if pts is None:
            unscored += 1
        elif pts == 1.0:
            wins += 1
        elif pts == 0.5:
            draws += 1
        else:
            losses += 1
            losses_by[g.termination] = losses_by.get(g.termination, 0) + 1
    return EngineTally(
        name,
        wins,
        draws,
        losses,
        unscored,
        dict(sorted(terminations.items())),
        dict(sorted(losses_by.items())),
    )


def format_score_line(name_a: str, name_b: str, wins: int, losses: int, draws: int) -> str:
    """cutechess's ``Score of A vs B: W - L - D  [0.512] N`` (two spaces before ``[``)."""
    n = wins + losses + draws
    score = "n/a" if n == 0 else f"{(wins + 0.5 * draws) / n:.3f}"
    return f"Score of {name_a} vs {name_b}: {wins} - {losses} - {draws}  [{score}] {n}"


def _ratio_text(num: int, den: int) -> str:
    return "n/a" if den == 0 else f"{num / den:.2f}"


_RULE = "-" * 50


def format_results_block(
    first: str,
    second: str,
    wins: int,
    losses: int,
    draws: int,
    pairs: PairCounts | None = None,
    details: str = "",
    sprt: SprtConfig | None = None,
) -> str:
    """fastchess's interval block for ``first`` against ``second``.

    With ``pairs`` holding at least one complete pair, Elo/LOS/SPRT use the
    pentanomial model and the block shows PairsRatio and ``Ptnml(0-2)``;
    otherwise the trinomial model.  Undefined values print as ``n/a``.
    ``WL/DD Ratio`` is omitted when there is no DD pair (always, for
    Santorini), where fastchess would print ``inf`` or ``nan``.
    """
    penta = pairs is not None and pairs.pairs > 0
    est = pentanomial_elo(pairs.ptnml) if penta and pairs else trinomial_elo(wins, draws, losses)
    games = wins + losses + draws
    points = wins + 0.5 * draws
    header = f"Results of {first} vs {second}" + (f" ({details})" if details else "") + ":"
    lines = [_RULE, header, f"Elo: {format_elo_pm(est)}, nElo: {format_nelo_pm(est)}"]
    draw_ratio = "n/a" if est.samples == 0 else f"{_fixed(est.draw_ratio * 100.0, 2)} %"
    stats = f"LOS: {format_los(est)}, DrawRatio: {draw_ratio}"
    if penta and pairs:
        p = pairs.ptnml
        stats += f", PairsRatio: {_ratio_text(p[3] + p[4], p[0] + p[1])}"
    lines.append(stats)
    pct = "n/a" if games == 0 else f"{_fixed(points / games * 100.0, 2)} %"
    lines.append(
        f"Games: {games}, Wins: {wins}, Losses: {losses}, Draws: {draws}, Points: {points:.1f} ({pct})"
    )
    if penta and pairs:
        p = pairs.ptnml
        line = f"Ptnml(0-2): [{p[0]}, {p[1]}, {p[2]}, {p[3]}, {p[4]}]"
        if pairs.dd:
            line += f", WL/DD Ratio: {pairs.wl / pairs.dd:.2f}"
        lines.append(line)
    if sprt is not None:
        llr = llr_pentanomial(pairs.ptnml, sprt) if penta and pairs else llr_trinomial(wins, draws, losses, sprt)
        lines.append(format_llr_line(llr, sprt))
    lines.append(_RULE)
    return "\n".join(lines) + "\n"


class Standings:
    """Accumulates games; every query is recomputed from the recorded games."""

    def __init__(self) -> None:
        self._games: list[ScoredGame] = []
        self._engines: list[str] = []

    def add_engine(self, name: str) -> None:
        """Register an engine so it is listed before it has played."""
        if name not in self._engines:
            self._engines.append(name)

    def record(
        self,
        player1: str,
        player2: str,
        winner: int | None,
        termination: str = "",
        game_number: int | None = None,
    ) -> ScoredGame:
        """Add one finished game.  ``game_number`` (1-based schedule number)
        defaults to the count of recorded games."""
        if player1 == player2:
            raise ValueError("an engine cannot play itself")
        if winner not in (None, DRAW, 1, 2):
            raise ValueError(f"winner must be 1, 2, 0 (draw) or None, not {winner!r}")
        number = len(self._games) + 1 if game_number is None else game_number
        if number < 1:
            raise ValueError("game numbers start at 1")
        game = ScoredGame(number, player1, player2, winner, termination)
        self._games.append(game)
        self.add_engine(player1)
        self.add_engine(player2)
        return game

    @property
    def games(self) -> tuple[ScoredGame, ...]:
        return tuple(self._games)

    @property
    def engines(self) -> tuple[str, ...]:
        """Engines in order of first appearance."""
        return tuple(self._engines)

    def tally(self, name: str) -> EngineTally:
        return _tally(self._games, name)

    def head_to_head(self, name: str, opponent: str) -> EngineTally:
        """``name``'s record in games against ``opponent`` only."""
        return _tally(self._games, name, opponent)

    def pairs(self, name: str, opponent: str | None = None) -> PairCounts:
        return pair_counts(self._games, name, opponent)

    def score_line(self, name_a: str, name_b: str) -> str:
        t = self.head_to_head(name_a, name_b)
        return format_score_line(name_a, name_b, t.wins, t.losses, t.draws)

    def results_block(
        self, first: str, second: str, details: str = "", sprt: SprtConfig | None = None
    ) -> str:
        t = self.head_to_head(first, second)
        return format_results_block(
            first, second, t.wins, t.losses, t.draws, self.pairs(first, second), details, sprt
        )

    def joint_ratings(self, prior: float = DEFAULT_PRIOR) -> JointRatings:
        """The joint Bradley-Terry rating of every engine over all games (``bradley_terry``)."""
        return joint_ratings(self._games, self._engines, prior=prior)

    def ranking(self, penta: bool = True, joint: bool = False) -> list[RankingRow]:
        """Each engine's Elo against the field it met, best first.

        The estimate uses all of the engine's games (pentanomial over its
        complete pairs when ``penta`` and it has any, else W/D/L).  With ``joint``
        each row also carries the joint rating, and rows sort by it.  Ties break
        by score, then name, so the order is deterministic.
        """
        fit = self.joint_ratings() if joint else None
        rows = []
        for name in self._engines:
            tally = self.tally(name)
            pc = self.pairs(name) if penta else None
            if pc is not None and pc.pairs > 0:
                est = pentanomial_elo(pc.ptnml)
            else:
                pc = None
                est = trinomial_elo(tally.wins, tally.draws, tally.losses)
            rows.append(RankingRow(0, name, est, tally, pc, fit[name] if fit else None))
        rows.sort(key=lambda r: (-(r.joint.elo if r.joint else r.estimate.elo), -r.tally.score, r.name))
        return [RankingRow(i + 1, r.name, r.estimate, r.tally, r.pairs, r.joint) for i, r in enumerate(rows)]

    def format_ranking(self, penta: bool = True, joint: bool = False) -> str:
        """fastchess-style table: Rank, Name, Elo, +/-, nElo, +/-, Games, Score, Draw[, Ptnml(0-2)].

        Draw is the drawn-game share (trinomial) or the 1-of-2-points pair share (pentanomial).
        With ``joint``, Elo and +/- are the joint rating (mean 0, 95 % interval), finite for an
        engine that won or lost every game, where the per-engine Elo prints ``n/a``; nElo stays
        the per-engine figure.
        """
        rows = self.ranking(penta, joint)
        width = max([25] + [len(r.name) for r in rows])
        head = (
            f"{'Rank':<4} {'Name':<{width}} {'Elo':>10} {'+/-':>10} {'nElo':>10} {'+/-':>10} "
            f"{'Games':>10} {'Score':>10} {'Draw':>10}"
        )
        out = [head + (f" {'Ptnml(0-2)':>20}" if penta else "")]
        for r in rows:
            e = r.estimate
            if e.defined:
                nums = [_fixed(e.elo, 2), _fixed(e.error95, 2), _fixed(e.nelo, 2), _fixed(e.nelo_error95, 2)]
            else:
                nums = ["n/a"] * 4
            if r.joint is not None:
                nums[0], nums[1] = format_joint_columns(r.joint)
            score = f"{_fixed(r.tally.score * 100.0, 1)}%" if r.tally.games else "n/a"
            draw = f"{_fixed(e.draw_ratio * 100.0, 1)}%" if e.samples else "n/a"
            ptnml = ""
            if r.pairs is not None:
                p = r.pairs.ptnml
                ptnml = f"[{p[0]}, {p[1]}, {p[2]}, {p[3]}, {p[4]}]"
            out.append(
                f"{r.rank:>4} {r.name:<{width}} {nums[0]:>10} {nums[1]:>10} {nums[2]:>10} {nums[3]:>10} "
                f"{r.tally.games:>10} {score:>10} {draw:>10} {ptnml:>20}".rstrip()
            )
        return "\n".join(out) + "\n"

    def crosstable(self, penta: bool = True, joint: bool = False) -> str:
        """Points scored by each row engine against each column engine, ``points/games``.

        Rows and columns follow the ranking (``ranking(penta, joint)``); ``-`` on the
        diagonal, ``.`` for engines that have not met.
        """
        names = [r.name for r in self.ranking(penta, joint)]
        cells: list[list[str]] = []
        for a in names:
            row = []
            for b in names:
                if a == b:
                    row.append("-")
                    continue
                t = self.head_to_head(a, b)
                row.append(f"{_points_text(t.points)}/{t.games}" if t.games else ".")
            cells.append(row)
        totals = []
        for a in names:
            t = self.tally(a)
            totals.append(f"{_points_text(t.points)}/{t.games}")
        name_w = max([4] + [len(n) for n in names])
        col_w = [max([len(names[j])] + [len(cells[i][j]) for i in range(len(names))]) for j in range(len(names))]
        score_w = max([5] + [len(s) for s in totals])
        head = f"{'#':>2}  {'Name':<{name_w}}  {'Score':>{score_w}}"
        for j, n in enumerate(names):
            head += f"  {n:>{col_w[j]}}"
        out = [head]
        for i, a in enumerate(names):
            line = f"{i + 1:>2}  {a:<{name_w}}  {totals[i]:>{score_w}}"
            for j in range(len(names)):
                line += f"  {cells[i][j]:>{col_w[j]}}"
            out.append(line)
        return "\n".join(out) + "\n"


def _points_text(points: float) -> str:
    return f"{points:.1f}"
