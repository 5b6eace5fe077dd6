"""The names of the standings of three and four seats: the one ``standings.Standings`` with a seat count.

``Standings(3)`` and ``Standings(4)`` count placings, points and Weng-Lin ratings (``weng_lin``,
which loads openskill: this module loads it too, the two-seat standings never do).
"""

from __future__ import annotations

from . import weng_lin as weng_lin
from .standings import NSeatRankingRow, NSeatTally, Standings

__all__ = ["NSeatRankingRow", "NSeatStandings", "NSeatTally"]

NSeatStandings = Standings
"""Standings of any seat count; three and four seats pass theirs (``Standings(3)``)."""
