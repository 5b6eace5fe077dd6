"""``santorini analyse``: every turn of recorded games scored by an engine, the records annotated.

The games are analysed by :func:`santorini_server.engine.analyse.analyse_record` through the
public engine API, one engine per process: in this process with ``--jobs 1``, else in ``--jobs``
worker processes, each holding one engine for all its games.  Results are written to ``--out`` in
the order of the selection as they complete (a game is durable before the next is counted), so
after Ctrl-C (or a crash) the output holds the finished games and the same command continues
after them.  Progress with an ETA goes to stderr, the summary table to stdout.
"""

from __future__ import annotations

import collections
import multiprocessing.util
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import click

from ..engine import EngineError, Limit, SimpleEngine
from ..engine.analyse import analyse_record, annotate
from ..records import ArchiveError, ArchiveWriter, GameRecord, RecordError, SgnWriter, TurnRecord, format_of_name
from ..records.analysis import ANALYSIS_TAG, DEFAULT_SCALE, MARK_GLYPHS, accuracy_tag, parse_annotation
from ..referee.engine_spec import EngineSpec
from .interrupt import INTERRUPTED_STATUS
from .options import ENGINE
from .output_files import same_file
from .replay_cmd import _read_all

__all__ = ["analyse"]


# --- one engine per process ------------------------------------------------------------------------

_WORKER: tuple[SimpleEngine, Limit, float] | None = None


def _start_worker(spec: EngineSpec, limit: Limit, scale: float) -> None:
    """Pool initializer: the worker's engine, closed when the worker exits."""
    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C once
    engine = SimpleEngine.popen(spec)
    _WORKER = (engine, limit, scale)
    multiprocessing.util.Finalize(None, engine.quit, exitpriority=10)


def _analyse_in_worker(record: GameRecord, number: int) -> GameRecord:
    assert _WORKER is not None
    engine, limit, scale = _WORKER
    return _analysed(engine, record, number, limit, scale)


class _GameFailed(Exception):
    """One line: which game could not be analysed and why (crosses the process boundary)."""


def _analysed(engine: SimpleEngine, record: GameRecord, number: int, limit: Limit, scale: float) -> GameRecord:
    try:
        analysis = analyse_record(engine, record, limit, scale=scale)
    except ValueError as exc:
        raise _GameFailed(f"game {number} cannot be analysed: {exc}") from None
    except EngineError as exc:
        tail = exc.stderr_tail.strip().splitlines()
        said = f" (its stderr ends: {tail[-1]!r})" if tail else ""
        raise _GameFailed(f"game {number}: {engine.name} failed: {exc}{said}") from None
    return annotate(record, analysis, engine.name, limit, scale)


def _results(
    games: list[tuple[int, GameRecord]], spec: EngineSpec, limit: Limit, scale: float, jobs: int
) -> Iterator[GameRecord]:
    """The annotated games in selection order, analysed in this process or in ``jobs`` workers."""
    if jobs == 1:
        engine = _start_engine(spec)
        try:
            for number, record in games:
                yield _analysed(engine, record, number, limit, scale)
        finally:
            engine.quit()
        return
    _start_engine(spec).quit()  # a spec that cannot start fails here, in one line, not in every worker
    with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(spec, limit, scale)) as pool:
        pending: collections.deque[Future[GameRecord]] = collections.deque()
        todo = iter(games)
        try:
            for number, record in todo:
                pending.append(pool.submit(_analyse_in_worker, record, number))
                if len(pending) >= 2 * jobs:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def _start_engine(spec: EngineSpec) -> SimpleEngine:
    try:
        return SimpleEngine.popen(spec)
    except EngineError as exc:
        raise click.ClickException(f"{spec.name} could not be started: {exc}") from None


# --- resuming -------------------------------------------------------------------------------------


