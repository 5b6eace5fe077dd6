"""Match statistics for live standings and SPRT: pure functions, no I/O.

``elo``: logistic Elo, nElo, LOS (cutechess / fastchess conventions).
``sprt``: generalized SPRT on trinomial or pentanomial results (fastchess).
``standings``: the standings of games of 2, 3 or 4 seats, counters updated as each game is
counted: per-engine tallies, game pairs, ranking, crosstable, and the text lines the runner prints.
``bradley_terry``: the joint rating of all engines over all two-seat games.
``placings``: a game of 2, 3 or 4 seats and its points.
``weng_lin``, ``nseat_standings``: Weng-Lin ratings (openskill) and the names of the standings of
3- and 4-seat tournaments.  Import ``standings``, ``weng_lin`` and ``nseat_standings`` by their
module path: they load openskill (some 30 ms), which the daemon's start does not need (it reads
the settings, whose SPRT this package gives), so this package does not import them.
"""

from .bradley_terry import DEFAULT_PRIOR, JointRating, JointRatings, format_joint_columns, joint_ratings
from .elo import (
    CUTECHESS_Z95,
    ELO_CLAMP,
    NELO_SCALE,
    PAIR_SCORES,
    Z95,
    EloEstimate,
    elo_to_score,
    format_cutechess_elo_line,
    format_elo_pm,
    format_los,
    format_nelo_pm,
    los_from_wins_losses,
    pentanomial_elo,
    score_to_elo,
    trinomial_elo,
)
from .placings import SEAT_COUNTS, NSeatGame
from .sprt import (
    SprtConfig,
    SprtStatus,
    format_llr_line,
    format_sprt_result,
    llr_pentanomial,
    llr_trinomial,
    sprt_fraction,
    sprt_status,
)

__all__ = [
    "CUTECHESS_Z95",
    "DEFAULT_PRIOR",
    "ELO_CLAMP",
    "NELO_SCALE",
    "PAIR_SCORES",
    "Z95",
    "EloEstimate",
    "JointRating",
    "JointRatings",
    "NSeatGame",
    "SEAT_COUNTS",
    "SprtConfig",
    "SprtStatus",
    "elo_to_score",
    "format_cutechess_elo_line",
    "format_elo_pm",
    "format_joint_columns",
    "format_llr_line",
    "format_los",
    "format_nelo_pm",
    "format_sprt_result",
    "joint_ratings",
    "llr_pentanomial",
    "llr_trinomial",
    "los_from_wins_losses",
    "pentanomial_elo",
    "score_to_elo",
    "sprt_fraction",
    "sprt_status",
    "trinomial_elo",
]
