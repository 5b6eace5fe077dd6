"""The worker side of ``--backend dask``: a game is a task, played by a per-process engine host.

Theory of operation.  The coordinator submits :func:`run_game` with a :class:`GameSpec`: engine
*names* and the game's conditions, never a path.  The worker resolves each name in its own
engines file (``SANTORINI_ENGINES``: TOML or JSON, name -> engine spec text in the
``parse_engine_spec`` grammar; bundled names need no entry), so a coordinator cannot make a
worker run an arbitrary program.

Starting engines for every game would cost more than a short game, so each worker process keeps
an :class:`EngineHost`: a daemon thread running ``trio.run`` whose nursery owns the engines
(``EngineSlot``, restarted when broken) across games and tournaments' games.  A task hands its
game to the host (``trio.from_thread.run_sync``) and waits for the record on a
``concurrent.futures.Future``, polling the tournament's abort ``distributed.Event`` every
``ABORT_POLL`` seconds: Dask cannot stop a running task, so an abort is cooperative (the host
cancels the game, closes its engines, and the task ends without a record).  Engines still start
under the process layer's guard, so when the worker process dies, its engines die with it.
Idle engines are closed after ``IDLE_CLOSE`` seconds, and when the coordinator releases its
tournament (:func:`release_tournament`).

Nothing in this module imports Dask at import time, except inside the task when it must poll
the abort event.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import json
import os
import threading
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from ..adjudicator import GameReport, GameSetup, TimeControl
from ..records import encode_record
from ..referee.engine_spec import BUNDLED_NAMES, EngineSpec, parse_engine_spec
from ..referee.slots import ENGINES_PER_WORKER, EnginePool
from ..referee.sources import PoolSource, instance_names, play

__all__ = [
    "ENGINES_ENV",
    "GameSpec",
    "GameAborted",
    "EngineNotConfigured",
    "EngineHost",
    "load_engines_file",
    "resolve_engine",
    "spec_text",
    "run_game",
    "release_tournament",
    "seat_refusals_here",
    "engine_names",
    "host",
]

#: Environment variable naming the worker's engines file (set by ``santorini worker --engines``).
ENGINES_ENV = "SANTORINI_ENGINES"
#: Seconds between two looks at the tournament's abort event while a game runs.
ABORT_POLL = 0.5
#: Idle engines (no game for this long) are closed: a coordinator that died cannot release them.
IDLE_CLOSE = 30.0
#: Bound on waiting for an aborted game to close its engines (the process layer's own
#: quit/TERM/KILL sequence is bounded well below this).
ABORT_WAIT = 20.0


class GameAborted(Exception):
    """The tournament was aborted while this game ran: no record (``--resume`` plays it)."""


class EngineNotConfigured(Exception):
    """The coordinator named an engine this worker's engines file does not define."""


@dataclass(frozen=True)
class GameSpec:
    """One game as the coordinator sends it (picklable, no paths)."""

    tournament: str
    number: int
    names: tuple[str, ...]
    """The engine of each seat, in seat order (the same name twice: a team of one engine)."""
    options: tuple[tuple[tuple[str, str], ...], ...]
    """The coordinator's ``option.X=Y`` per seat, laid over the worker's own."""
    restart: tuple[bool, ...]
    gods: tuple[str, ...]
    opening: str | None
    tcs: tuple[TimeControl, ...]
    margins: tuple[int, ...]
    ping: bool
    event: str
    round: str

    def setup(self) -> GameSetup:
        return GameSetup(
            gods=self.gods, opening=self.opening, tcs=self.tcs, margins=self.margins, ping=self.ping,
            event=self.event, round=self.round, game_number=self.number,
        )


# --- the worker's engines file ----------------------------------------------------------------------


def load_engines_file(path: str | os.PathLike[str]) -> dict[str, EngineSpec]:
    """Parse an engines file (TOML or JSON: ``name = "spec"``, optionally under ``[engines]``).

    Raises:
        ValueError: one line naming the file and what is wrong.
    """
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read engines file {path}: {exc.strerror or exc}") from None
    try:
        data: Any = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: not valid {'JSON' if path.suffix == '.json' else 'TOML'}: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("engines"), dict):
        data = data["engines"]
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{path}: expected name = \"engine spec\" entries (strings)")
    out = {}
    for name, text_spec in data.items():
        try:
            out[name] = replace(parse_engine_spec(text_spec), name=name)
        except ValueError as exc:
            raise ValueError(f"{path}: engine {name!r}: {exc}") from None
    return out


