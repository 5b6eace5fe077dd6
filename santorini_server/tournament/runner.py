"""Run a tournament: games in parallel, records written as each game ends, live standings.

Theory of operation.  One feeder task hands scheduled games to ``concurrency`` worker tasks
over an unbuffered channel (a worker takes the next game only when it is free, so games start
in schedule order).  Each worker owns the engines it plays with (started in its own nursery,
reused across games, restarted when broken) and sends each finished game to the collector, the
main task, which alone writes files and standings: a game is appended to the archive (fsync'd)
before it is counted or printed.  Ctrl-C, SIGTERM or a decided SPRT cancel the workers; a game
in progress is then not recorded (``--resume`` plays it again) and every engine is shut down
through the process layer's bounded quit / SIGTERM / SIGKILL sequence.

Three and four seats: a game has an engine process per seat (a team of one engine runs two),
so a worker keeps up to one engine per seat; the standings and the lines printed are derived
from the records alone (``scoring``), whichever backend played the game.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import trio

from ..adjudicator import GameSetup, TimeControl
from ..records import CorruptFrame, GameRecord
from ..referee.engine import Engine, EngineFailure, IoLog
from ..referee.engine_spec import EngineSpec
from ..referee.progress import GameSink
from ..referee.slots import ENGINES_PER_WORKER, EnginePool
from ..referee.sources import EngineSource, PoolSource, play
from ..stats.sprt import SprtStatus, format_sprt_result, llr_pentanomial, sprt_status
from ..stats.standings import Standings
from .config import TournamentConfig
from .output import TournamentFiles
from .report_files import ReportWriter
from .schedule import Games, ScheduledGame
from .scoring import LOSS_COLUMNS, count_game, match_details, new_standings, standings_block, termination_table, versus
from .sinks import Changes, Derived, keep_written, write_all
from .standings_file import DoneGames, SnapshotError, SnapshotKeeper, StandingsFile

if TYPE_CHECKING:
    from ..stats.nseat_standings import NSeatStandings

__all__ = [
    "run_tournament", "TournamentResult", "Interrupted", "Backend", "LocalBackend", "Observe", "Sources", "LostGame",
    "game_setup", "seated_specs", "seat_refusals", "standings_block", "termination_table", "LOSS_COLUMNS",
]

class Interrupted(Exception):
    """Ctrl-C or SIGTERM: the tournament stopped early; finished games are saved."""

    def __init__(self, signame: str) -> None:
        super().__init__(signame)
        self.signame = signame


@dataclass
class TournamentResult:
    standings: Standings | NSeatStandings
    played: int = 0
    resumed: int = 0
    total: int = 0
    sprt: SprtStatus | None = None
    complete: bool = False
    lost: list[LostGame] = field(default_factory=list)


class Backend(Protocol):
    """Where games are played (the seam between the tournament and its executors).

    ``play`` plays every game of ``games`` and sends each finished game's record to ``results``
    (any order), calling ``started`` as each game begins; it returns when all are done or when
    cancelled.  A game it cannot play at all (its worker died too often) is sent as a
    :class:`LostGame`, which the tournament reports and does not count.
    """

    async def play(
        self,
        games: Games,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None: ...


@dataclass(frozen=True)
class LostGame:
    """An infrastructure failure: the game could not be played (not a result)."""

    game: ScheduledGame
    reason: str


class Plan(Protocol):
    """What playing a scheduled game needs to know of its run (a tournament's config, a match's)."""

    @property
    def specs(self) -> tuple[EngineSpec, ...]: ...
    @property
    def tc(self) -> TimeControl: ...
    @property
    def players(self) -> int: ...
    @property
    def concurrency(self) -> int: ...
    @property
    def ping(self) -> bool: ...
    @property
    def event(self) -> str: ...


def seated_specs(config: Plan, game: ScheduledGame) -> tuple[EngineSpec, ...]:
    """The engine spec of each seat of ``game``, in seat order."""
    return tuple(config.specs[i] for i in game.seats)


def game_setup(config: Plan, game: ScheduledGame) -> GameSetup:
    """The setup of a scheduled game (every backend plays it the same way)."""
    return GameSetup.for_specs(
        seated_specs(config, game),
        config.tc,
        gods=game.gods,
        opening=game.opening,
        ping=config.ping,
        event=config.event,
        round=str(game.round),
        game_number=game.number,
    )


async def seat_refusals(specs: tuple[EngineSpec, ...], seats: int, io_log: IoLog | None = None) -> list[str]:
    """Start each engine once, read its handshake, and return one line for each that did not
    declare ``seats``-seat games (``feature players``) or could not be started: checked before
    any game of a three- or four-seat tournament starts (SPEC.md section 10.1)."""
    lines: dict[int, str] = {}

    async def check(i: int, spec: EngineSpec, nursery: trio.Nursery) -> None:
        try:
            engine = await Engine.start(nursery, spec, io_log=io_log)
        except EngineFailure as exc:
            lines[i] = exc.detail if spec.name in exc.detail else f"{spec.name}: {exc.detail}"
            return
        try:
            refusal = engine.seats_refusal(seats)
            if refusal is not None:
                lines[i] = refusal
        finally:
            await engine.aclose()

    async with trio.open_nursery() as engines, trio.open_nursery() as checks:
        for i, spec in enumerate(specs):
            checks.start_soon(check, i, spec, engines)
    return [lines[i] for i in sorted(lines)]


Observe = Callable[[ScheduledGame], GameSink]
"""Where each game's progress goes as it is played (the server's live dashboard)."""
Sources = Callable[[EnginePool], EngineSource]
"""A worker's engine source, made from the worker's own pool of engine processes: the pool
itself (:class:`~..referee.sources.PoolSource`), or the server's remote bots in front of it."""
Prepare = Callable[[EngineSource], Awaitable[None]]
"""Called by each worker before its first game with its source (``match`` starts and checks its
engines there: an :class:`~..referee.engine.EngineFailure` raised stops the run, nothing played)."""


