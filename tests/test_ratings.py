"""Ratings: Weng-Lin through openskill (N seats) and the joint Bradley-Terry fit (two seats).

The Weng-Lin figures are checked three ways: against the numbers openskill's documentation
prints for its worked examples, against Algorithm 4 of Weng and Lin written out here by hand,
and against openskill called directly with the teams this project builds.  The Bradley-Terry
fit is checked against closed forms (two engines), the maximum-likelihood equations (three),
and the properties a rating must have (symmetry, finiteness with a prior, narrowing intervals).
"""

from __future__ import annotations

import math

import pytest
from openskill.models import PlackettLuceRating

from santorini_server.stats import (
    Z95,
    JointRatings,
    NSeatGame,
    format_joint_columns,
    joint_ratings,
)
from santorini_server.stats.standings import ScoredGame, Standings
from santorini_server.stats.weng_lin import (
    WENG_LIN_BETA,
    WENG_LIN_MU,
    WENG_LIN_SIGMA,
    WengLinRating,
    weng_lin_model,
    weng_lin_ratings,
)

ELO = 400.0 / math.log(10.0)  # Elo per natural-log unit of strength


# --------------------------------------------------------------------------- Weng-Lin


def _mu_sigma(rated: list[list[PlackettLuceRating]]) -> list[list[tuple[float, float]]]:
    return [[(p.mu, p.sigma) for p in team] for team in rated]


def test_the_model_reproduces_openskills_documented_examples() -> None:
    """openskill's README: a 2-v-2 team game, four players ranked (4, 1, 3, 2), and a tie by
    scores (37, 19, 37, 42).  Its documented numbers come out with this project's parameters
    (openskill's defaults, tau 0), to the last digit."""
    model = weng_lin_model()
    a1, a2 = model.rating(), model.rating(32.444, 5.123)
    b1, b2 = model.rating(43.381, 2.421), model.rating(25.188, 6.211)
    assert _mu_sigma(model.rate([[a1, a2], [b1, b2]])) == [
        [(28.669648436582808, 8.071520788025197), (33.83086971107981, 5.062772998705765)],
        [(43.071274808241974, 2.4166900452721256), (23.149503312339064, 6.1378606973362135)],
    ]
    four = [[model.rating()] for _ in range(4)]
    assert _mu_sigma(model.rate(four, ranks=[4, 1, 3, 2])) == [
        [(20.96265504062538, 8.083731307186588)],
        [(27.795084971874736, 8.263160757613477)],
        [(24.68943500312503, 8.083731307186588)],
        [(26.552824984374855, 8.179213704945203)],
    ]
    # a tie for second place: equal numbers for the tied players
    assert _mu_sigma(model.rate(four, scores=[37, 19, 37, 42])) == [
        [(24.68943500312503, 8.179213704945203)],
        [(22.826045021875203, 8.179213704945203)],
        [(24.68943500312503, 8.179213704945203)],
        [(27.795084971874736, 8.263160757613477)],
    ]


