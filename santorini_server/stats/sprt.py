"""Generalized SPRT on trinomial or pentanomial results, as fastchess does it.

Source: fastchess ``app/src/matchmaking/sprt/sprt.cpp`` (GSPRT), which follows
Michel Van den Bergh, "Comments on Normalized Elo"
(https://www.cantate.be/Fishtest/normalized_elo_practical.pdf).

The test compares H0 "Elo = elo0" with H1 "Elo = elo1".  For each hypothesis
the outcome distribution is replaced by its maximum-likelihood estimate among
all distributions that satisfy the hypothesis; the log-likelihood ratio is

    LLR = N * sum_i phat_i * (log p1_i - log p0_i)

with ``phat`` the observed frequencies over the outcome classes (W/D/L, or
the five pair scores) and ``N`` the number of games or pairs.  Wald's bounds
are ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``.

* ``model="logistic"``: the hypothesis fixes the expected score
  ``s = 1 / (1 + 10^(-elo/400))``.  The constrained MLE is
  ``p_i = phat_i / (1 + theta (a_i - s))`` (Van den Bergh prop. 1.1), where the
  Lagrange multiplier ``theta`` is the unique root of
  ``sum phat_i (a_i - s) / (1 + theta (a_i - s)) = 0`` on the interval where
  every ``1 + theta (a_i - s) > 0``.
* ``model="normalized"`` (fastchess default): the hypothesis fixes
  ``t = (mu - 0.5) / sigma``, ``t = nElo / (800/ln 10)`` for games and
  ``sqrt(2)`` times that for pairs (a pair's mean has half the per-game
  variance).  The MLE is found by Van den Bergh's fixed-point iteration
  (section 4.1): ``phi_i = a_i - 0.5 - t sigma (1 + ((a_i - mu)/sigma)^2) / 2``
  with ``mu, sigma`` of the current estimate, then the same 1-D root problem
  with ``phi`` in place of ``a - s``.

Every 1-D root is found by Newton's method kept inside its bracket (fastchess
uses ITP; Newton needs a handful of evaluations where a bracketing method from
the poles needs fifty, and a run recomputes the LLR after every pair).  As in
fastchess, an empty outcome class is counted as 1e-3 so every log is finite.

This module iterates to far tighter tolerances than fastchess (1e-3 on theta
for the logistic model, 1e-4 on p for the normalized one), so values agree
with fastchess to its printed two decimals, not to the last bit.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .elo import NELO_SCALE, PAIR_SCORES, _fixed, elo_to_score

__all__ = [
    "SprtConfig",
    "SprtStatus",
    "format_llr_line",
    "format_sprt_result",
    "llr_pentanomial",
    "llr_trinomial",
    "sprt_fraction",
    "sprt_status",
]

_MODELS = ("normalized", "logistic")
_GAME_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
_EMPTY_CLASS = 1e-3


@dataclass(frozen=True)
class SprtConfig:
    """SPRT parameters; validated like fastchess ``SPRT::isValid``.

    ``elo0``/``elo1`` are logistic Elo for ``model="logistic"`` and normalized
    Elo for ``model="normalized"``.
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        values = (self.elo0, self.elo1, self.alpha, self.beta)
        if not all(math.isfinite(v) for v in values):
            raise ValueError("SPRT parameters must be finite")
        if self.elo0 >= self.elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not 0.0 < self.alpha < 1.0 or not 0.0 < self.beta < 1.0:
            raise ValueError("SPRT: alpha and beta must be between 0 and 1")
        if self.alpha + self.beta >= 1.0:
            raise ValueError("SPRT: alpha + beta must be less than 1")
        if self.model not in _MODELS:
            raise ValueError(f"SPRT: model must be one of {_MODELS}, not {self.model!r}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)


class SprtStatus(enum.Enum):
    CONTINUE = "continue"
    H0_ACCEPTED = "H0"
    H1_ACCEPTED = "H1"


def sprt_status(llr: float, config: SprtConfig) -> SprtStatus:
    """Wald's decision rule for one LLR value."""
    if llr >= config.upper:
        return SprtStatus.H1_ACCEPTED
    if llr <= config.lower:
        return SprtStatus.H0_ACCEPTED
    return SprtStatus.CONTINUE


def sprt_fraction(llr: float, config: SprtConfig) -> float:
    """Progress towards the bound the LLR points at, negative towards H0 (fastchess)."""
    if llr >= 0.0:
        return llr / config.upper
    return -llr / config.lower


# --------------------------------------------------------------------------- root finding


def _lagrange_theta(probs: Sequence[float], phi: Sequence[float], lo: float, hi: float) -> float:
    """The root of ``g(theta) = sum p x / (1 + theta x)`` on ``(lo, hi)``, where g falls from +inf to -inf.

    Newton's method from theta = 0 (always inside the interval), kept inside a
    shrinking bracket: a step that would leave it bisects instead.  g is
    smooth and strictly decreasing there, so Newton converges quadratically: a
    root to the last bits takes a handful of evaluations, which matters because a
    run recomputes the LLR after every pair.
    """
    pairs = list(zip(probs, phi, strict=True))
    theta = 0.0
    for _ in range(200):
        g = 0.0
        slope = 0.0
        for p, x in pairs:
            q = x / (1.0 + theta * x)
            g += p * q
            slope -= p * q * q
        if g == 0.0:
            return theta
        if g > 0.0:
            lo = theta
        else:
            hi = theta
        step = g / slope if slope < 0.0 else 0.0
        candidate = theta - step
        if not lo < candidate < hi:
            candidate = (lo + hi) / 2.0
        if candidate == theta or abs(candidate - theta) <= 4e-16 * max(abs(theta), abs(candidate)):
            return candidate
        theta = candidate
    return theta


def _lagrange_mle(probs: Sequence[float], phi: Sequence[float]) -> list[float]:
    """Maximize ``sum phat_i log p_i`` subject to ``sum p_i phi_i = 0``.

    Solution ``p_i = phat_i / (1 + theta phi_i)`` with theta the root of
    ``g(theta) = sum phat_i phi_i / (1 + theta phi_i)``; g decreases from +inf
    to -inf on ``(-1/max phi, -1/min phi)``, so the root is unique.  If phi
    does not change sign the constraint cannot be met by reweighting; the
    sample itself is then returned (cannot happen for scores strictly inside
    the outcome range).
    """
    u, v = min(phi), max(phi)
    if not (u < 0.0 < v):
        return list(probs)
    theta = _lagrange_theta(probs, phi, -1.0 / v, -1.0 / u)
    return [p / (1.0 + theta * x) for p, x in zip(probs, phi, strict=True)]


def _mle_logistic(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    phi = [a - s for a in scores]
    return _lagrange_mle(probs, phi)


def _mean_var(scores: Sequence[float], p: Sequence[float]) -> tuple[float, float]:
    mu = sum(a * q for a, q in zip(scores, p, strict=True))
    var = sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True))
    return mu, var


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """Van den Bergh section 4.1: MLE with ``(mu - 0.5) / sigma = t``."""
    p = [1.0 / len(scores)] * len(scores)
    for _ in range(500):
        mu, var = _mean_var(scores, p)
        sigma = math.sqrt(var)
        if sigma <= 0.0:
            break
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        if not (min(phi) < 0.0 < max(phi)):
            break
        new_p = _lagrange_mle(probs, phi)
        diff = max(abs(x - y) for x, y in zip(new_p, p, strict=True))
        p = new_p
        if diff < 1e-13:
            break
    return p


