"""Tests for santorini_server.stats: known values, independent re-derivations, formatting."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.stats import (
    CUTECHESS_Z95,
    ELO_CLAMP,
    Z95,
    SprtConfig,
    SprtStatus,
    elo_to_score,
    format_cutechess_elo_line,
    format_elo_pm,
    format_llr_line,
    format_los,
    format_nelo_pm,
    format_sprt_result,
    llr_pentanomial,
    llr_trinomial,
    los_from_wins_losses,
    pentanomial_elo,
    score_to_elo,
    sprt_status,
    trinomial_elo,
)
from santorini_server.stats import sprt as sprt_module
from santorini_server.stats.standings import Standings, format_results_block, format_score_line

NELO = 800.0 / math.log(10.0)


# --------------------------------------------------------------------------- Elo basics


def test_score_to_elo_known_values() -> None:
    assert score_to_elo(0.5) == 0.0
    assert score_to_elo(0.75) == pytest.approx(190.848501887865, abs=1e-9)  # 400 log10 3
    assert round(score_to_elo(0.75), 2) == 190.85
    assert score_to_elo(0.25) == pytest.approx(-score_to_elo(0.75), abs=1e-12)
    assert score_to_elo(10 / 11) == pytest.approx(400.0, abs=1e-9)  # odds 10:1


def test_elo_to_score_inverts_score_to_elo() -> None:
    for s in (0.01, 0.2, 0.5, 0.6, 0.93):
        assert elo_to_score(score_to_elo(s)) == pytest.approx(s, abs=1e-12)
    assert elo_to_score(0.0) == 0.5
    assert elo_to_score(400.0) == pytest.approx(10 / 11, abs=1e-12)
    assert elo_to_score(-1e9) == 0.0 and elo_to_score(1e9) == 1.0


def test_score_to_elo_clamps_instead_of_inf() -> None:
    assert score_to_elo(1.0) == ELO_CLAMP
    assert score_to_elo(0.0) == -ELO_CLAMP
    assert score_to_elo(1.2) == ELO_CLAMP
    assert score_to_elo(-0.1) == -ELO_CLAMP
    assert score_to_elo(1 - 1e-17) == ELO_CLAMP
    with pytest.raises(ValueError):
        score_to_elo(math.nan)


# --------------------------------------------------------------------------- cutechess example


def test_cutechess_example_reproduced() -> None:
    # Quoted from a real cutechess run.
    w, lost, d = 1038, 1037, 1925
    assert format_score_line("dev", "base", w, lost, d) == "Score of dev vs base: 1038 - 1037 - 1925  [0.500] 4000"
    assert format_cutechess_elo_line(w, d, lost) == "Elo difference: 0.1 +/- 7.7, LOS: 50.9 %, DrawRatio: 48.1 %"


def test_cutechess_margin_differs_only_by_its_z_approximation() -> None:
    # cutechess's phiInv(0.975) uses Winitzki's erfinv approximation; reproduce that value here.
    pi = 3.1415926535897
    a = 8.0 * (pi - 3.0) / (3.0 * pi * (4.0 - pi))
    x = 2 * 0.975 - 1
    y = math.log(1 - x * x)
    z = 2 / (pi * a) + y / 2
    assert math.sqrt(2) * math.sqrt(math.sqrt(z * z - y / a) - z) == pytest.approx(CUTECHESS_Z95, abs=1e-15)
    exact = trinomial_elo(1038, 1925, 1037)
    cc = trinomial_elo(1038, 1925, 1037, z=CUTECHESS_Z95)
    assert exact.elo == cc.elo == pytest.approx(0.0868589, abs=1e-6)
    assert exact.error95 == pytest.approx(7.7561, abs=1e-4)  # would print 7.8
    assert cc.error95 == pytest.approx(7.7450, abs=1e-4)  # cutechess prints 7.7
    assert exact.los == pytest.approx(0.50876, abs=1e-5)


def test_los_from_wins_losses() -> None:
    assert los_from_wins_losses(0, 0) == 0.5
    assert los_from_wins_losses(7, 7) == 0.5
    assert los_from_wins_losses(60, 40) == pytest.approx(0.5 * (1 + math.erf(20 / math.sqrt(200))), abs=1e-15)
    assert los_from_wins_losses(40, 60) == pytest.approx(1 - los_from_wins_losses(60, 40), abs=1e-15)


# --------------------------------------------------------------------------- fastchess known values
# app/tests/elo_test.cpp; Stats(wins, losses, draws) and Stats(LL, LD, WL, DD, WD, WW).


@pytest.mark.parametrize(
    ("wins", "losses", "draws", "nelo", "nelo_err"),
    [(76, 89, 123, -20.76, 40.13), (136, 96, 111, 49.77, 36.77), (34, 356, 0, -508.44, 34.48)],
)
def test_trinomial_nelo_matches_fastchess(wins: int, losses: int, draws: int, nelo: float, nelo_err: float) -> None:
    est = trinomial_elo(wins, draws, losses)
    assert round(est.nelo, 2) == nelo
    assert round(est.nelo_error95, 2) == nelo_err


def test_trinomial_elo_matches_fastchess() -> None:
    est = trinomial_elo(136, 111, 96)
    assert format_elo_pm(est) == "40.70 +/- 30.43"
    assert format_nelo_pm(est) == "49.77 +/- 36.77"


@pytest.mark.parametrize(
    ("stats", "elo", "nelo", "los"),
    [
        ((34, 54, 31, 32, 64, 75), "55.58 +/- 27.65", "57.94 +/- 28.28", "100.00 %"),
        ((332, 433, 457, 41, 333, 334), "-8.64 +/- 10.33", "-9.17 +/- 10.96", "5.05 %"),
        ((7895, 8757, 5485, 200, 568, 9999), "-21.04 +/- 2.95", "-19.01 +/- 2.65", "0.00 %"),
    ],
)
def test_pentanomial_matches_fastchess(stats: tuple[int, ...], elo: str, nelo: str, los: str) -> None:
    ll, ld, wl, dd, wd, ww = stats
    est = pentanomial_elo((ll, ld, wl + dd, wd, ww))
    assert format_elo_pm(est) == elo
    assert format_nelo_pm(est) == nelo
    assert format_los(est) == los


def test_trinomial_against_direct_formula_without_draws() -> None:
    # Santorini: no draws, so the per-game variance is s(1-s).
    w, lost = 70, 50
    n = w + lost
    s = w / n
    sd = math.sqrt(s * (1 - s) / n)
    est = trinomial_elo(w, 0, lost)
    assert est.score == pytest.approx(s)
    assert est.elo == pytest.approx(-400 * math.log10(1 / s - 1))
    lo, hi = s - Z95 * sd, s + Z95 * sd
    assert est.error95 == pytest.approx((400 * math.log10(hi / (1 - hi)) - 400 * math.log10(lo / (1 - lo))) / 2)
    assert est.nelo == pytest.approx((s - 0.5) / math.sqrt(s * (1 - s)) * NELO)
    assert est.nelo_error95 == pytest.approx(Z95 * NELO / math.sqrt(n))
    assert est.draw_ratio == 0.0 and est.samples == n and est.defined


def test_pentanomial_against_expanded_pairs() -> None:
    # Expand the counts into a list of per-pair mean scores and recompute by hand.
    ptnml = (3, 0, 11, 0, 6)  # Santorini-like: only 0, 1, 2 points per pair
    values = [0.0] * 3 + [0.5] * 11 + [1.0] * 6
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    est = pentanomial_elo(ptnml)
    assert est.samples == n
    assert est.score == pytest.approx(mean)
    assert est.nelo == pytest.approx((mean - 0.5) / math.sqrt(2 * var) * NELO)
    assert est.nelo_error95 == pytest.approx(Z95 * math.sqrt(var / n) / math.sqrt(2 * var) * NELO)
    assert est.los == pytest.approx(0.5 * (1 + math.erf((mean - 0.5) / math.sqrt(2 * var / n))))
    assert est.draw_ratio == pytest.approx(11 / 20)


def test_pentanomial_of_independent_games_agrees_with_trinomial_scale() -> None:
    # Pairs built from independent 50% coin flips: both nElo estimates are ~0 and
    # their error bars agree (2 games per pair).
    est_p = pentanomial_elo((250, 0, 500, 0, 250))
    est_t = trinomial_elo(1000, 0, 1000)
    assert est_p.nelo == pytest.approx(0.0, abs=1e-12) and est_t.nelo == pytest.approx(0.0, abs=1e-12)
    assert est_p.nelo_error95 == pytest.approx(est_t.nelo_error95, rel=1e-12)


# --------------------------------------------------------------------------- degenerate inputs


@pytest.mark.parametrize(
    ("w", "d", "lost", "elo"),
    [(0, 0, 0, 0.0), (10, 0, 0, ELO_CLAMP), (0, 0, 10, -ELO_CLAMP), (0, 8, 0, 0.0)],
)
def test_degenerate_trinomial_is_finite_and_flagged(w: int, d: int, lost: int, elo: float) -> None:
    est = trinomial_elo(w, d, lost)
    assert not est.defined
    assert est.elo == elo
    assert est.error95 == 0.0 and est.nelo_error95 == 0.0
    for value in (est.elo, est.error95, est.nelo, est.nelo_error95, est.los, est.score, est.draw_ratio):
        assert math.isfinite(value)
    assert format_elo_pm(est) == "n/a" and format_nelo_pm(est) == "n/a"


def test_degenerate_pentanomial_is_finite_and_flagged() -> None:
    for ptnml, los in (((0, 0, 0, 0, 0), 0.5), ((0, 0, 0, 0, 7), 1.0), ((4, 0, 0, 0, 0), 0.0), ((0, 0, 9, 0, 0), 0.5)):
        est = pentanomial_elo(ptnml)
        assert not est.defined
        assert est.los == los
        assert all(math.isfinite(v) for v in (est.elo, est.error95, est.nelo, est.nelo_error95))


def test_interval_past_score_one_is_clamped_not_nan() -> None:
    est = trinomial_elo(9, 0, 1)  # s + 1.96 sd > 1
    assert est.defined
    assert est.elo == pytest.approx(score_to_elo(0.9))
    assert math.isfinite(est.error95) and est.error95 > 0
    assert "nan" not in format_elo_pm(est) and "inf" not in format_elo_pm(est)


def test_negative_counts_rejected() -> None:
    with pytest.raises(ValueError):
        trinomial_elo(-1, 0, 3)
    with pytest.raises(ValueError):
        pentanomial_elo((0, 0, -2, 0, 0))
    with pytest.raises(ValueError):
        llr_trinomial(1, -1, 0, SprtConfig(0, 5))


counts = st.integers(min_value=0, max_value=60)


@settings(max_examples=120, deadline=None)
@given(counts, counts, counts, counts, counts)
def test_never_nan_or_inf(a: int, b: int, c: int, d: int, e: int) -> None:
    texts = []
    for est in (trinomial_elo(a, b, c), pentanomial_elo((a, b, c, d, e))):
        assert all(math.isfinite(v) for v in (est.elo, est.error95, est.nelo, est.nelo_error95, est.los))
        texts += [format_elo_pm(est), format_nelo_pm(est), format_los(est)]
    for model in ("normalized", "logistic"):
        cfg = SprtConfig(0, 5, model=model)
        for llr in (llr_trinomial(a, b, c, cfg), llr_pentanomial((a, b, c, d, e), cfg)):
            assert math.isfinite(llr)
            texts.append(format_llr_line(llr, cfg))
    block = format_results_block("A", "B", a, c, b, None, "", SprtConfig(0, 5))
    for text in [*texts, block]:
        assert "nan" not in text and "inf" not in text


# --------------------------------------------------------------------------- SPRT


def test_sprt_bounds() -> None:
    cfg = SprtConfig(0.0, 2.0)
    assert cfg.lower == pytest.approx(-math.log(19), abs=1e-12)
    assert cfg.upper == pytest.approx(math.log(19), abs=1e-12)
    assert round(cfg.upper, 3) == 2.944
    asym = SprtConfig(0, 5, alpha=0.1, beta=0.05)
    assert asym.lower == pytest.approx(math.log(0.05 / 0.9))
    assert asym.upper == pytest.approx(math.log(0.95 / 0.1))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"elo0": 2, "elo1": 2},
        {"elo0": 3, "elo1": 1},
        {"elo0": 0, "elo1": 2, "alpha": 0.0},
        {"elo0": 0, "elo1": 2, "beta": 1.0},
        {"elo0": 0, "elo1": 2, "alpha": 0.6, "beta": 0.5},
        {"elo0": 0, "elo1": 2, "model": "bayesian"},
        {"elo0": math.nan, "elo1": 2},
    ],
)
def test_sprt_config_validation(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        SprtConfig(**kwargs)


def test_sprt_status() -> None:
    cfg = SprtConfig(0, 2)
    assert sprt_status(3.0, cfg) is SprtStatus.H1_ACCEPTED
    assert sprt_status(cfg.upper, cfg) is SprtStatus.H1_ACCEPTED
    assert sprt_status(-3.0, cfg) is SprtStatus.H0_ACCEPTED
    assert sprt_status(0.0, cfg) is SprtStatus.CONTINUE
    assert sprt_status(2.9, cfg) is SprtStatus.CONTINUE


# app/tests/sprt_test.cpp of fastchess; doctest Approx(x).epsilon(0.01) is a 1 % relative tolerance.
@pytest.mark.parametrize(
    ("wdl", "bounds", "model", "expected"),
    [
        ((36433, 36027, 68692), (0, 2), "normalized", 0.92),
        ((10871, 10650, 20431), (-1.75, 0.25), "normalized", 2.30),
        ((21404, 21184, 40708), (0.5, 2.5), "logistic", -1.57),
        ((57433, 57030, 106593), (0, 2), "logistic", -2.59),
    ],
)
def test_llr_trinomial_matches_fastchess(
    wdl: tuple[int, int, int], bounds: tuple[float, float], model: str, expected: float
) -> None:
    wins, losses, draws = wdl
    llr = llr_trinomial(wins, draws, losses, SprtConfig(*bounds, model=model))
    assert llr == pytest.approx(expected, rel=0.01)
    assert f"{llr:.2f}" == f"{expected:.2f}"


@pytest.mark.parametrize(
    ("stats", "bounds", "model", "expected"),
    [
        ((365, 16618, 36029, 200, 16974, 390), (0, 2), "normalized", 2.25),
        ((127, 4883, 10311, 401, 5150, 104), (-1.75, 0.25), "normalized", 3.01),
        ((223, 9863, 20279, 1000, 10037, 246), (0.5, 2.5), "logistic", -3.07),
        ((871, 26175, 55003, 980, 26678, 821), (0, 2), "logistic", -4.98),
    ],
)
def test_llr_pentanomial_matches_fastchess(
    stats: tuple[int, ...], bounds: tuple[float, float], model: str, expected: float
) -> None:
    ll, ld, wl, dd, wd, ww = stats
    llr = llr_pentanomial((ll, ld, wl + dd, wd, ww), SprtConfig(*bounds, model=model))
    assert llr == pytest.approx(expected, rel=0.01)
    assert f"{llr:.2f}" == f"{expected:.2f}"


# Independent maximum-likelihood by direct search (golden section on a concave
# function), not by the Lagrange multiplier the module solves for.

_INV_PHI = (math.sqrt(5) - 1) / 2


def _golden_max(f: Callable[[float], float], lo: float, hi: float, iters: int) -> float:
    a, b = lo, hi
    c, d = b - _INV_PHI * (b - a), a + _INV_PHI * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - _INV_PHI * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + _INV_PHI * (b - a)
            fd = f(d)
    return max(fc, fd)


def _regularized(counts: tuple[int, ...]) -> tuple[float, list[float]]:
    reg = [c if c > 0 else 1e-3 for c in counts]
    total = sum(reg)
    return total, [c / total for c in reg]


def _loglik(phat: list[float], p: list[float]) -> float:
    if min(p) <= 0.0:
        return -math.inf
    return sum(q * math.log(x) for q, x in zip(phat, p, strict=True))


def _brute_logistic_trinomial(w: int, d: int, lost: int, s: float) -> float:
    """max sum phat log p over {p_L, p_D, p_W}: p_W + p_D/2 = s, a 1-D family in p_D."""
    total, phat = _regularized((lost, d, w))

    def f(pd: float) -> float:
        pw = s - pd / 2
        return _loglik(phat, [1 - pw - pd, pd, pw])

    hi = min(1.0, 2 * s, 2 * (1 - s))
    return total * _golden_max(f, 0.0, hi, 90)


def _brute_logistic_pentanomial(ptnml: tuple[int, ...], s: float) -> float:
    """Nested golden-section search over (p1, p2, p3); p4 and p0 follow from the two constraints."""
    total, phat = _regularized(ptnml)

    def best_p3(p1: float, p2: float) -> float:
        def f(p3: float) -> float:
            p4 = s - 0.25 * p1 - 0.5 * p2 - 0.75 * p3
            p0 = 1 - p1 - p2 - p3 - p4
            return _loglik(phat, [p0, p1, p2, p3, p4])

        hi = min((s - 0.25 * p1 - 0.5 * p2) / 0.75, (1 - s - 0.75 * p1 - 0.5 * p2) / 0.25)
        return _golden_max(f, 0.0, max(hi, 0.0), 55) if hi > 0 else -math.inf

    def best_p2(p1: float) -> float:
        hi = min((s - 0.25 * p1) / 0.5, (1 - s - 0.75 * p1) / 0.5)
        return _golden_max(lambda p2: best_p3(p1, p2), 0.0, hi, 55) if hi > 0 else -math.inf

    return total * _golden_max(best_p2, 0.0, min(s / 0.25, (1 - s) / 0.75), 55)


def _brute_normalized_trinomial(w: int, d: int, lost: int, t: float) -> float:
    """(mu - 1/2)/sigma = t on {W, D, L}: with x = p_D and delta = p_W - p_L the
    constraint reads delta = t sqrt(1 - x - delta^2), so delta = t sqrt((1 - x)/(1 + t^2))."""
    total, phat = _regularized((lost, d, w))

    def f(x: float) -> float:
        delta = t * math.sqrt((1 - x) / (1 + t * t))
        return _loglik(phat, [(1 - x - delta) / 2, x, (1 - x + delta) / 2])

    return total * _golden_max(f, 0.0, 1.0, 90)


@pytest.mark.parametrize(("w", "d", "lost"), [(60, 0, 45), (130, 7, 111), (20, 50, 30), (3, 0, 0)])
def test_llr_logistic_trinomial_equals_brute_force(w: int, d: int, lost: int) -> None:
    cfg = SprtConfig(-3.0, 7.0, model="logistic")
    expected = _brute_logistic_trinomial(w, d, lost, elo_to_score(7.0)) - _brute_logistic_trinomial(
        w, d, lost, elo_to_score(-3.0)
    )
    assert llr_trinomial(w, d, lost, cfg) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(("w", "d", "lost"), [(60, 0, 45), (130, 7, 111), (20, 50, 30), (3, 0, 0)])
def test_llr_normalized_trinomial_equals_brute_force(w: int, d: int, lost: int) -> None:
    cfg = SprtConfig(-10.0, 15.0, model="normalized")
    t1, t0 = 15.0 / NELO, -10.0 / NELO
    expected = _brute_normalized_trinomial(w, d, lost, t1) - _brute_normalized_trinomial(w, d, lost, t0)
    assert llr_trinomial(w, d, lost, cfg) == pytest.approx(expected, abs=1e-6)


def test_llr_logistic_pentanomial_equals_brute_force() -> None:
    ptnml = (9, 0, 31, 0, 14)  # Santorini shape: two empty buckets (regularized to 1e-3)
    cfg = SprtConfig(0.0, 20.0, model="logistic")
    expected = _brute_logistic_pentanomial(ptnml, elo_to_score(20.0)) - _brute_logistic_pentanomial(
        ptnml, elo_to_score(0.0)
    )
    assert llr_pentanomial(ptnml, cfg) == pytest.approx(expected, abs=1e-6)


def test_llr_binomial_closed_form_without_draws() -> None:
    # With W/L only and a logistic hypothesis the constrained MLE is the
    # hypothesis itself: LLR = W log(s1/s0) + L log((1-s1)/(1-s0)).  The draw
    # class is regularized to 1e-3 games, hence the loose tolerance.
    s0, s1 = elo_to_score(0.0), elo_to_score(10.0)
    w, lost = 530, 470
    closed = w * math.log(s1 / s0) + lost * math.log((1 - s1) / (1 - s0))
    assert llr_trinomial(w, 0, lost, SprtConfig(0, 10, model="logistic")) == pytest.approx(closed, abs=2e-3)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_llr_zero_for_symmetric_sample_and_symmetric_bounds(model: str) -> None:
    cfg = SprtConfig(-5.0, 5.0, model=model)
    assert llr_trinomial(400, 0, 400, cfg) == pytest.approx(0.0, abs=1e-9)
    assert llr_trinomial(123, 77, 123, cfg) == pytest.approx(0.0, abs=1e-9)
    assert llr_pentanomial((50, 0, 300, 0, 50), cfg) == pytest.approx(0.0, abs=1e-9)
    assert llr_pentanomial((7, 40, 100, 40, 7), cfg) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_llr_nonpositive_when_sample_satisfies_h0(model: str) -> None:
    # H0 "Elo = 0" contains the sample's own distribution when its mean is 1/2,
    # so no H1 distribution can be more likely: LLR <= 0.
    cfg = SprtConfig(0.0, 5.0, model=model)
    assert llr_trinomial(0, 16700, 0, cfg) <= 1e-9
    assert llr_trinomial(500, 0, 500, cfg) < 0
    assert llr_pentanomial((100, 0, 300, 0, 100), cfg) < 0


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_llr_increases_as_wins_are_added(model: str) -> None:
    cfg = SprtConfig(0.0, 10.0, model=model)
    tri = [llr_trinomial(w, 0, 100, cfg) for w in range(80, 131)]
    assert all(b > a for a, b in itertools.pairwise(tri))
    penta = [llr_pentanomial((10, 0, 60, 0, k), cfg) for k in range(5, 30)]
    assert all(b > a for a, b in itertools.pairwise(penta))


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_sprt_decisions(model: str) -> None:
    cfg = SprtConfig(0.0, 10.0, model=model)
    strong = llr_pentanomial((40, 0, 400, 0, 120), cfg)  # 55 % per game
    assert sprt_status(strong, cfg) is SprtStatus.H1_ACCEPTED
    equal = llr_pentanomial((600, 0, 2800, 0, 600), cfg)
    assert sprt_status(equal, cfg) is SprtStatus.H0_ACCEPTED
    early = llr_pentanomial((2, 0, 5, 0, 3), cfg)
    assert sprt_status(early, cfg) is SprtStatus.CONTINUE
    assert sprt_status(llr_trinomial(700, 0, 500, cfg), cfg) is SprtStatus.H1_ACCEPTED
    assert sprt_status(llr_trinomial(4000, 0, 4000, cfg), cfg) is SprtStatus.H0_ACCEPTED  # ~ -3.3


def test_one_sided_samples_give_finite_llr_beyond_the_bound() -> None:
    # 4250 straight wins against [0, 10] nElo: the constrained MLEs put the
    # score at 1/2 + t/2 (H1) and 1/2 (H0), so LLR ~ N log(1 + t).
    cfg = SprtConfig(0.0, 10.0)
    llr = llr_trinomial(4250, 0, 0, cfg)
    assert llr == pytest.approx(4250 * math.log(1 + 10 / NELO), rel=2e-3)
    assert sprt_status(llr, cfg) is SprtStatus.H1_ACCEPTED
    assert sprt_status(llr_pentanomial((0, 0, 0, 0, 5550), SprtConfig(0, 5)), cfg) is SprtStatus.H1_ACCEPTED
    assert sprt_status(llr_pentanomial((5550, 0, 0, 0, 0), SprtConfig(0, 5)), cfg) is SprtStatus.H0_ACCEPTED
    for model in ("normalized", "logistic"):
        # no games: only the 1e-3 placeholders remain, so the LLR is ~0 and not positive
        assert -1e-5 < llr_trinomial(0, 0, 0, SprtConfig(0, 5, model=model)) <= 0.0
        assert -1e-5 < llr_pentanomial((0, 0, 0, 0, 0), SprtConfig(0, 5, model=model)) <= 0.0


def test_sprt_formatting() -> None:
    cfg = SprtConfig(0.0, 2.0)
    assert format_llr_line(2.95, cfg) == "LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 2.00]"
    assert format_llr_line(-1.5, cfg) == "LLR: -1.50 (-50.9%) (-2.94, 2.94) [0.00, 2.00]"
    assert format_llr_line(-0.001, cfg) == "LLR: 0.00 (0.0%) (-2.94, 2.94) [0.00, 2.00]"
    assert format_sprt_result(SprtStatus.H1_ACCEPTED, cfg) == "SPRT ([0.00, 2.00]) completed - H1 was accepted"
    assert (
        format_sprt_result(SprtStatus.H0_ACCEPTED, SprtConfig(-1.75, 0.25))
        == "SPRT ([-1.75, 0.25]) completed - H0 was accepted"
    )
    assert format_sprt_result(SprtStatus.CONTINUE, cfg) is None


# --------------------------------------------------------------------------- standings


def _tournament() -> Standings:
    """Three engines; pairs (1,2), (3,4) A-B, (5,6) A-C, (7,8) B-C; games arrive out of order."""
    s = Standings()
    s.record("A", "B", 1, "normal", game_number=2)  # A wins
    s.record("B", "A", 2, "normal", game_number=1)  # A wins
    s.record("A", "B", 2, "time forfeit", game_number=3)  # A loses on time
    s.record("B", "A", 2, "normal", game_number=4)  # A wins
    s.record("A", "C", 1, "normal", game_number=5)  # A wins
    s.record("C", "A", 1, "illegal move", game_number=6)  # A loses by illegal move
    s.record("B", "C", None, "aborted", game_number=7)  # not scored
    s.record("C", "B", 1, "normal", game_number=8)  # C wins
    return s


def test_tallies() -> None:
    s = _tournament()
    assert s.engines == ("A", "B", "C")
    a = s.tally("A")
    assert (a.games, a.wins, a.losses, a.draws, a.unscored) == (6, 4, 2, 0, 0)
    assert a.points == 4.0 and a.score == pytest.approx(4 / 6)
    assert a.terminations == {"illegal move": 1, "normal": 4, "time forfeit": 1}
    assert a.losses_by == {"illegal move": 1, "time forfeit": 1}
    b = s.tally("B")
    assert (b.games, b.wins, b.losses, b.unscored) == (5, 1, 4, 1)
    assert b.terminations["aborted"] == 1
    c = s.tally("C")
    assert (c.games, c.wins, c.losses, c.unscored) == (3, 2, 1, 1)
    h = s.head_to_head("A", "B")
    assert (h.wins, h.losses, h.draws) == (3, 1, 0)
    h = s.head_to_head("B", "A")
    assert (h.wins, h.losses, h.draws) == (1, 3, 0)
    empty = Standings()
    empty.add_engine("X")
    assert empty.tally("X").score == 0.5


def test_pentanomial_from_paired_games() -> None:
    s = _tournament()
    ab = s.pairs("A", "B")
    assert ab.ptnml == (0, 0, 1, 0, 1) and ab.wl == 1 and ab.dd == 0 and ab.incomplete == 0
    assert s.pairs("B", "A").ptnml == (1, 0, 1, 0, 0)
    assert s.pairs("A").ptnml == (0, 0, 2, 0, 1)
    bc = s.pairs("B", "C")
    assert bc.ptnml == (0, 0, 0, 0, 0) and bc.incomplete == 1  # the aborted game breaks the pair


def test_pairs_with_draws_and_missing_games() -> None:
    s = Standings()
    s.record("A", "B", 0, "adjudicated", game_number=1)
    s.record("B", "A", 0, "adjudicated", game_number=2)
    s.record("A", "B", 1, "normal", game_number=3)
    s.record("B", "A", 0, "adjudicated", game_number=4)
    s.record("A", "B", 1, "normal", game_number=5)  # game 6 not finished yet
    pc = s.pairs("A", "B")
    assert pc.ptnml == (0, 0, 1, 1, 0) and pc.dd == 1 and pc.wl == 0 and pc.incomplete == 1
    t = s.head_to_head("A", "B")
    assert (t.wins, t.draws, t.losses) == (2, 3, 0)


def test_record_validation() -> None:
    s = Standings()
    with pytest.raises(ValueError):
        s.record("A", "A", 1)
    with pytest.raises(ValueError):
        s.record("A", "B", 3)
    with pytest.raises(ValueError):
        s.record("A", "B", 1, game_number=0)


def test_score_line() -> None:
    s = _tournament()
    assert s.score_line("A", "B") == "Score of A vs B: 3 - 1 - 0  [0.750] 4"
    assert s.score_line("B", "C") == "Score of B vs C: 0 - 1 - 0  [0.000] 1"
    assert format_score_line("X", "Y", 0, 0, 0) == "Score of X vs Y: 0 - 0 - 0  [n/a] 0"


def test_results_block_pentanomial() -> None:
    s = Standings()
    # 10 pairs of A vs B: 2 pairs lost 0-2, 5 split 1-1, 3 won 2-0 (by A).
    outcomes = [(2, 1)] * 2 + [(1, 1)] * 5 + [(1, 2)] * 3  # winner of (A-B game, B-A game)
    n = 0
    for w1, w2 in outcomes:
        s.record("A", "B", w1, "normal", game_number=n + 1)
        s.record("B", "A", w2, "normal", game_number=n + 2)
        n += 2
    pc = s.pairs("A", "B")
    assert pc.ptnml == (2, 0, 5, 0, 3)
    est = pentanomial_elo(pc.ptnml)
    # independent numbers from the expanded pair scores
    mean = (0 * 2 + 0.5 * 5 + 1 * 3) / 10
    var = (2 * mean**2 + 5 * (0.5 - mean) ** 2 + 3 * (1 - mean) ** 2) / 10
    assert est.score == pytest.approx(mean) and est.nelo == pytest.approx((mean - 0.5) / math.sqrt(2 * var) * NELO)
    cfg = SprtConfig(0, 10)
    llr = llr_pentanomial(pc.ptnml, cfg)
    expected = "\n".join(
        [
            "-" * 50,
            "Results of A vs B (8+0.08, santorini-openings.txt):",
            f"Elo: {est.elo:.2f} +/- {est.error95:.2f}, nElo: {est.nelo:.2f} +/- {est.nelo_error95:.2f}",
            f"LOS: {est.los * 100:.2f} %, DrawRatio: 50.00 %, PairsRatio: 1.50",
            "Games: 20, Wins: 11, Losses: 9, Draws: 0, Points: 11.0 (55.00 %)",
            "Ptnml(0-2): [2, 0, 5, 0, 3]",
            f"LLR: {llr:.2f} ({llr / cfg.upper * 100:.1f}%) (-2.94, 2.94) [0.00, 10.00]",
            "-" * 50,
            "",
        ]
    )
    block = s.results_block("A", "B", "8+0.08, santorini-openings.txt", cfg)
    assert block == expected
    # and the literal numbers, so a formula change cannot slip through both sides
    # hand check: var = 0.1225, sd/pair = 0.11068, 95 % scores 0.33306..0.76694
    assert "Elo: 34.86 +/- 163.76, nElo: 35.10 +/- 152.27" in block
    assert "LOS: 67.43 %" in block


def test_results_block_trinomial_and_empty() -> None:
    block = format_results_block("A", "B", 136, 96, 111)
    assert block.splitlines()[1:5] == [
        "Results of A vs B:",
        "Elo: 40.70 +/- 30.43, nElo: 49.77 +/- 36.77",
        "LOS: 99.57 %, DrawRatio: 32.36 %",
        "Games: 343, Wins: 136, Losses: 96, Draws: 111, Points: 191.5 (55.83 %)",
    ]
    empty = format_results_block("A", "B", 0, 0, 0, None, "", SprtConfig(0, 5))
    assert empty == (
        "--------------------------------------------------\n"
        "Results of A vs B:\n"
        "Elo: n/a, nElo: n/a\n"
        "LOS: 50.00 %, DrawRatio: n/a\n"
        "Games: 0, Wins: 0, Losses: 0, Draws: 0, Points: 0.0 (n/a)\n"
        "LLR: 0.00 (0.0%) (-2.94, 2.94) [0.00, 5.00]\n"
        "--------------------------------------------------\n"
    )


def test_ranking_and_crosstable() -> None:
    s = _tournament()
    rows = s.ranking(penta=False)
    # A (4/6) and C (2/3) have the same score and Elo: the tie breaks by name.
    assert [r.name for r in rows] == ["A", "C", "B"]
    assert rows[0].estimate.elo == pytest.approx(score_to_elo(2 / 3))
    assert rows[2].estimate.elo == pytest.approx(score_to_elo(1 / 5))
    pad = " " * 24  # names are left-aligned in 25 columns
    assert s.format_ranking(penta=False) == (
        f"Rank Name{pad[3:]}        Elo        +/-       nElo        +/-      Games      Score       Draw\n"
        f"   1 A{pad}     120.41    1078.00     122.84     278.00          6      66.7%       0.0%\n"
        f"   2 C{pad}     120.41    1162.66     122.84     393.15          3      66.7%       0.0%\n"
        f"   3 B{pad}    -240.82    1017.64    -260.58     304.54          5      20.0%       0.0%\n"
    )
    # Pentanomial ranking: C has one complete pair (1-1), whose variance is zero -> n/a, never nan.
    penta = s.format_ranking().splitlines()
    assert penta[0].endswith("Draw           Ptnml(0-2)")
    assert penta[1].split() == ["1", "A", "120.41", "264.53", "173.72", "278.00", "6", "66.7%", "66.7%",
                                "[0,", "0,", "2,", "0,", "1]"]
    assert penta[2].split()[:6] == ["2", "C", "n/a", "n/a", "n/a", "n/a"]
    assert s.crosstable(penta=False) == (
        " #  Name  Score      A      C      B\n"
        " 1  A     4.0/6      -  1.0/2  3.0/4\n"
        " 2  C     2.0/3  1.0/2      -  1.0/1\n"
        " 3  B     1.0/5  1.0/4  0.0/1      -\n"
    )


def test_crosstable_marks_engines_that_have_not_met() -> None:
    s = Standings()
    s.record("Alpha", "Beta", 1, "normal")
    s.add_engine("Gamma")
    text = s.crosstable()
    # Gamma has no games (Elo 0) and ranks between the winner (+clamp) and the loser (-clamp).
    assert [line.split()[1] for line in text.splitlines()[1:]] == ["Alpha", "Gamma", "Beta"]
    assert text.splitlines()[2].split() == ["2", "Gamma", "0.0/0", ".", "-", "."]


def test_spec_example_matches_the_code() -> None:
    from pathlib import Path

    from santorini_server.stats.standings import PairCounts

    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    block = format_results_block(
        "A", "B", 105, 95, 0, PairCounts((24, 0, 47, 0, 29), wl=47), "8+0.08, openings.txt", SprtConfig(0, 10)
    )
    assert format_score_line("A", "B", 105, 95, 0) + "\n" + block in spec


# The Lagrange multiplier by plain bisection to the last bit, and the SPRT's decisions along
# whole pentanomial histories from it: an oracle for the module's Newton root and its fixed point.


def _bisect_theta(probs: list[float], phi: list[float]) -> float:
    lo, hi = -1.0 / max(phi), -1.0 / min(phi)
    while True:
        mid = (lo + hi) / 2.0
        if not lo < mid < hi:
            return mid
        g = sum(p * x / (1.0 + mid * x) for p, x in zip(probs, phi, strict=True))
        if g == 0.0:
            return mid
        lo, hi = (mid, hi) if g > 0.0 else (lo, mid)


def _oracle_mle(probs: list[float], phi: list[float]) -> list[float]:
    theta = _bisect_theta(probs, phi)
    return [p / (1.0 + theta * x) for p, x in zip(probs, phi, strict=True)]


def _oracle_llr(ptnml: tuple[int, ...], cfg: SprtConfig) -> float:
    total, phat = _regularized(ptnml)
    scores = (0.0, 0.25, 0.5, 0.75, 1.0)

    def mle(elo: float) -> list[float]:
        if cfg.model == "logistic":
            return _oracle_mle(phat, [a - elo_to_score(elo) for a in scores])
        t = math.sqrt(2.0) * elo / NELO
        p = [0.2] * 5
        for _ in range(500):
            mu = sum(a * q for a, q in zip(scores, p, strict=True))
            sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
            phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
            new = _oracle_mle(phat, phi)
            done = max(abs(x - y) for x, y in zip(new, p, strict=True)) < 1e-13
            p = new
            if done:
                break
        return p

    p0, p1 = mle(cfg.elo0), mle(cfg.elo1)
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(phat, p0, p1, strict=True))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=0, max_value=200_000), min_size=5, max_size=5),
    st.floats(min_value=0.01, max_value=0.99),
)
def test_lagrange_root_equals_bisection(counts: list[int], s: float) -> None:
    _total, phat = _regularized(tuple(counts))  # empty classes become 1e-3 / total: near the poles
    phi = [a - s for a in (0.0, 0.25, 0.5, 0.75, 1.0)]
    theta = sprt_module._lagrange_theta(phat, phi, -1.0 / max(phi), -1.0 / min(phi))
    assert theta == pytest.approx(_bisect_theta(phat, phi), rel=1e-14, abs=1e-14)
    # p_i = phat_i / (1 + theta phi_i) amplifies theta's last bits near a pole (1 + theta phi_i
    # ~ 1e-7 for an empty class), so the probabilities agree to float noise, not to the last bit
    for a, b in zip(sprt_module._lagrange_mle(phat, phi), _oracle_mle(phat, phi), strict=True):
        assert a == pytest.approx(b, rel=1e-6, abs=1e-300)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
@pytest.mark.parametrize(("weights", "seed"), [
    ((0.05, 0.2, 0.5, 0.2, 0.05), 1),  # equal engines: H0 of [0, 5]
    ((0.02, 0.13, 0.45, 0.25, 0.15), 2),  # a stronger one: H1
    ((0.0, 0.0, 1.0, 0.0, 0.0), 3),  # every pair 1-1, two swapped deterministic games
    ((0.3, 0.0, 0.4, 0.0, 0.3), 4),  # only wins and losses, the Santorini shape
])
def test_sprt_history_stops_where_the_oracle_stops(
    model: str, weights: tuple[float, ...], seed: int
) -> None:
    """Pair by pair along a random history: the printed LLR line and the decision are the
    oracle's, so the run stops at the same game."""
    import random

    rng = random.Random(seed)
    cfg = SprtConfig(0.0, 10.0, model=model)
    counts = [0] * 5
    stopped = oracle_stopped = None
    for pair in range(1, 401):
        counts[rng.choices(range(5), weights)[0]] += 1
        ptnml = (counts[0], counts[1], counts[2], counts[3], counts[4])
        llr, expected = llr_pentanomial(ptnml, cfg), _oracle_llr(ptnml, cfg)
        assert format_llr_line(llr, cfg) == format_llr_line(expected, cfg), (pair, ptnml)
        if stopped is None and sprt_status(llr, cfg) is not SprtStatus.CONTINUE:
            stopped = (pair, sprt_status(llr, cfg))
        if oracle_stopped is None and sprt_status(expected, cfg) is not SprtStatus.CONTINUE:
            oracle_stopped = (pair, sprt_status(expected, cfg))
    assert stopped == oracle_stopped
    if seed == 2:
        assert stopped is not None and stopped[1] is SprtStatus.H1_ACCEPTED
