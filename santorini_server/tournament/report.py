"""What a tournament's ``report.html`` shows, as plain data: no files, no HTML, no clock.

Theory of operation.  The report is a function of the finished games' records (and, for a
tournament, its settings): the standings come from the same
:class:`~santorini_server.stats.standings.Standings` that the tournament prints, fed by
:func:`~santorini_server.tournament.scoring.count_game` (never a second way of counting); the
chart follows each engine's score, game by game in schedule order, from the records' placings
scored as the standings score them (:class:`~santorini_server.stats.placings.NSeatGame`: the
standings keep counters, not games); the losses table is :func:`scoring.loss_rows`.

Games are viewed in viewer files of :data:`BLOCK_SIZE` schedule numbers each
(``games/0001-0100.html`` holds games 1-100), so the report itself carries one compact row
per game and opens fast whatever the tournament's size; a link opens the block's file on its
game (``#game=K``, K counting the block's recorded games from 1 in schedule order).
``report_page`` renders this data; ``report_files`` writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..records import GameRecord
from ..stats.bradley_terry import format_joint_columns
from ..stats.elo import _fixed
from ..stats.gods import GodStats
from ..stats.placings import NSeatGame
from ..stats.standings import RankingRow, Standings
from ..termination import Termination
from .scoring import LOSS_COLUMNS, count_game, empty_standings, loss_rows, versus

if TYPE_CHECKING:
    from .config import TournamentConfig

__all__ = [
    "BLOCK_SIZE",
    "CHART_POINTS",
    "Block",
    "ChartLine",
    "GameRow",
    "GameSummary",
    "ReportData",
    "ReportInfo",
    "Table",
    "block_of",
    "build_report",
    "config_info",
    "RecordsHead",
    "MAX_NUMBER",
    "game_blocks",
    "god_stats_of",
    "god_tables",
    "game_summary",
    "score_history",
    "standings_tables",
    "thin_points",
]

BLOCK_SIZE = 100
"""Schedule numbers per viewer file: a file of 100 games opens in well under a second, and a
10,000-game tournament needs 100 of them."""

CHART_POINTS = 400
"""At most this many points per engine's line (a line over 10,000 games is thinned evenly,
its last point always kept): more cannot be seen at the chart's width."""


@dataclass(frozen=True)
class Block:
    """A viewer file: the games numbered ``first``..``last`` (those recorded)."""

    first: int
    last: int

    @property
    def path(self) -> str:
        """The file, relative to the report: ``games/0001-0100.html``."""
        return f"games/{self.first:04d}-{self.last:04d}.html"


def block_of(number: int, size: int = BLOCK_SIZE) -> Block:
    """The block holding schedule number ``number`` (1-based)."""
    if number < 1:
        raise ValueError(f"game numbers start at 1, not {number}")
    first = (number - 1) // size * size + 1
    return Block(first, first + size - 1)


def game_blocks(numbers: Iterable[int], size: int = BLOCK_SIZE) -> dict[Block, list[int]]:
    """The blocks of the recorded game ``numbers``, each with its numbers in order (the game at
    index ``k`` of a block's list is ``#game=k+1`` in its file); blocks in order."""
    blocks: dict[Block, list[int]] = {}
    for number in sorted(numbers):
        blocks.setdefault(block_of(number, size), []).append(number)
    return blocks


@dataclass(frozen=True)
class ReportInfo:
    """The settings the report's head states.  ``planned``: games scheduled (None: unknown, a
    report made from records alone)."""

    title: str
    engines: tuple[str, ...]
    seats: int
    time_control: str
    gods: str
    planned: int | None = None


