"""The ladder: games played continuously between the available bots (``santorini serve --ladder``).

Theory of operation.  The pairing is a pure function (:func:`pick_pairs`): every two free bots
are a candidate pair, ranked by how much a game between them would teach, the sum of their
sigmas less the gap between their mus (close ratings and high uncertainty first), and pairs are
taken greedily, best first, each bot once.  A pair's seats alternate from one meeting to the next
(:func:`seat_order`), and the gods rotate through ``--gods`` by game number.

:class:`Ladder` keeps ``concurrency`` games going: it is one run of kind ``ladder`` (created at
the first start, resumed at every later one) whose games are numbered on from the last one
indexed, archived in ``DIR/runs/ID/games.msgpack`` and indexed as they end (:class:`LadderFiles`,
each game rated).  A start reads what it must, not the whole archive: the numbering comes from
the store's index, the last meeting of a pair (whose seats the next one swaps) too, when the pair
is first made; :func:`~.runs.reconcile` indexes only the archive's tail after the last indexed
frame (games are recorded one at a time, in archive order), and the archive's writer checks only
that tail for a frame left half-written.  The folder holds the archive alone: the SGN and JSON
Lines files a tournament rebuilds at every resume would cost a read of every game at every start
(a game's SGN is ``GET /api/games/ID.sgn``, the whole archive's ``santorini convert``).

The available bots are the active local bots and the connected remote bots no game holds; a
bot plays one ladder game at a time.  A local bot's engine is kept running between its games in
an :class:`~..referee.slots.EnginePool` (the tournament's, restarted before the next game after a
fault, or always with ``restart=on``), of at most two engines per concurrent game plus
:data:`IDLE_ENGINES`: the least recently used idle one is closed for a new one, and an idle
engine whose bot is revoked or removed is closed within :data:`_IDLE_POLL` seconds.
On a drain it starts no game, and the games in progress get the drain timeout, then are
cancelled (not recorded).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
import trio

from ..adjudicator import GameSetup, TimeControl, parse_tc
from ..records import ArchiveWriter, GameRecord
from ..records.frames import CorruptFrame
from ..referee.engine_spec import EngineSpec, parse_engine_spec
from ..referee.slots import EnginePool
from ..referee.sources import PoolSource, play
from ..stats.weng_lin import WENG_LIN_MU, WENG_LIN_SIGMA
from ..tournament.output import ARCHIVE, RESULTS, SGN
from ..tournament.schedule import parse_gods_list
from .async_store import AsyncStore
from .bot_source import BotSource
from .live import LiveHub
from .registry import BotRegistry
from .runs import RUNS_DIR, IndexedFiles, reconcile
from .store import NoSuchBot, Store

__all__ = ["Candidate", "pair_priority", "pick_pairs", "seat_order", "Ladder", "LadderFiles", "LADDER_EVENT", "IDLE_ENGINES"]

_log = structlog.get_logger("santorini.ladder")

LADDER_EVENT = "santorini ladder"
_IDLE_POLL = 0.25
"""Seconds between looks for free bots (and for idle engines whose bot is gone)."""
IDLE_ENGINES = 8
"""Engines the ladder keeps running beyond the two of each concurrent game: bots that wait for a pair."""


@dataclass(frozen=True)
class Candidate:
    """A free bot and its current rating."""

    name: str
    mu: float = WENG_LIN_MU
    sigma: float = WENG_LIN_SIGMA


def pair_priority(a: Candidate, b: Candidate) -> float:
    """How much a game between ``a`` and ``b`` is worth: their uncertainty less their rating gap."""
    return a.sigma + b.sigma - abs(a.mu - b.mu)


def pick_pairs(candidates: Sequence[Candidate], count: int) -> list[tuple[str, str]]:
    """Up to ``count`` disjoint pairs, the most valuable first (ties broken by name, so the
    choice is a function of the ratings alone)."""
    ranked = sorted(
        itertools.combinations(sorted(candidates, key=lambda c: c.name.lower()), 2),
        key=lambda pair: (-pair_priority(*pair), pair[0].name.lower(), pair[1].name.lower()),
    )
    taken: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for a, b in ranked:
        if len(pairs) >= count:
            break
        if a.name not in taken and b.name not in taken:
            taken.update((a.name, b.name))
            pairs.append((a.name, b.name))
    return pairs


def seat_order(a: str, b: str, met: int) -> tuple[str, str]:
    """The seats of the ``met``-th game (from 0) between ``a`` and ``b``: swapped every meeting."""
    first, second = sorted((a, b), key=str.lower)
    return (first, second) if met % 2 == 0 else (second, first)


class LadderFiles(IndexedFiles):
    """The ladder's archive, appended (fsync'd) and indexed game by game; opened without reading
    its games, from ``start``, the end of the last indexed frame (the archive writer checks only
    what follows it)."""

    def __init__(self, directory: Path, store: AsyncStore, run_id: int, *, start: int = 0, **kwargs: Any) -> None:
        super().__init__(directory, store, run_id, **kwargs)
        self.start = start

    def open(self) -> tuple[list[GameRecord], list[CorruptFrame]]:
        """Open for appending; no games are returned (the store's index has them), and the damage
        found is the tail's."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self._archive = ArchiveWriter(self.directory / ARCHIVE, start=self.start)
        for name in (SGN, RESULTS):  # an earlier version's, which would miss every game from now on
            (self.directory / name).unlink(missing_ok=True)
        return [], list(self._archive.damage)

    def _append(self, record: GameRecord) -> int:
        assert self._archive is not None
        return self._archive.append(record)


class Ladder:
    """The ladder's games (see the module docstring)."""

    def __init__(
        self,
        store: AsyncStore,
        registry: BotRegistry,
        *,
        drain: trio.Event,
        drain_timeout: float,
        grace: float,
        tc: str = "10+0.1",
        gods: str = "mortal/mortal",
        concurrency: int = 1,
        hub: LiveHub | None = None,
    ) -> None:
        self.hub = hub
        self.run_id = 0
        self.tc: TimeControl = parse_tc(tc)
        matchups = parse_gods_list(gods, 2)
        if matchups is None:
            raise ValueError("--gods: a list of pairs such as apollo/pan,athena/mortal, or all")
        self.matchups = matchups
        if concurrency < 1:
            raise ValueError(f"--concurrency must be at least 1, got {concurrency}")
        self.settings: dict[str, Any] = {"tc": tc, "gods": gods, "concurrency": concurrency}
        self.store = store
        self.registry = registry
        self.drain = drain
        self.drain_timeout = drain_timeout
        self.grace = grace
        self.concurrency = concurrency
        self.busy: set[str] = set()
        self.met: dict[frozenset[str], int] = {}
        self.next_number = 1
        self.pool: EnginePool | None = None
        """The local bots' running engines, while :meth:`serve` runs."""
        self._recording = trio.Lock()
        """One game recorded at a time: archived and indexed in the same order (see reconcile)."""
        self.stopped = trio.Event()
        """Set when :meth:`serve` has returned (drained)."""

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Play ladder games until drained; ``nursery.start`` gives the ladder's run id."""
        runs = [run for run in await self.store.read(Store.runs) if run.kind == "ladder" and run.state in ("running", "queued")]
        # one left queued: a daemon stopped between creating the ladder's run and starting it
        run_id = runs[0].id if runs else (await self.store.write(Store.create_run, "ladder", self.settings)).id
        if not runs or runs[0].state == "queued":
            await self.store.write(Store.set_run_state, run_id, "running")
        self.run_id = run_id
        directory = self.store.data_dir / RUNS_DIR / str(run_id)
        await reconcile(self.store, run_id, directory)
        last, offset = await self.store.read(Store.run_tail, run_id)
        self.next_number = last + 1
        files = LadderFiles(
            directory, self.store, run_id, start=offset or 0, hub=self.hub, round_trip=self.registry.round_trip
        )
        await trio.to_thread.run_sync(files.open)
        task_status.started(run_id)
        log = _log.bind(run=run_id)
        try:
            async with trio.open_nursery() as engines:
                self.pool = EnginePool(engines, capacity=2 * self.concurrency + IDLE_ENGINES)
                try:
                    await self._play(files, log)
                finally:
                    await self.pool.aclose()
                    engines.cancel_scope.cancel()
        finally:
            files.close()
            self.stopped.set()

    async def _play(self, files: LadderFiles, log: Any) -> None:
        with trio.CancelScope() as games_scope:
            async with trio.open_nursery() as watch:
                watch.start_soon(self._deadline, games_scope)
                async with trio.open_nursery() as games:  # exits when the last game has
                    while not self.drain.is_set():
                        free = self.concurrency - len(self.busy) // 2
                        candidates = await self._candidates()
                        pairs = pick_pairs(candidates, free) if free > 0 else []
                        for a, b in pairs:
                            seats = seat_order(a, b, await self._met(a, b))
                            self.busy.update(seats)
                            games.start_soon(self._game, seats, self.next_number, files, log)
                            self.met[frozenset(seats)] = self.met.get(frozenset(seats), 0) + 1
                            self.next_number += 1
                        await _sleep_or(self.drain, _IDLE_POLL)
                watch.cancel_scope.cancel()

    async def _met(self, a: str, b: str) -> int:
        """How many times ``a`` and ``b`` have met, as far as the seats go (the parity): counted
        in memory, from their latest game in the index the first time they are paired."""
        key = frozenset((a, b))
        if key not in self.met:
            try:
                last = await self.store.read(Store.last_seating, self.run_id, a, b)
            except NoSuchBot:  # removed since: it has never played (the game will not start)
                last = None
            self.met[key] = 0 if last is None else 1 if last == seat_order(a, b, 0) else 2
        return self.met[key]

    async def _candidates(self) -> list[Candidate]:
        """The free bots; an idle engine whose bot is no longer an active local bot is closed."""
        bots = await self.store.read(Store.bots)
        ratings = await self.store.read(Store.ratings)
        if self.pool is not None:
            await self.pool.close_except({bot.name for bot in bots if bot.active and bot.kind == "local"} | self.busy)
        connected = {name.lower() for name in self.registry.available()}
        out = []
        for bot in bots:
            if not bot.active or bot.name in self.busy:
                continue
            if bot.kind == "remote" and bot.name.lower() not in connected:
                continue
            rating = ratings.get(bot.name)
            out.append(Candidate(bot.name, rating.mu, rating.sigma) if rating else Candidate(bot.name))
        return out

    async def _deadline(self, scope: trio.CancelScope) -> None:
        await self.drain.wait()
        await trio.sleep(self.drain_timeout)
        scope.cancel()

    async def _game(self, seats: tuple[str, str], number: int, files: IndexedFiles, log: Any) -> None:
        try:
            try:
                specs = [await self._spec(name) for name in seats]
            except NoSuchBot:  # removed since it was paired
                return
            gods = self.matchups[(number - 1) % len(self.matchups)]
            setup = GameSetup.for_specs(specs, self.tc, gods=gods, event=LADDER_EVENT, round=str(number), game_number=number)
            assert self.pool is not None
            # all its remote bots at once (a submitted run may want them too)
            source = BotSource(self.registry, self.grace, [spec.name for spec in specs if not spec.argv],
                               PoolSource(self.pool, busy=lambda: self.busy))  # the engines of games in progress stay
            watch = self.hub.feed(self.run_id, number) if self.hub is not None else None
            report = await play(source, specs, setup, watch=watch)
            with trio.CancelScope(shield=True):  # a finished game is recorded, even during the drain's cancel
                async with self._recording:
                    if not await self._registered(seats):
                        log.warning("ladder game not recorded: a bot was removed during it", game=number, bots=seats)
                        return
                    try:
                        await files.append(report.record)
                    except NoSuchBot:  # removed in the instant since: archived, never indexed
                        log.warning("ladder game not indexed: a bot was removed as it ended", game=number, bots=seats)
                        return
            log.info("ladder game", game=number, white=seats[0], black=seats[1], result=report.record.result,
                     termination=report.record.termination)
        finally:
            self.busy.difference_update(seats)
            if self.hub is not None:
                self.hub.abandoned(self.run_id, number)  # a game recorded is no longer live: nothing to do

    async def _registered(self, seats: Sequence[str]) -> bool:
        """Whether every bot of the game is still registered: a bot that had never finished a game
        may be removed during its first, whose index could then name no bot."""
        names = {bot.name for bot in await self.store.read(Store.bots)}
        return all(name in names for name in seats)

    async def _spec(self, name: str) -> EngineSpec:
        bot = await self.store.read(Store.bot, name)
        if bot.kind == "remote":  # no program: the source leases the connected bot
            return EngineSpec(name=bot.name, argv=())
        return parse_engine_spec(f"{bot.spec} name={bot.name}")

async def _sleep_or(event: trio.Event, seconds: float) -> None:
    with trio.move_on_after(seconds):
        await event.wait()
