"""A joint rating of every engine over all two-seat games: Bradley-Terry, as Ordo and BayesElo fit.

Each engine ``i`` has a strength ``r_i`` (Elo); ``i`` scores against ``j`` with probability
``1 / (1 + 10^((r_j - r_i) / 400))`` in every game, independently.  All games of the tournament
are fitted at once, so an engine's rating reflects whom it scored against, not only how much
(the per-engine Elo of ``standings`` compares each engine with an average opponent).

* **Prior.** Each engine also plays ``prior`` virtual draws (default 2, one point out of two)
  against a virtual reference engine fixed at 0 Elo.  This makes the estimate finite when an
  engine won (or lost) every game, and defined for engines that have not met yet (live standings
  of a tournament in progress); its pull fades as real games accumulate.  With ``prior = 0`` the
  fit is the plain maximum-likelihood estimate, which exists only when no group of engines
  scored every point against the rest (Zermelo's condition); otherwise ``ValueError``.
* **Fit.** Newton's method on the log-posterior (concave, so the maximum is unique) from all
  ratings 0, with step halving whenever a step would lower it, to ``1e-10`` in natural units.
* **Anchor.** The ratings printed have mean 0 over the engines that played a scored game.
* **Confidence intervals.** The covariance of the anchored ratings is the inverse of the
  observed information (the negative Hessian of the log-posterior at its maximum), projected
  onto mean 0 (the Moore-Penrose inverse with ``prior = 0``): a Laplace / Wald approximation,
  ``+/- 1.96 sd`` (``Z95``).  Intervals narrow like ``1/sqrt(games)``.
* **Draws** score 1/2 each side (Santorini has none; an adjudication rule might).  There is no
  first-move advantage term: the schedule plays every opening with each engine on each side.

Pure Python (tournaments have fewer than 50 engines): a dense Gaussian elimination suffices.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .elo import Z95, _fixed

if TYPE_CHECKING:  # standings renders these ratings: a run-time import back would be a cycle
    from .standings import ScoredGame

__all__ = [
    "DEFAULT_PRIOR",
    "JointRating",
    "JointRatings",
    "format_joint_columns",
    "joint_ratings",
    "joint_ratings_from_counts",
]

DEFAULT_PRIOR = 2.0
"""Virtual draws of every engine against the 0-Elo reference (BayesElo's default prior is 2
virtual draws too, placed between opponents instead)."""

_ELO_PER_NATURAL = 400.0 / math.log(10.0)
_TOLERANCE = 1e-10
_MAX_STEPS = 200


@dataclass(frozen=True)
class JointRating:
    """One engine's joint rating: ``elo`` (anchored: mean 0), ``error95`` (half-width of the
    95 % interval), ``games`` and ``points`` (scored games only).  ``defined`` is False for an
    engine without a scored game: its ``elo`` and ``error95`` are 0 and print as ``n/a``."""

    name: str
    elo: float
    error95: float
    games: int
    points: float
    defined: bool = True


@dataclass(frozen=True)
class JointRatings:
    """The fit: ``ratings`` in the order of the engines given, ``prior`` used, and the
    covariance of the anchored ratings (Elo squared) among the defined ones, in that order."""

    ratings: tuple[JointRating, ...]
    prior: float
    covariance: tuple[tuple[float, ...], ...]

    def __getitem__(self, name: str) -> JointRating:
        for rating in self.ratings:
            if rating.name == name:
                return rating
        raise KeyError(name)

    def difference(self, first: str, second: str) -> tuple[float, float]:
        """``(elo(first) - elo(second), error95 of that difference)`` (with their covariance).

        Raises:
            KeyError: an engine that is not rated (unknown or without a scored game).
        """
        defined = [r.name for r in self.ratings if r.defined]
        for name in (first, second):
            if name not in defined:
                raise KeyError(name)
        i, j = defined.index(first), defined.index(second)
        c = self.covariance
        variance = max(c[i][i] + c[j][j] - 2.0 * c[i][j], 0.0)
        return self[first].elo - self[second].elo, Z95 * math.sqrt(variance)


def format_joint_columns(rating: JointRating, digits: int = 2) -> tuple[str, str]:
    """The ranking table's ``Elo`` and ``+/-`` cells: ``("120.41", "98.10")``, ``n/a`` without games."""
    if not rating.defined:
        return "n/a", "n/a"
    return _fixed(rating.elo, digits), _fixed(rating.error95, digits)