@dataclass(frozen=True)
class Table:
    """A table as text cells: ``head`` and ``rows`` of the same width; ``notes`` a tooltip per
    head cell (empty: none)."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChartLine:
    """One engine's score (0..1) after each of its scored games: ``(games played in the
    tournament, score)``, in schedule order, thinned to :data:`CHART_POINTS`."""

    name: str
    points: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class GameRow:
    """One game of the list: its link is ``block.path + '#game=' + str(index)``."""

    number: int
    players: str
    gods: str
    result: str
    termination: str
    turns: int
    block: Block
    index: int

    @property
    def href(self) -> str:
        return f"{self.block.path}#game={self.index}"


@dataclass(frozen=True)
class ReportData:
    """Everything ``report.html`` shows.  ``crosstable`` is None for three and four seats (ranked
    by placings, with no pairwise results); ``games`` in schedule order."""

    info: ReportInfo
    played: int
    standings: Table
    crosstable: Table | None
    chart: tuple[ChartLine, ...]
    losses: Table
    terminations: tuple[tuple[str, int], ...]
    games: tuple[GameRow, ...]
    blocks: tuple[Block, ...]
    gods: tuple[tuple[str, Table], ...] = ()
    """The god statistics (SPEC.md section 19.6) as titled tables: empty with no scored game."""


def build_report(
    info: ReportInfo,
    games: Sequence[tuple[int, GameRecord | GameSummary]],
    *,
    standings: Standings | None = None,
    block_size: int = BLOCK_SIZE,
) -> ReportData:
    """The report of ``games``: each record (or its :class:`GameSummary`) with its schedule
    number (:class:`RecordsHead` numbers records read from a file), any order.

    ``standings``: the standings those games were counted into (a live report keeps its own);
    None counts them here, with the engines of ``info`` listed first (every game must then be
    a record).
    """
    games = sorted(games, key=lambda game: game[0])
    if standings is None:
        standings = empty_standings(info.seats, info.engines)
        for number, record in games:
            if not isinstance(record, GameRecord):
                raise TypeError("build_report counts standings from records, not summaries")
            count_game(standings, record, number)
    names = list(standings.engines)
    blocks = game_blocks((n for n, _ in games), block_size)
    index = {n: (block, k) for block, numbers in blocks.items() for k, n in enumerate(numbers, 1)}
    rows = tuple(_game_row(number, record, *index[number]) for number, record in games)
    counts: dict[str, int] = {}
    for _, record in games:
        counts[record.termination] = counts.get(record.termination, 0) + 1
    order = [t.value for t in Termination]
    return ReportData(
        info=info,
        played=len(games),
        standings=_standings_table(standings),
        crosstable=_crosstable(standings) if standings.seats == 2 else None,
        chart=score_history(names, (_placed(number, game) for number, game in games)),
        losses=_losses_table(standings, names),
        terminations=tuple(sorted(counts.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))),
        games=rows,
        blocks=tuple(blocks),
        gods=god_tables(god_stats_of(record for _, record in games)),
    )


def god_stats_of(games: Iterable[GameRecord | GameSummary]) -> GodStats:
    """The god statistics of ``games`` (records or the report's summaries)."""
    stats = GodStats()
    for game in games:
        gods = tuple(game.gods.split("/")) if isinstance(game, GameSummary) else game.gods
        stats.add(gods, game.placings)
    return stats


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def god_tables(stats: GodStats) -> tuple[tuple[str, Table], ...]:
    """The god statistics as titled tables: for two seats the matrix (row god's score, games),
    each matchup's games, score, 95% interval and seat-1 advantage, and the god ratings; for three
    and four seats the placings per god.  Empty without a scored game."""
    out: list[tuple[str, Table]] = []
    gods = stats.gods()
    if gods:
        matrix = tuple(
            (a, *("" if (a, b) not in stats.cells else
                  f"{stats.cells[a, b].games}" if a == b else
                  f"{100 * stats.cells[a, b].score:.0f}% ({stats.cells[a, b].games})" for b in gods))
            for a in gods
        )
        out.append(("God against god: the row god's score (games)", Table(("God", *gods), matrix)))
        ratings = stats.ratings()
        rows = []
        for (a, b), cell in sorted(stats.cells.items()):
            if a > b:
                continue
            lo, hi = cell.interval
            elo = "" if a == b or ratings is None else "{:+.1f} +/- {:.1f}".format(*ratings.difference(a, b))
            rows.append((f"{a} vs {b}", str(cell.games), "" if a == b else _pct(cell.score),
                         "" if a == b else f"{_pct(lo)} to {_pct(hi)}", f"{100 * cell.seat1_advantage:+.1f}", elo))
        out.append((f"Matchups (seat 1 scores {_pct(stats.seat1_advantage + 0.5)} of {stats.two_seat_games} games)", Table(
            ("Matchup", "Games", "First god's score", "95% interval", "Seat-1 advantage", "Rating difference"), tuple(rows),
            ("", "", "", "Wilson score interval", "seat 1's score minus 50%, in points of %",
             "the first god's Bradley-Terry rating minus the second's, Elo, 95% error"),
        )))
        if ratings is not None:
            rated = sorted((r for r in ratings.ratings if r.defined), key=lambda r: -r.elo)
            out.append(("God ratings (Bradley-Terry)", Table(
                ("God", "Elo", "+/-", "Games"), tuple((r.name, _fixed(r.elo, 1), _fixed(r.error95, 1), str(r.games))
                                                     for r in rated),
            )))
    for seats, table in sorted(stats.nseat.items()):
        places = 2 if seats == 4 else seats
        placed: list[tuple[str, ...]] = [
            (god, str(row.games), *(str(row.placings.get(k, 0)) for k in range(1, places + 1)), _pct(row.share))
            for god, row in sorted(table.items(), key=lambda kv: -kv[1].share)
        ]
        out.append((f"{seats} seats: placings per god", Table(
            ("God", "Games", *(_place_name(k) for k in range(1, places + 1)), "Points share"), tuple(placed),
        )))
    return tuple(out)


def standings_tables(
    standings: Standings, *, crosstable: bool = True, ranking: list[RankingRow] | None = None
) -> tuple[Table, Table | None, Table]:
    """The standings, the crosstable (None for three and four seats, or not asked for) and the
    losses table of ``standings``, as the report shows them (the daemon's run page shows them).

    ``ranking``: ``standings.ranking()`` made already (two seats)."""
    cross = _crosstable(standings) if crosstable and standings.seats == 2 else None
    return _standings_table(standings, ranking), cross, _losses_table(standings, list(standings.engines))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the report's list shows of a game (a few short strings: a report of a million games
    keeps these, not the records)."""

    players: str
    gods: str
    result: str
    termination: str
    turns: int
    seats: tuple[str, ...]
    """Each seat's engine, for the score chart (the names are shared among the rows)."""
    placings: tuple[int, ...] | None


