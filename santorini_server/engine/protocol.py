"""The async (trio) engine API: one SEI engine driven from Python, with no referee around it.

Theory of operation.  :func:`popen` starts the engine through the referee's own
:class:`~santorini_server.referee.engine.Engine` (the process under its guard, the one
:class:`~santorini_server.referee.channel.EngineChannel`, the handshake, the spec's options), so
an engine behaves here exactly as in a match.  :class:`AsyncEngine` adds what a script needs
and a game does not: a position given as SPS (or :class:`~santorini_server.rules.Position`)
plus turns, checked by the rules core before it is sent (SEI forbids sending a finished or
illegal position); ``newgame`` only when the gods (or the caller's ``game`` key) change; a
``play`` that is the referee's per-turn path (``Engine.think``); an ``analysis`` that yields
``info`` lines as they arrive; failures as :class:`EngineError` with the stderr tail and the
last lines read.

SEI has no ``multipv`` (SPEC.md section 4.2).  ``analyse(multipv=N)`` with N > 1 therefore
searches the position after every legal turn (``depth`` one less) and ranks the turns by the
negated scores; that needs a next mover on the other side (two seats, or four in teams).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from types import TracebackType

import trio

from ..records.analysis import Score
from ..referee.channel import EngineChannel, EngineFailure, EngineInfo
from ..referee.engine import HANDSHAKE_TIMEOUT, STOP_TIMEOUT, Engine
from ..referee.engine_spec import EngineSpec, parse_engine_spec
from ..rules import Position
from ..sei import IDLE, BestMove, Go, Info, PositionCommand, Resign, SetOption, Stop
from ..sei import EngineError as EngineErrorLine
from ..sei.errors import SeiProtocolError
from .types import AnalysisInfo, EngineError, EngineTerminated, Limit, PlayResult

__all__ = ["AsyncEngine", "AnalysisStream", "popen", "ARRIVED_LINES"]

ARRIVED_LINES = 20
"""How many of the engine's last lines an :class:`EngineError` carries."""


def _spec_of(spec: str | EngineSpec) -> EngineSpec:
    return spec if isinstance(spec, EngineSpec) else parse_engine_spec(spec)