def joint_ratings(games: Iterable[ScoredGame], engines: Sequence[str] = (), *, prior: float = DEFAULT_PRIOR) -> JointRatings:
    """Fit every engine of ``engines`` and of ``games`` (unscored games are left out).

    Raises:
        ValueError: a negative or non-finite ``prior``, or ``prior = 0`` when the maximum-likelihood
            estimate does not exist (some engines scored every point, or none, against the rest).
    """
    names: list[str] = list(dict.fromkeys(engines))
    scored = [g for g in games if g.winner is not None]
    points: dict[tuple[str, str], float] = {}
    meetings: dict[tuple[str, str], int] = {}
    for g in scored:
        for name in (g.player1, g.player2):
            if name not in names:
                names.append(name)
        first = g.points_for(g.player1) or 0.0
        for a, b, scored_points in ((g.player1, g.player2, first), (g.player2, g.player1, 1.0 - first)):
            points[a, b] = points.get((a, b), 0.0) + scored_points
            meetings[a, b] = meetings.get((a, b), 0) + 1
    return joint_ratings_from_counts(names, points, meetings, prior=prior)


def joint_ratings_from_counts(
    engines: Sequence[str],
    points: Mapping[tuple[str, str], float],
    meetings: Mapping[tuple[str, str], int],
    *,
    prior: float = DEFAULT_PRIOR,
) -> JointRatings:
    """The fit from its sufficient statistics: ``points[a, b]`` scored by ``a`` against ``b`` and
    ``meetings[a, b]`` scored games between them (both orders present), so live standings fit
    without keeping the games.  ``engines`` lists every engine, in the order of the result.

    Raises:
        ValueError: as :func:`joint_ratings`.
    """
    if not (math.isfinite(prior) and prior >= 0.0):
        raise ValueError(f"prior must be a finite number >= 0, not {prior!r}")
    names = list(dict.fromkeys(engines))
    met = {a for (a, _), n in meetings.items() if n}
    played = [name for name in names if name in met]
    index = {name: i for i, name in enumerate(played)}
    n = len(played)
    wins = [[0.0] * n for _ in range(n)]  # wins[i][j]: points i scored against j
    games = [[0.0] * n for _ in range(n)]
    for (a, b), count in meetings.items():
        if count:
            i, j = index[a], index[b]
            wins[i][j] = points.get((a, b), 0.0)
            games[i][j] = float(count)
    if prior == 0.0 and not _estimable(wins):
        raise ValueError("no finite ratings without a prior: some engines scored every point, or none, against the rest")
    theta = _fit(wins, games, prior)
    covariance = _anchored_covariance(_information(theta, games, prior), prior)
    mean = sum(theta) / n if n else 0.0
    totals = [sum(row) for row in wins]
    counts = [int(sum(row)) for row in games]
    ratings = []
    for name in names:
        if name not in index:
            ratings.append(JointRating(name, 0.0, 0.0, 0, 0.0, defined=False))
            continue
        i = index[name]
        sd = math.sqrt(max(covariance[i][i], 0.0))
        ratings.append(JointRating(name, (theta[i] - mean) * _ELO_PER_NATURAL, Z95 * sd * _ELO_PER_NATURAL, counts[i], totals[i]))
    scale = _ELO_PER_NATURAL**2
    return JointRatings(tuple(ratings), prior, tuple(tuple(v * scale for v in row) for row in covariance))


def _log_sigmoid(x: float) -> float:
    """``log(1 / (1 + e^-x))`` without overflow."""
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_posterior(theta: list[float], wins: list[list[float]], prior: float) -> float:
    n = len(theta)
    total = 0.0
    for i in range(n):
        for j in range(n):
            if wins[i][j]:
                total += wins[i][j] * _log_sigmoid(theta[i] - theta[j])
        if prior:
            total += prior / 2.0 * (_log_sigmoid(theta[i]) + _log_sigmoid(-theta[i]))
    return total