_engines_cache: tuple[str, float, dict[str, EngineSpec]] | None = None


def _configured() -> dict[str, EngineSpec]:
    """This process's engines file, re-read when it changes."""
    global _engines_cache
    path = os.environ.get(ENGINES_ENV)
    if not path:
        return {}
    mtime = os.stat(path).st_mtime
    if _engines_cache is None or _engines_cache[:2] != (path, mtime):
        _engines_cache = (path, mtime, load_engines_file(path))
    return _engines_cache[2]


def engine_names() -> list[str]:
    """The names this worker can play (its file's, plus the bundled engines)."""
    return sorted(set(_configured()) | set(BUNDLED_NAMES))


def resolve_engine(name: str, options: tuple[tuple[str, str], ...] = (), restart: bool = False) -> EngineSpec:
    """The worker's own spec for ``name``, with the tournament's options laid over it."""
    spec = _configured().get(name)
    if spec is None:
        if name not in BUNDLED_NAMES:
            where = os.environ.get(ENGINES_ENV) or f"{ENGINES_ENV} not set"
            raise EngineNotConfigured(f"engine {name!r} is not in this worker's engines file ({where})")
        spec = parse_engine_spec(name)
    return replace(spec, options=tuple((dict(spec.options) | dict(options)).items()), restart=spec.restart or restart)


def spec_text(spec: EngineSpec) -> str:
    """How to start ``spec`` as engine spec text (for a local cluster's engines file)."""
    import shlex

    tokens = [f"cmd={spec.argv[0]}", *(f"arg={a}" for a in spec.argv[1:]), f"name={spec.name}"]
    if spec.cwd:
        tokens.append(f"dir={spec.cwd}")
    if spec.memory_limit:
        tokens.append(f"limit.memory={spec.memory_limit}")
    if spec.cpu_limit:
        tokens.append(f"limit.cpu={spec.cpu_limit}")
    return " ".join(shlex.quote(t) for t in tokens)


# --- the engine host ------------------------------------------------------------------------------


class _EngineSet(EnginePool):
    """The engines one game plays with, kept for the next game of the same tournament."""

    def __init__(self, nursery: trio.Nursery, tournament: str, seats: int) -> None:
        super().__init__(nursery, capacity=max(ENGINES_PER_WORKER, seats))
        self.tournament = tournament
        self.idle_since = trio.current_time()