def _bare(record: GameRecord) -> tuple[object, ...]:
    """A game as it was played: the tags an analysis does not add, and the turns."""
    ours = {ANALYSIS_TAG, *(accuracy_tag(s) for s in range(1, 5))}
    return tuple(t for t in record.tags if t[0] not in ours), tuple(t.turn for t in record.turns)


def _done_before(out: Path, games: list[tuple[int, GameRecord]]) -> list[GameRecord]:
    """The games ``out`` already holds, checked to be the first of ``games`` analysed."""
    if not out.exists() or out.stat().st_size == 0:
        return []
    done = _read_all(out)
    for k, record in enumerate(done):
        if k >= len(games) or _bare(record) != _bare(games[k][1]):
            wanted = f"game {games[k][0]}" if k < len(games) else "no more games"
            raise click.ClickException(
                f"{out} holds games that are not this analysis's (its game {k + 1} is not {wanted} of the input "
                "analysed): name another --out, or remove it to start again"
            )
        if record.tag(ANALYSIS_TAG) is None:
            raise click.ClickException(f"{out}: its game {k + 1} is not analysed; name another --out")
    return done


# --- progress and summary --------------------------------------------------------------------------


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class _Progress:
    """``analysed 12/1000 games (3 resumed), 2.1 s/game, ETA 0:34:10`` on stderr: redrawn on a
    terminal, a line every few seconds otherwise."""

    def __init__(self, total: int, resumed: int) -> None:
        self.total, self.done, self.resumed = total, resumed, resumed
        self.started = time.monotonic()
        self.shown = 0.0
        self.tty = sys.stderr.isatty()

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if not self.tty and now - self.shown < 5 and self.done < self.total:
            return
        self.shown = now
        fresh = self.done - self.resumed
        per = (now - self.started) / fresh
        left = (self.total - self.done) * per
        line = (f"analysed {self.done}/{self.total} games"
                + (f" ({self.resumed} resumed)" if self.resumed else "")
                + f", {per:.2f} s/game, ETA {_clock(left)}")
        click.echo(f"\r{line}\033[K" if self.tty else line, err=True, nl=not self.tty)

    def end(self) -> None:
        if self.tty and self.done > self.resumed:
            click.echo("", err=True)


def _summary(records: list[tuple[int, GameRecord]]) -> list[str]:
    """The table: one row per game and seat (accuracy, marks), then each player's mean accuracy."""
    rows = [f"{'game':>5}  {'seat':>4}  {'player':<20} {'accuracy':>8}  {'?!':>3} {'?':>3} {'??':>3}"]
    per_player: dict[str, list[float]] = collections.defaultdict(list)
    for number, record in records:
        counts = [collections.Counter[str]() for _ in record.players]
        seat_of = [s.seat for s in record.slots() if isinstance(s.item, TurnRecord)]
        for seat, turn in zip(seat_of, record.turns, strict=False):
            _rest, a = parse_annotation(turn.comment)
            if a is not None and a.mark is not None:
                counts[seat - 1][a.mark] += 1
        for seat, player in enumerate(record.players, 1):
            acc = record.tag(accuracy_tag(seat))
            if acc is not None:
                per_player[player].append(float(acc))
            c = counts[seat - 1]
            marks = " ".join(f"{c[m]:>3}" for m in MARK_GLYPHS)
            rows.append(f"{number:>5}  {seat:>4}  {player[:20]:<20} {acc or '-':>8}  {marks}")
    rows.append("")
    rows.append(f"{'player':<20} {'games':>5} {'accuracy':>8}")
    for player, accs in sorted(per_player.items()):
        rows.append(f"{player[:20]:<20} {len(accs):>5} {sum(accs) / len(accs):>8.1f}")
    return rows


# --- the command ------------------------------------------------------------------------------------


def _limit(depth: int | None, nodes: int | None, movetime: int | None) -> Limit:
    given = [name for name, v in (("--depth", depth), ("--nodes", nodes), ("--movetime", movetime)) if v is not None]
    if len(given) > 1:
        raise click.UsageError(f"give one limit, not {' and '.join(given)}")
    if not given:
        return Limit(depth=3)
    return Limit(depth=depth, nodes=nodes, time=None if movetime is None else movetime / 1000)


