"""Protocol compliance test for one SEI engine (``santorini check``, like ``fastchess --compliance``).

Theory of operation.  A bot author wants to know, before a tournament, everything the referee
would hold against the engine.  The run is an ordered list of small checks (:data:`CHECKS`),
each an ``async`` function that drives one engine session and returns a verdict (``pass``,
``fail`` or ``warn``) with a one-line reason.  A failing check does not end the run: the runner
first tries to bring the engine back to idle (``stop``, wait for the outstanding reply), and if
that does not work -- the engine crashed, broke the protocol (the codec's ERROR state is
sticky), or still owes a reply -- it restarts the engine and carries on, so one bug does not
hide the others.  An engine that cannot be (re)started, or has needed :data:`MAX_RESTARTS`
restarts, is *dead*: every later check is reported as skipped and counted as a failure.

The session talks to the process layer and the sans-IO codec directly (not through the
referee's :class:`~santorini_server.referee.engine.Engine`): the checks must time single lines,
send ``isready`` in the middle of a search and see lines that ``Engine`` deliberately hides.  The
EOF check uses ``Engine.start`` itself, so the start-up path of a real match is exercised too.
Turns are judged by the rules core exactly as in a game (``Position.play``: parse, normalise,
match).  Every wait is bounded; every process is reaped before :func:`run_compliance` returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from typing import Awaitable, Callable, Literal, Sequence

import trio

from ..process import EngineGone, EngineLimits, EngineProcess, EngineStartError, run_engine
from ..rules import GODS, MORTAL, NotationError, Position, perft
from ..sei import (
    EOF,
    ERROR,
    IDLE,
    NEED_DATA,
    QUIT,
    SEARCHING,
    BestMove,
    Command,
    EngineError,
    EngineMessage,
    Feature,
    Go,
    Gods,
    Id,
    Info,
    IsReady,
    LegalMoves,
    LegalMovesRequest,
    LocalProtocolError,
    NewGame,
    Option,
    PerftRequest,
    PerftResult,
    Quit,
    ReadyOk,
    RemoteProtocolError,
    Resign,
    Result,
    Sei,
    SeiConnection,
    SeiOk,
    SetOption,
    Stop,
    Unknown,
)
from ..sei import Position as PositionCommand
from .engine import Engine, EngineFailure, EngineInfo
from .engine_spec import EngineSpec

__all__ = [
    "CHECKS",
    "CheckResult",
    "ComplianceReport",
    "ComplianceStartError",
    "MAX_RESTARTS",
    "Status",
    "run_compliance",
]

Status = Literal["pass", "fail", "warn", "skip"]

# --- Limits (seconds).  Each names its reason. ----------------------------------------------------

READY_LIMIT = 1.0
"""``isready`` must be answered "immediately, also during a search" (protocol.md 4.1); 1 s is
generous for a pipe round trip and still catches an engine that answers only between searches."""
STOP_LIMIT = 1.0
"""``stop`` -> ``bestmove`` "promptly"; the referee's own stop timeout is 5 s, a check asks more."""
QUIET_WINDOW = 0.2
"""How long to listen for a second ``bestmove`` after ``stop`` was answered."""
INFINITE_WINDOW = 0.3
"""How long a ``go infinite`` search must run without a ``bestmove`` before ``isready``/``stop``."""
EXIT_LIMIT = 2.0
"""``quit`` or EOF on stdin -> process exit (the referee's quit grace is 5 s; a check asks more)."""
MOVETIME_SLACK = 0.1
"""``go movetime 200`` must be answered within 200 ms + this (pipe, wake-up and scheduling)."""
CLOCK_GRACE = 0.1
"""Lag forgiven on a clock before a turn counts as a time loss (the referee's ``timemargin``)."""
SETTLE_LIMIT = 1.0
"""After a failed check: how long the engine gets to deliver what it still owes before a restart."""
WRITE_LIMIT = 2.0
"""An engine that does not read its stdin for this long is stuck."""
MAX_RESTARTS = 3
"""An engine that needs more restarts than this is dead: later checks would only repeat the noise
(and a hanging engine would make the run take minutes)."""

# --- Positions ------------------------------------------------------------------------------------

CROSS_SPS = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
"""protocol.md section 2: the "cross" start after placement (68 legal turns, perft 2 = 5156)."""
OPENING = ("b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5", "b4-b5+a5", "c5-d5+e5", "b5-c4+c5", "d5-e5+e4")
"""The first eight turns of the SGN example game (protocol.md section 5): a midgame via ``moves``."""
WIN_IN_ONE_SPS = "mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;2"
"""b2 (level 2) next to c3 (level 3): ``b2-c3`` wins at once."""
ATHENA_SPS = "athena[up]/mortal;00010/00011/00100/10000/01000;c3,d2/a1,e5;2;5"
"""Athena moved up last turn; the mortal's only legal moves are ``a1-b2`` (every other move goes
up), so an engine that ignores ``athena[up]`` almost surely moves up."""
GOD_BOARD = "01200/12010/01021/20100/00010"
GOD_WORKERS = "b3,c3/c2,d3"
"""A midgame where each god's power is usable (adjacent enemies for Apollo and Minotaur, levels
for Pan and Artemis, low squares for Atlas) and nobody wins in one: ``<god>/mortal;...;1;6``."""
GOD_TURNS = 4
"""Turns per god check: two by the god, two by the mortal (the engine plays both sides)."""
TURN_GO = Go(p1time=1000, p2time=1000, p1inc=10, p2inc=10)
"""The clock for ordinary turn checks: blitz, so a run stays short, and a real clock to honour."""


def god_sps(god: str) -> str:
    """The god check's start position with ``god`` as player 1."""
    return f"{god}/mortal;{GOD_BOARD};{GOD_WORKERS};1;6"


