"""Match statistics for live standings and SPRT: pure functions, no I/O.

``elo``: logistic Elo, nElo, LOS (cutechess / fastchess conventions).
``sprt``: generalized SPRT on trinomial or pentanomial results (fastchess).
``standings``: per-engine tallies, game pairs, ranking, crosstable, and the
text lines the runner prints.
"""

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
from .standings import (
    DRAW,
    EngineTally,
    PairCounts,
    RankingRow,
    ScoredGame,
    Standings,
    format_results_block,
    format_score_line,
    pair_counts,
)

__all__ = [
    "CUTECHESS_Z95",
    "DRAW",
    "ELO_CLAMP",
    "NELO_SCALE",
    "PAIR_SCORES",
    "Z95",
    "EloEstimate",
    "EngineTally",
    "PairCounts",
    "RankingRow",
    "ScoredGame",
    "SprtConfig",
    "SprtStatus",
    "Standings",
    "elo_to_score",
    "format_cutechess_elo_line",
    "format_elo_pm",
    "format_llr_line",
    "format_los",
    "format_nelo_pm",
    "format_results_block",
    "format_score_line",
    "format_sprt_result",
    "llr_pentanomial",
    "llr_trinomial",
    "los_from_wins_losses",
    "pair_counts",
    "pentanomial_elo",
    "score_to_elo",
    "sprt_fraction",
    "sprt_status",
    "trinomial_elo",
]
