"""What a tournament's ``report.html`` shows, as plain data: no files, no HTML, no clock.

Theory of operation.  The report is a function of the finished games' records (and, for a
tournament, its settings), kept as counters so that its cost does not grow with the games: the
standings come from the same :class:`~santorini_server.stats.standings.Standings` that the
tournament prints, fed by :func:`~santorini_server.tournament.scoring.count_game` (never a
second way of counting); the chart (:class:`ScoreChart`) follows each engine's score game by
game in the order the games were recorded, thinned as it grows; the losses table is
:func:`scoring.loss_rows`; the terminations are counted.

Games are viewed in viewer files of :data:`BLOCK_SIZE` schedule numbers each
(``games/0001-0100.html`` holds games 1-100).  The report lists each block's games from a
small script beside its viewer file (``games/0001-0100.js``, :func:`block_script`), loaded
when the list shows that block, so ``report.html`` itself holds one entry per block, not per
game; a link opens the block's viewer file on its game (``#game=K``, K counting the block's
recorded games from 1 in schedule order).  ``report_page`` renders this data; ``report_files``
writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    "BlockEntry",
    "ChartLine",
    "GameSummary",
    "ReportData",
    "ReportInfo",
    "Table",
    "block_of",
    "ScoreChart",
    "block_script",
    "build_report",
    "config_info",
    "read_block_script",
    "report_data",
    "RecordsHead",
    "MAX_NUMBER",
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
class ReportData:
    """Everything ``report.html`` shows.  ``crosstable`` is None for three and four seats (ranked
    by placings, with no pairwise results); ``blocks``: each viewer file with its games' count,
    in order (the list loads a block's rows from its script when it shows it)."""

    info: ReportInfo
    played: int
    standings: Table
    crosstable: Table | None
    chart: tuple[ChartLine, ...]
    losses: Table
    terminations: tuple[tuple[str, int], ...]
    blocks: tuple[tuple[Block, int], ...]
    block_size: int = BLOCK_SIZE
    gods: tuple[tuple[str, Table], ...] = ()
    """The god statistics (SPEC.md section 19.6) as titled tables: empty with no scored game."""


def report_data(
    info: ReportInfo,
    standings: Standings,
    chart: tuple[ChartLine, ...],
    terminations: Mapping[str, int],
    blocks: Mapping[int, int],
    *,
    block_size: int = BLOCK_SIZE,
    gods: GodStats | None = None,
) -> ReportData:
    """The report of what the counters say: ``blocks`` maps a block's first number to its games,
    ``gods`` counts them by gods."""
    names = list(standings.engines)
    order = [t.value for t in Termination]
    return ReportData(
        info=info,
        played=sum(blocks.values()),
        standings=_standings_table(standings),
        crosstable=_crosstable(standings) if standings.seats == 2 else None,
        chart=chart,
        losses=_losses_table(standings, names),
        terminations=tuple(sorted(terminations.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))),
        blocks=tuple((block_of(first, block_size), count) for first, count in sorted(blocks.items())),
        block_size=block_size,
        gods=god_tables(gods) if gods is not None else (),
    )


def build_report(
    info: ReportInfo,
    games: Sequence[tuple[int, GameRecord]],
    *,
    standings: Standings | None = None,
    block_size: int = BLOCK_SIZE,
) -> ReportData:
    """The report of ``games``, each record with its schedule number, counted here in number
    order (the tournament's report counts as games are recorded: :class:`~.report_files.ReportWriter`).

    ``standings``: the standings those games were counted into; None counts them here, with the
    engines of ``info`` listed first.
    """
    games = sorted(games, key=lambda game: game[0])
    if standings is None:
        standings = empty_standings(info.seats, info.engines)
        for number, record in games:
            count_game(standings, record, number)
    chart = ScoreChart(standings.engines)
    terminations: dict[str, int] = {}
    blocks: dict[int, int] = {}
    for number, record in games:
        chart.add(record.players, record.placings)
        terminations[record.termination] = terminations.get(record.termination, 0) + 1
        first = block_of(number, block_size).first
        blocks[first] = blocks.get(first, 0) + 1
    return report_data(info, standings, chart.lines(), terminations, blocks, block_size=block_size,
                       gods=god_stats_of(record for _, record in games))


def god_stats_of(games: Iterable[GameRecord]) -> GodStats:
    """The god statistics of ``games``."""
    stats = GodStats()
    for game in games:
        stats.add(game.gods, game.placings)
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


