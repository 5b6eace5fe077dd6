"""The synchronous engine API: :class:`SimpleEngine`, for plain scripts and notebooks.

It runs the async API (:mod:`.protocol`) in a thread of its own with its own trio loop, and every
method hands its call to that loop (one serving task, woken through ``run_sync_soon``) and
waits: the caller needs no event loop, and one already running (a notebook's asyncio) is not
disturbed.  The engine, its
channel and its failures are exactly those of :class:`~.protocol.AsyncEngine`.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import trio

from ..referee.channel import EngineInfo
from ..referee.engine import HANDSHAKE_TIMEOUT
from ..referee.engine_spec import EngineSpec
from ..rules import Position
from .protocol import AnalysisStream, AsyncEngine, _spec_of, popen
from .types import AnalysisInfo, EngineTerminated, Limit, PlayResult

__all__ = ["SimpleEngine", "SimpleAnalysis"]

T = TypeVar("T")

async def _stop() -> None:
    """The call that ends the engine's thread (its serving task returns)."""


_STOP = _stop

#: How long ``close`` waits for the engine's thread (the shutdown itself is bounded by the process layer).
_JOIN_TIMEOUT = 30.0


class SimpleEngine:
    """An engine driven synchronously; made by :meth:`popen`, closed by :meth:`quit` or ``with``."""

    def __init__(self, spec: EngineSpec, handshake_timeout: float) -> None:
        self._spec = spec
        self._handshake_timeout = handshake_timeout
        self._engine: AsyncEngine | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._server: trio.lowlevel.Task | None = None
        self._parked = False
        self._closed = False
        self._scope = trio.CancelScope()
        """The running call's scope: ``quit`` after an interrupted call cancels it."""
        self._started = threading.Event()
        self._failure: BaseException | None = None
        self._calls = threading.Lock()
        """One call at a time (from any thread)."""
        self._request: tuple[Callable[..., Awaitable[Any]], tuple[Any, ...], dict[str, Any]] | None = None
        self._result: tuple[bool, Any] = (True, None)
        self._reply = threading.Lock()
        """Held while a call waits; the engine's thread releases it when the answer is in ``_result``."""
        self._reply.acquire()
        self._outstanding = False
        """A call was handed over and its answer not yet taken (the caller was interrupted)."""
        self._thread = threading.Thread(target=self._run, name=f"engine {spec.name}", daemon=True)

    @classmethod
    def popen(cls, spec: str | EngineSpec, *, handshake_timeout: float = HANDSHAKE_TIMEOUT) -> SimpleEngine:
        """Start the engine ``spec`` names (a CLI engine spec) and return it handshaken.

        Raises:
            ValueError: a bad spec.
            EngineError: the engine could not be started or did not complete the handshake.
        """
        self = cls(_spec_of(spec), handshake_timeout)
        self._thread.start()
        self._started.wait()
        if self._failure is not None:
            self._thread.join()
            raise self._failure
        return self

    def _run(self) -> None:
        try:
            trio.run(self._serve)
        except BaseException as exc:
            if not self._started.is_set():
                self._failure = exc
        finally:
            self._closed = True
            self._started.set()
            if self._outstanding and self._request is not None:  # a call the loop will never answer
                self._request = None
                self._result = (False, EngineTerminated("closed", f"{self._spec.name}'s event loop ended"))
                self._reply.release()

    async def _serve(self) -> None:
        """The engine's thread: one task that runs each call handed over, in turn.

        A call is handed over without a task of its own (``trio.from_thread.run`` spawns one per
        call and costs about 180 us a hop): the caller stores it, wakes this task through
        ``run_sync_soon`` and blocks on a lock this task releases with the answer."""
        async with popen(self._spec, handshake_timeout=self._handshake_timeout) as engine:
            self._engine = engine
            self._token = trio.lowlevel.current_trio_token()
            self._server = trio.lowlevel.current_task()
            self._started.set()
            while True:
                if self._request is None:
                    self._parked = True
                    await trio.lowlevel.wait_task_rescheduled(lambda _: trio.lowlevel.Abort.SUCCEEDED)
                request = self._request
                if request is None or request[0] is _STOP:
                    self._request = None
                    self._result = (True, None)
                    self._reply.release()
                    return
                fn, args, kwargs = request
                try:
                    with trio.CancelScope() as self._scope:
                        try:
                            self._result = (True, await fn(*args, **kwargs))
                        except Exception as exc:
                            self._result = (False, exc)
                    if self._scope.cancelled_caught:
                        self._result = (False, EngineTerminated("closed", f"{self._spec.name}: the call was interrupted"))
                finally:
                    self._request = None
                    self._reply.release()

    def _kick(self) -> None:
        """In the engine's thread: wake the serving task for the call just handed over."""
        if self._parked and self._server is not None:
            self._parked = False
            trio.lowlevel.reschedule(self._server)

    def _call(self, fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        with self._calls:
            if self._outstanding:  # an earlier call was interrupted (Ctrl-C): let it finish first
                self._reply.acquire()
                self._outstanding = False
            if self._closed or self._token is None or not self._thread.is_alive():
                raise EngineTerminated("closed", f"{self._spec.name} was closed (quit)")
            self._request = (fn, args, kwargs)
            self._outstanding = True
            try:
                self._token.run_sync_soon(self._kick)
            except trio.RunFinishedError:
                self._request = None
                self._outstanding = False
                raise EngineTerminated("closed", f"{self._spec.name} was closed (quit)") from None
            self._reply.acquire()
            self._outstanding = False
            ok, value = self._result
            self._result = (True, None)
            if ok:
                return value
            raise value

    @property
    def _api(self) -> AsyncEngine:
        if self._engine is None:
            raise EngineTerminated("closed", f"{self._spec.name} is not running")
        return self._engine

    @property
    def name(self) -> str:
        return self._spec.name

    @property
    def id(self) -> EngineInfo:
        """What the engine said at the handshake (``name``, ``author``, ``gods``, ``options``...)."""
        return self._api.id

    def configure(self, options: Mapping[str, object]) -> None:
        """See :meth:`AsyncEngine.configure`."""
        self._call(self._api.configure, options)

    def play(
        self, position: str | Position, limit: Limit, *, moves: Sequence[str] = (), game: object = None,
        timeout: float | None = None,
    ) -> PlayResult:
        """See :meth:`AsyncEngine.play`."""
        return self._call(self._api.play, position, limit, moves=moves, game=game, timeout=timeout)

    def analyse(
        self, position: str | Position, limit: Limit, *, moves: Sequence[str] = (), multipv: int = 1,
        game: object = None, timeout: float | None = None,
    ) -> list[AnalysisInfo]:
        """See :meth:`AsyncEngine.analyse`."""
        return self._call(self._api.analyse, position, limit, moves=moves, multipv=multipv, game=game, timeout=timeout)

    def analysis(
        self, position: str | Position, limit: Limit | None = None, *, moves: Sequence[str] = (), game: object = None
    ) -> SimpleAnalysis:
        """``with engine.analysis(pos) as stream: for info in stream: ...`` (see :meth:`AsyncEngine.analysis`)."""
        return SimpleAnalysis(self, self._api.analysis(position, limit, moves=moves, game=game))

    def ping(self) -> None:
        self._call(self._api.ping)

    def quit(self) -> None:
        """Close the engine (``quit``, then the bounded shutdown) and its thread.  Idempotent."""
        if not self._closed and self._engine is not None and self._thread.is_alive():
            if self._outstanding and self._token is not None:  # Ctrl-C during a call: end that call now
                try:
                    self._token.run_sync_soon(self._scope.cancel)
                except trio.RunFinishedError:
                    pass
            try:
                self._call(self._engine.quit)
                self._call(_stop)
            except EngineTerminated:
                pass
            self._closed = True
        self._thread.join(_JOIN_TIMEOUT)

    def stderr_tail(self) -> str:
        return self._api.stderr_tail()

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.quit()


class SimpleAnalysis:
    """A running search seen synchronously: iterate its ``info`` lines; ``result`` after the end."""

    def __init__(self, owner: SimpleEngine, stream: AnalysisStream) -> None:
        self._owner = owner
        self._stream = stream

    @property
    def result(self) -> PlayResult | None:
        return self._stream.result

    @property
    def info(self) -> AnalysisInfo | None:
        return self._stream.info

    def __enter__(self) -> SimpleAnalysis:
        self._owner._call(self._stream.__aenter__)
        return self

    def __iter__(self) -> SimpleAnalysis:
        return self

    def __next__(self) -> AnalysisInfo:
        try:
            return self._owner._call(self._stream.__anext__)
        except StopAsyncIteration:
            raise StopIteration from None

    def stop(self) -> None:
        self._owner._call(self._stream.stop)

    def wait(self) -> PlayResult:
        return self._owner._call(self._stream.wait)

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._owner._call(self._stream.__aexit__, exc_type, exc, tb)
