"""The server's runs: submitted matches and tournaments, played one after another (SPEC.md section 16.5).

Theory of operation.  A run is a tournament's settings (the TOML keys, SPEC.md section 10.2)
whose ``engines`` are registered bot names.  :func:`run_settings` turns them into ordinary
settings: a local bot becomes its engine spec named after the bot, a remote bot its name alone,
listed in the settings' ``remote``: its games lease the connected bot from the
:class:`~.registry.BotRegistry` instead of starting a program (the run's engine source is a
:class:`~.bot_source.BotSource`).

Submitted runs wait in the store, queued, :data:`DEFAULT_MAX_QUEUED` at most (``serve
--max-queued``): :meth:`RunScheduler.queue` refuses one more (:class:`QueueFull`).  A run's
``concurrency`` is at most the machine's cores (:func:`run_settings`), as for ``santorini
tournament`` without ``--force-concurrency``, which the daemon has no equivalent of.

:class:`RunScheduler` plays runs one at a time, in id order, each with the tournament runner
into ``DIR/runs/<id>/`` (the tournament's archive, SGN and JSON Lines files, its
``tournament.json``), so a run interrupted by a drain, a crash or ``kill -9`` is resumed at the
next start by the tournament's own resume: no finished game lost or played twice.  Every game is
indexed in the store (and its players rated) right after its archive frame is fsync'd
(:class:`IndexedFiles`); a game whose index was lost with the process is indexed from the archive
before the run resumes (:func:`reconcile`).

A damaged archive is said to be, never silently (SPEC.md section 16.4): where the daemon reads a
run's archive anyway (:func:`reconcile` before a resume, a view of the standings), each damaged
region is matched with the indexed games whose frames were there (:class:`DamageLog`), logged once
as a warning in ``santorini replay``'s words, and shown by ``GET /api/runs/ID`` and the run's page.

A run whose bots are all local is refereed in worker processes (the tournament's
:class:`~..tournament.pool.ProcessPoolBackend`, one per core while the run's games fit the cores,
as ``santorini tournament`` does), so that the daemon's own work (pages, the API, live viewers)
never delays a turn; each game's progress comes back over the pool's wire to the live hub.  A
run with a remote bot is refereed in the daemon, whose process holds the bot's connection.

Drain: when ``drain`` is set, no new game is handed out; the games in progress get
``drain_timeout`` seconds, then are cancelled (not recorded: the resume plays them again).

With a ``cluster`` (``serve --backend dask``), a run whose bots are all local plays its games on
the Dask cluster (the tournament's ``DaskBackend``); a run with a remote bot still plays in the
daemon, whose process holds the bot's connection.  A drain cancels a cluster's games at once
(the cluster has games queued ahead, which cannot be held back one by one); the resume plays
them again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
import trio

from ..records import ArchiveError, GameRecord, read_record_at
from ..records.archive import read_frame
from ..records.frames import CorruptFrame, iter_stream_frames
from ..referee.sources import PoolSource
from ..tournament.config import (
    STATE_FILE,
    Settings,
    TournamentConfig,
    check_concurrency,
    load_settings,
    save_settings,
)
from ..tournament.output import ARCHIVE, TournamentFiles
from .async_store import AsyncStore
from .bot_source import BotSource
from .live import LiveHub
from .registry import BotRegistry
from .remote_engine import RECONNECT_GRACE
from .run_standings import MAX_REGIONS, Damage, RunViews, text_tables
from .store import BadRunState, DuplicateGame, Game, NewGame, NoSuchBot, Run, RunKind, RunState, Store

if TYPE_CHECKING:
    from ..tournament.runner import Backend

__all__ = [
    "RUNS_DIR", "MAX_LOST", "DEFAULT_MAX_QUEUED", "QueueFull", "queue_run", "run_settings",
    "index_game", "IndexedFiles", "RunScheduler", "reconcile", "with_round_trips", "DamagedRegion",
    "DamageLog", "find_record",
]

_log = structlog.get_logger("santorini.runs")

_LEGACY_REMOTE = "cmd=santorini-remote-bot name="
"""How runs queued before remote bots were an engine source named a remote bot (read, never written)."""
RUNS_DIR = "runs"
DEFAULT_MAX_QUEUED = 100
"""Runs that may wait to be played (``serve --max-queued``); a submission beyond is refused."""
MAX_LOST = 20
"""Lost games named per damaged region (the lowest numbers); the rest are counted."""


def find_record(archive: Path, game: Game) -> GameRecord | None:
    """The record of an indexed game: the one frame at the offset the index keeps, read without
    scanning the archive (a request costs the same at the first game and the millionth), or None
    if no intact frame of that game is there (damage, or a game indexed without its offset)."""
    if game.archive_offset is None:
        return None
    try:
        record = read_record_at(archive, game.archive_offset)
    except (ArchiveError, OSError):
        return None
    return record if record.game_number == game.number else None


def run_settings(store: Store, request: dict[str, Any]) -> tuple[Settings, RunKind]:
    """The tournament settings of a submitted run, and its kind (``match`` for two bots).

    Raises:
        ValueError: an unknown or wrong-typed setting, an unknown or revoked bot, a bot twice,
            settings the tournament refuses (one line each).
    """
    try:
        settings = msgspec.convert(request, Settings)
    except msgspec.ValidationError as exc:
        raise ValueError(str(exc)) from None
    if settings.remote:
        raise ValueError("unknown setting 'remote' (the server sets it)")
    specs: list[str] = []
    remote: list[str] = []
    local = False
    names = [name.lower() for name in settings.engines]
    for name in settings.engines:
        if names.count(name.lower()) > 1:
            raise ValueError(f"bot {name} is listed twice")
        bot = store.bot(name)  # NoSuchBot: a StoreError, one line
        if not bot.active:
            raise ValueError(f"bot {bot.name} is revoked")
        if bot.kind == "local":
            local = True
            specs.append(f"{bot.spec} name={bot.name}")
        else:
            specs.append(bot.name)
            remote.append(bot.name)
    settings = msgspec.structs.replace(settings, engines=specs, remote=remote)
    config = TournamentConfig.from_settings(settings)  # every check a tournament makes, now: a 400, not a failed run
    if local:  # its engines run here, beside the daemon: no run goes beyond the cores
        check_concurrency(config.concurrency, os.cpu_count() or 1, None)
    elif settings.concurrency > len(specs):  # remote bots think on their own machines
        raise ValueError(
            f"concurrency {settings.concurrency} is more than the run's {len(specs)} remote bots "
            "(each plays one game at a time)"
        )
    return settings, "match" if len(specs) == 2 else "tournament"


class QueueFull(Exception):
    """A run submitted while ``max_queued`` runs wait already (the job API answers 503)."""


def queue_run(store: Store, kind: RunKind, settings: Settings, max_queued: int) -> Run:
    """Store a submitted run as queued, unless ``max_queued`` runs wait already (the ladder's
    run and the run being played are not counted).  Counting and creating in one call on the
    store's one writer keeps two submissions at once from both taking the last place.

    Raises:
        QueueFull: one line, saying how to make room.
    """
    waiting = sum(1 for run in store.runs("queued") if run.kind != "ladder")
    if waiting >= max_queued:
        raise QueueFull(
            f"{waiting} runs are queued already, the most this server takes (serve --max-queued {max_queued}): "
            "submit again when one has started, or cancel one"
        )
    return store.create_run(kind, settings.to_json()["settings"])


def index_game(store: Store, run_id: int, record: GameRecord, archive_offset: int | None = None) -> Game | None:
    """Index one finished game of a run and rate its players (one transaction); a game indexed
    already is left alone (None).  ``archive_offset``: where its frame starts in the run's archive
    (the API then reads that one frame, not the whole archive)."""
    # rating loads openskill; indexing runs in the writer thread, so the first game pays, not the start
    from ..stats.placings import NSeatGame
    from ..stats.weng_lin import weng_lin_update

    number = record.game_number
    assert number is not None
    placings = record.placings
    ratings: dict[str, tuple[float, float]] = {}
    if placings is not None:
        current = store.ratings()
        beliefs = {name: (r.mu, r.sigma) for name, r in current.items()}
        ratings = weng_lin_update(beliefs, NSeatGame(number, record.players, placings))
    game = NewGame(
        run_id=run_id,
        number=number,
        bots=record.players,
        places=placings if placings is not None else (1,) * record.nseats,
        gods="/".join(record.gods),
        result=record.result,
        termination=record.termination,
        turns=len(record.turns),
        archive_offset=archive_offset,
    )
    try:
        return store.record_game(game, ratings)
    except DuplicateGame:
        return None


def with_round_trips(record: GameRecord, round_trip: Callable[[str], float | None]) -> GameRecord:
    """``record`` with a ``PlayerNRoundTrip`` tag (``"0.123ms"``) for each remote seat: the
    round trip measured at the bot's login (SPEC.md section 16.3), which its clock included."""
    extra: list[tuple[str, str]] = []
    for seat, name in enumerate(record.players, 1):
        rtt = round_trip(name)
        if rtt is not None and record.tag(f"Player{seat}RoundTrip") is None:
            extra.append((f"Player{seat}RoundTrip", f"{rtt * 1000:.3f}ms"))
    return GameRecord(record.tags + tuple(extra), record.turns, record.eliminations) if extra else record


