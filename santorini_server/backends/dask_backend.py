"""``--backend dask``: the tournament's games as Dask tasks, on a local or a remote cluster.

Theory of operation.  :class:`DaskBackend` implements the runner's ``Backend`` seam.  ``play``
connects (a ``LocalCluster`` of ``concurrency`` one-thread worker processes on loopback, or
``Client(address)``; under mutual TLS with a :class:`~.dask_security.DaskTLS`),
then a *bridge* thread streams the games: it keeps at most ``2 x`` the cluster's slots (the
workers' ``santorini`` resource) in flight, submits the next game as each one finishes
(backpressure for tournaments of any size), and hands results to the trio collector in
completion order (``trio.from_thread.run``, which waits for the collector: an unbuffered
hand-over, like the local backend's).  Task keys are explicit and unique per run
(``<run id>/<game number>``): Dask's default hashes the arguments and would merge two identical
games into one task.

A game is :func:`~.dask_worker.run_game` with a :class:`~.dask_worker.GameSpec` (engine names,
never paths); it returns the msgpack record payload.  A worker that dies mid-game makes the
scheduler run the game again elsewhere; a game that killed workers ``allowed-failures`` times
(``KilledWorker``) or could not be played at all is a :class:`LostGame`, not a result.

Abort (``play`` cancelled: Ctrl-C, SIGTERM, a decided SPRT): Dask cannot stop a running task,
so the backend sets ``distributed.Event("abort-<run id>")``, which running games poll and obey
(their engines are closed, no record), cancels the pending futures, releases the engines the
workers keep for this run, and closes the client (and the local cluster, whose worker processes
take their engines down through the process layer's lifeline).  Every step is bounded, and the
bridge thread has stopped calling into trio before ``play`` returns (a call into a finished
``trio.run`` would raise ``RunFinishedError`` on Dask's threads).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import dask
import trio
from distributed import Client, Event, Future, LocalCluster, as_completed
from distributed.client import FutureCancelledError

from ..records import ArchiveError, GameRecord, decode_record
from ..tournament.config import TournamentConfig
from ..tournament.runner import LostGame, game_setup, seated_specs
from ..tournament.schedule import Games, ScheduledGame
from .dask_preload import LOCAL_WORKER_ENV
from .dask_security import LOOPBACK, DaskTLS
from .dask_worker import (
    ENGINES_ENV,
    EngineNotConfigured,
    GameAborted,
    GameSpec,
    engine_names,
    release_tournament,
    run_game,
    seat_refusals_here,
    spec_text,
)

__all__ = ["DaskBackend", "DaskBackendError", "RESOURCE", "PRELOAD"]

#: The worker resource a game needs: one per slot (``santorini worker --slots K``).
RESOURCE = "santorini"
PRELOAD = "santorini_server.backends.dask_preload"
#: Games in flight per slot: enough to keep every slot busy while results travel back.
IN_FLIGHT_PER_SLOT = 2
#: Seconds between two looks at the cluster's size (workers join and leave).
SLOTS_REFRESH = 2.0
#: Bounds (seconds) on connecting, on waiting for workers, and on closing everything.
CONNECT_TIMEOUT = 10.0
WORKERS_TIMEOUT = 60.0
CLOSE_TIMEOUT = 20.0
#: Dask settings for workers that play games (``santorini worker`` exports them too).
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


class DaskBackendError(Exception):
    """A one-line reason the Dask backend cannot run (no scheduler, no workers, no engine)."""


class _Stopped(Exception):
    """The connecting thread was told to stop (the tournament was cancelled meanwhile)."""


@dataclass
class _Session:
    client: Client
    cluster: LocalCluster | None
    engines_dir: str | None
    window: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    futures: dict[str, Future] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    bridge_done: threading.Event = field(default_factory=threading.Event)


class DaskBackend:
    """Games as Dask tasks: a local cluster (``address=None``) or the scheduler at ``address``."""

    def __init__(
        self,
        config: TournamentConfig,
        address: str | None = None,
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
        workers_timeout: float = WORKERS_TIMEOUT,
        tls: DaskTLS | None = None,
    ) -> None:
        self.config = config
        self.address = address
        self.tls = tls or DaskTLS()
        """Mutual TLS for the connection (``tls://`` address), and for a local cluster's own."""
        self.scheduler_address: str | None = None
        """The scheduler's address once connected (a local cluster's is chosen at start)."""
        self.connect_timeout = connect_timeout
        self.workers_timeout = workers_timeout
        self.run_id = uuid.uuid4().hex[:16]
        """Unique per run (a resumed tournament gets a new one): task keys and the abort event."""
        self.startup_seconds: float | None = None
        """How long connecting (and starting a local cluster) took."""
        self.close_seconds: float | None = None
        """How long the closing sequence took (releasing engines, closing a local cluster)."""
        self.slots = 0

    # -- the Backend protocol ------------------------------------------------------------------

    async def play(
        self,
        games: Games,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None:
        """Play ``games`` on the cluster; see the module docstring for the abort sequence."""
        async with results:
            if not games:
                return
            session = await self._connect_interruptibly()
            token = trio.lowlevel.current_trio_token()
            finished = False
            try:
                await trio.to_thread.run_sync(self._bridge, session, games, results, started, token, abandon_on_cancel=True)
                finished = True
            finally:
                session.stop.set()
                t0 = time.perf_counter()
                with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                    await trio.to_thread.run_sync(self._close, session, not finished, abandon_on_cancel=True)
                self.close_seconds = time.perf_counter() - t0

    async def _connect_interruptibly(self) -> _Session:
        """Connect in a thread; on Ctrl-C tell it to stop and wait (bounded) for it to clean up."""
        stop, finished = threading.Event(), threading.Event()
        try:
            return await trio.to_thread.run_sync(self._connect, stop, finished, abandon_on_cancel=True)
        except trio.Cancelled:
            stop.set()
            with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
                await trio.to_thread.run_sync(finished.wait, abandon_on_cancel=True)
            raise

    # -- threads -------------------------------------------------------------------------------

    def _connect(self, stop: threading.Event, finished: threading.Event) -> _Session:
        """Start or reach the cluster; checks ``stop`` between steps (closing what it started)."""
        try:
            session = self._connect_steps(stop)
        except BaseException:
            finished.set()
            raise
        if stop.is_set():  # cancelled while the last step ran: nobody will close this session
            self._close(session, aborted=True)
            finished.set()
            raise _Stopped()
        finished.set()
        return session

    def _wait_for_workers(self, client: Client, n: int, stop: threading.Event) -> None:
        deadline = time.monotonic() + self.workers_timeout
        while True:
            if stop.is_set():
                raise _Stopped()
            try:
                client.wait_for_workers(n, timeout=0.25)
                return
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise

    def _connect_steps(self, stop: threading.Event) -> _Session:
        t0 = time.perf_counter()
        cluster = None
        engines_dir = None
        client: Client | None = None
        try:
            if self.address is None:
                # workers fork from a server that has Dask imported: ~0.3 s less per start-up
                # than spawning fresh interpreters (this process's setting; it is ours); and no
                # statistical profiler sampling every 10 ms next to the referee (~1.5 ms a game)
                dask.config.set({"distributed.worker.multiprocessing-method": "forkserver", **WORKER_CONFIG})
                engines_dir = tempfile.mkdtemp(prefix="santorini-engines-")
                path = os.path.join(engines_dir, "engines.json")
                with open(path, "w") as f:
                    json.dump({spec.name: spec_text(spec) for spec in self.config.specs}, f)
                cluster = LocalCluster(
                    n_workers=self.config.concurrency, threads_per_worker=1, processes=True, host=LOOPBACK,
                    protocol=f"{self.tls.scheme}://", security=self.tls.security(),
                    dashboard_address=None, worker_dashboard_address=None, silence_logs=logging.ERROR,
                    resources={RESOURCE: 1}, env={ENGINES_ENV: path, LOCAL_WORKER_ENV: "1"}, preload=[PRELOAD],
                )
                client = Client(cluster, set_as_default=False, security=self.tls.security())
                self._wait_for_workers(client, self.config.concurrency, stop)
            else:
                try:
                    client = Client(self.address, timeout=self.connect_timeout, set_as_default=False,
                                    security=self.tls.security())
                except (OSError, TimeoutError) as exc:
                    raise DaskBackendError(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None
                try:
                    self._wait_for_workers(client, 1, stop)
                except TimeoutError:
                    raise DaskBackendError(
                        f"no workers joined {self.address} within {self.workers_timeout:.0f} s "
                        f"(start some: santorini worker --address {self.address} --engines FILE)"
                    ) from None
                self._check_engines(client)
                self._check_seats(client)
            self.scheduler_address = str(client.scheduler_info()["address"])
            self.slots = _slots(client)
            if not self.slots:
                raise DaskBackendError(
                    f"the workers at {self.address} offer no '{RESOURCE}' slots (start them with santorini worker)"
                )
            self.startup_seconds = time.perf_counter() - t0
            return _Session(client, cluster, engines_dir, IN_FLIGHT_PER_SLOT * self.slots)
        except BaseException:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
            if engines_dir is not None:
                shutil.rmtree(engines_dir, ignore_errors=True)
            raise

    def _check_engines(self, client: Client) -> None:
        """Every worker must know every engine by name (from its own engines file)."""
        offered: dict[str, list[str]] = client.run(engine_names)
        for worker, names in offered.items():
            missing = [s.name for s in self.config.specs if s.name not in names]
            if missing:
                raise DaskBackendError(
                    f"worker {worker} has no engine {', '.join(repr(m) for m in missing)} in its engines file "
                    f"(it has {', '.join(names)})"
                )

    def _check_seats(self, client: Client) -> None:
        """Three and four seats: every worker's engines must declare the seat count (a worker
        starts each once); the first refusal is the backend's one-line error."""
        if self.config.players == 2:
            return
        names = [s.name for s in self.config.specs]
        answers: dict[str, list[str]] = client.run(seat_refusals_here, names, self.config.players)
        for worker, refusals in sorted(answers.items()):
            if refusals:
                raise DaskBackendError(f"worker {worker}: {refusals[0]}")

    def _game_spec(self, game: ScheduledGame) -> GameSpec:
        config = self.config
        specs = seated_specs(config, game)
        setup = game_setup(config, game)
        return GameSpec(
            tournament=self.run_id,
            number=game.number,
            names=tuple(spec.name for spec in specs),
            options=tuple(spec.options for spec in specs),
            restart=tuple(spec.restart for spec in specs),
            gods=setup.gods,
            opening=setup.opening,
            tcs=setup.tcs,
            margins=setup.margins,
            ping=setup.ping,
            event=setup.event,
            round=setup.round,
        )

    def _bridge(
        self,
        session: _Session,
        games: Games,
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
        token: trio.lowlevel.TrioToken,
    ) -> None:
        """Submit within the window, pass results to trio in completion order (a thread)."""
        client = session.client
        pending = iter(games)  # each game made as it is submitted
        in_flight: dict[str, ScheduledGame] = {}
        done = as_completed(loop=client.loop, with_results=True, raise_errors=False)
        window = session.window
        looked = time.monotonic()

        def submit() -> bool:
            """Submit the next game; False when none is left."""
            game = next(pending, None)
            if game is None:
                return False
            key = f"{self.run_id}/{game.number}"
            future = client.submit(run_game, self._game_spec(game), key=key, pure=False, resources={RESOURCE: 1})
            with session.lock:
                session.futures[key] = future
            in_flight[key] = game
            done.add(future)
            trio.from_thread.run_sync(started, game, trio_token=token)
            return True

        try:
            while len(in_flight) < window and submit():
                pass
            for future, value in done:
                if session.stop.is_set():
                    return
                game = in_flight.pop(future.key)
                item = _outcome(game, future, value)
                with session.lock:
                    session.futures.pop(future.key, None)
                future.release()
                if time.monotonic() - looked > SLOTS_REFRESH:
                    window = IN_FLIGHT_PER_SLOT * max(1, _slots(client))
                    looked = time.monotonic()
                while len(in_flight) < window and submit():
                    pass
                trio.from_thread.run(results.send, item, trio_token=token)
        except (trio.RunFinishedError, trio.Cancelled, trio.BrokenResourceError, trio.ClosedResourceError):
            return  # the collector stopped (abort or SPRT): the closing sequence takes over
        finally:
            session.bridge_done.set()

    def _close(self, session: _Session, aborted: bool) -> None:
        """Abort running games, drop the rest, release the engines, disconnect (a thread)."""
        client = session.client
        if aborted:
            # cancelling leaves Dask's own result-tracking callbacks on closed connections, and
            # tornado logs each as an ERROR with a traceback: after Ctrl-C the user saw that
            for name in ("tornado.application", "distributed.client"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if aborted:
                Event(f"abort-{self.run_id}", client=client).set()
            with session.lock:
                futures = list(session.futures.values())
                session.futures.clear()
            if futures:
                client.cancel(futures)
            session.bridge_done.wait(5.0)
            if session.cluster is None:
                client.run(release_tournament, self.run_id, on_error="ignore")
        except Exception:  # the scheduler may be gone already: closing must still go on
            logging.getLogger(__name__).debug("dask backend: abort steps failed", exc_info=True)
        finally:
            try:
                client.close(timeout=5)
            finally:
                if session.cluster is not None:
                    session.cluster.close(timeout=10)
                if session.engines_dir is not None:
                    shutil.rmtree(session.engines_dir, ignore_errors=True)


def _slots(client: Client) -> int:
    workers = client.scheduler_info()["workers"].values()
    return int(sum(w.get("resources", {}).get(RESOURCE, 0) for w in workers))


def _outcome(game: ScheduledGame, future: Future, value: Any) -> GameRecord | LostGame:
    """A finished task as the collector wants it: a record, or a lost game with its reason."""
    if future.status == "finished":
        try:
            return decode_record(value)
        except ArchiveError as exc:
            return LostGame(game, f"the worker sent a bad record: {exc}")
    if isinstance(value, (FutureCancelledError, BaseException)):
        error: BaseException = value
    else:
        error = value[1]  # (type, exception, traceback) of a failed task
    name = type(error).__name__
    if name == "KilledWorker":
        return LostGame(game, f"it killed its worker repeatedly: {error}")
    if isinstance(error, (EngineNotConfigured, GameAborted)):
        return LostGame(game, str(error))
    return LostGame(game, f"{name}: {error}")