class AsyncEngine:
    """A started, handshaken engine (made by :func:`popen`); every method is a trio coroutine."""

    def __init__(self, engine: Engine, arrived: deque[str]) -> None:
        self._engine = engine
        self._arrived = arrived
        self._gods: tuple[str, ...] | None = None
        self._game: object = None
        self._parsed: tuple[str, Position, str | None] | None = None
        """The last position text, its Position and the SPS sent for it (a script asks about one
        position many times)."""
        self._go: tuple[Limit, Go] | None = None
        self._unbounded = trio.CancelScope()
        self._line: tuple[Position, tuple[str, ...], tuple[str, ...], Position] | None = None
        """The last call's start, turns as given, turns as sent and the position they reach."""
        self._closed = False

    @property
    def name(self) -> str:
        """The spec's name (``alphabeta``, or ``name=``)."""
        return self._engine.name

    @property
    def id(self) -> EngineInfo:
        """What the engine said at the handshake: ``name``, ``author``, ``gods``, ``options``..."""
        return self._engine.info

    @property
    def spec(self) -> EngineSpec:
        return self._engine.spec

    # -- failures ------------------------------------------------------------------------------

    def _error(self, failure: EngineFailure) -> EngineError:
        return EngineError(
            failure.kind, failure.detail, stderr_tail=self._engine.stderr_tail(), arrived=tuple(self._arrived)
        )

    def _usable(self) -> Engine:
        if self._closed:
            raise EngineTerminated("closed", f"{self.name} was closed (quit)")
        if self._engine.broken:
            raise EngineTerminated(
                "closed", f"{self.name} failed before and cannot be used again; start it again with popen",
                stderr_tail=self._engine.stderr_tail(), arrived=tuple(self._arrived),
            )
        return self._engine

    def _idle(self) -> Engine:
        """:meth:`_usable`, and not searching: a command the codec would refuse breaks the engine,
        so it is refused here first (ValueError)."""
        engine = self._usable()
        if engine.conn.state is not IDLE:
            raise ValueError(f"{self.name} is busy (a search is running): stop the analysis first")
        return engine

    # -- positions -----------------------------------------------------------------------------

    def _start(self, position: str | Position) -> tuple[Position, str | None]:
        """The start position and the SPS sent for it (None: ``startpos``)."""
        if isinstance(position, Position):
            return position, position.sps()
        cached = self._parsed
        if cached is not None and cached[0] == position:
            return cached[1], cached[2]
        text = position.strip()
        if text == "startpos":
            start, sent = Position.start(), None
        else:
            start = Position.from_sps(text)
            sent = start.sps()
        self._parsed = (position, start, sent)
        return start, sent

    def _position(self, position: str | Position, moves: Sequence[str]) -> tuple[Position, PositionCommand]:
        """The position searched and the ``position`` command for it; ValueError (one line) for a
        position SEI may not send (malformed, illegal turns, game over, no legal turn).

        A game played through the API sends the same start with one more turn each time, so the
        turns already checked for the last call are not checked again (python-chess keeps its
        board's move stack the same way); only the new ones are."""
        start, sent = self._start(position)
        moves = tuple(moves)
        line = self._line
        if line is not None and line[0] is start and moves[: len(line[1])] == line[1]:
            done, canonical, pos = len(line[1]), list(line[2]), line[3]
        else:
            done, canonical, pos = 0, [], start
        for i in range(done, len(moves)):
            t = pos.play(moves[i])
            canonical.append(t.stn)
            pos = t.position
            if t.win:
                if i < len(moves) - 1:
                    raise ValueError(f"turn {i + 1} ({t.stn}) wins the game ({t.termination}); no turn may follow")
                raise ValueError(f"the game is over: {t.stn} wins it ({t.termination})")
            while pos.nseats == 3 and pos.is_lost():  # the seat is eliminated, as the referee rules
                nxt = pos.eliminate()
                if nxt is None:
                    break
                pos = nxt
        if pos.is_lost():
            raise ValueError(f"seat {pos.player} has no legal turn in {pos.sps()}: the game is over, nothing to search")
        sent_moves = tuple(canonical)
        self._line = (start, moves, sent_moves, pos)
        return pos, PositionCommand.unchecked(sent, sent_moves)

    async def _ready(self, pos: Position, game: object) -> Engine:
        """``newgame`` when the gods or the caller's ``game`` key changed since the last search."""
        engine = self._idle()
        if pos.gods != self._gods or game is not self._game:
            if not engine.supports(pos.gods):
                raise ValueError(
                    f"{self.name} does not play {'/'.join(pos.gods)} (it lists: {', '.join(engine.info.gods)})"
                )
            if (refusal := engine.seats_refusal(pos.nseats)) is not None:
                raise ValueError(refusal)
            self._gods = None
            try:
                await engine.new_game(pos.gods)
            except EngineFailure as exc:
                raise self._error(exc) from None
            self._gods, self._game = pos.gods, game
        return engine

    # -- commands ------------------------------------------------------------------------------

    async def configure(self, options: Mapping[str, object]) -> None:
        """``setoption`` for each option the engine announced; a value of None presses a button.

        Raises:
            ValueError: an option the engine did not announce, or a value SEI cannot send.
        """
        engine = self._idle()
        commands = []
        for name, value in options.items():
            if name not in engine.info.options:
                known = ", ".join(engine.info.options) or "none"
                raise ValueError(f"{self.name} has no option {name!r} (it announced: {known})")
            text = None if value is None else ("true" if value is True else "false" if value is False else str(value))
            try:
                commands.append(SetOption(name=name, value=text))
            except SeiProtocolError as exc:
                raise ValueError(f"option {name!r}: {exc}") from None
        try:
            await engine.channel.send(*commands)
        except EngineFailure as exc:
            raise self._error(exc) from None

    async def play(
        self,
        position: str | Position,
        limit: Limit,
        *,
        moves: Sequence[str] = (),
        game: object = None,
        timeout: float | None = None,  # noqa: ASYNC109 (a limit the engine is held to, part of the API)
    ) -> PlayResult:
        """The engine's turn in ``position`` after ``moves``, and its last ``info``.

        ``timeout`` seconds after ``go`` the search is stopped and :class:`EngineError` (``time``)
        raised; without it, the engine is waited for (its ``limit`` is the engine's to keep).

        Raises:
            ValueError: a bad position or limit (nothing was sent).
            EngineError: the engine failed; it cannot be used again.
        """
        last = self._go
        if last is not None and last[0] == limit:
            go = last[1]  # a script's limit is usually the same every call (go() costs 20 us)
        else:
            go = limit.go()
            self._go = (limit, go)
        if go.infinite:
            raise ValueError("play needs a limit (time, depth, nodes or clocks): an infinite search never answers")
        pos, command = self._position(position, moves)
        engine = await self._ready(pos, game)
        if timeout is None:
            # No deadline: think() only ever arms its scope at infinity, so one scope that is never
            # entered serves every call (entering and leaving a scope costs about 10 us a turn).
            try:
                reply = await engine.think(command, go, deadline=self._unbounded, allowance=math.inf)
            except EngineFailure as exc:
                raise self._error(exc) from None
            info = None if reply.info is None else AnalysisInfo.of(reply.info)
            return PlayResult(reply.turn, info, reply.elapsed)
        with trio.CancelScope() as deadline:
            try:
                reply = await engine.think(command, go, deadline=deadline, allowance=timeout)
            except EngineFailure as exc:
                raise self._error(exc) from None
        if deadline.cancelled_caught:
            await engine.stop_search()
            raise EngineError(
                "time", f"no bestmove within {timeout:g} s", stderr_tail=engine.stderr_tail(), arrived=tuple(self._arrived)
            )
        info = None if reply.info is None else AnalysisInfo.of(reply.info)
        return PlayResult(reply.turn, info, reply.elapsed)

    async def analyse(
        self,
        position: str | Position,
        limit: Limit,
        *,
        moves: Sequence[str] = (),
        multipv: int = 1,
        game: object = None,
        timeout: float | None = None,  # noqa: ASYNC109 (per search, as in play)
    ) -> list[AnalysisInfo]:
        """The engine's judgement of ``position``: ``multipv`` lines, best first (see the module
        docstring for N > 1), each with score, depth, nodes and pv (the pv starts with the turn)."""
        if type(multipv) is not int or multipv < 1:
            raise ValueError(f"multipv must be a whole number >= 1, got {multipv!r}")
        if multipv == 1:
            result = await self.play(position, limit, moves=moves, game=game, timeout=timeout)
            info = result.info or AnalysisInfo()
            if not info.pv and result.turn is not None:
                info = replace(info, pv=(result.turn,))
            return [info]
        pos, _ = self._position(position, moves)
        if pos.nseats == 3:
            raise ValueError("multipv above 1 needs two seats or four in teams: with three the next seat's score is "
                             "not the negation of the mover's")
        child_limit = limit if limit.depth is None else replace(limit, depth=max(1, limit.depth - 1))
        lines: list[AnalysisInfo] = []
        for t in pos.transitions():
            if t.win:
                lines.append(AnalysisInfo(score=Score(win=1), depth=1, pv=(t.stn,)))
                continue
            if t.position.is_lost():
                lines.append(AnalysisInfo(score=Score(win=1), depth=1, pv=(t.stn,)))
                continue
            result = await self.play(t.position, child_limit, game=game, timeout=timeout)
            info = result.info or AnalysisInfo()
            score = None if info.score is None else info.score.negated()
            lines.append(replace(info, score=score, pv=(t.stn, *info.pv), depth=(info.depth or 0) + 1))
        lines.sort(key=lambda i: (-2, 0) if i.score is None else i.score.rank(), reverse=True)
        return [replace(line, multipv=k) for k, line in enumerate(lines[:multipv], 1)]

    def analysis(
        self,
        position: str | Position,
        limit: Limit | None = None,
        *,
        moves: Sequence[str] = (),
        game: object = None,
    ) -> AnalysisStream:
        """A search whose ``info`` lines arrive as they are written: ``async with engine.analysis(pos)
        as stream: async for info in stream: ...``; with no limit it runs until ``stream.stop()``
        (leaving the block stops it too)."""
        return AnalysisStream(self, position, limit or Limit(), moves, game)

    async def ping(self) -> None:
        """``isready`` -> ``readyok`` (the engine is alive and idle)."""
        try:
            await self._usable().ping()
        except EngineFailure as exc:
            raise self._error(exc) from None

    async def quit(self) -> None:
        """``quit``, then the bounded shutdown (grace, SIGTERM, SIGKILL); later calls raise
        :class:`EngineTerminated`.  Idempotent."""
        if self._closed:
            return
        self._closed = True
        await self._engine.aclose()

    def stderr_tail(self) -> str:
        """The last 2000 characters the engine wrote to stderr."""
        return self._engine.stderr_tail()