@click.command()
@click.argument("file", type=click.Path(dir_okay=True, path_type=Path))
@click.option("--game", "-g", "numbers", type=click.IntRange(min=1), multiple=True,
              help="Analyse game N of FILE (repeatable; default: every game).")
@click.option("--engine", "-e", "spec", type=ENGINE, required=True,
              help="The engine that judges: a bundled name or a quoted engine spec (as match takes).")
@click.option("--depth", type=click.IntRange(min=1), help="Search each position to this depth, in turns (default 3).")
@click.option("--nodes", type=click.IntRange(min=1), help="Search each position this many nodes.")
@click.option("--movetime", type=click.IntRange(min=1), help="Search each position this many milliseconds.")
@click.option("--scale", type=click.FloatRange(min=1), default=DEFAULT_SCALE, show_default=True,
              help="Engine units per e-fold of the win odds (how a score becomes a win probability).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Worker processes, one engine each.")
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The annotated games (.sgn or .msgpack); if it holds some already, they are kept and skipped.")
def analyse(
    file: Path, numbers: tuple[int, ...], spec: EngineSpec, depth: int | None, nodes: int | None,
    movetime: int | None, scale: float, jobs: int, out: Path,
) -> None:
    """Score every turn of the games in FILE with an engine and write them annotated to OUT.

    Each turn gets the engine's score before and after it (from the mover's side), the engine's
    best turn, the win probability lost and a mark (?! inaccuracy, ? mistake, ?? blunder); each
    player an accuracy.  `replay` and `replay --html` show them.  Interrupted (Ctrl-C), the same
    command continues where it stopped.

    \b
    Example:
      santorini analyse games.sgn --engine alphabeta --depth 3 --jobs 2 --out analysed.sgn
    """
    limit = _limit(depth, nodes, movetime)
    if same_file(out, file):
        raise click.ClickException(f"{out} is the input file: write the analysis to another file")
    records = _read_all(file)
    for n in numbers:
        if n > len(records):
            raise click.ClickException(f"no game {n}: {file} holds {len(records)} game{'s' if len(records) != 1 else ''}")
    games = [(n, records[n - 1]) for n in numbers] if numbers else list(enumerate(records, 1))
    try:
        writer: SgnWriter | ArchiveWriter = ArchiveWriter(out) if format_of_name(out) == "msgpack" else SgnWriter(out)
    except (OSError, RecordError, ArchiveError) as exc:
        raise click.ClickException(f"cannot append to {out}: {getattr(exc, 'strerror', None) or exc}") from None
    written: list[tuple[int, GameRecord]] = []
    try:
        done = _done_before(out, games)
        written = [(games[k][0], record) for k, record in enumerate(done)]
        progress = _Progress(len(games), len(done))
        if done:
            click.echo(f"{out} holds {len(done)} of the {len(games)} games analysed already: "
                       + ("nothing left to do" if len(done) == len(games) else "continuing after them"), err=True)
        try:
            for k, annotated in enumerate(_results(games[len(done):], spec, limit, scale, jobs), len(done)):
                writer.append(annotated)
                written.append((games[k][0], annotated))
                progress.step()
        except _GameFailed as exc:
            progress.end()
            raise click.ClickException(str(exc)) from None
        except BrokenProcessPool as exc:
            progress.end()
            raise click.ClickException(f"a worker process ended unexpectedly: {exc}") from None
        except KeyboardInterrupt:
            progress.end()
            click.echo(f"interrupted: {len(written)} of {len(games)} games are in {out}; "
                       "run the same command again to continue", err=True)
            sys.exit(INTERRUPTED_STATUS)
        progress.end()
    finally:
        writer.close()
    for row in _summary(written):
        click.echo(row)