class ScoreChart:
    """Each engine's score (0..1) after each of its scored games, the points its seats scored
    over what they could score (:attr:`EngineTally.score`, so a line ends at the score of the
    standings' table), against the games recorded so far: in bounded memory, however many games.

    A line keeps every ``stride``-th point (and its last); once it holds twice ``limit`` points,
    every other one is dropped and the stride doubles, so what :meth:`lines` thins to ``limit``
    is spread over the whole run.
    """

    def __init__(self, engines: Sequence[str] = (), limit: int = CHART_POINTS) -> None:
        self.limit = limit
        self.played = 0
        self._lines: dict[str, list[Any]] = {}  # name -> [points, possible, count, stride, kept, last]
        for name in engines:
            self._line(name)

    def _line(self, name: str) -> list[Any]:
        line = self._lines.get(name)
        if line is None:
            line = self._lines[name] = [0.0, 0.0, 0, 1, [], None]
        return line

    def add(self, seats: Sequence[str], placings: Sequence[int] | None) -> None:
        """A game recorded: its engine per seat and its placings (None: not scored)."""
        self.played += 1
        if placings is None:
            return
        game = NSeatGame(self.played, tuple(seats), tuple(placings))
        for name in dict.fromkeys(game.seats):
            line = self._line(name)
            for seat, engine in enumerate(game.seats):
                if engine == name:
                    line[0] += game.points(seat) or 0.0
                    line[1] += game.max_points
            point = (self.played, line[0] / line[1] if line[1] else 0.5)
            if line[2] % line[3] == 0:
                line[4].append(point)
                if len(line[4]) > 2 * self.limit:
                    del line[4][1::2]
                    line[3] *= 2
            line[2] += 1
            line[5] = point

    def lines(self) -> tuple[ChartLine, ...]:
        """A line per engine (those named first, then as met), thinned to ``limit`` points."""
        result = []
        for name, (_, _, _, _, kept, last) in self._lines.items():
            points = list(kept)
            if last is not None and (not points or points[-1] != last):
                points.append(last)
            result.append(ChartLine(name, thin_points(points, self.limit)))
        return tuple(result)

    def state(self) -> list[Any]:
        """Plain data (msgpack-able) that :meth:`from_state` makes the same chart of."""
        return [self.limit, self.played, [[name, *line[:4], [list(p) for p in line[4]], line[5] and list(line[5])]
                                          for name, line in self._lines.items()]]

    @classmethod
    def from_state(cls, state: Sequence[Any]) -> ScoreChart:
        """The chart :meth:`state` describes.

        Raises:
            ValueError: ``state`` is not such a description.
        """
        try:
            limit, played, lines = state
            chart = cls((), int(limit))
            chart.played = int(played)
            for name, points, possible, count, stride, kept, last in lines:
                chart._lines[str(name)] = [float(points), float(possible), int(count), int(stride),
                                           [(int(x), float(y)) for x, y in kept],
                                           None if last is None else (int(last[0]), float(last[1]))]
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a chart state: {exc}") from None
        return chart


def score_history(
    engines: Sequence[str], games: Iterable[NSeatGame], limit: int = CHART_POINTS
) -> tuple[ChartLine, ...]:
    """The :class:`ScoreChart` of ``games`` (in order): a line per engine of ``engines``, then of the games."""
    chart = ScoreChart(engines, limit)
    for game in games:
        chart.add(game.seats, game.placings)
    return chart.lines()


def thin_points(points: list[tuple[int, float]], limit: int) -> tuple[tuple[int, float], ...]:
    """At most ``limit`` points, evenly spaced, the first and last kept."""
    if len(points) <= limit:
        return tuple(points)
    step = (len(points) - 1) / (limit - 1)
    return tuple(points[round(k * step)] for k in range(limit))


@dataclass(frozen=True, slots=True)
class BlockEntry:
    """A game of a block as its script lists it: its row, and where its record is (its frame's
    offset in the archive)."""

    number: int
    players: str
    gods: str
    result: str
    termination: str
    turns: int
    where: int


BLOCK_CALL = "reportBlock("


def block_script(block: Block, entries: Sequence[BlockEntry]) -> str:
    """The script beside a block's viewer file: ``reportBlock({...});`` with the block's games in
    number order as ``[number, players, gods, result, termination, turns, offset]`` (text fields
    index ``strings``), safe in any HTML context (``<``, ``>`` and ``&`` are JSON escapes).  The
    K-th entry is ``#game=K`` in the viewer file."""
    strings: dict[str, int] = {}

    def ref(text: str) -> int:
        return strings.setdefault(text, len(strings))

    rows = [[e.number, ref(e.players), ref(e.gods), ref(e.result), ref(e.termination), e.turns, e.where]
            for e in sorted(entries, key=lambda e: e.number)]
    text = json.dumps({"first": block.first, "last": block.last, "strings": list(strings), "games": rows},
                      separators=(",", ":"), ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"{BLOCK_CALL}{text});\n"


def read_block_script(text: str, block: Block) -> list[BlockEntry]:
    """The entries of a block's script (:func:`block_script`).

    Raises:
        ValueError: it is not the script of ``block``.
    """
    if not text.startswith(BLOCK_CALL) or not text.endswith(");\n"):
        raise ValueError("not a block script")
    try:
        data = json.loads(text[len(BLOCK_CALL):-3])
        if (data["first"], data["last"]) != (block.first, block.last):
            raise ValueError(f"the script of games {data['first']}-{data['last']}")
        strings = data["strings"]
        return [BlockEntry(int(n), strings[p], strings[g], strings[r], strings[t], int(turns), int(where))
                for n, p, g, r, t, turns, where in data["games"]]
    except (KeyError, TypeError, IndexError, json.JSONDecodeError) as exc:
        raise ValueError(f"damaged block script: {exc}") from None


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