class IndexedFiles(TournamentFiles):
    """A run's files: each game appended (fsync'd) to the archive, then indexed in the store and
    announced to the live dashboard (whose game page then
    shows the record); remote seats get their round trip tags first."""

    def __init__(
        self,
        directory: Path,
        store: AsyncStore,
        run_id: int,
        hub: LiveHub | None = None,
        *,
        round_trip: Callable[[str], float | None] | None = None,
    ) -> None:
        super().__init__(directory)
        self.store = store
        self.run_id = run_id
        self.hub = hub
        self.round_trip = round_trip

    async def append(self, record: GameRecord) -> int:
        if self.round_trip is not None:
            record = with_round_trips(record, self.round_trip)
        offset = await super().append(record)
        game = await self.store.write(index_game, self.run_id, record, offset)
        if self.hub is not None and record.game_number is not None:
            self.hub.recorded(self.run_id, record.game_number, game.id if game is not None else None)
        return offset


def upgrade_settings(settings: Settings) -> Settings:
    """A run's saved settings with remote bots named as they are now (see :data:`_LEGACY_REMOTE`)."""
    legacy = [text[len(_LEGACY_REMOTE):] for text in settings.engines if text.startswith(_LEGACY_REMOTE)]
    if not legacy:
        return settings
    engines = [text[len(_LEGACY_REMOTE):] if text.startswith(_LEGACY_REMOTE) else text for text in settings.engines]
    return msgspec.structs.replace(settings, engines=engines, remote=[*settings.remote, *legacy])