def _gradient(theta: list[float], wins: list[list[float]], meetings: list[list[float]], prior: float) -> list[float]:
    n = len(theta)
    grad = []
    for i in range(n):
        g = prior / 2.0 - prior * _sigmoid(theta[i])
        for j in range(n):
            if meetings[i][j]:
                g += wins[i][j] - meetings[i][j] * _sigmoid(theta[i] - theta[j])
        grad.append(g)
    return grad


def _information(theta: list[float], meetings: list[list[float]], prior: float) -> list[list[float]]:
    """The negative Hessian of the log-posterior: a weighted graph Laplacian, plus the prior's diagonal."""
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p = _sigmoid(theta[i])
        info[i][i] = prior * p * (1.0 - p)
        for j in range(n):
            if i != j and meetings[i][j]:
                q = _sigmoid(theta[i] - theta[j])
                w = meetings[i][j] * q * (1.0 - q)
                info[i][j] -= w
                info[i][i] += w
    return info


def _fit(wins: list[list[float]], meetings: list[list[float]], prior: float) -> list[float]:
    """Newton's method; with no prior the first engine is held at 0 (the likelihood only sees differences)."""
    n = len(wins)
    theta = [0.0] * n
    free = list(range(n)) if prior else list(range(1, n))
    if not free:
        return theta
    current = _log_posterior(theta, wins, prior)
    for _ in range(_MAX_STEPS):
        grad = _gradient(theta, wins, meetings, prior)
        info = _information(theta, meetings, prior)
        step = _solve([[info[i][j] for j in free] for i in free], [grad[i] for i in free])
        scale = 1.0
        while True:
            trial = list(theta)
            for k, i in enumerate(free):
                trial[i] += scale * step[k]
            value = _log_posterior(trial, wins, prior)
            if value >= current or scale < 1e-12:
                break
            scale /= 2.0
        theta, current = trial, value
        if max(abs(scale * s) for s in step) < _TOLERANCE:
            break
    return theta


def _estimable(wins: list[list[float]]) -> bool:
    """Zermelo's condition: the graph "i scored against j" is strongly connected (from engine 0,
    every engine is reachable both along and against the edges)."""
    n = len(wins)
    for forward in (True, False):
        seen = {0} if n else set()
        todo = list(seen)
        while todo:
            i = todo.pop()
            for j in range(n):
                edge = wins[i][j] if forward else wins[j][i]
                if edge > 0 and j not in seen:
                    seen.add(j)
                    todo.append(j)
        if len(seen) != n:
            return False
    return True


def _anchored_covariance(info: list[list[float]], prior: float) -> list[list[float]]:
    """Covariance of ``theta - mean(theta)``: ``P info^-1 P`` with ``P = I - J/n``.  With no prior
    ``info`` is a connected graph's Laplacian (null space: the constants), and ``(info + J/n)^-1 - J/n``
    is its Moore-Penrose inverse, the covariance of the mean-0 estimate."""
    n = len(info)
    if n == 0:
        return []
    shift = 0.0 if prior else 1.0 / n
    inverse = _inverse([[info[i][j] + shift for j in range(n)] for i in range(n)])
    if not prior:
        return [[inverse[i][j] - shift for j in range(n)] for i in range(n)]
    row_mean = [sum(row) / n for row in inverse]
    total_mean = sum(row_mean) / n
    return [[inverse[i][j] - row_mean[i] - row_mean[j] + total_mean for j in range(n)] for i in range(n)]


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """``matrix^-1 rhs`` by Gaussian elimination with partial pivoting (``matrix`` is positive definite)."""
    return [row[0] for row in _eliminate(matrix, [[v] for v in rhs])]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    return _eliminate(matrix, [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)])


def _eliminate(matrix: list[list[float]], rhs: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    a = [list(row) + list(extra) for row, extra in zip(matrix, rhs, strict=True)]
    width = len(a[0]) if a else 0
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if a[pivot][col] == 0.0:
            raise ValueError("singular information matrix")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col] / a[col][col]
                for c in range(col, width):
                    a[r][c] -= factor * a[col][c]
    return [[a[r][c] / a[r][r] for c in range(n, width)] for r in range(n)]