class EngineHost:
    """A trio loop in a daemon thread that owns this process's engines across games."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._free: list[_EngineSet] = []
        self._games: dict[int, trio.CancelScope] = {}
        self._ids = itertools.count()
        ready = threading.Event()
        self._thread = threading.Thread(target=trio.run, args=(self._main, ready), name="santorini-engine-host", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the engine host did not start")

    async def _main(self, ready: threading.Event) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._token = trio.lowlevel.current_trio_token()
            nursery.start_soon(self._reaper)
            ready.set()
            try:
                await trio.sleep_forever()
            finally:
                with trio.CancelScope(shield=True):
                    for engines in self._free:
                        await engines.aclose()

    async def _reaper(self) -> None:
        while True:
            await trio.sleep(IDLE_CLOSE / 4)
            now = trio.current_time()
            for engines in [e for e in self._free if now - e.idle_since > IDLE_CLOSE]:
                self._free.remove(engines)
                await engines.aclose()

    def _take(self, tournament: str, names: tuple[str, ...]) -> _EngineSet:
        candidates = [e for e in self._free if e.tournament == tournament]
        if not candidates:
            assert self._nursery is not None
            return _EngineSet(self._nursery, tournament, len(names))
        best = max(candidates, key=lambda e: len(set(names) & set(e.slots)))
        self._free.remove(best)
        return best

    async def _play(self, spec: GameSpec, game_id: int, result: concurrent.futures.Future[bytes]) -> None:
        assert self._nursery is not None
        engines = self._take(spec.tournament, instance_names(spec.names))
        scope = trio.CancelScope()
        self._games[game_id] = scope
        report: GameReport | None = None
        try:
            with scope:
                report = await _play_with(engines, spec)
        except Exception as exc:  # a bug must reach the coordinator, not kill the host
            await engines.aclose()
            result.set_exception(exc)
            return
        except BaseException:  # the host itself is stopping
            result.set_exception(GameAborted(f"game {spec.number}: the engine host stopped"))
            await engines.aclose()
            raise
        finally:
            del self._games[game_id]
        if report is None:  # cancelled: the tournament was aborted
            await engines.aclose()
            result.set_exception(GameAborted(f"game {spec.number} aborted"))
            return
        engines.idle_since = trio.current_time()
        self._free.append(engines)
        result.set_result(encode_record(report.record))

    def submit(self, spec: GameSpec) -> tuple[int, concurrent.futures.Future[bytes]]:
        """Start a game in the host; its encoded record arrives on the returned future."""
        assert self._nursery is not None
        assert self._token is not None
        result: concurrent.futures.Future[bytes] = concurrent.futures.Future()
        game_id = next(self._ids)
        trio.from_thread.run_sync(self._nursery.start_soon, self._play, spec, game_id, result, trio_token=self._token)
        return game_id, result

    def abort(self, game_id: int) -> None:
        """Cancel a running game (its engines are closed, no record)."""
        def cancel() -> None:
            scope = self._games.get(game_id)
            if scope is not None:
                scope.cancel()
        trio.from_thread.run_sync(cancel, trio_token=self._token)

    def release(self, tournament: str) -> int:
        """Close the idle engines kept for ``tournament``; returns how many sets were closed."""
        async def close() -> int:
            mine = [e for e in self._free if e.tournament == tournament]
            for engines in mine:
                self._free.remove(engines)
                await engines.aclose()
            return len(mine)
        return trio.from_thread.run(close, trio_token=self._token)

    def close(self, timeout: float = 15.0) -> None:
        """Stop the host: every engine through the process layer's bounded shutdown."""
        if self._nursery is not None and self._thread.is_alive():
            try:
                trio.from_thread.run_sync(self._nursery.cancel_scope.cancel, trio_token=self._token)
            except trio.RunFinishedError:
                pass
            self._thread.join(timeout)


async def _play_with(engines: _EngineSet, spec: GameSpec) -> GameReport:
    specs = [replace(resolve_engine(name, options, restart), name=name) for name, options, restart in zip(
        spec.names, spec.options, spec.restart, strict=True)]
    return await play(PoolSource(engines), specs, spec.setup())


_host: EngineHost | None = None
_host_lock = threading.Lock()


def host() -> EngineHost:
    """This process's engine host (started on first use)."""
    global _host
    with _host_lock:
        if _host is None:
            _host = EngineHost()
        return _host


def close_host() -> None:
    """Stop this process's engine host, if any (worker teardown)."""
    global _host
    with _host_lock:
        if _host is not None:
            _host.close()
            _host = None


# --- the task ------------------------------------------------------------------------------------


def run_game(spec: GameSpec) -> bytes:
    """Dask task: play one game on this worker's engine host; the msgpack record payload.

    Raises:
        GameAborted: the tournament's abort event was set (no record).
        EngineNotConfigured: the worker has no engine of that name.
    """
    for name in spec.names:
        resolve_engine(name)  # fail fast, before any engine of the pair is started
    engine_host = host()
    game_id, result = engine_host.submit(spec)
    abort = None
    while True:
        try:
            return result.result(timeout=ABORT_POLL)
        except concurrent.futures.TimeoutError:
            pass
        if abort is None:
            from distributed import Event  # only once a game lasts: most short games never poll

            abort = Event(f"abort-{spec.tournament}")
        if abort.is_set():
            engine_host.abort(game_id)
            try:
                result.result(timeout=ABORT_WAIT)
            except GameAborted:
                pass
            raise GameAborted(f"game {spec.number} aborted")


def seat_refusals_here(names: list[str], seats: int) -> list[str]:
    """``client.run`` target: start each named engine as this worker would and return a line for
    each that did not declare ``seats``-seat games (before any game of the tournament starts)."""
    from ..tournament.runner import seat_refusals

    specs = []
    for name in names:
        try:
            specs.append(resolve_engine(name))
        except EngineNotConfigured as exc:
            return [str(exc)]
    engine_host = host()
    return trio.from_thread.run(seat_refusals, tuple(specs), seats, trio_token=engine_host._token)


def release_tournament(tournament: str) -> int:
    """Close the engines this process keeps for ``tournament`` (``client.run`` target)."""
    return _host.release(tournament) if _host is not None else 0