@dataclass(frozen=True)
class DamagedRegion:
    """A damaged region of a run's archive and the indexed games whose frames were there: games
    the index and the ratings hold, which the archive no longer gives (their pages, the standings)."""

    region: CorruptFrame
    lost: tuple[tuple[int, int], ...]
    """(number, id) of the first :data:`MAX_LOST` of those games, by number."""
    lost_count: int
    """How many indexed games the region lost."""

    def text(self) -> str:
        """``santorini replay``'s line for the region, with what was lost."""
        if not self.lost_count:
            return f"{self.region.describe()}; no indexed game was there"
        numbers = ", ".join(str(number) for number, _ in self.lost)
        more = f" and {self.lost_count - len(self.lost)} more" if self.lost_count > len(self.lost) else ""
        return f"{self.region.describe()}; lost: game{'s' * (self.lost_count != 1)} {numbers}{more}"

    def json(self) -> dict[str, Any]:
        region = self.region
        return {
            "offset": region.offset, "length": region.length, "truncated": region.truncated, "reason": region.reason,
            "lost": [{"number": number, "id": game_id} for number, game_id in self.lost], "lost_games": self.lost_count,
        }


class DamageLog:
    """The damaged regions of the runs' archives as found, each matched once with the games the
    index has there and logged once, whoever found it (a resume's :func:`reconcile`, a standings
    count)."""

    def __init__(self, store: AsyncStore) -> None:
        self.store = store
        self._known: dict[tuple[int, CorruptFrame], DamagedRegion] = {}
        self._lock = trio.Lock()

    async def describe(self, run_id: int, regions: Sequence[CorruptFrame]) -> list[DamagedRegion]:
        """``regions`` of run ``run_id``'s archive (in file order), each with its lost games; a
        region not seen before is logged as a warning."""
        regions = regions[:MAX_REGIONS]
        async with self._lock:
            new = [region for region in regions if (run_id, region) not in self._known]
            if new:
                spans = [(region.offset, region.offset + region.length) for region in new]
                found = await self.store.read(Store.games_within, run_id, spans, MAX_LOST)
                for region, (count, lost) in zip(new, found, strict=True):
                    entry = self._known[(run_id, region)] = DamagedRegion(region, tuple(lost), count)
                    _log.warning("archive damaged", run=run_id, region=entry.text())
            return [self._known[(run_id, region)] for region in regions]