# --- Results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """One line of the report."""

    name: str
    status: Status
    reason: str
    dead: bool = False
    """Skipped because the engine was dead: reported as ``skip``, counted as a failure."""
    transcript: tuple[str, ...] = ()
    """The SEI lines exchanged during the check (``>>`` sent, ``<<`` received), for ``--verbose``."""

    @property
    def failed(self) -> bool:
        return self.status == "fail" or self.dead


@dataclass
class ComplianceReport:
    """Every check's result, in order, and what the engine said about itself."""

    engine: str
    results: list[CheckResult] = field(default_factory=list)
    info: EngineInfo = field(default_factory=EngineInfo)
    restarts: int = 0
    stderr_tail: str = ""

    @property
    def passed(self) -> int:
        return sum(r.status == "pass" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.failed for r in self.results)

    @property
    def warnings(self) -> int:
        return sum(r.status == "warn" for r in self.results)

    @property
    def skipped(self) -> int:
        """Checks that did not apply (not counted as failures); dead skips are in ``failed``."""
        return sum(r.status == "skip" and not r.dead for r in self.results)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def result(self, name: str) -> CheckResult:
        """The result of the check called ``name`` (KeyError if it did not run)."""
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)


class ComplianceStartError(Exception):
    """The engine program could not be started at all; ``str()`` is one line for the user."""


# --- Session ---------------------------------------------------------------------------------------


class _Dead(Exception):
    """The engine process is gone (EOF, exit, broken pipe, or it stopped reading)."""


class _Violation(Exception):
    """The engine broke SEI (the codec raised ``RemoteProtocolError``)."""


class _Fail(Exception):
    """A helper found a failure; the message is the check's reason."""


Verdict = tuple[Status, str]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _quote(text: str, limit: int = 60) -> str:
    text = text if len(text) <= limit else text[:limit] + "..."
    return repr(text)


@dataclass
class _Answer:
    """What one ``go`` (or ``stop``) produced."""

    move: BestMove | Resign | None
    elapsed: float
    """Seconds from just after the write to the read holding the reply (or to giving up)."""
    errors: list[str]
    bound: float = 0.0
    """How long the reply was waited for."""