class AnalysisStream:
    """A running search (from :meth:`AsyncEngine.analysis`): async-iterate its ``info`` lines;
    :attr:`result` holds the ``bestmove`` once it came."""

    def __init__(
        self, engine: AsyncEngine, position: str | Position, limit: Limit, moves: Sequence[str], game: object
    ) -> None:
        self._owner = engine
        self._args = (position, limit, moves, game)
        self.result: PlayResult | None = None
        self.info: AnalysisInfo | None = None
        """The last ``info`` with a score or pv (what the search thinks now)."""
        self._started = 0.0
        self._stopped = False

    async def __aenter__(self) -> AnalysisStream:
        position, limit, moves, game = self._args
        go = limit.go()
        owner = self._owner
        pos, command = owner._position(position, moves)
        engine = await owner._ready(pos, game)
        try:
            self._started = await engine.channel.send(command, go)
        except EngineFailure as exc:
            raise owner._error(exc) from None
        return self

    def __aiter__(self) -> AnalysisStream:
        return self

    async def __anext__(self) -> AnalysisInfo:
        if self.result is not None:
            raise StopAsyncIteration
        owner = self._owner
        channel = owner._engine.channel
        try:
            while True:
                event = await channel.next_event()
                if type(event) is Info:
                    info = AnalysisInfo.of(event)
                    if event.string is None:
                        self.info = info
                    return info
                if type(event) in (BestMove, Resign):
                    turn = event.turn if type(event) is BestMove else None
                    self.result = PlayResult(turn, self.info, channel.arrived - self._started)
                    raise StopAsyncIteration
                if type(event) is EngineErrorLine:
                    owner._engine.broken = True
                    raise EngineFailure("engine-error", f"error {event.text}")
        except EngineFailure as exc:
            raise owner._error(exc) from None

    async def stop(self) -> None:
        """``stop``: the engine ends the search and sends its ``bestmove`` (iteration then ends)."""
        if self.result is None and not self._stopped:
            self._stopped = True
            try:
                await self._owner._engine.channel.send(Stop())
            except EngineFailure as exc:
                raise self._owner._error(exc) from None

    async def wait(self) -> PlayResult:
        """Read to the ``bestmove`` (without stopping the search) and return it."""
        async for _ in self:
            pass
        assert self.result is not None
        return self.result

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.result is not None or self._owner._engine.broken:
            return
        with trio.move_on_after(STOP_TIMEOUT) as scope:
            try:
                await self.stop()
                await self.wait()
            except EngineError:
                return
        if scope.cancelled_caught:
            self._owner._engine.broken = True