class RunScheduler:
    """Plays the server's runs, one at a time (see the module docstring)."""

    def __init__(
        self,
        store: AsyncStore,
        registry: BotRegistry,
        *,
        drain: trio.Event,
        drain_timeout: float = 60.0,
        grace: float = RECONNECT_GRACE,
        hub: LiveHub | None = None,
        cluster: Callable[[TournamentConfig], Backend] | None = None,
        max_queued: int = DEFAULT_MAX_QUEUED,
    ) -> None:
        self.store = store
        self.max_queued = max_queued
        """Runs that may wait to be played (:func:`queue_run`)."""
        self.cluster = cluster
        """Makes a run's Dask backend (``serve --backend dask``); None: every game in the daemon."""
        self.registry = registry
        self.hub = hub
        self.drain = drain
        self.drain_timeout = drain_timeout
        self.grace = grace
        self.directory = store.data_dir / RUNS_DIR
        self.standings = RunViews()
        """The views of runs' standings, for the API and the dashboard (the last few kept)."""
        self.damage_log = DamageLog(store)
        """The damaged regions of the runs' archives found so far."""
        self._wake = trio.Event()
        self._current: tuple[int, trio.CancelScope] | None = None
        self.stopped = trio.Event()
        """Set when :meth:`serve` has returned (drained)."""

    def run_directory(self, run_id: int) -> Path:
        return self.directory / str(run_id)

    def playing(self, run_id: int) -> bool:
        """Whether the run is being played now (its collector owns its standings' snapshot)."""
        return self._current is not None and self._current[0] == run_id

    async def tables(self, run_id: int, played: int, *, final: bool) -> tuple[dict[str, Any], Damage | None]:
        """The run's standings and crosstable as the API shows them (SPEC.md section 16.5), at
        most :data:`~.run_standings.REFRESH` old while it plays, current once it has ended, and
        its archive's damage; a run with no schedule (not started yet, or the ladder) has only
        ``games``, the number indexed (and no damage).

        Raises:
            ValueError, OSError: the run's settings cannot be read.
        """
        directory = self.run_directory(run_id)
        if not (directory / STATE_FILE).exists():
            return {"games": played, "total": None, "standings": "", "crosstable": ""}, None

        def view() -> tuple[dict[str, Any], Damage]:
            config = TournamentConfig.from_settings(load_settings(directory))
            return self.standings.view(directory, config, "api", text_tables, final=final, playing=self.playing(run_id))

        return await trio.to_thread.run_sync(view)

    async def damage(self, run_id: int, found: Damage | None) -> tuple[list[DamagedRegion], int]:
        """The damaged regions a view of the run's standings ``found`` (the first
        :data:`~.run_standings.MAX_REGIONS`), each with the games it lost, and how many in all.

        Raises:
            StoreError: the games index cannot be read (a damaged database).
        """
        if found is None or not found.count:
            return [], 0
        return await self.damage_log.describe(run_id, found.regions), found.count

    def submitted(self) -> None:
        """A run was queued: look for it."""
        self._wake.set()

    async def queue(self, kind: RunKind, settings: Settings) -> Run:
        """Queue a submitted run (settings from :func:`run_settings`) and look for it.

        Raises:
            QueueFull: :attr:`max_queued` runs wait already.
        """
        run = await self.store.write(queue_run, kind, settings, self.max_queued)
        self.submitted()
        return run

    async def _set_state(self, run_id: int, state: RunState) -> None:
        await self.store.write(Store.set_run_state, run_id, state)
        if self.hub is not None:
            self.hub.run_changed(run_id, state)

    async def cancel(self, run_id: int) -> None:
        """Cancel a queued or running run (a running one stops at once; its finished games stay)."""
        await self._set_state(run_id, "cancelled")
        if self._current is not None and self._current[0] == run_id:
            self._current[1].cancel()

    async def serve(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Play runs until drained: interrupted runs first (resumed), then queued ones, in order."""
        task_status.started()
        try:
            await self._serve()
        finally:
            self.stopped.set()

    async def _serve(self) -> None:
        while not self.drain.is_set():
            self._wake = trio.Event()
            # the ladder's run is the ladder's own, even in the instant it is created (queued)
            running = [run for run in await self.store.read(Store.runs, "running") if run.kind != "ladder"]
            queued = [run for run in await self.store.read(Store.runs, "queued") if run.kind != "ladder"]
            todo = sorted(running, key=lambda r: r.id) + sorted(queued, key=lambda r: r.id)
            if not todo:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_cancel_on, self.drain, nursery.cancel_scope)
                    await self._wake.wait()
                    nursery.cancel_scope.cancel()
                continue
            try:
                await self.play(todo[0].id)
            except (ValueError, OSError) as exc:  # settings or files that cannot be played: not a crash loop
                _log.error("run failed", run=todo[0].id, error=str(exc))
                await self._set_state(todo[0].id, "cancelled")

    async def play(self, run_id: int) -> None:
        """Play (or resume) one run to its end, a cancel, or a drain."""
        # the runner brings its report page and Jinja2: loaded for the first run, not at start
        from ..tournament.pool import ProcessPoolBackend, default_processes
        from ..tournament.runner import LocalBackend, run_tournament

        run = await self.store.read(Store.run, run_id)
        directory = self.run_directory(run_id)
        directory.mkdir(parents=True, exist_ok=True)
        if run.state == "queued":
            settings = msgspec.convert(run.settings, Settings)
            await trio.to_thread.run_sync(save_settings, directory, settings)
            await self._set_state(run_id, "running")
        settings = upgrade_settings(await trio.to_thread.run_sync(load_settings, directory))
        config = TournamentConfig.from_settings(settings)
        await reconcile(self.store, run_id, directory, self.damage_log)
        files = IndexedFiles(directory, self.store, run_id, self.hub, round_trip=self.registry.round_trip)
        log = _log.bind(run=run_id)
        remote = sorted(config.remote)
        backend: Backend
        drain_timeout = self.drain_timeout
        if self.cluster is not None and not remote:
            backend, drain_timeout = self.cluster(config), 0.0
            log.info("run on the Dask cluster")
        elif not remote:
            backend = ProcessPoolBackend(
                config, default_processes(config.concurrency),
                observe=self.hub.feeds(run_id) if self.hub is not None else None, stop=self.drain,
            )
        else:
            if self.cluster is not None:
                log.info("run in the daemon: remote bots play through the daemon's connections", remote=remote)
            backend = LocalBackend(
                config, sources=lambda pool: BotSource(self.registry, self.grace, config.remote, PoolSource(pool)),
                observe=self.hub.feeds(run_id) if self.hub is not None else None, stop=self.drain,
            )
        complete = False
        with trio.CancelScope() as scope:
            self._current = (run_id, scope)
            try:
                async with trio.open_nursery() as nursery:

                    async def deadline() -> None:
                        await self.drain.wait()
                        log.info("draining run", timeout=drain_timeout)
                        await trio.sleep(drain_timeout)
                        scope.cancel()

                    nursery.start_soon(deadline)
                    result = await run_tournament(
                        config, files, backend=backend, emit=lambda line: log.info(line), signals=False
                    )
                    complete = result.complete
                    nursery.cancel_scope.cancel()
            except BaseExceptionGroup as group:  # the cluster cannot play it (no scheduler, no workers)
                found = group.subgroup(lambda exc: type(exc).__name__ == "DaskBackendError")
                if found is None:
                    raise
                while isinstance(found, BaseExceptionGroup):
                    found = found.exceptions[0]
                raise ValueError(str(found)) from None
            finally:
                self._current = None
                files.close()
                if self.hub is not None:
                    self.hub.run_ended(run_id)
        if complete:
            try:
                await self._set_state(run_id, "finished")
                log.info("run finished")
            except BadRunState:  # cancelled as its last game ended: cancelled it stays
                log.info("run cancelled")
        elif scope.cancelled_caught and not self.drain.is_set():
            log.info("run cancelled")

BATCH = 1000
"""Unindexed games read from the archive at a time by :func:`reconcile` (its memory bound)."""


def _read_unindexed(
    archive: Path, start: int, after: int | None
) -> tuple[list[tuple[GameRecord, int]], list[CorruptFrame], int | None]:
    """Up to :data:`BATCH` records of ``archive`` framed after byte ``after`` (None: from the
    start), each with its frame's offset, streamed from byte ``start``; the damaged regions met;
    and the offset to go on from (None: the end was reached).  A frame before ``after`` is only
    checked (its checksum), never decoded, and nothing of it is kept."""
    records: list[tuple[GameRecord, int]] = []
    damage: list[CorruptFrame] = []
    with archive.open("rb") as file:
        file.seek(start)
        for item in iter_stream_frames(file.read, start):
            if isinstance(item, CorruptFrame):
                damage.append(item)
                continue
            if after is not None and item.offset <= after:
                continue
            found = read_frame(item)
            if isinstance(found, CorruptFrame):
                damage.append(found)
                continue
            if len(records) == BATCH:
                return records, damage, item.offset
            records.append((found, item.offset))
    return records, damage, None


async def reconcile(store: AsyncStore, run_id: int, directory: Path, damage: DamageLog | None = None) -> int:
    """Index every game of a run's archive that the store misses (the process died between the
    archive's fsync and the index's commit), with its frame's offset; return how many.

    A run's games are indexed one at a time in the order of their archive (the tournament's one
    collector; the ladder's record lock), so a game not indexed can only be after the last
    indexed frame: only that tail is decoded, :data:`BATCH` games at a time, whatever the
    archive's length.  With ``damage`` (a run's resume), the whole archive is streamed too, its
    frames' checksums checked, and its damaged regions are reported there, but for a frame cut
    off at its end: the mark of a crash mid-write, which the resume cuts off and plays again."""
    archive = directory / ARCHIVE
    if not archive.exists():
        return 0
    _, last = await store.read(Store.run_tail, run_id)
    start: int | None = 0 if damage is not None or last is None else last
    regions: list[CorruptFrame] = []
    added = 0
    while start is not None:
        records, found, start = await trio.to_thread.run_sync(_read_unindexed, archive, start, last)
        regions.extend(found[: MAX_REGIONS - len(regions)])
        for record, offset in records:  # in archive order: the next start's tail begins at the last of them
            if record.game_number is None:
                continue
            try:
                if await store.write(index_game, run_id, record, offset) is not None:
                    added += 1
            except NoSuchBot as exc:  # a bot removed as its first game ended: that game cannot be indexed
                _log.warning("archived game not indexed", run=run_id, game=record.game_number, error=str(exc))
    if damage is not None:
        await damage.describe(run_id, [region for region in regions if not region.truncated])
    return added


async def _cancel_on(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()