class _Session:
    """One engine process plus a codec, with bounded reads and a transcript."""

    def __init__(self, nursery: trio.Nursery, spec: EngineSpec, timeout: float) -> None:
        self.nursery = nursery
        self.spec = spec
        self.timeout = timeout
        self.proc: EngineProcess | None = None
        self.conn = SeiConnection()
        self.info = EngineInfo()
        self.t0 = trio.current_time()
        self.transcript: list[str] = []
        self.errors: list[str] = []
        """``error`` texts read and not yet taken by a check (the runner fails the check)."""
        self.infos: list[tuple[Info, Position | None]] = []
        self.unknown: list[str] = []
        self.search_pos: Position | None = None
        """The position of the last ``go``: ``info ... pv`` lines are checked against it."""
        self.game_gods: tuple[str, str] | None = None
        self.handshaken = False
        self.restarts = 0
        self.dead_reason: str | None = None
        self.first_placement = "b3,d3"
        self.stderr_tail = ""
        self.arrived = 0.0
        """trio time at which the chunk holding the last event was read (the stopwatch's end)."""
        self.selected_gods: tuple[str, ...] = ()
        """Gods that get a ``god-<name>`` check (and feed ``legalmoves``/``perft``)."""
        self.stop_answered = False

    # -- lifetime --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start a fresh process (no handshake yet)."""
        spec = self.spec
        limits = None
        if spec.memory_limit or spec.cpu_limit:
            limits = EngineLimits(memory_bytes=spec.memory_limit, cpu_seconds=spec.cpu_limit)
        self.proc = await self.nursery.start(
            partial(run_engine, list(spec.argv), cwd=spec.cwd, limits=limits, quit_grace=1.0, term_grace=1.0)
        )
        self.conn = SeiConnection()
        self.game_gods = None
        self.handshaken = False
        self.search_pos = None

    async def close(self, grace: float = 0.5) -> None:
        """Ask the engine to quit, then force it; bounded and shielded (process layer)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        await proc.aclose(b"quit\n", grace=grace, term_grace=0.5)
        self._keep_stderr(proc)

    def _keep_stderr(self, proc: EngineProcess) -> None:
        getvalue = getattr(proc.stderr_sink, "getvalue", None)
        if getvalue is not None:
            tail = getvalue()[-2000:].decode("utf-8", "replace")
            if tail.strip():
                self.stderr_tail = tail

    async def restart(self) -> bool:
        """A fresh process, handshake, the spec's options and a mortal game; False if impossible."""
        if self.restarts >= MAX_RESTARTS:
            self.dead_reason = f"gave up after {MAX_RESTARTS} restarts"
            return False
        self.restarts += 1
        await self.close()
        try:
            await self.start()
            await self.handshake()
            await self.apply_spec_options()
            await self.ensure_game((MORTAL, MORTAL))
        except EngineStartError as exc:
            self.dead_reason = f"restart failed: {exc}"
            return False
        except (_Dead, _Violation, _Fail, LocalProtocolError) as exc:
            self.dead_reason = f"restart failed: {exc}"
            return False
        self.errors.clear()
        self.note("-- engine restarted --")
        return True

    # -- I/O -------------------------------------------------------------------------------------

    def now(self) -> float:
        return trio.current_time()

    def note(self, text: str) -> None:
        self.transcript.append(f"{(self.now() - self.t0) * 1000:8.0f}  {text}")

    def _proc(self) -> EngineProcess:
        if self.proc is None:
            raise _Dead("the engine is not running")
        return self.proc

    async def send(self, *commands: Command) -> float:
        """Write commands in one write; returns the time just after the write."""
        data = b"".join(self.conn.send(c) for c in commands)
        await self.send_raw(data)
        return self.now()

    async def send_raw(self, data: bytes) -> None:
        for line in data.decode("ascii", "replace").splitlines():
            self.note(f">> {line}")
        proc = self._proc()
        try:
            with trio.fail_after(WRITE_LIMIT):
                await proc.send_all(data)
        except EngineGone as exc:
            self.conn.send_failed()
            raise _Dead(f"the engine is gone ({exc.status.describe() if exc.status else 'closed its input'})") from None
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.conn.send_failed()
            raise _Dead("the engine's input is closed") from None
        except trio.TooSlowError:
            self.conn.send_failed()
            raise _Dead(f"the engine stopped reading its input for {WRITE_LIMIT:g} s") from None

    async def read(self, deadline: float) -> EngineMessage | None:
        """The next event other than ``info``/unknown lines (those are kept), or None at ``deadline``.

        ``error`` lines are returned *and* kept in :attr:`errors`.  Sets :attr:`arrived` to the
        time the chunk holding the event was read.
        """
        proc = self._proc()
        while True:
            try:
                event = self.conn.next_event()
            except RemoteProtocolError as exc:
                raise _Violation(f"protocol violation: {exc}") from None
            if event is NEED_DATA:
                data = None
                with trio.move_on_at(deadline):
                    data = await proc.receive_some()
                if data is None:
                    return None
                self.arrived = self.now()
                for line in data.decode("utf-8", "replace").splitlines():
                    self.note(f"<< {line}")
                self.conn.receive_data(data)
                continue
            if event is EOF:
                with trio.move_on_after(1.0):
                    await proc.wait()
                raise _Dead(f"the engine closed its output ({proc.exit_description()})")
            assert not isinstance(event, type)
            if isinstance(event, Info):
                self.infos.append((event, self.search_pos))
                continue
            if isinstance(event, Unknown):
                if self.handshaken:
                    self.unknown.append(event.line)
                continue
            if isinstance(event, EngineError):
                self.errors.append(event.text)
            return event

    def take_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors

    # -- protocol steps --------------------------------------------------------------------------

    async def handshake(self) -> float:
        """``sei 1`` until ``seiok``; returns the seconds it took.  Raises _Fail on timeout."""
        info = self.info = EngineInfo(gods=(MORTAL,))
        started = await self.send(Sei(version=1))
        deadline = started + self.timeout
        while True:
            event = await self.read(deadline)
            if event is None:
                raise _Fail(f"no seiok within {self.timeout:g} s")
            if isinstance(event, Id):
                if event.field == "name":
                    info.name = event.value
                else:
                    info.author = event.value
            elif isinstance(event, Gods):
                info.gods += tuple(event.names)
            elif isinstance(event, Feature):
                info.features += tuple(event.names)
            elif isinstance(event, Option):
                info.options[event.name] = event
            elif isinstance(event, SeiOk):
                info.version = event.version
                self.handshaken = True
                return self.arrived - started

    async def apply_spec_options(self) -> None:
        """The user's ``option.N=V`` settings from the engine spec, as a match would send them."""
        for name, value in self.spec.options:
            await self.send(SetOption(name=name, value=value))

    async def ping(self, limit: float) -> float | None:
        """``isready``; seconds until ``readyok``, or None if it did not come within ``limit``."""
        started = await self.send(IsReady())
        deadline = started + limit
        while True:
            event = await self.read(deadline)
            if event is None:
                return None
            if isinstance(event, ReadyOk):
                return self.arrived - started

    async def ensure_game(self, gods: tuple[str, str]) -> None:
        """``newgame`` + ``isready`` unless this game is already set up."""
        if self.game_gods == gods:
            return
        started = await self.send(NewGame(gods=gods), IsReady())
        deadline = started + self.timeout
        while True:
            event = await self.read(deadline)
            if event is None:
                raise _Fail(f"no readyok within {self.timeout:g} s after newgame gods {'/'.join(gods)}")
            if isinstance(event, ReadyOk):
                break
        errors = self.take_errors()
        if errors:
            raise _Fail(f"newgame gods {'/'.join(gods)} answered error {_quote(errors[0])}")
        self.game_gods = gods

    async def ask(self, command: PositionCommand, go: Go, bound: float, pos: Position | None) -> _Answer:
        """``position`` + ``go`` in one write; wait up to ``bound`` seconds for the ``bestmove``."""
        self.search_pos = pos
        started = await self.send(command, go)
        return await self.await_move(started, started + bound)

    async def await_move(self, started: float, deadline: float) -> _Answer:
        while True:
            event = await self.read(deadline)
            if event is None:
                return _Answer(None, self.now() - started, self.take_errors(), deadline - started)
            if isinstance(event, (BestMove, Resign)):
                return _Answer(event, self.arrived - started, self.take_errors(), deadline - started)

    async def settle(self) -> bool:
        """Bring the engine back to idle with no reply owed; False if it cannot be (restart it)."""
        if self.proc is None or self.proc.status is not None or self.conn.state in (ERROR, QUIT):
            return False
        try:
            deadline = self.now() + SETTLE_LIMIT
            if self.conn.state is SEARCHING:
                await self.send(Stop())
            while self.conn.state is not IDLE or self.conn.ping_outstanding:
                if await self.read(deadline) is None:
                    return False
        except (_Dead, _Violation, LocalProtocolError):
            return False
        return self.proc.status is None


# --- Judging turns ---------------------------------------------------------------------------------


def _judge(pos: Position, answer: _Answer, *, clock: float | None = None) -> tuple[Verdict, str | None]:
    """The verdict on one ``go``'s answer and the canonical turn (None if there is none).

    ``clock`` is the mover's time in seconds: taking longer (plus the grace) is a time loss.
    """
    if answer.errors:
        return ("fail", f"engine sent error {_quote(answer.errors[0])}"), None
    if answer.move is None:
        waited = f"no bestmove within {_ms(answer.bound)}"
        return ("fail", waited + (f" ({_ms(clock)} on its clock)" if clock is not None else "")), None
    if isinstance(answer.move, Resign):
        return ("fail", f"resigned in a position with {pos.count_turns()} legal turns"), None
    turn = answer.move.turn
    try:
        transition = pos.play(turn)
    except NotationError as exc:
        return ("fail", f"bestmove rejected: {exc}"), None
    if clock is not None and answer.elapsed > clock + CLOCK_GRACE:
        return ("fail", f"bestmove after {_ms(answer.elapsed)} with {_ms(clock)} on its clock (time loss)"), None
    spelling = "" if transition.stn == turn else f" (accepted spelling of {transition.stn})"
    return ("pass", f"bestmove {turn}{spelling} in {_ms(answer.elapsed)}"), transition.stn