def game_summary(record: GameRecord) -> GameSummary:
    """The row fields of ``record``: players, gods, result (with the winners), termination, turns."""
    tags = dict(record.tags)  # one pass over the tags, not one per field
    gods = tags["Gods"]
    players = tuple(tags[f"Player{k}"] for k in range(1, gods.count("/") + 2))
    placings = record.placings
    if placings is None:
        result = "unfinished"
    else:
        winners = list(dict.fromkeys(name for name, place in zip(players, placings, strict=True) if place == 1))
        result = f"{tags['Result']} {'+'.join(winners)} won"
    return GameSummary(versus(players), gods, result, tags["Termination"], len(record.turns), players, placings)


def _placed(number: int, game: GameRecord | GameSummary) -> NSeatGame:
    """The game's seats and placings, for the score chart."""
    if isinstance(game, GameSummary):
        return NSeatGame(number, game.seats, game.placings)
    return NSeatGame(number, game.players, game.placings)


def _game_row(number: int, game: GameRecord | GameSummary, block: Block, index: int) -> GameRow:
    g = game if isinstance(game, GameSummary) else game_summary(game)
    return GameRow(number, g.players, g.gods, g.result, g.termination, g.turns, block, index)


def _standings_table(standings: Standings, ranking: list[RankingRow] | None = None) -> Table:
    """The ranking the tournament prints, as cells (two seats: the joint Bradley-Terry rating
    with three or more engines, as in the final table)."""
    if standings.seats != 2:
        return _nseat_table(standings)
    joint = len(standings.engines) > 2
    head = ("Rank", "Engine", "Elo", "+/-", "nElo", "+/-", "Games", "W", "L", "Score", "Ptnml(0-2)")
    cells = []
    for r in ranking if ranking is not None and not joint else standings.ranking(joint=joint):
        e = r.estimate
        nums = [_fixed(e.elo, 2), _fixed(e.error95, 2), _fixed(e.nelo, 2), _fixed(e.nelo_error95, 2)] if e.defined \
            else ["n/a"] * 4
        if r.joint is not None:
            nums[0], nums[1] = format_joint_columns(r.joint)
        p = r.pairs.ptnml if r.pairs is not None else None
        cells.append((
            str(r.rank), r.name, *nums, str(r.tally.games), str(r.tally.wins), str(r.tally.losses),
            f"{_fixed(r.tally.score * 100.0, 1)}%" if r.tally.games else "n/a",
            "" if p is None else f"[{p[0]}, {p[1]}, {p[2]}, {p[3]}, {p[4]}]",
        ))
    notes = ("", "", "joint Bradley-Terry rating (mean 0)" if joint else "Elo against the field met",
             "95 % interval", "normalized Elo", "95 % interval", "scored games", "wins", "losses",
             "points per scored game", "game pairs scoring 0, 1/2, 1, 3/2, 2 points")
    return Table(head, tuple(cells), notes)