def _llr(
    counts: Sequence[float],
    scores: Sequence[float],
    config: SprtConfig,
    t_scale: float,
) -> float:
    regular = [c if c > 0 else _EMPTY_CLASS for c in counts]
    total = sum(regular)
    probs = [c / total for c in regular]
    if config.model == "normalized":
        p0 = _mle_normalized(scores, probs, t_scale * config.elo0 / NELO_SCALE)
        p1 = _mle_normalized(scores, probs, t_scale * config.elo1 / NELO_SCALE)
    else:
        p0 = _mle_logistic(scores, probs, elo_to_score(config.elo0))
        p1 = _mle_logistic(scores, probs, elo_to_score(config.elo1))
    value = total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(probs, p0, p1, strict=True))
    return value if math.isfinite(value) else 0.0


def llr_trinomial(wins: int, draws: int, losses: int, config: SprtConfig) -> float:
    """GSPRT log-likelihood ratio of H1 over H0 from independent games.

    Normalized model: ``t = nElo / (800/ln 10)`` (per-game sigma).
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("negative count")
    return _llr((losses, draws, wins), _GAME_SCORES, config, 1.0)


def llr_pentanomial(ptnml: tuple[int, int, int, int, int], config: SprtConfig) -> float:
    """GSPRT log-likelihood ratio from pentanomial pair counts ``[0, .5, 1, 1.5, 2]`` points.

    Normalized model: ``t = sqrt(2) * nElo / (800/ln 10)`` because the sigma of
    a pair's mean score is the per-game sigma over sqrt(2).
    """
    if len(ptnml) != 5:
        raise ValueError("pentanomial needs five counts")
    if min(ptnml) < 0:
        raise ValueError("negative count")
    return _llr(tuple(ptnml), PAIR_SCORES, config, math.sqrt(2.0))


# --------------------------------------------------------------------------- formatting


def _bounds_text(config: SprtConfig) -> str:
    return f"({_fixed(config.lower, 2)}, {_fixed(config.upper, 2)})"


def _elo_text(config: SprtConfig) -> str:
    return f"[{_fixed(config.elo0, 2)}, {_fixed(config.elo1, 2)}]"


def format_llr_line(llr: float, config: SprtConfig) -> str:
    """fastchess's line, e.g. ``LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 2.00]``."""
    fraction = sprt_fraction(llr, config) * 100.0
    return f"LLR: {_fixed(llr, 2)} ({_fixed(fraction, 1)}%) {_bounds_text(config)} {_elo_text(config)}"


def format_sprt_result(status: SprtStatus, config: SprtConfig) -> str | None:
    """``SPRT ([0.00, 2.00]) completed - H1 was accepted``; None while the test continues."""
    if status is SprtStatus.CONTINUE:
        return None
    return f"SPRT ({_elo_text(config)}) completed - {status.value} was accepted"
