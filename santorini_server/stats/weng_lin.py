"""Weng-Lin (Plackett-Luce) ratings for games of 2, 3 or 4 seats, computed by ``openskill``.

Weng and Lin's Bayesian online rating (JMLR 12, 2011, Algorithm 4) keeps a normal belief
``N(mu, sigma^2)`` about each engine's skill and updates it after every game from the order in
which the sides finished, ties included.  The arithmetic is openskill's ``PlackettLuce``
(the maintained implementation); this module only turns N-seat games into its teams and ranks:

* each side of a game is one openskill team, ranked by its placing (equal placings are a tie);
* a team holds one member per seat.  In 4 seats a team is two seats; when one engine fills both,
  it enters with two identical copies of its rating, and openskill returns the same update for
  both (same belief, same share of the team's variance), which is applied once.  It is one
  rating, but it counts once per seat because openskill's team strength is the sum of its
  members': a single member would make an engine that fills a team half as strong as a team
  of two engines of the same rating;
* games are rated in order of their schedule number, whatever order they finished in, so the
  figures are a function of the games alone (concurrency cannot change them).

Parameters: openskill's defaults (``mu = 25``, ``sigma = 25/3``, ``beta = 25/6``,
``kappa = 1e-4``) except ``tau = 0``: tau adds skill drift before every game, which suits
people between sessions, not a program that stays the same through a tournament (it would keep sigma
from shrinking however many games are played).  With ``tau = 0`` openskill reproduces the
numbers of its documentation's worked examples, which the tests pin.

``ordinal = mu - 3 sigma`` is the conservative value the ranking sorts by (openskill's
``ordinal()``): the skill the engine has with about 99.9 % confidence.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .placings import NSeatGame

__all__ = [
    "ORDINAL_Z",
    "WENG_LIN_BETA",
    "WENG_LIN_MU",
    "WENG_LIN_SIGMA",
    "WENG_LIN_TAU",
    "WengLinRating",
    "weng_lin_model",
    "weng_lin_ratings",
    "weng_lin_update",
]

WENG_LIN_MU = 25.0
WENG_LIN_SIGMA = 25.0 / 3.0
WENG_LIN_BETA = 25.0 / 6.0
WENG_LIN_TAU = 0.0
ORDINAL_Z = 3.0
"""Standard deviations the ordinal subtracts from mu."""


@dataclass(frozen=True)
class WengLinRating:
    """One engine's belief after the rated games: mean ``mu``, standard deviation ``sigma``,
    ``games`` it was rated in (scored games only)."""

    name: str
    mu: float = WENG_LIN_MU
    sigma: float = WENG_LIN_SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: the conservative value rankings sort by."""
        return self.mu - ORDINAL_Z * self.sigma


def weng_lin_model() -> PlackettLuce:
    """openskill's Plackett-Luce model with this module's parameters."""
    return PlackettLuce(mu=WENG_LIN_MU, sigma=WENG_LIN_SIGMA, beta=WENG_LIN_BETA, tau=WENG_LIN_TAU)


def weng_lin_ratings(games: Iterable[NSeatGame], engines: Sequence[str] = ()) -> dict[str, WengLinRating]:
    """Every engine's rating after the scored ``games``, rated in game-number order.

    ``engines`` lists engines to include even without a game (they keep the prior); the result
    has them first, in that order, then the others in order of first appearance (by number).

    Raises:
        ValueError: two games with the same number (the order would be ambiguous).
    """
    ordered = sorted(games, key=lambda g: g.number)
    for earlier, later in itertools.pairwise(ordered):
        if earlier.number == later.number:
            raise ValueError(f"two games numbered {later.number}")
    model = weng_lin_model()
    beliefs: dict[str, tuple[float, float]] = dict.fromkeys(engines, (WENG_LIN_MU, WENG_LIN_SIGMA))
    counts: dict[str, int] = dict.fromkeys(engines, 0)
    for game in ordered:
        for name in game.seats:
            beliefs.setdefault(name, (WENG_LIN_MU, WENG_LIN_SIGMA))
            counts.setdefault(name, 0)
        updated = weng_lin_update(beliefs, game, model)
        beliefs.update(updated)
        for name in updated:
            counts[name] += 1
    return {name: WengLinRating(name, mu, sigma, counts[name]) for name, (mu, sigma) in beliefs.items()}


def weng_lin_update(
    beliefs: Mapping[str, tuple[float, float]], game: NSeatGame, model: PlackettLuce | None = None
) -> dict[str, tuple[float, float]]:
    """The new ``(mu, sigma)`` of each engine of one scored ``game``, from their ``beliefs``
    (an engine missing there starts from the prior); empty for an unscored game.  The server
    rates each game as it finishes with this, a tournament its games in order."""
    if game.placings is None:
        return {}
    model = model or weng_lin_model()
    sides = range(game.side_count)
    prior = (WENG_LIN_MU, WENG_LIN_SIGMA)
    teams = [[model.rating(*beliefs.get(name, prior)) for name in game.side_members(side)] for side in sides]
    ranks: list[float] = [float(game.placings[game.side_seats(side)[0]]) for side in sides]
    rated = model.rate(teams, ranks=ranks)
    out: dict[str, tuple[float, float]] = {}
    for side in sides:
        # one engine filling a team got two identical copies: the first carries its update
        for name, updated in zip(game.side_members(side), rated[side], strict=True):
            out.setdefault(name, (updated.mu, updated.sigma))
    return out