def _nseat_table(standings: Standings) -> Table:
    """Three and four seats: placings points and the Weng-Lin rating, as the tournament prints."""
    rows = standings.rating_ranking()
    places = standings.place_count or 1
    show_seats = any(r.tally.seats != r.tally.games for r in rows)
    head = ("Rank", "Engine", "mu", "sigma", "Ordinal", "Games", *(("Seats",) if show_seats else ()),
            "Points", "Score", *(_place_name(k + 1) for k in range(places)))
    cells = []
    for r in rows:
        t = r.tally
        counts = list(t.placings) + [0] * places
        cells.append((
            str(r.rank), r.name, _fixed(r.rating.mu, 2), _fixed(r.rating.sigma, 2), _fixed(r.rating.ordinal, 2),
            str(t.games), *((str(t.seats),) if show_seats else ()), _fixed(t.points, 1),
            f"{_fixed(t.score * 100.0, 1)}%" if t.games else "n/a", *(str(c) for c in counts[:places]),
        ))
    notes = ("", "", "Weng-Lin skill", "its uncertainty", "mu - 3 sigma (ranks by it)", "scored games",
             *(("seats filled",) if show_seats else ()), "placings points", "share of the points its seats could score",
             *("" for _ in range(places)))
    return Table(head, tuple(cells), notes)