def _algorithm4(mus: list[float], sigmas: list[float], ranks: list[int]) -> list[tuple[float, float]]:
    """Weng & Lin (2011) Algorithm 4 (Plackett-Luce), one player per team, no ties, written from
    the paper: c^2 = sum(sigma_i^2 + beta^2); for each q, S_q = sum of exp(mu_s / c) over the s
    ranked no better than q; player i sums, over the q ranked no worse than i,
    Omega_i += [q == i] - p_iq and Delta_i += p_iq (1 - p_iq) with p_iq = exp(mu_i / c) / S_q;
    mu_i += sigma_i^2 / c * Omega_i, sigma_i^2 *= max(1 - sigma_i^2 / c^2 * gamma * Delta_i, kappa)
    with gamma = sigma_i / c."""
    c = math.sqrt(sum(s * s + WENG_LIN_BETA**2 for s in sigmas))
    n = len(mus)
    sums = [sum(math.exp(mus[s] / c) for s in range(n) if ranks[s] >= ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = math.exp(mus[i] / c) / sums[q]
                omega += (1.0 if q == i else 0.0) - p
                delta += p * (1.0 - p)
        var = sigmas[i] ** 2
        mu = mus[i] + var / c * omega
        var *= max(1.0 - var / c**2 * (sigmas[i] / c) * delta, 1e-4)
        out.append((mu, math.sqrt(var)))
    return out


def test_a_hand_written_algorithm_4_gives_the_documented_numbers() -> None:
    """The paper's update, written independently here, lands on openskill's documented numbers."""
    got = _algorithm4([25.0] * 4, [25.0 / 3.0] * 4, [4, 1, 3, 2])
    documented = [
        (20.96265504062538, 8.083731307186588),
        (27.795084971874736, 8.263160757613477),
        (24.68943500312503, 8.083731307186588),
        (26.552824984374855, 8.179213704945203),
    ]
    for (mu, sigma), (dmu, dsigma) in zip(got, documented, strict=True):
        assert mu == pytest.approx(dmu, abs=1e-12) and sigma == pytest.approx(dsigma, abs=1e-12)


def test_a_two_seat_game_by_hand() -> None:
    """1 v 1 from the prior: p = 1/2, so mu moves by sigma^2 / (2c) and sigma^2 shrinks by
    sigma^3 / (4 c^3) of itself, c^2 = 2 (sigma^2 + beta^2)."""
    ratings = weng_lin_ratings([NSeatGame(1, ("A", "B"), (1, 2))])
    var = WENG_LIN_SIGMA**2
    c = math.sqrt(2.0 * (var + WENG_LIN_BETA**2))
    sigma = WENG_LIN_SIGMA * math.sqrt(1.0 - WENG_LIN_SIGMA**3 / (4.0 * c**3))
    assert ratings["A"].mu == pytest.approx(WENG_LIN_MU + var / (2.0 * c), abs=1e-12)
    assert ratings["B"].mu == pytest.approx(WENG_LIN_MU - var / (2.0 * c), abs=1e-12)
    assert ratings["A"].sigma == pytest.approx(sigma, abs=1e-12) and ratings["B"].sigma == pytest.approx(sigma, abs=1e-12)
    assert round(ratings["A"].mu, 2) == 27.64 and round(sigma, 4) == 8.0655
    assert ratings["A"].games == ratings["B"].games == 1


def test_three_seats_rate_as_three_teams_ranked_by_placing() -> None:
    games = [NSeatGame(1, ("A", "B", "C"), (1, 3, 2)), NSeatGame(2, ("B", "C", "A"), (2, 1, 3))]
    ours = weng_lin_ratings(games)
    model = weng_lin_model()
    a, b, c = model.rating(), model.rating(), model.rating()
    [[a], [b], [c]] = model.rate([[a], [b], [c]], ranks=[1, 3, 2])
    [[b], [c], [a]] = model.rate([[b], [c], [a]], ranks=[2, 1, 3])
    assert [(ours[n].mu, ours[n].sigma) for n in "ABC"] == [(a.mu, a.sigma), (b.mu, b.sigma), (c.mu, c.sigma)]
    # and the first game alone is the hand-written algorithm
    first = weng_lin_ratings(games[:1])
    for name, (mu, sigma) in zip("ABC", _algorithm4([25.0] * 3, [WENG_LIN_SIGMA] * 3, [1, 3, 2]), strict=True):
        assert first[name].mu == pytest.approx(mu, abs=1e-12) and first[name].sigma == pytest.approx(sigma, abs=1e-12)


def test_a_tie_for_second_treats_the_tied_seats_alike_and_is_zero_sum() -> None:
    ratings = weng_lin_ratings([NSeatGame(1, ("A", "B", "C"), (1, 2, 2))])
    assert ratings["B"] == WengLinRating("B", ratings["C"].mu, ratings["C"].sigma, 1)
    assert ratings["A"].mu > WENG_LIN_MU > ratings["B"].mu
    assert sum(r.mu - WENG_LIN_MU for r in ratings.values()) == pytest.approx(0.0, abs=1e-12)
    # a tie is between a win and a loss: B tied for second does better than B third
    third = weng_lin_ratings([NSeatGame(1, ("A", "B", "C"), (1, 3, 2))])
    assert third["B"].mu < ratings["B"].mu < third["C"].mu


def test_four_seats_rate_two_teams() -> None:
    """Mixed teams: the seats of a team are its members.  One engine filling a team enters once per
    seat with identical copies (openskill sums a team's members), and the copies' update is applied once."""
    model = weng_lin_model()
    mixed = weng_lin_ratings([NSeatGame(1, ("A", "B", "C", "D"), (2, 1, 2, 1))])
    [[a, c], [b, d]] = model.rate([[model.rating(), model.rating()], [model.rating(), model.rating()]], ranks=[2, 1])
    assert [(mixed[n].mu, mixed[n].sigma) for n in "ABCD"] == [(x.mu, x.sigma) for x in (a, b, c, d)]
    solo = weng_lin_ratings([NSeatGame(1, ("X", "Y", "X", "Y"), (1, 2, 1, 2))])
    # X's two seats are X's: the same numbers as a team of two engines with X's prior
    assert (solo["X"].mu, solo["X"].sigma) == (b.mu, b.sigma)
    assert (solo["Y"].mu, solo["Y"].sigma) == (a.mu, a.sigma)
    assert solo["X"].games == 1
    # a team of one engine against a team of two: the engine counts for both seats, so equal
    # priors give an even game (a single member would be half the other team's strength)
    uneven = weng_lin_ratings([NSeatGame(1, ("X", "P", "X", "Q"), (1, 2, 1, 2))])
    assert uneven["X"].mu - WENG_LIN_MU == pytest.approx(WENG_LIN_MU - uneven["P"].mu, abs=1e-12)


def _season() -> list[NSeatGame]:
    orders = [("A", "B", "C"), ("A", "C", "B"), ("B", "A", "C"), ("B", "C", "A"), ("C", "A", "B"), ("C", "B", "A")]
    placings = [(1, 2, 3), (2, 1, 3), (1, 2, 2), (3, 1, 2), (1, 3, 2), (2, 2, 1)]
    return [NSeatGame(i + 1, seats, pl) for i, (seats, pl) in enumerate(zip(orders, placings, strict=True))]


def test_ratings_follow_the_game_numbers_not_the_order_games_arrive_in() -> None:
    games = _season()
    forward = weng_lin_ratings(games)
    assert weng_lin_ratings(list(reversed(games))) == forward
    assert weng_lin_ratings(games[3:] + games[:3]) == forward
    # the order matters to an online rating, so the sorting is what makes the figures stable
    renumbered = [NSeatGame(len(games) - g.number + 1, g.seats, g.placings) for g in games]
    assert weng_lin_ratings(renumbered) != forward


def test_unscored_games_list_the_engine_and_change_nothing() -> None:
    games = [*_season(), NSeatGame(7, ("A", "B", "D"), None, "aborted")]
    ratings = weng_lin_ratings(games, engines=("E",))
    assert list(ratings) == ["E", "A", "B", "C", "D"]
    assert ratings["D"] == WengLinRating("D", WENG_LIN_MU, WENG_LIN_SIGMA, 0)
    assert ratings["E"] == WengLinRating("E", WENG_LIN_MU, WENG_LIN_SIGMA, 0)
    assert ratings["E"].ordinal == pytest.approx(0.0, abs=1e-12)
    without = weng_lin_ratings(_season())
    assert all(ratings[n] == without[n] for n in "ABC")


def test_duplicate_game_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="two games numbered 2"):
        weng_lin_ratings([NSeatGame(2, ("A", "B", "C"), (1, 2, 3)), NSeatGame(2, ("A", "B", "C"), (3, 2, 1))])


# --------------------------------------------------------------------------- joint Bradley-Terry


def _games(pairs: list[tuple[str, str, int, int]]) -> list[ScoredGame]:
    """``(a, b, wins of a, wins of b)`` -> alternating-colour games, numbered in order."""
    out: list[ScoredGame] = []
    for a, b, wa, wb in pairs:
        for k in range(wa + wb):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            a_won = k < wa
            out.append(ScoredGame(len(out) + 1, first, second, 1 if (first == a) == a_won else 2))
    return out


def test_two_engines_without_prior_give_the_logistic_elo_of_the_score() -> None:
    fit = joint_ratings(_games([("A", "B", 9, 1)]), prior=0.0)
    diff, err = fit.difference("A", "B")
    assert diff == pytest.approx(400.0 * math.log10(9.0), abs=1e-9)  # 381.70
    assert fit["A"].elo == pytest.approx(-fit["B"].elo, abs=1e-9)  # anchored: mean 0
    # the Wald interval of the difference: var = 1 / (n p (1 - p)) in natural units
    assert err == pytest.approx(Z95 * ELO * math.sqrt(1.0 / (10 * 0.9 * 0.1)), abs=1e-9)
    assert fit["A"].error95 == pytest.approx(err / 2.0, abs=1e-9)  # each is half the difference
    assert (fit["A"].games, fit["A"].points, fit["B"].points) == (10, 9.0, 1.0)


def test_three_engines_without_prior_solve_the_likelihood_equations() -> None:
    """At the maximum each engine's expected score equals its actual score (Zermelo)."""
    games = _games([("A", "B", 7, 3), ("B", "C", 6, 4), ("A", "C", 5, 1)])
    fit = joint_ratings(games, prior=0.0)
    for name in "ABC":
        expected = 0.0
        for g in games:
            if name in (g.player1, g.player2):
                other = g.player2 if name == g.player1 else g.player1
                expected += 1.0 / (1.0 + 10.0 ** ((fit[other].elo - fit[name].elo) / 400.0))
        assert expected == pytest.approx(fit[name].points, abs=1e-8)
    assert sum(r.elo for r in fit.ratings) == pytest.approx(0.0, abs=1e-9)
    assert fit["A"].elo > fit["B"].elo > fit["C"].elo


def test_a_perfect_score_is_finite_with_the_prior_and_refused_without() -> None:
    games = _games([("A", "B", 6, 0), ("A", "C", 6, 0), ("B", "C", 4, 2)])
    fit = joint_ratings(games)
    assert all(math.isfinite(r.elo) and math.isfinite(r.error95) and r.error95 > 0 for r in fit.ratings)
    assert fit["A"].elo > fit["B"].elo > fit["C"].elo
    with pytest.raises(ValueError, match="no finite ratings without a prior"):
        joint_ratings(games, prior=0.0)
    # today's per-engine Elo has nothing for A; the joint table prints numbers
    s = Standings()
    for g in games:
        s.record(g.player1, g.player2, g.winner, "normal", g.number)
    assert s.format_ranking().splitlines()[1].split()[1:6] == ["A", "n/a", "n/a", "n/a", "n/a"]
    row = s.format_ranking(joint=True).splitlines()[1].split()
    elo, err = format_joint_columns(fit["A"])
    assert row[1:4] == ["A", elo, err]
    assert row[4:6] == ["n/a", "n/a"]  # nElo stays the per-engine figure, undefined for a 100 % score


def test_the_prior_pulls_towards_the_mean_and_fades_with_games() -> None:
    few = _games([("A", "B", 4, 1)])
    mle = joint_ratings(few, prior=0.0)["A"].elo
    pulled = [joint_ratings(few, prior=p)["A"].elo for p in (0.5, 2.0, 8.0, 1e6)]
    assert mle > pulled[0] > pulled[1] > pulled[2] > pulled[3] > 0.0
    assert pulled[3] == pytest.approx(0.0, abs=0.01)
    many = _games([("A", "B", 400, 100)])
    assert joint_ratings(many)["A"].elo == pytest.approx(joint_ratings(many, prior=0.0)["A"].elo, rel=0.01)
    assert pulled[1] / mle < 0.9  # with five games, two virtual draws matter
    for bad in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="prior must be"):
            joint_ratings(few, prior=bad)