def _mover_clock(pos: Position, go: Go) -> float | None:
    ms = go.p1time if pos.player == 1 else go.p2time
    return None if ms is None else ms / 1000


async def _play(s: _Session, pos: Position, command: PositionCommand, go: Go = TURN_GO) -> tuple[Verdict, str | None]:
    """One turn under ``go``'s clock: ask, wait up to 1.5x the clock, judge."""
    clock = _mover_clock(pos, go)
    bound = s.timeout if clock is None else clock * 1.5 + 0.2
    answer = await s.ask(command, go, bound, pos)
    return _judge(pos, answer, clock=clock)


def _after(start: Position, moves: Sequence[str]) -> Position:
    pos = start
    for turn in moves:
        pos = pos.play(turn).position
    return pos


# --- Checks ------------------------------------------------------------------------------------------

CheckFn = Callable[[_Session], Awaitable[Verdict]]


@dataclass(frozen=True)
class _Check:
    name: str
    run: CheckFn
    keeps_state: bool = False
    """Leave the engine as it is for the next check (the ``go infinite`` sequence)."""


async def _handshake(s: _Session) -> Verdict:
    elapsed = await s.handshake()
    return "pass", f"seiok {s.info.version} in {_ms(elapsed)}"


async def _id(s: _Session) -> Verdict:
    if not s.info.name.strip():
        return "fail", "no 'id name <text>' line in the handshake"
    if not s.info.author.strip():
        return "warn", f"name {_quote(s.info.name)} but no 'id author <text>' line"
    return "pass", f"{s.info.name} by {s.info.author}"


async def _gods(s: _Session) -> Verdict:
    claimed = s.info.gods[1:]
    unknown = [g for g in claimed if g not in GODS]
    if unknown:
        return "fail", f"unknown god {_quote(unknown[0])} in the gods line (known: {', '.join(GODS[1:])})"
    dupes = sorted({g for g in claimed if claimed.count(g) > 1})
    if dupes:
        return "warn", f"god {dupes[0]} listed twice"
    real = sorted(set(claimed) - {MORTAL})
    return "pass", f"{len(real)} gods: {' '.join(real)}" if real else "mortal only (no gods line)"


def _option_problem(opt: Option) -> str | None:
    name = opt.name
    if "value" in name.split():
        return f"option {_quote(name)}: a name may not contain the word 'value'"
    if opt.type == "spin":
        if opt.default is None or opt.min is None or opt.max is None:
            return f"spin option {_quote(name)} needs default, min and max"
        try:
            default = int(opt.default)
        except ValueError:
            return f"spin option {_quote(name)}: default {_quote(opt.default)} is not an integer"
        if not opt.min <= default <= opt.max:
            return f"spin option {_quote(name)}: default {default} outside {opt.min}..{opt.max}"
    elif opt.type == "check":
        if opt.default not in ("true", "false"):
            return f"check option {_quote(name)}: default must be true or false, got {_quote(str(opt.default))}"
    elif opt.type == "combo":
        if not opt.vars:
            return f"combo option {_quote(name)} has no var"
        if opt.default not in opt.vars:
            return f"combo option {_quote(name)}: default {_quote(str(opt.default))} is not one of its vars"
    elif opt.type == "button":
        if opt.default is not None:
            return f"button option {_quote(name)} has a default"
    return None


async def _options(s: _Session) -> Verdict:
    options = list(s.info.options.values())
    if not options:
        return "pass", "no options"
    for opt in options:
        problem = _option_problem(opt)
        if problem:
            return "fail", problem
    lowered = [o.name.lower() for o in options]
    if len(set(lowered)) != len(lowered):
        return "warn", "two options differ only in case (UCI option names are case-insensitive)"
    return "pass", f"{len(options)} well-formed: {', '.join(o.name for o in options)}"


async def _features(s: _Session) -> Verdict:
    unknown = [f for f in s.info.features if f not in ("legalmoves", "perft")]
    if unknown:
        return "warn", f"unknown feature {_quote(unknown[0])} (SEI 1 knows legalmoves, perft)"
    return "pass", " ".join(s.info.features) if s.info.features else "none (legalmoves and perft are optional)"


async def _setoption(s: _Session) -> Verdict:
    sent = 0
    for opt in s.info.options.values():
        if opt.type == "button" or opt.default is None:
            continue
        value = opt.default if opt.default != "" else "<empty>"
        try:
            command = SetOption(name=opt.name, value=value)
        except LocalProtocolError as exc:
            return "fail", f"default of {_quote(opt.name)} cannot be sent: {exc}"
        await s.send(command)
        if await s.ping(s.timeout) is None:
            return "fail", f"no readyok within {s.timeout:g} s after setoption name {opt.name}"
        errors = s.take_errors()
        if errors:
            return "fail", f"setoption name {opt.name} value {value} (its default) answered error {_quote(errors[0])}"
        sent += 1
    for name, value in s.spec.options:  # the user's option.N=V, as a match sends them
        await s.send(SetOption(name=name, value=value))
        if await s.ping(s.timeout) is None:
            return "fail", f"no readyok within {s.timeout:g} s after setoption name {name} (from the engine spec)"
        errors = s.take_errors()
        if errors:
            return "fail", f"setoption name {name} value {value} (from the engine spec) answered error {_quote(errors[0])}"
    extra = f", {len(s.spec.options)} from the engine spec" if s.spec.options else ""
    if not sent:
        return "pass", f"no option with a default to set{extra}"
    return "pass", f"{sent} defaults accepted{extra}"