class LocalBackend:
    """Games in this trio process: ``concurrency`` workers, each with its own pool of engines
    (kept between games) and its engine source; with ``observe``, each game's progress is told
    to an observer as it is ruled."""

    def __init__(
        self,
        config: Plan,
        io_log: Callable[[str, str, str], None] | None = None,
        sources: Sources = PoolSource,
        observe: Observe | None = None,
        prepare: Prepare | None = None,
        stop: trio.Event | None = None,
    ) -> None:
        self.config = config
        self.stop = stop
        """Once set, no game is handed out (the server's drain); games in progress go on."""
        self.io_log = io_log
        self.sources = sources
        self.observe = observe
        self.prepare = prepare

    async def play(
        self,
        games: Iterable[ScheduledGame],
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None:
        """Play ``games``, taken one at a time as a worker is free (so a lazy schedule stays lazy)."""
        stop = self.stop
        async with trio.open_nursery() as nursery:
            games_send, games_recv = trio.open_memory_channel[ScheduledGame](0)

            async def feeder() -> None:
                async with games_send:
                    for game in games:
                        if stop is not None and stop.is_set():
                            return
                        await games_send.send(game)

            async def feed() -> None:
                async with trio.open_nursery() as inner:
                    if stop is not None:
                        inner.start_soon(_cancel_on, stop, inner.cancel_scope)
                    await feeder()
                    inner.cancel_scope.cancel()

            nursery.start_soon(feed)
            await self.serve(games_recv, results, started, self.config.concurrency)

    async def serve(
        self,
        games: trio.MemoryReceiveChannel[ScheduledGame],
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
        workers: int,
    ) -> None:
        """Play games from ``games`` with ``workers`` parallel workers until it is closed."""
        config = self.config

        async def worker(
            recv: trio.MemoryReceiveChannel[ScheduledGame], send: trio.MemorySendChannel[GameRecord | LostGame]
        ) -> None:
            async with recv, send, trio.open_nursery() as engine_nursery:
                pool = EnginePool(engine_nursery, self.io_log, capacity=max(ENGINES_PER_WORKER, config.players))
                source = self.sources(pool)
                try:
                    if self.prepare is not None:
                        await self.prepare(source)
                    async for game in recv:
                        started(game)
                        watch = self.observe(game) if self.observe is not None else None
                        report = await play(source, seated_specs(config, game), game_setup(config, game), watch=watch)
                        await send.send(report.record)
                finally:
                    await pool.aclose()

        async with trio.open_nursery() as nursery, results, games:
            for _ in range(max(1, workers)):
                nursery.start_soon(worker, games.clone(), results.clone())


async def _cancel_on(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def _resume(
    config: TournamentConfig, files: TournamentFiles, report: ReportWriter | None, emit: Callable[[str], None]
) -> tuple[TournamentResult, DoneGames, list[Derived], list[CorruptFrame]]:
    """Open ``files`` and take up what is recorded: the standings and the games done from the
    snapshot (``standings.msgpack``) and the report's state, then the archive's games after
    them, read as a stream (every game when there is no usable snapshot).  Returns the result
    so far, the games done, the derived sinks, and the damaged regions of the archive."""
    total = len(config.schedule)
    standings, done, since, last = new_standings(config), DoneGames(total), 0, None
    regions: tuple[CorruptFrame, ...] = ()
    damaged = 0
    try:
        snapshot = StandingsFile(files.directory, config).load()
    except SnapshotError as exc:
        emit(f"Note: counting the archive again: {exc}")
        snapshot = None
    if snapshot is not None and snapshot.done:
        standings, done, since, last = snapshot.standings, DoneGames(total, snapshot.done), snapshot.offset, snapshot.last
        regions, damaged = snapshot.regions, snapshot.damaged
    report_since = since
    if report is not None:
        report.share_standings(standings)  # counted once, below, for both
        report_since = report.restore()
    seen = [last]

    def resumed(record: GameRecord, start: int, end: int) -> None:  # each game already recorded, streamed
        number = record.game_number
        seen[0] = number
        if start >= since:
            if number is None or number in done or number > total:
                return
            done.add(number)
            count_game(standings, record, number)
        elif number is None or number not in done:
            return
        if report is not None and start >= report_since:
            report.add(record, number, start, end, listed=report.known(number, start))
            report.settle()

    tail = files.resume(resumed, since=min(since, report_since), since_last=last if since <= report_since else None)
    damage = [*regions, *tail]
    keeper = SnapshotKeeper(files.directory, config, standings, damage, files.end, warn=emit, done=done, last=seen[0],
                            damaged=damaged + sum(not d.truncated for d in tail))
    derived: list[Derived] = [keeper] if report is None else [keeper, report]
    result = TournamentResult(standings, total=total)
    result.resumed = len(done)
    return result, done, derived, damage


ANNOUNCED_BACKLOG = 10
"""Blocks of viewer files left at a run's end from which their writing is announced (a run of
instant engines can leave thousands: minutes of writing, which Ctrl-C may stop)."""


async def run_tournament(
    config: TournamentConfig,
    files: TournamentFiles,
    *,
    backend: Backend | None = None,
    emit: Callable[[str], None] = print,
    progress: Callable[[int, int, float], None] | None = None,
    io_log: Callable[[str, str, str], None] | None = None,
    report: ReportWriter | None = None,
    signals: bool = True,
) -> TournamentResult:
    """Play every scheduled game not yet in ``files``; print cutechess-style lines via ``emit``.

    The collector (this task) alone writes files and standings, whatever the backend: each game
    is appended to the archive (then the SGN and JSON Lines files), counted, then handed to the
    derived sinks (:mod:`.sinks`): ``standings.msgpack``, the standings with the archive offset
    they counted to (:mod:`.standings_file`), and with ``report``, ``report.html`` and its
    viewer files (every game, the resumed ones too), each written when due in a worker thread,
    and at the end or on Ctrl-C.
    ``signals=False`` leaves SIGINT/SIGTERM to the caller (the server drains its runs itself).

    Raises:
        Interrupted: on SIGINT/SIGTERM, after saving what finished and stopping every engine.
    """
    backend = backend or LocalBackend(config, io_log)
    names = [s.name for s in config.specs]
    result, done, derived, files_damage = _resume(config, files, report, emit)
    standings = result.standings
    for frame in files_damage:
        emit(f"Warning: {files.directory / 'games.msgpack'}: skipped damaged bytes at {frame.offset}: {frame.reason}")
    todo = config.schedule.games_from(done)
    if result.resumed:
        emit(f"Resuming: {result.resumed} of {result.total} games already played")
    stop_reason: list[str] = []
    started_at = time.monotonic()
    interval = config.settings.rating_interval
    sprt_counted: tuple[int, int, int, int, int] | None = None  # the pentanomial counts the SPRT's status is of
    status = SprtStatus.CONTINUE

    def started(game: ScheduledGame) -> None:
        emit(f"Started game {game.number} of {result.total} ({versus(tuple(names[i] for i in game.seats))})")

    async def watch_signals(scope: trio.CancelScope, reasons: list[str]) -> None:
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as received:
            async for signum in received:
                reasons.append(signal.Signals(signum).name)
                scope.cancel()
                return

    async with trio.open_nursery() as nursery:
        if signals:
            nursery.start_soon(watch_signals, nursery.cancel_scope, stop_reason)
        changes = Changes()
        nursery.start_soon(keep_written, derived, changes)  # the report and the snapshot, off the collector
        # unbuffered: a finished game is either in the collector's hands (and then written, since
        # the write runs in an uncancellable thread) or still with its worker; never lost between
        results_send, results_recv = trio.open_memory_channel[GameRecord | LostGame](0)
        nursery.start_soon(backend.play, todo, results_send, started)
        async with results_recv:
            async for item in results_recv:
                if isinstance(item, LostGame):
                    result.lost.append(item)
                    emit(f"Lost game {item.game.number} (not counted; --resume plays it again): {item.reason}")
                    continue
                record = item
                number = record.game_number
                if number is None or number not in config.schedule.numbers or number in done:
                    emit(f"Warning: ignoring a record for game {number!r}: not in the schedule or already recorded")
                    continue
                game = config.schedule.game(number)
                # the write cannot be cancelled (a thread); shielded, a Ctrl-C that arrives during
                # it does not skip the bookkeeping and the Finished line below either, so what is
                # printed and what is on disk agree
                with trio.CancelScope(shield=True):
                    offset = await files.append(record)
                done.add(number)
                result.played += 1
                outcome = count_game(standings, record, number)
                seated = tuple(names[i] for i in game.seats)
                emit(f"Finished game {number} ({versus(seated)}): {outcome.result} {{{outcome.reason(seated)}}}")
                if progress is not None:
                    progress(len(done), result.total, time.monotonic() - started_at)
                for sink in derived:
                    sink.recorded(record, number, offset, files.end)
                changes.note()
                if config.sprt is not None and standings.seats == 2:
                    ptnml = standings.pairs(names[0], names[1]).ptnml
                    if ptnml != sprt_counted:  # it changes once a pair (a game in two), the LLR with it
                        sprt_counted = ptnml
                        status = sprt_status(llr_pentanomial(ptnml, config.sprt), config.sprt)
                    if status is not SprtStatus.CONTINUE:
                        result.sprt = status
                        emit(standings.results_block(names[0], names[1], match_details(config), config.sprt))
                        emit(format_sprt_result(status, config.sprt) or "")
                        break
                if len(done) % interval == 0 and len(done) < result.total:
                    emit(standings_block(config, standings))
        nursery.cancel_scope.cancel()  # the signal watcher, the sinks' writer, and the backend after an SPRT stop
    size = report.block_size if report is not None else 0

    def announce(blocks: int) -> None:
        if blocks >= ANNOUNCED_BACKLOG:
            emit(f"Writing the viewer files of {blocks} blocks of up to {size} games (report.html is written; "
                 f"Ctrl-C leaves them to `santorini report` or --resume)")

    async with trio.open_nursery() as finishing:  # a signal stops the backlog (not the run) between two writes
        if signals and not stop_reason:
            finishing.start_soon(watch_signals, finishing.cancel_scope, [])
        await write_all(derived, complete=not stop_reason, announce=announce)
        finishing.cancel_scope.cancel()
    if report is not None and report.backlog():
        emit(f"The viewer files of {report.backlog()} blocks of up to {size} games are left to write: "
             f"`santorini report {files.directory}` or --resume writes them")
    if stop_reason:
        raise Interrupted(stop_reason[0])
    result.complete = result.sprt is not None or len(done) == result.total
    return result