def test_symmetry() -> None:
    games = _games([("A", "B", 7, 3), ("B", "C", 6, 4), ("A", "C", 8, 0)])
    mirrored = [ScoredGame(g.number, g.player1, g.player2, 3 - (g.winner or 0)) for g in games]
    fit, back = joint_ratings(games), joint_ratings(mirrored)
    for name in "ABC":
        assert back[name].elo == pytest.approx(-fit[name].elo, abs=1e-9)
        assert back[name].error95 == pytest.approx(fit[name].error95, abs=1e-9)
    # renaming engines renames ratings, and equal records rate equal
    even = joint_ratings(_games([("A", "B", 3, 3), ("B", "C", 3, 3), ("A", "C", 3, 3)]))
    assert all(r.elo == pytest.approx(0.0, abs=1e-9) for r in even.ratings)
    assert even["A"].error95 == pytest.approx(even["C"].error95, abs=1e-9)


def test_intervals_narrow_with_more_games() -> None:
    small = joint_ratings(_games([("A", "B", 6, 4)]), prior=0.0)
    large = joint_ratings(_games([("A", "B", 60, 40)]), prior=0.0)
    assert large["A"].elo == pytest.approx(small["A"].elo, abs=1e-9)
    assert small["A"].error95 / large["A"].error95 == pytest.approx(math.sqrt(10.0), rel=1e-9)
    with_prior = [joint_ratings(_games([("A", "B", 6 * k, 4 * k)]))["A"].error95 for k in (1, 4, 16)]
    assert with_prior[0] > with_prior[1] > with_prior[2]


