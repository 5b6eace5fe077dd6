"""Elo, normalized Elo and LOS from match results.

The formulas follow the conventions of the two reference runners, so numbers
printed by this referee can be compared with theirs:

* cutechess-cli ``projects/lib/src/elo.cpp``: logistic Elo from the mean
  score, 95 % interval by the normal approximation mapped through the Elo
  curve, LOS from wins and losses only.
* fastchess ``app/src/matchmaking/elo/elo_wdl.cpp`` and ``elo_pentanomial.cpp``:
  the same logistic Elo, plus normalized Elo (nElo), and the pentanomial
  variant that treats a colour-swapped game pair as one sample.

Santorini has no draws, but every function takes W/D/L (or five pentanomial
buckets) so an adjudicated draw is handled without special cases.

Nothing here returns ``nan`` or ``inf`` (cutechess#767 printed
``Elo difference: -inf +/- nan``).  Elo values are clamped to
``[-ELO_CLAMP, ELO_CLAMP]`` and an estimate that is not a proper finite
estimate carries ``defined=False``; the formatters print ``n/a`` for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "CUTECHESS_Z95",
    "ELO_CLAMP",
    "NELO_SCALE",
    "PAIR_SCORES",
    "Z95",
    "EloEstimate",
    "elo_to_score",
    "format_cutechess_elo_line",
    "format_elo_pm",
    "format_los",
    "format_nelo_pm",
    "los_from_wins_losses",
    "pentanomial_elo",
    "score_to_elo",
    "trinomial_elo",
]

#: Two-sided 95 % quantile of the standard normal (fastchess ``CI95ZSCORE``).
Z95 = 1.959963984540054

#: The 95 % quantile cutechess actually uses: its ``phiInv(0.975)`` is computed
#: with Winitzki's closed-form approximation of ``erfinv`` (``elo.cpp``), which
#: gives 1.95716 instead of 1.95996.  Only used to reproduce cutechess's
#: printed numbers byte for byte (its ``+/- 7.7`` would be ``7.8`` with Z95).
CUTECHESS_Z95 = 1.9571619316560245

#: Largest Elo magnitude ever returned.  A score of exactly 0 or 1 (all games
#: lost or won) has infinite logistic Elo; 2000 Elo is a score of 1 - 1e-5,
#: far beyond anything a finite match can resolve, so it is a safe finite cap.
ELO_CLAMP = 2000.0

#: nElo scale factor 800 / ln(10): the slope of the logistic Elo curve at
#: score 0.5 is 1600 / ln(10) per unit score, and nElo is defined so that a
#: one-standard-deviation edge per game pair (2 games) is 800/ln(10) ~ 347 nElo
#: (Van den Bergh, "Normalized Elo"; fastchess ``scoreToNeloDiff``).
NELO_SCALE = 800.0 / math.log(10.0)


def _clamp_elo(value: float) -> float:
    return max(-ELO_CLAMP, min(ELO_CLAMP, value))


def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score: ``-400 log10(1/s - 1)``.

    Scores at or beyond 0 and 1 map to ``-ELO_CLAMP`` / ``+ELO_CLAMP`` instead
    of ``-inf`` / ``+inf`` or a math error.
    """
    if math.isnan(score):
        raise ValueError("score is nan")
    if score <= 0.0:
        return -ELO_CLAMP
    ratio = 1.0 / score - 1.0
    if ratio <= 0.0:
        return ELO_CLAMP
    return _clamp_elo(-400.0 * math.log10(ratio))


def elo_to_score(elo: float) -> float:
    """Expected score for a logistic Elo difference: ``1 / (1 + 10^(-elo/400))``."""
    if math.isnan(elo):
        raise ValueError("elo is nan")
    exponent = -elo / 400.0
    if exponent > 300.0:  # 10**300 is near the float limit; the score is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def los_from_wins_losses(wins: int, losses: int) -> float:
    """Likelihood of superiority from decisive games only (cutechess ``Elo::LOS``).

    ``0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))``: the normal approximation
    of P(the first player is stronger) under a flat prior; draws carry no
    information about which side is stronger.  0.5 when there is no decisive
    game.
    """
    decisive = wins + losses
    if decisive <= 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * decisive)))


