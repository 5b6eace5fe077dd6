"""What the dashboard's pages show, as plain data: no HTTP, no files, no clock (SPEC.md section 17.1).

Each function turns rows of the store (or the tournament's standings) into the values a template
prints, so the arithmetic (progress and ETA, the rating chart's geometry, results by god) is
tested without a server.  Text here is never escaped: the templates autoescape every value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..server.names import parse_id
from ..stats.sprt import SprtConfig, SprtStatus, llr_pentanomial, sprt_status
from ..stats.standings import RankingRow, Standings
from ..tournament.report import CHART_POINTS, Table, thin_points

if TYPE_CHECKING:
    from ..server.store import RatingPoint

__all__ = [
    "PAGE_SIZE",
    "Pager",
    "pager",
    "Progress",
    "progress",
    "duration_text",
    "MatchLine",
    "match_line",
    "RatingChart",
    "rating_chart",
    "GodRow",
    "god_rows",
    "OpponentRow",
    "opponent_rows",
]

PAGE_SIZE = 50
"""Games per page of a game list: one screen, and one small indexed query."""


@dataclass(frozen=True)
class Pager:
    """Page ``page`` (from 1) of ``pages`` over ``total`` items, ``size`` a page."""

    page: int
    pages: int
    total: int
    size: int

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    @property
    def previous(self) -> int | None:
        return self.page - 1 if self.page > 1 else None

    @property
    def next(self) -> int | None:
        return self.page + 1 if self.page < self.pages else None


def pager(requested: str | None, total: int, size: int = PAGE_SIZE) -> Pager:
    """The page a ``?page=`` value asks for, clamped to the pages there are (a bad value is page 1)."""
    pages = max(1, -(-total // size))
    try:
        page = parse_id(requested) if requested is not None else 1
    except ValueError:  # not ASCII digits, or beyond any page (parse_id's rule for ids)
        page = 1
    return Pager(min(max(page, 1), pages), pages, total, size)


@dataclass(frozen=True)
class Progress:
    """A run's progress: games done of ``total`` (None: open-ended, the ladder), time since it
    started, its rate and the time left at that rate (None when unknown)."""

    done: int
    total: int | None
    elapsed: float | None
    rate_per_hour: float | None
    eta: float | None

    @property
    def percent(self) -> float | None:
        return 100.0 * self.done / self.total if self.total else None


def _seconds(start: str | None, end: str | datetime) -> float | None:
    if start is None:
        return None
    stop = end if isinstance(end, datetime) else datetime.fromisoformat(end)
    return max(0.0, (stop - datetime.fromisoformat(start)).total_seconds())


def progress(done: int, total: int | None, started: str | None, finished: str | None, now: datetime) -> Progress:
    """Progress from the games indexed, the games scheduled and the run's start and end (ISO 8601):
    the rate is games over the time since the start (to the end, once finished), the ETA the games
    left at that rate while the run is unfinished."""
    elapsed = _seconds(started, finished if finished is not None else now)
    rate = done / elapsed * 3600.0 if elapsed and done else None
    eta = None
    if finished is None and total is not None and rate:
        eta = max(0, total - done) / rate * 3600.0
    return Progress(done, total, elapsed, rate, eta)


def duration_text(seconds: float | None) -> str:
    """``1 h 02 min``, ``3 min 05 s``, ``12 s``; ``n/a`` for None."""
    if seconds is None:
        return "n/a"
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


@dataclass(frozen=True)
class MatchLine:
    """A two-engine run's headline: the first engine's Elo against the second with its 95 %
    interval, the likelihood of superiority and, under SPRT, the log-likelihood ratio against the
    bounds at which H0 or H1 is accepted."""

    first: str
    second: str
    elo: str
    error: str
    los: str
    llr: float | None = None
    lower: float | None = None
    upper: float | None = None
    elo0: float | None = None
    elo1: float | None = None
    sprt_state: str | None = None


def match_line(
    standings: Standings, ranking: Sequence[RankingRow], first: str, second: str, sprt: SprtConfig | None
) -> MatchLine:
    """The headline of a match between ``first`` and ``second`` (the tournament's own estimates:
    ``ranking`` is :meth:`Standings.ranking`, pentanomial when there are pairs; :func:`llr_pentanomial`)."""
    row = next(r for r in ranking if r.name == first)
    e = row.estimate
    elo, error = (f"{e.elo:.1f}", f"{e.error95:.1f}") if e.defined else ("n/a", "n/a")
    line = MatchLine(first, second, elo, error, f"{e.los * 100:.1f}%")
    if sprt is None:
        return line
    llr = llr_pentanomial(standings.pairs(first, second).ptnml, sprt)
    state = {SprtStatus.CONTINUE: "continue", SprtStatus.H0_ACCEPTED: "H0 accepted", SprtStatus.H1_ACCEPTED: "H1 accepted"}
    return MatchLine(
        first, second, elo, error, line.los, llr=llr, lower=sprt.lower, upper=sprt.upper, elo0=sprt.elo0, elo1=sprt.elo1,
        sprt_state=state[sprt_status(llr, sprt)],
    )


@dataclass(frozen=True)
class RatingChart:
    """A bot's rating history in SVG coordinates: ``mu`` the polyline of its mu after each rated
    game, ``band`` the polygon of mu +/- sigma around it, ``ticks`` (y, label) on the left axis."""

    width: int
    height: int
    left: int
    right: int
    mu: str
    band: str
    ticks: tuple[tuple[float, str], ...]
    games: int


def rating_chart(points: Sequence[RatingPoint], width: int = 640, height: int = 220) -> RatingChart | None:
    """The chart of ``points`` (oldest first), thinned to :data:`CHART_POINTS`; None without points."""
    if not points:
        return None
    kept = [points[i] for i, _ in thin_points([(i, p.mu) for i, p in enumerate(points)], CHART_POINTS)]
    low = min(p.mu - p.sigma for p in kept)
    high = max(p.mu + p.sigma for p in kept)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    left, right, top, bottom = 44, width - 12, 10, height - 22
    last = max(len(points) - 1, 1)
    index = {id(p): i for i, p in enumerate(points)}

    def x(point: RatingPoint) -> float:
        return left + (right - left) * index[id(point)] / last

    def y(value: float) -> float:
        return bottom - (bottom - top) * (value - low) / (high - low)

    mu = " ".join(f"{x(p):.1f},{y(p.mu):.1f}" for p in kept)
    upper = [f"{x(p):.1f},{y(p.mu + p.sigma):.1f}" for p in kept]
    lower = [f"{x(p):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(kept)]
    ticks = tuple((round(y(low + (high - low) * k / 4), 1), f"{low + (high - low) * k / 4:.1f}") for k in range(5))
    return RatingChart(width, height, left, right, mu, " ".join(upper + lower), ticks, len(points))


@dataclass(frozen=True)
class GodRow:
    """A bot's games under one god pairing in one seat: the god it held, games, wins."""

    gods: str
    seat: int
    god: str
    games: int
    won: int

    @property
    def score(self) -> str:
        return f"{100.0 * self.won / self.games:.1f}%" if self.games else "n/a"


def god_rows(rows: Sequence[tuple[str, int, int, int]]) -> list[GodRow]:
    """:meth:`Store.results_by_gods` rows, each with the god the bot's seat held."""
    out = []
    for gods, seat, games, won in rows:
        names = gods.split("/")
        god = names[seat - 1] if 0 < seat <= len(names) else "?"
        out.append(GodRow(gods, seat, god, games, won))
    return out


@dataclass(frozen=True)
class OpponentRow:
    """A bot's games with one other bot: placed ahead of it, behind it, level (two seats: won,
    lost, unfinished)."""

    opponent: str
    games: int
    ahead: int
    behind: int
    level: int

    @property
    def score(self) -> str:
        decided = self.ahead + self.behind
        return f"{100.0 * (self.ahead + 0.5 * self.level) / self.games:.1f}%" if self.games and decided + self.level else "n/a"


def opponent_rows(rows: Sequence[tuple[str, int, int, int, int]]) -> list[OpponentRow]:
    """:meth:`Store.results_by_opponent` rows as :class:`OpponentRow`."""
    return [OpponentRow(*row) for row in rows]


def table_or_none(table: Table | None) -> Table | None:
    """A table with rows, or None (the template then says there is nothing yet)."""
    return table if table is not None and table.rows else None