def _place_name(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def _crosstable(standings: Standings) -> Table:
    """Points of each row engine against each column engine, ``points/games`` (``-`` itself,
    ``.`` not met), in ranking order: the crosstable the tournament prints."""
    names = [r.name for r in standings.ranking(joint=len(standings.engines) > 2)]
    rows = []
    for a in names:
        total = standings.tally(a)
        cells = [f"{total.points:.1f}/{total.games}"]
        for b in names:
            t = standings.head_to_head(a, b) if a != b else None
            cells.append("-" if t is None else f"{t.points:.1f}/{t.games}" if t.games else ".")
        rows.append((a, *cells))
    return Table(("Engine", "Score", *names), tuple(rows))


def _losses_table(standings: Standings, names: list[str]) -> Table:
    tags = [t.value for t in LOSS_COLUMNS]
    rows = tuple((r.name, str(r.wins), str(r.losses), *(str(c) for c in r.by)) for r in loss_rows(standings, names))
    notes = ("", "wins (seats placed first)", "losses", *(Termination(t).meaning for t in tags))
    return Table(("Engine", "W", "L", *tags), rows, notes)


def score_history(
    engines: Sequence[str], games: Iterable[NSeatGame], limit: int = CHART_POINTS
) -> tuple[ChartLine, ...]:
    """Each engine's score after each of ``games`` (in schedule order): the points its games
    (seats) scored over what they could score, :attr:`EngineTally.score`, so a line ends at the
    score of the standings' table.  A line per engine of ``engines``, then of the games."""
    names = list(dict.fromkeys([*engines]))
    points: dict[str, float] = {}
    possible: dict[str, float] = {}
    history: dict[str, list[tuple[int, float]]] = {name: [] for name in names}
    for played, game in enumerate(games, 1):
        if not game.scored:
            continue
        for name in dict.fromkeys(game.seats):
            for seat, engine in enumerate(game.seats):
                if engine == name:
                    points[name] = points.get(name, 0.0) + (game.points(seat) or 0.0)
                    possible[name] = possible.get(name, 0.0) + game.max_points
            history.setdefault(name, []).append((played, points[name] / possible[name] if possible[name] else 0.5))
    return tuple(ChartLine(name, thin_points(line, limit)) for name, line in history.items())


def thin_points(points: list[tuple[int, float]], limit: int) -> tuple[tuple[int, float], ...]:
    """At most ``limit`` points, evenly spaced, the first and last kept."""
    if len(points) <= limit:
        return tuple(points)
    step = (len(points) - 1) / (limit - 1)
    return tuple(points[round(k * step)] for k in range(limit))


def config_info(config: TournamentConfig, folder: str = "") -> ReportInfo:
    """A tournament's report head, from its settings; titled by its event and its ``folder``'s
    name (the date and time of a default folder), which tell two tournaments' reports apart."""
    settings = config.settings
    return ReportInfo(
        title=f"{settings.event} ({folder})" if folder else settings.event,
        engines=tuple(spec.name for spec in config.specs), seats=config.players,
        time_control=str(config.tc), gods=settings.gods, planned=len(config.schedule),
    )


MAX_NUMBER = 100_000_000
"""The largest ``GameNumber`` a report numbers its games by (a bit each while a file is read)."""
MAX_DISTINCT = 1000
"""Distinct time controls or matchups a report head counts (beyond: "more than")."""


class RecordsHead:
    """The report head of games read from a file with no tournament settings beside it, gathered
    one game at a time (a file of any length is read as a stream, never held): titled by their
    ``Event`` tag when they share one, the engines in order of first appearance, the time
    controls and gods the records state; and how to number the games: by their ``GameNumber``
    when every game has a distinct one (a tournament's), else by their place in the file."""

    def __init__(self) -> None:
        self.count = 0
        self._seats: set[int] = set()
        self._engines: dict[str, None] = {}
        self._controls: dict[str, None] = {}
        self._gods: dict[str, None] = {}
        self._events: set[str | None] = set()
        self._seen = bytearray()  # a bit per GameNumber met
        self._distinct = True

    def add(self, record: GameRecord) -> None:
        self.count += 1
        self._seats.add(record.nseats)
        if len(self._engines) <= MAX_DISTINCT:
            self._engines.update(dict.fromkeys(record.players))
        if len(self._controls) <= MAX_DISTINCT:
            self._controls.setdefault(record.tag("TimeControl") or "?")
        if len(self._gods) <= MAX_DISTINCT:
            self._gods.setdefault("/".join(record.gods))
        if len(self._events) <= 1:
            self._events.add(record.tag("Event"))
        number = record.game_number
        if not self._distinct:
            return
        if number is None or not 1 <= number <= MAX_NUMBER:
            self._distinct = False
            return
        byte, bit = divmod(number, 8)
        if byte >= len(self._seen):
            self._seen.extend(bytes(byte + 1 - len(self._seen)))
        if self._seen[byte] >> bit & 1:
            self._distinct = False
        self._seen[byte] |= 1 << bit

    def number(self, record: GameRecord, place: int) -> int:
        """The number of the game at 1-based ``place`` in the file (once every game is added)."""
        if self._distinct and record.game_number is not None:
            return record.game_number
        return place

    def info(self, name: str) -> ReportInfo:
        """The head (``name``: the title when the games do not share an ``Event``).

        Raises:
            ValueError: no games, or games of different seat counts (their standings differ in kind).
        """
        if not self.count:
            raise ValueError("no games to report")
        if len(self._seats) > 1:
            raise ValueError(f"the games have {' and '.join(map(str, sorted(self._seats)))} seats: report each kind separately")
        controls, gods = list(self._controls), list(self._gods)
        title = next(iter(self._events)) if len(self._events) == 1 else None

        def many(n: int, what: str) -> str:
            return f"more than {MAX_DISTINCT:,} {what}" if n > MAX_DISTINCT else f"{n} {what}"

        return ReportInfo(
            title=title or name, engines=tuple(self._engines), seats=next(iter(self._seats)),
            time_control=", ".join(controls) if len(controls) <= 3 else many(len(controls), "different"),
            gods=", ".join(gods) if len(gods) <= 3 else many(len(gods), "matchups"),
        )