async def _isready(s: _Session) -> Verdict:
    worst = 0.0
    for _ in range(3):
        elapsed = await s.ping(READY_LIMIT)
        if elapsed is None:
            return "fail", f"no readyok within {_ms(READY_LIMIT)}"
        worst = max(worst, elapsed)
    return "pass", f"readyok in at most {_ms(worst)} (3 pings)"


async def _newgame(s: _Session) -> Verdict:
    started = s.now()
    s.game_gods = None
    await s.ensure_game((MORTAL, MORTAL))
    return "pass", f"newgame gods mortal/mortal: readyok in {_ms(s.now() - started)}"


async def _unsupported_god(s: _Session) -> Verdict:
    """The referee never sends an unlisted god, but an engine must say so rather than play wrong rules."""
    s.game_gods = None
    await s.send(NewGame(gods=("zeus", MORTAL)))
    elapsed = await s.ping(s.timeout)
    if elapsed is None:
        return "fail", f"no readyok within {s.timeout:g} s after newgame gods zeus/mortal"
    errors = s.take_errors()
    await s.ensure_game((MORTAL, MORTAL))
    if not errors:
        return "fail", "newgame gods zeus/mortal was not answered with 'error unsupported god zeus'"
    return "pass", f"error {_quote(errors[0])}"