def test_engines_without_games_and_unmet_groups() -> None:
    """Live standings: C-D have not met A-B yet, E has not played.  The prior keeps every
    played engine defined; E prints n/a; unscored games count nowhere."""
    games = [
        *_games([("A", "B", 2, 1)]),
        ScoredGame(4, "C", "D", 1),
        ScoredGame(5, "C", "D", None, "aborted"),
    ]
    fit = joint_ratings(games, engines=["E", "A"])
    assert [r.name for r in fit.ratings] == ["E", "A", "B", "C", "D"]
    assert not fit["E"].defined and format_joint_columns(fit["E"]) == ("n/a", "n/a")
    assert fit["C"].games == 1 and fit["C"].elo > 0 > fit["D"].elo
    assert sum(r.elo for r in fit.ratings if r.defined) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(KeyError):
        fit.difference("E", "A")
    with pytest.raises(KeyError):
        fit["Z"]
    with pytest.raises(ValueError, match="no finite ratings"):
        joint_ratings(games, prior=0.0)  # the two groups are not connected


def test_difference_uses_the_covariance() -> None:
    fit: JointRatings = joint_ratings(_games([("A", "B", 5, 5), ("B", "C", 5, 5)]))
    diff, err = fit.difference("A", "C")
    # A and C never met: their difference is less certain than either rating's own interval suggests
    assert diff == pytest.approx(0.0, abs=1e-9)
    assert err > fit["A"].error95 and err > fit["C"].error95
    assert fit.difference("A", "A") == (0.0, 0.0)