@dataclass(frozen=True)
class EloEstimate:
    """A point estimate with its 95 % interval, always finite.

    ``score`` is the mean score per game (0..1).  ``samples`` is the number of
    games (trinomial) or game pairs (pentanomial).  ``draw_ratio`` is the share
    of drawn games (trinomial) or of pairs that scored exactly 1 of 2 points
    (pentanomial, as fastchess prints it).  ``los`` is a probability (0..1).

    ``defined`` is False when the sample cannot give a proper estimate: no
    samples, or zero sample variance (every game/pair had the same outcome,
    e.g. all wins).  Then ``elo``/``nelo`` hold the clamped point estimate
    (``+-ELO_CLAMP`` for a one-sided sample, 0 for no games or all draws) and
    both error fields are 0.0.
    """

    elo: float
    error95: float
    los: float
    nelo: float
    nelo_error95: float
    score: float
    draw_ratio: float
    samples: int
    defined: bool


def _undefined(score: float, los: float, draw_ratio: float, samples: int) -> EloEstimate:
    if score > 0.5:
        point = ELO_CLAMP
    elif score < 0.5:
        point = -ELO_CLAMP
    else:
        point = 0.0
    return EloEstimate(
        elo=score_to_elo(score) if samples else 0.0,
        error95=0.0,
        los=los,
        nelo=point,
        nelo_error95=0.0,
        score=score,
        draw_ratio=draw_ratio,
        samples=samples,
        defined=False,
    )


def _check_counts(counts: tuple[int, ...]) -> None:
    for c in counts:
        if c < 0:
            raise ValueError(f"negative count in {counts!r}")


def trinomial_elo(wins: int, draws: int, losses: int, *, z: float = Z95) -> EloEstimate:
    """Elo from W/D/L of independent games (cutechess ``Elo``, fastchess ``EloWDL``).

    * score ``s = (W + D/2) / N``; per-game variance
      ``var = w (1-s)^2 + d (0.5-s)^2 + l s^2`` with w, d, l the fractions;
    * Elo ``= score_to_elo(s)``, error ``= (Elo(s + z sd) - Elo(s - z sd)) / 2``
      with ``sd = sqrt(var / N)``;
    * nElo ``= (s - 0.5) / sqrt(var) * 800/ln 10``, error likewise (fastchess);
    * LOS from wins and losses only (cutechess, see ``los_from_wins_losses``).

    ``z`` is the interval quantile; pass ``CUTECHESS_Z95`` to reproduce
    cutechess's printed error margin exactly.
    """
    _check_counts((wins, draws, losses))
    n = wins + draws + losses
    los = los_from_wins_losses(wins, losses)
    if n == 0:
        return _undefined(0.5, los, 0.0, 0)
    w, d, lost = wins / n, draws / n, losses / n
    score = w + 0.5 * d
    var = w * (1.0 - score) ** 2 + d * (0.5 - score) ** 2 + lost * score**2
    draw_ratio = d
    if var <= 0.0:
        return _undefined(score, los, draw_ratio, n)
    return _estimate(score, math.sqrt(var / n), math.sqrt(var), z, los, draw_ratio, n)


def _estimate(
    score: float, sd: float, game_sd: float, z: float, los: float, draw_ratio: float, samples: int
) -> EloEstimate:
    """The estimate from a mean score, its standard error ``sd`` and the per-game standard
    deviation ``game_sd`` (nElo's unit), shared by the trinomial and pentanomial models."""
    nelo_scale = NELO_SCALE / game_sd
    return EloEstimate(
        elo=score_to_elo(score),
        error95=(score_to_elo(score + z * sd) - score_to_elo(score - z * sd)) / 2.0,
        los=los,
        nelo=(score - 0.5) * nelo_scale,
        nelo_error95=z * sd * nelo_scale,
        score=score,
        draw_ratio=draw_ratio,
        samples=samples,
        defined=True,
    )