async def _placement(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    verdict, turn = await _play(s, Position.start(), PositionCommand())
    if turn is not None:
        s.first_placement = turn
    return verdict


async def _placement_2(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    first = s.first_placement
    pos = _after(Position.start(), (first,))
    verdict, _ = await _play(s, pos, PositionCommand(moves=(first,)))
    return verdict


async def _cross(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    verdict, _ = await _play(s, Position.from_sps(CROSS_SPS), PositionCommand(sps=CROSS_SPS))
    return verdict


async def _midgame(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = _after(Position.start(), OPENING)
    verdict, _ = await _play(s, pos, PositionCommand(sps=pos.sps()))
    return verdict


async def _win_in_one(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(WIN_IN_ONE_SPS)
    verdict, turn = await _play(s, pos, PositionCommand(sps=WIN_IN_ONE_SPS))
    if turn is None:
        return verdict
    wins = [t.stn for t in pos.transitions() if t.win]
    if turn not in wins:
        return "warn", f"missed the win in one: played {turn}, {' or '.join(wins)} wins"
    return "pass", f"found the win {turn}"


async def _position_moves(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = _after(Position.start(), OPENING)
    verdict, _ = await _play(s, pos, PositionCommand(moves=OPENING))
    return verdict


async def _sps_moves(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    moves = OPENING[2:4]
    pos = _after(Position.from_sps(CROSS_SPS), moves)
    verdict, _ = await _play(s, pos, PositionCommand(sps=CROSS_SPS, moves=moves))
    return verdict


def _claims(s: _Session, god: str) -> bool:
    return god in s.info.gods


async def _athena_up(s: _Session) -> Verdict:
    """God state lives only in the SPS (``athena[up]``): the engine must read it from there."""
    if not _claims(s, "athena"):
        return "skip", "the engine does not claim athena"
    if "athena" not in s.selected_gods:
        return "skip", "athena not selected (--gods)"
    await s.ensure_game(("athena", MORTAL))
    pos = Position.from_sps(ATHENA_SPS)
    verdict, _ = await _play(s, pos, PositionCommand(sps=ATHENA_SPS))
    return verdict


def _god_check(god: str) -> CheckFn:
    async def check(s: _Session) -> Verdict:
        if not _claims(s, god):
            return "skip", f"the engine does not claim {god}"
        await s.ensure_game((god, MORTAL))
        start = Position.from_sps(god_sps(god))
        pos, moves = start, list[str]()
        for _ in range(GOD_TURNS):
            if pos.is_lost():
                break
            (status, reason), turn = await _play(s, pos, PositionCommand(sps=start.sps(), moves=tuple(moves)))
            if turn is None:
                return status, f"turn {len(moves) + 1} ({'/'.join(pos.gods)}, player {pos.player}): {reason}"
            moves.append(turn)
            transition = pos.play(turn)
            pos = transition.position
            if transition.win:
                break
        return "pass", f"{len(moves)} legal turns: {' '.join(moves)}"

    check.__name__ = f"_god_{god}"
    return check


async def _clock(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    return await _clock_turn(s, Position.from_sps(CROSS_SPS), PositionCommand(sps=CROSS_SPS), Go(p1time=1000, p2time=1000))


async def _clock_p2(s: _Session) -> Verdict:
    """Player 2 on a short clock, player 1 on a long one: catches engines that always read p1time."""
    await s.ensure_game((MORTAL, MORTAL))
    moves = OPENING[2:3]
    pos = _after(Position.from_sps(CROSS_SPS), moves)
    verdict = await _clock_turn(s, pos, PositionCommand(sps=CROSS_SPS, moves=moves), Go(p1time=60000, p2time=1000))
    if verdict[0] == "fail" and "time loss" in verdict[1]:
        return "fail", verdict[1] + " -- player 2 must budget with p2time"
    return verdict


async def _clock_turn(s: _Session, pos: Position, command: PositionCommand, go: Go) -> Verdict:
    clock = _mover_clock(pos, go)
    assert clock is not None
    answer = await s.ask(command, go, clock * 2, pos)
    (status, reason), _ = _judge(pos, answer, clock=clock)
    if status != "pass":
        return status, reason
    if answer.elapsed > clock / 2:
        return "warn", f"{reason}: more than half of its {_ms(clock)} clock on one turn"
    return "pass", f"{reason} of its {_ms(clock)} clock"


async def _movetime(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), Go(movetime=200), 1.0, pos)
    (status, reason), _ = _judge(pos, answer)
    if status != "pass":
        return status, reason + (" (limit: movetime 200 + 100 ms)" if answer.move is None else "")
    if answer.elapsed > 0.2 + MOVETIME_SLACK:
        return "fail", f"{reason}: over movetime 200 + {_ms(MOVETIME_SLACK)} slack"
    return "pass", f"{reason} (movetime 200)"


async def _limited(s: _Session, go: Go, what: str) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), go, s.timeout, pos)
    (status, reason), _ = _judge(pos, answer)
    if answer.move is None and not answer.errors:
        return "fail", f"no bestmove within {s.timeout:g} s after go {what}"
    return status, reason


async def _depth(s: _Session) -> Verdict:
    return await _limited(s, Go(depth=1), "depth 1")


async def _nodes(s: _Session) -> Verdict:
    return await _limited(s, Go(nodes=1000), "nodes 1000")


async def _infinite(s: _Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), Go(infinite=True), INFINITE_WINDOW, pos)
    if answer.errors:
        return "fail", f"engine sent error {_quote(answer.errors[0])}"
    if answer.move is not None:
        return "fail", f"bestmove after {_ms(answer.elapsed)} without stop (go infinite searches until stop)"
    return "pass", f"still searching after {_ms(INFINITE_WINDOW)}"


async def _isready_searching(s: _Session) -> Verdict:
    if s.conn.state is not SEARCHING:
        return "skip", "no search running (see infinite)"
    started = await s.send(IsReady())
    deadline = started + READY_LIMIT
    while True:
        event = await s.read(deadline)
        if event is None:
            return "fail", f"no readyok within {_ms(READY_LIMIT)} during a search (isready must be answered while searching)"
        if isinstance(event, ReadyOk):
            return "pass", f"readyok in {_ms(s.arrived - started)} during the search"
        if isinstance(event, (BestMove, Resign)):
            return "fail", "bestmove before stop while waiting for readyok (go infinite searches until stop)"


async def _stop(s: _Session) -> Verdict:
    if s.conn.state is not SEARCHING:
        return "skip", "no search running (see infinite)"
    started = await s.send(Stop())
    answer = await s.await_move(started, started + STOP_LIMIT)
    s.stop_answered = answer.move is not None
    if answer.move is None and not answer.errors:
        return "fail", f"no bestmove within {_ms(STOP_LIMIT)} after stop"
    pos = s.search_pos
    assert pos is not None
    (status, reason), _ = _judge(pos, answer)
    return status, reason + (" after stop" if status == "pass" else "")


async def _single_bestmove(s: _Session) -> Verdict:
    """A second ``bestmove`` would be taken as the *next* turn's answer in a game: listen for it."""
    if not s.stop_answered:
        return "skip", "no bestmove after stop to follow (see stop)"
    deadline = s.now() + QUIET_WINDOW
    while True:
        try:
            event = await s.read(deadline)  # a second bestmove is a codec violation
        except _Violation as exc:
            raise _Violation(f"after the bestmove for stop: {exc}") from None
        if event is None:
            return "pass", f"nothing else within {_ms(QUIET_WINDOW)} after the bestmove"


async def _ask(s: _Session, pos: Position, request: Command, kind: type, what: str) -> tuple[EngineMessage | None, str]:
    """Send ``pos`` and ``request``; the engine's ``kind`` answer, or None and why it failed
    (no answer within the timeout, or an ``error``)."""
    await s.ensure_game(pos.gods)
    deadline = await s.send(PositionCommand(sps=pos.sps()), request) + s.timeout
    while True:
        event = await s.read(deadline)
        if event is None:
            return None, f"no reply to {what} within {s.timeout:g} s ({pos.sps()})"
        if isinstance(event, EngineError):
            return None, f"engine sent error {_quote(event.text)} to {what} ({pos.sps()})"
        if isinstance(event, kind):
            return event, ""


def _feature_positions(s: _Session) -> list[Position]:
    """Where ``legalmoves``/``perft`` are compared: two mortal positions and each selected god's."""
    positions = [Position.from_sps(CROSS_SPS), _after(Position.start(), OPENING)]
    positions += [Position.from_sps(god_sps(g)) for g in s.selected_gods if _claims(s, g)]
    return positions


async def _legalmoves(s: _Session) -> Verdict:
    if "legalmoves" not in s.info.features:
        return "skip", "no 'feature legalmoves'"
    positions = _feature_positions(s)
    for pos in positions:
        event, failure = await _ask(s, pos, LegalMovesRequest(), LegalMoves, "legalmoves")
        if event is None:
            return "fail", failure
        assert isinstance(event, LegalMoves)
        ours = sorted(pos.legal_turns())
        theirs = list(event.turns)
        if set(theirs) != set(ours) or len(theirs) != len(ours):
            missing = sorted(set(ours) - set(theirs))
            extra = sorted(set(theirs) - set(ours))
            parts = [f"{len(theirs)} turns, expected {len(ours)}"]
            if missing:
                parts.append(f"missing {len(missing)} (e.g. {missing[0]})")
            if extra:
                parts.append(f"not legal or not canonical {len(extra)} (e.g. {extra[0]})")
            if len(set(theirs)) != len(theirs):
                parts.append("duplicates")
            return "fail", f"{'; '.join(parts)} in {pos.sps()}"
        if theirs != ours:
            return "fail", f"the list is not sorted ({pos.sps()})"
    return "pass", f"same turns as the rules in {len(positions)} positions"


async def _perft(s: _Session) -> Verdict:
    if "perft" not in s.info.features:
        return "skip", "no 'feature perft'"
    cases = [(Position.from_sps(CROSS_SPS), 1), (Position.from_sps(CROSS_SPS), 2)]
    cases += [(pos, 1) for pos in _feature_positions(s)[2:]]
    for pos, depth in cases:
        event, failure = await _ask(s, pos, PerftRequest(depth=depth), PerftResult, f"perft {depth}")
        if event is None:
            return "fail", failure
        assert isinstance(event, PerftResult)
        expected = perft(pos, depth)
        if event.count != expected:
            return "fail", f"perft {depth} = {event.count}, expected {expected} ({pos.sps()})"
    return "pass", f"{len(cases)} counts match the rules (cross perft 2 = {perft(Position.from_sps(CROSS_SPS), 2)})"


async def _unknown_command(s: _Session) -> Verdict:
    before = len(s.infos)
    await s.send_raw(b"xyzzy plugh\n")
    elapsed = await s.ping(READY_LIMIT)
    if elapsed is None:
        return "fail", f"no readyok within {_ms(READY_LIMIT)} after an unknown command"
    errors = s.take_errors()
    if errors:
        return "warn", f"answered error {_quote(errors[0])} (SEI: ignore it, optionally 'info string unknown command ...')"
    reported = any(info.string is not None for info, _ in s.infos[before:])
    return "pass", "ignored" + (", reported as info string" if reported else "") + f"; readyok in {_ms(elapsed)}"


async def _result(s: _Session) -> Verdict:
    await s.send(Result(result="1-0", reason="climb"))
    elapsed = await s.ping(READY_LIMIT)
    if elapsed is None:
        return "fail", f"no readyok within {_ms(READY_LIMIT)} after 'result 1-0 climb'"
    return "pass", f"'result 1-0 climb' accepted; readyok in {_ms(elapsed)}"


_UINT = re.compile(r"[0-9]+")
_INT = re.compile(r"[-+]?[0-9]+")
_INFO_UINT = frozenset({"depth", "seldepth", "time", "nodes", "nps", "multipv", "currmovenumber", "hashfull", "tbhits", "sbhits", "cpuload"})
_INFO_KEYWORDS = _INFO_UINT | {"score", "wdl", "pv", "string", "currmove", "refutation", "currline", "lowerbound", "upperbound"}


def info_problem(raw: str, pos: Position | None) -> str | None:
    """Why an ``info`` line is malformed (None if it is fine).

    The referee reads ``info`` leniently and ignores garbled fields, so such a line never costs a
    game -- but the telemetry is lost, which is what an author wants to hear about.  The ``pv``
    is played out from ``pos`` (the searched position) when known.
    """
    tokens = raw.split()[1:]
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key == "string":
            return None
        if key in _INFO_UINT:
            value = tokens[i + 1] if i + 1 < len(tokens) else ""
            if not _UINT.fullmatch(value):
                return f"{key} needs an unsigned integer, got {_quote(value)}"
            i += 2
        elif key == "score":
            kind = tokens[i + 1] if i + 1 < len(tokens) else ""
            value = tokens[i + 2] if i + 2 < len(tokens) else ""
            if kind not in ("cp", "win"):
                return f"score must be 'cp <x>' or 'win <n>', got {_quote(kind)}"
            if not _INT.fullmatch(value):
                return f"score {kind} needs an integer, got {_quote(value)}"
            i += 3
        elif key == "wdl":
            values = tokens[i + 1 : i + 4]
            if len(values) != 3 or not all(_UINT.fullmatch(v) for v in values):
                return f"wdl needs three unsigned integers, got {_quote(' '.join(values))}"
            i += 4
        elif key in ("pv", "refutation", "currline"):
            j = i + 1
            while j < len(tokens) and tokens[j] not in _INFO_KEYWORDS:
                j += 1
            if key == "pv" and pos is not None:
                problem = _pv_problem(tokens[i + 1 : j], pos)
                if problem:
                    return problem
            i = j
        else:
            i += 1  # unknown words are ignored (SEI: lenient)
    return None


def _pv_problem(pv: list[str], pos: Position) -> str | None:
    for n, turn in enumerate(pv, 1):
        if pos.is_lost():
            return f"pv turn {n} {_quote(turn)} comes after the game is over"
        try:
            transition = pos.play(turn)
        except NotationError as exc:
            return f"pv turn {n} {_quote(turn)} is illegal: {exc}"
        if transition.win and n < len(pv):
            return f"pv continues after the winning turn {turn}"
        pos = transition.position
    return None


async def _info(s: _Session) -> Verdict:
    if not s.infos:
        return "pass", "no info lines (they are optional)"
    bad = [(info.raw, problem) for info, pos in s.infos if (problem := info_problem(info.raw, pos))]
    if bad:
        raw, problem = bad[0]
        return "fail", f"{len(bad)} of {len(s.infos)} info lines malformed; first {_quote(raw)}: {problem}"
    return "pass", f"{len(s.infos)} info lines well-formed"


async def _stray_output(s: _Session) -> Verdict:
    if s.unknown:
        return "warn", f"{len(s.unknown)} lines that are not SEI, first {_quote(s.unknown[0])} (use 'info string')"
    return "pass", "no lines outside SEI"


async def _quit(s: _Session) -> Verdict:
    proc = s._proc()
    await s.send(Quit())
    started = s.now()
    with trio.move_on_after(EXIT_LIMIT):
        await proc.wait()
    status = proc.status
    if status is None:
        proc.kill()  # it ignored quit: no point in the slow shutdown sequence
        await s.close()
        return "fail", f"still running {EXIT_LIMIT:g} s after quit"
    elapsed = s.now() - started
    await s.close()
    if status.code != 0:
        return "fail", f"{status.describe()} after quit (expected exit code 0)"
    return "pass", f"exit code 0 in {_ms(elapsed)}"


async def _eof(s: _Session) -> Verdict:
    """A fresh engine started as a match starts it; then stdin is closed without ``quit``."""
    await s.close()
    try:
        engine = await Engine.start(s.nursery, s.spec, handshake_timeout=s.timeout)
    except EngineFailure as exc:
        return "fail", f"could not start a fresh engine: {exc.detail}"
    started = s.now()
    status = await engine.process.aclose(b"", grace=EXIT_LIMIT, term_grace=0.5)
    elapsed = s.now() - started
    if status.forced:
        return "fail", f"still running {EXIT_LIMIT:g} s after EOF on its input"
    if status.code != 0:
        return "fail", f"{status.describe()} after EOF on its input (expected exit code 0)"
    return "pass", f"exit code 0 in {_ms(elapsed)} after EOF on its input"


def _checks_for(gods: Sequence[str]) -> list[_Check]:
    before = [
        _Check("handshake", _handshake),
        _Check("id", _id),
        _Check("gods", _gods),
        _Check("options", _options),
        _Check("features", _features),
        _Check("setoption", _setoption),
        _Check("isready", _isready),
        _Check("newgame", _newgame),
        _Check("unsupported-god", _unsupported_god),
        _Check("placement", _placement),
        _Check("placement-2", _placement_2),
        _Check("cross", _cross),
        _Check("midgame", _midgame),
        _Check("win-in-one", _win_in_one),
        _Check("position-moves", _position_moves),
        _Check("sps-moves", _sps_moves),
        _Check("athena-up", _athena_up),
    ]
    after = [
        _Check("clock", _clock),
        _Check("clock-p2", _clock_p2),
        _Check("movetime", _movetime),
        _Check("depth", _depth),
        _Check("nodes", _nodes),
        _Check("infinite", _infinite, keeps_state=True),
        _Check("isready-searching", _isready_searching, keeps_state=True),
        _Check("stop", _stop, keeps_state=True),
        _Check("single-bestmove", _single_bestmove),
        _Check("legalmoves", _legalmoves),
        _Check("perft", _perft),
        _Check("unknown-command", _unknown_command),
        _Check("result", _result),
        _Check("info", _info),
        _Check("stray-output", _stray_output),
        _Check("quit", _quit),
        _Check("eof", _eof),
    ]
    return before + [_Check(f"god-{g}", _god_check(g)) for g in gods] + after


CHECKS: tuple[str, ...] = tuple(c.name for c in _checks_for(["<god>"]))
"""Check names in run order; ``god-<god>`` stands for one check per god the engine claims."""


# --- Runner ---------------------------------------------------------------------------------------

ResultCallback = Callable[[CheckResult], None]


async def run_compliance(
    spec: EngineSpec,
    *,
    gods: Sequence[str] | None = None,
    timeout: float = 10.0,
    on_result: ResultCallback | None = None,
) -> ComplianceReport:
    """Run every check against ``spec`` and return the report; ``on_result`` sees each line as it
    is decided (so a long run shows progress).

    Args:
        gods: which gods get a ``god-<name>`` check (and ``athena-up``); None means every god the
            engine claims.  A god the engine does not claim is reported as skipped.
        timeout: seconds for the handshake and for replies without a clock (``go depth 1``,
            ``perft``, ``newgame``); the protocol's own limits (1 s for ``isready``...) are fixed.

    Raises:
        ComplianceStartError: the program could not be started (missing, not executable...).
    """
    report = ComplianceReport(engine=spec.name)
    # Errors leave the nursery bare, not in an ExceptionGroup (as in open_engine_process): a
    # start failure, or the caller's own exception from on_result (a closed stdout).
    error: Exception | None = None
    async with trio.open_nursery() as nursery:
        s = _Session(nursery, spec, timeout)
        try:
            try:
                await s.start()
            except EngineStartError as exc:
                raise ComplianceStartError(f"cannot start {spec.name}: {exc}") from None
            try:
                await _run_checks(s, report, gods, on_result)
            finally:
                await s.close()
        except Exception as exc:
            error = exc
        report.restarts = s.restarts
        report.info = s.info
        report.stderr_tail = s.stderr_tail
    if error is not None:
        raise error
    return report


async def _run_checks(
    s: _Session, report: ComplianceReport, gods: Sequence[str] | None, on_result: ResultCallback | None
) -> None:
    def emit(result: CheckResult) -> None:
        report.results.append(result)
        if on_result is not None:
            on_result(result)

    checks = _checks_for([])  # god checks are inserted once the handshake has named the gods
    s.selected_gods = tuple(gods) if gods is not None else ()
    i = 0
    while i < len(checks):
        check = checks[i]
        i += 1
        if s.dead_reason is not None:
            emit(CheckResult(check.name, "skip", f"engine is dead ({s.dead_reason})", dead=True))
            continue
        mark = len(s.transcript)
        s.errors.clear()
        status: Status
        unusable = False
        try:
            status, reason = await check.run(s)
            errors = s.take_errors()
            if errors and status != "fail":
                status, reason = "fail", f"engine sent error {_quote(errors[0])}"
        except _Fail as exc:
            status, reason = "fail", str(exc)
        except (_Dead, _Violation) as exc:
            status, reason, unusable = "fail", str(exc), True
        except LocalProtocolError as exc:  # the engine left the connection where we cannot go on
            status, reason, unusable = "fail", f"cannot continue: {exc}", True
        emit(CheckResult(check.name, status, reason, transcript=tuple(s.transcript[mark:])))
        if check.name == "handshake":
            if not s.handshaken:
                s.dead_reason = "no handshake"
                continue
            selected = _select_gods(s, gods)
            s.selected_gods = selected
            at = next(n for n, c in enumerate(checks) if c.name == "athena-up") + 1
            checks[at:at] = [_Check(f"god-{g}", _god_check(g)) for g in selected]
        if check.name in ("quit", "eof"):
            continue
        if check.keeps_state and not unusable:
            continue
        if unusable or not await s.settle():
            if not await s.restart():
                s.dead_reason = s.dead_reason or "could not be restarted"


def _select_gods(s: _Session, gods: Sequence[str] | None) -> tuple[str, ...]:
    claimed = [g for g in s.info.gods if g in GODS and g != MORTAL]
    if gods is None:
        return tuple(dict.fromkeys(claimed))
    return tuple(g for g in dict.fromkeys(gods) if g != MORTAL)