def test_the_joint_table_sorts_by_the_joint_rating() -> None:
    s = Standings()
    for g in _games([("A", "B", 3, 1), ("B", "C", 4, 0), ("A", "C", 1, 3)]):
        s.record(g.player1, g.player2, g.winner, "normal", g.number)
    rows = s.ranking(joint=True)
    assert [r.joint.elo for r in rows if r.joint] == sorted((r.joint.elo for r in rows if r.joint), reverse=True)
    fit = s.joint_ratings()
    lines = s.format_ranking(penta=False, joint=True).splitlines()
    for line, row in zip(lines[1:], rows, strict=True):
        assert line.split()[1:4] == [row.name, *format_joint_columns(fit[row.name])]
    assert s.crosstable(joint=True).splitlines()[1].split()[1] == rows[0].name
    # without joint, the table is today's (the existing tests pin it)
    assert all(r.joint is None for r in s.ranking())


def test_spec_examples_match_the_code() -> None:
    """SPEC.md section 12.6 prints this table and these figures: they must be what the code gives."""
    from pathlib import Path

    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    s = Standings()
    for g in _games([("alphabeta", "greedy", 4, 0), ("alphabeta", "random", 4, 0), ("greedy", "random", 3, 1)]):
        s.record(g.player1, g.player2, g.winner, "normal", g.number)
    assert "```\n" + s.format_ranking(joint=True) + "```\n" in spec
    closer = []
    for k in (1, 10, 100):
        games = _games([("A", "B", 4 * k, k)])
        closer.append(1.0 - joint_ratings(games)["A"].elo / joint_ratings(games, prior=0.0)["A"].elo)
    assert [round(closer[0] * 100), round(closer[1] * 100), round(closer[2] * 100, 1)] == [22, 3, 0.3]
    assert "rated 22 % closer together than without the\n  prior; at 40–10, 3 % closer; at 400–100, 0.3 % closer." in spec