PAIR_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Mean score per game of a pair in each pentanomial bucket (0, 0.5, 1, 1.5, 2 points)."""


def pentanomial_elo(ptnml: tuple[int, int, int, int, int], *, z: float = Z95) -> EloEstimate:
    """Elo from pentanomial pair counts (fastchess ``EloPentanomial``).

    ``ptnml[k]`` is the number of colour-swapped game pairs in which the
    player scored ``k/2`` points out of 2 (fastchess prints the same order as
    ``Ptnml(0-2): [LL, LD, WL+DD, WD, WW]``).  A pair is one sample, which
    removes the opening's bias from the variance (fishtest#348):

    * ``s = sum(p_k a_k)`` with ``a = (0, .25, .5, .75, 1)`` and ``p_k`` the
      pair fractions; ``var = sum(p_k (a_k - s)^2)`` (per pair, in per-game
      score units);
    * Elo ``= score_to_elo(s)``, error from ``s +- z sqrt(var / pairs)``;
    * nElo ``= (s - 0.5) / sqrt(2 var) * 800/ln 10``: ``2 var`` converts the
      variance of a pair's mean back to a per-game variance, so trinomial and
      pentanomial nElo are on the same scale;
    * LOS ``= (1 - erf(-(s - 0.5) / sqrt(2 var / pairs))) / 2`` (fastchess).
    """
    if len(ptnml) != 5:
        raise ValueError("pentanomial needs five counts")
    _check_counts(tuple(ptnml))
    pairs = sum(ptnml)
    if pairs == 0:
        return _undefined(0.5, 0.5, 0.0, 0)
    p = [c / pairs for c in ptnml]
    score = sum(pk * ak for pk, ak in zip(p, PAIR_SCORES, strict=True))
    var = sum(pk * (ak - score) ** 2 for pk, ak in zip(p, PAIR_SCORES, strict=True))
    draw_ratio = p[2]
    if var <= 0.0:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
        return _undefined(score, los, draw_ratio, pairs)
    los = (1.0 - math.erf(-(score - 0.5) / math.sqrt(2.0 * var / pairs))) / 2.0
    return _estimate(score, math.sqrt(var / pairs), math.sqrt(2.0 * var), z, los, draw_ratio, pairs)


def _fixed(value: float, digits: int) -> str:
    """``f"{value:.{digits}f}"`` without a ``-0.00`` for values that round to zero."""
    text = f"{value:.{digits}f}"
    if text.startswith("-") and float(text) == 0.0:
        text = text[1:]
    return text


def format_elo_pm(estimate: EloEstimate, digits: int = 2) -> str:
    """``"7.77 +/- 16.69"`` (fastchess ``getElo``) or ``"n/a"`` when undefined."""
    if not estimate.defined:
        return "n/a"
    return f"{_fixed(estimate.elo, digits)} +/- {_fixed(estimate.error95, digits)}"


def format_nelo_pm(estimate: EloEstimate, digits: int = 2) -> str:
    """``"11.51 +/- 24.70"`` (fastchess ``nElo``) or ``"n/a"`` when undefined."""
    if not estimate.defined:
        return "n/a"
    return f"{_fixed(estimate.nelo, digits)} +/- {_fixed(estimate.nelo_error95, digits)}"


def format_los(estimate: EloEstimate, digits: int = 2) -> str:
    """``"81.95 %"``; LOS is defined even for one-sided samples."""
    return f"{_fixed(estimate.los * 100.0, digits)} %"


def format_cutechess_elo_line(wins: int, draws: int, losses: int) -> str:
    """cutechess's rating line: ``Elo difference: 0.1 +/- 7.7, LOS: 50.9 %, DrawRatio: 48.1 %``.

    Uses ``CUTECHESS_Z95`` so the margin matches cutechess's own output.
    """
    est = trinomial_elo(wins, draws, losses, z=CUTECHESS_Z95)
    elo = format_elo_pm(est, 1)
    draw = "n/a" if est.samples == 0 else f"{_fixed(est.draw_ratio * 100.0, 1)} %"
    return f"Elo difference: {elo}, LOS: {format_los(est, 1)}, DrawRatio: {draw}"