@asynccontextmanager
async def popen(
    spec: str | EngineSpec, *, handshake_timeout: float = HANDSHAKE_TIMEOUT
) -> AsyncIterator[AsyncEngine]:
    """Start the engine ``spec`` names (a CLI engine spec: ``alphabeta``, ``"cmd=./bot option.Hash=64"``)
    and hand it over handshaken, with the spec's options set; it is closed when the block ends.

    Raises:
        ValueError: a bad spec (one line).
        EngineError: the engine could not be started or did not complete the handshake.
    """
    engine_spec = _spec_of(spec)
    arrived: deque[str] = deque(maxlen=ARRIVED_LINES)

    def tap(_at: float, direction: str, line: str) -> None:
        if direction == "<<":
            arrived.append(line)

    # Exceptions are carried out of the nursery and raised after it, so the caller sees its own
    # ValueError or EngineError, never an ExceptionGroup around it.
    raised: Exception | None = None
    async with trio.open_nursery() as nursery:
        channel: EngineChannel | None = None
        try:
            channel = await EngineChannel.open(nursery, engine_spec, tap=tap)
            engine = await Engine.attach(channel, handshake_timeout=handshake_timeout)
        except EngineFailure as exc:
            tail = "" if channel is None else channel.stderr_tail()
            raised = EngineError(exc.kind, exc.detail, stderr_tail=tail, arrived=tuple(arrived))
        else:
            api = AsyncEngine(engine, arrived)
            try:
                yield api
            except Exception as exc:
                raised = exc
            finally:
                with trio.CancelScope(shield=True):
                    await api.quit()
        nursery.cancel_scope.cancel()
    if raised is not None:
        raise raised
