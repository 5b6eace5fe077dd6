"""The checks of ``santorini check``, declared as data, with the functions that run them.

Each :class:`Check` names its function, the checks that must have passed before it can say
anything (``requires``), what to report when they did not (``unmet``), and how it leaves the
engine (``keeps_state``, ``closes_engine``).  The ``god-<god>`` checks are made by a declared
generator (:class:`GodChecks`) from the gods the handshake named.  :data:`PLAN` is the run, in
order; the runner (``runner.py``) only follows it.  Limits and positions are named below with
their reasons; SPEC.md section 7 lists every check.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import trio

from ..referee.channel import EngineFailure
from ..referee.engine import Engine
from ..rules import GODS, MORTAL, NotationError, Position, perft
from ..sei import (
    SEARCHING,
    BestMove,
    Command,
    EngineError,
    EngineMessage,
    Go,
    Info,
    IsReady,
    LegalMoves,
    LegalMovesRequest,
    LocalProtocolError,
    NewGame,
    Option,
    PerftRequest,
    PerftResult,
    PositionCommand,
    Quit,
    ReadyOk,
    Resign,
    Result,
    SetOption,
    Stop,
)
from .judge import CLOCK_GRACE, after, judge, mover_clock, play
from .report import Verdict
from .seats import SEAT_CHECKS
from .session import Session, ms, quote

__all__ = ["CHECKS", "CROSS_SPS", "PLAN", "Check", "GodChecks", "god_sps", "info_problem"]

# --- Limits (seconds).  Each names its reason. ----------------------------------------------------

READY_LIMIT = 1.0
"""``isready`` must be answered "immediately, also during a search" (SPEC.md section 4.2); 1 s is
generous for a pipe round trip and still catches an engine that answers only between searches."""
STOP_LIMIT = 1.0
"""``stop`` -> ``bestmove`` "promptly"; the referee's own stop timeout is 5 s, a check asks more."""
QUIET_WINDOW = 0.2
"""How long to listen for a second ``bestmove`` after ``stop`` was answered."""
INFINITE_WINDOW = 0.3
"""How long a ``go infinite`` search must run without a ``bestmove`` before ``isready``/``stop``."""
EXIT_LIMIT = 2.0
"""``quit`` or EOF on stdin -> process exit (the referee's quit grace is 5 s; a check asks more)."""

# --- Positions ------------------------------------------------------------------------------------

CROSS_SPS = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
"""SPEC.md section 3.4: the "cross" start after placement (68 legal turns, perft 2 = 5156)."""
OPENING = ("b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5", "b4-b5+a5", "c5-d5+e5", "b5-c4+c5", "d5-e5+e4")
"""The first eight turns of SPEC.md's SGN example game (section 13.2): a midgame via ``moves``."""
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


def god_sps(god: str) -> str:
    """The god check's start position with ``god`` as player 1."""
    return f"{god}/mortal;{GOD_BOARD};{GOD_WORKERS};1;6"


# --- Declarations ---------------------------------------------------------------------------------

CheckFn = Callable[[Session], Awaitable[Verdict]]


@dataclass(frozen=True)
class Check:
    """One check of the run."""

    name: str
    run: CheckFn
    requires: tuple[str, ...] = ()
    """Checks that must have passed first; otherwise this one is skipped, saying ``unmet``."""
    unmet: str = ""
    keeps_state: bool = False
    """Leave the engine as it is for the next check (the ``go infinite`` sequence)."""
    closes_engine: bool = False
    """The check ends the engine itself (``quit``, ``eof``): nothing to settle or restart after."""
    vital: bool = False
    """Without a pass here the engine is dead: every later check is skipped and counts as failed."""


@dataclass(frozen=True)
class GodChecks:
    """Stands for one ``god-<god>`` check per selected god, made when the run reaches it."""

    name: str
    requires: tuple[str, ...]

    def expand(self, s: Session) -> list[Check]:
        return [Check(f"god-{g}", _god_check(g), requires=self.requires) for g in s.selected_gods]


async def _handshake(s: Session) -> Verdict:
    elapsed = await s.handshake()
    return "pass", f"seiok {s.info.version} in {ms(elapsed)}"


async def _id(s: Session) -> Verdict:
    if not s.info.name.strip():
        return "fail", "no 'id name <text>' line in the handshake"
    if not s.info.author.strip():
        return "warn", f"name {quote(s.info.name)} but no 'id author <text>' line"
    return "pass", f"{s.info.name} by {s.info.author}"


async def _gods(s: Session) -> Verdict:
    claimed = s.info.gods[1:]
    unknown = [g for g in claimed if g not in GODS]
    if unknown:
        return "fail", f"unknown god {quote(unknown[0])} in the gods line (known: {', '.join(GODS[1:])})"
    dupes = sorted({g for g in claimed if claimed.count(g) > 1})
    if dupes:
        return "warn", f"god {dupes[0]} listed twice"
    real = sorted(set(claimed) - {MORTAL})
    return "pass", f"{len(real)} gods: {' '.join(real)}" if real else "mortal only (no gods line)"


def _option_problem(opt: Option) -> str | None:
    name = opt.name
    if "value" in name.split():
        return f"option {quote(name)}: a name may not contain the word 'value'"
    if opt.type == "spin":
        if opt.default is None or opt.min is None or opt.max is None:
            return f"spin option {quote(name)} needs default, min and max"
        try:
            default = int(opt.default)
        except ValueError:
            return f"spin option {quote(name)}: default {quote(opt.default)} is not an integer"
        if not opt.min <= default <= opt.max:
            return f"spin option {quote(name)}: default {default} outside {opt.min}..{opt.max}"
    elif opt.type == "check":
        if opt.default not in ("true", "false"):
            return f"check option {quote(name)}: default must be true or false, got {quote(str(opt.default))}"
    elif opt.type == "combo":
        if not opt.vars:
            return f"combo option {quote(name)} has no var"
        if opt.default not in opt.vars:
            return f"combo option {quote(name)}: default {quote(str(opt.default))} is not one of its vars"
    elif opt.type == "button" and opt.default is not None:
        return f"button option {quote(name)} has a default"
    return None


async def _options(s: Session) -> Verdict:
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


async def _features(s: Session) -> Verdict:
    unknown = [f for f in s.info.features if f not in ("legalmoves", "perft", "players")]
    if unknown:
        return "warn", f"unknown feature {quote(unknown[0])} (SEI 1 knows legalmoves, perft, players)"
    return "pass", " ".join(s.info.features) if s.info.features else "none (legalmoves and perft are optional)"


async def _setoption(s: Session) -> Verdict:
    sent = 0
    for opt in s.info.options.values():
        if opt.type == "button" or opt.default is None:
            continue
        value = opt.default if opt.default != "" else "<empty>"
        try:
            command = SetOption(name=opt.name, value=value)
        except LocalProtocolError as exc:
            return "fail", f"default of {quote(opt.name)} cannot be sent: {exc}"
        await s.send(command)
        if await s.ping(s.timeout) is None:
            return "fail", f"no readyok within {s.timeout:g} s after setoption name {opt.name}"
        errors = s.take_errors()
        if errors:
            return "fail", f"setoption name {opt.name} value {value} (its default) answered error {quote(errors[0])}"
        sent += 1
    for name, value in s.spec.options:  # the user's option.N=V, as a match sends them
        await s.send(SetOption(name=name, value=value))
        if await s.ping(s.timeout) is None:
            return "fail", f"no readyok within {s.timeout:g} s after setoption name {name} (from the engine spec)"
        errors = s.take_errors()
        if errors:
            return "fail", (
                f"setoption name {name} value {value} (from the engine spec) answered error {quote(errors[0])}"
            )
    extra = f", {len(s.spec.options)} from the engine spec" if s.spec.options else ""
    if not sent:
        return "pass", f"no option with a default to set{extra}"
    return "pass", f"{sent} defaults accepted{extra}"


async def _isready(s: Session) -> Verdict:
    worst = 0.0
    for _ in range(3):
        elapsed = await s.ping(READY_LIMIT)
        if elapsed is None:
            return "fail", f"no readyok within {ms(READY_LIMIT)}"
        worst = max(worst, elapsed)
    return "pass", f"readyok in at most {ms(worst)} (3 pings)"


async def _newgame(s: Session) -> Verdict:
    started = s.now()
    s.game_gods = None
    await s.ensure_game((MORTAL, MORTAL))
    return "pass", f"newgame gods mortal/mortal: readyok in {ms(s.now() - started)}"


async def _unsupported_god(s: Session) -> Verdict:
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
    return "pass", f"error {quote(errors[0])}"


async def _placement(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    verdict, turn = await play(s, Position.start(), PositionCommand())
    if turn is not None:
        s.first_placement = turn
    return verdict


async def _placement_2(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    first = s.first_placement
    pos = after(Position.start(), (first,))
    verdict, _ = await play(s, pos, PositionCommand(moves=(first,)))
    return verdict


async def _cross(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    verdict, _ = await play(s, Position.from_sps(CROSS_SPS), PositionCommand(sps=CROSS_SPS))
    return verdict


async def _midgame(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = after(Position.start(), OPENING)
    verdict, _ = await play(s, pos, PositionCommand(sps=pos.sps()))
    return verdict


async def _win_in_one(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(WIN_IN_ONE_SPS)
    verdict, turn = await play(s, pos, PositionCommand(sps=WIN_IN_ONE_SPS))
    if turn is None:
        return verdict
    wins = [t.stn for t in pos.transitions() if t.win]
    if turn not in wins:
        return "warn", f"missed the win in one: played {turn}, {' or '.join(wins)} wins"
    return "pass", f"found the win {turn}"


async def _position_moves(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = after(Position.start(), OPENING)
    verdict, _ = await play(s, pos, PositionCommand(moves=OPENING))
    return verdict


async def _sps_moves(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    moves = OPENING[2:4]
    pos = after(Position.from_sps(CROSS_SPS), moves)
    verdict, _ = await play(s, pos, PositionCommand(sps=CROSS_SPS, moves=moves))
    return verdict


def _claims(s: Session, god: str) -> bool:
    return god in s.info.gods


async def _athena_up(s: Session) -> Verdict:
    """God state lives only in the SPS (``athena[up]``): the engine must read it from there."""
    if not _claims(s, "athena"):
        return "skip", "the engine does not claim athena"
    if "athena" not in s.selected_gods:
        return "skip", "athena not selected (--gods)"
    await s.ensure_game(("athena", MORTAL))
    pos = Position.from_sps(ATHENA_SPS)
    verdict, _ = await play(s, pos, PositionCommand(sps=ATHENA_SPS))
    return verdict


def _god_check(god: str) -> CheckFn:
    async def check(s: Session) -> Verdict:
        if not _claims(s, god):
            return "skip", f"the engine does not claim {god}"
        await s.ensure_game((god, MORTAL))
        start = Position.from_sps(god_sps(god))
        pos, moves = start, list[str]()
        for _ in range(GOD_TURNS):
            if pos.is_lost():
                break
            (status, reason), turn = await play(s, pos, PositionCommand(sps=start.sps(), moves=tuple(moves)))
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


async def _clock(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    go = Go(p1time=1000, p2time=1000)
    return await _clock_turn(s, Position.from_sps(CROSS_SPS), PositionCommand(sps=CROSS_SPS), go)


async def _clock_p2(s: Session) -> Verdict:
    """Player 2 on a short clock, player 1 on a long one: catches engines that always read p1time."""
    await s.ensure_game((MORTAL, MORTAL))
    moves = OPENING[2:3]
    pos = after(Position.from_sps(CROSS_SPS), moves)
    verdict = await _clock_turn(s, pos, PositionCommand(sps=CROSS_SPS, moves=moves), Go(p1time=60000, p2time=1000))
    if verdict[0] == "fail" and "time loss" in verdict[1]:
        return "fail", verdict[1] + " -- player 2 must budget with p2time"
    return verdict


async def _clock_turn(s: Session, pos: Position, command: PositionCommand, go: Go) -> Verdict:
    clock = mover_clock(pos, go)
    assert clock is not None
    answer = await s.ask(command, go, clock * 2, pos)
    (status, reason), _ = judge(pos, answer, go)
    if status != "pass":
        return status, reason
    if answer.elapsed > clock / 2:
        return "warn", f"{reason}: more than half of its {ms(clock)} clock on one turn"
    return "pass", f"{reason} of its {ms(clock)} clock"


async def _movetime(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    go = Go(movetime=200)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), go, 1.0, pos)
    (status, reason), _ = judge(pos, answer, go)
    if status != "pass":
        return status, reason + (f" (limit: movetime 200 + {ms(CLOCK_GRACE)})" if answer.move is None else "")
    return "pass", f"{reason} (movetime 200)"


async def _limited(s: Session, go: Go, what: str) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), go, s.timeout, pos)
    (status, reason), _ = judge(pos, answer, go)
    if answer.move is None and not answer.errors:
        return "fail", f"no bestmove within {s.timeout:g} s after go {what}"
    return status, reason


async def _depth(s: Session) -> Verdict:
    return await _limited(s, Go(depth=1), "depth 1")


async def _nodes(s: Session) -> Verdict:
    return await _limited(s, Go(nodes=1000), "nodes 1000")


async def _infinite(s: Session) -> Verdict:
    await s.ensure_game((MORTAL, MORTAL))
    pos = Position.from_sps(CROSS_SPS)
    answer = await s.ask(PositionCommand(sps=CROSS_SPS), Go(infinite=True), INFINITE_WINDOW, pos)
    if answer.errors:
        return "fail", f"engine sent error {quote(answer.errors[0])}"
    if answer.move is not None:
        return "fail", f"bestmove after {ms(answer.elapsed)} without stop (go infinite searches until stop)"
    return "pass", f"still searching after {ms(INFINITE_WINDOW)}"


async def _isready_searching(s: Session) -> Verdict:
    if s.conn.state is not SEARCHING:
        return "skip", "no search running (see infinite)"
    started = await s.send(IsReady())
    deadline = started + READY_LIMIT
    while True:
        event = await s.read(deadline)
        if event is None:
            limit = ms(READY_LIMIT)
            return "fail", f"no readyok within {limit} during a search (isready must be answered while searching)"
        if isinstance(event, ReadyOk):
            return "pass", f"readyok in {ms(s.arrived - started)} during the search"
        if isinstance(event, (BestMove, Resign)):
            return "fail", "bestmove before stop while waiting for readyok (go infinite searches until stop)"


async def _stop(s: Session) -> Verdict:
    if s.conn.state is not SEARCHING:
        return "skip", "no search running (see infinite)"
    started = await s.send(Stop())
    answer = await s.await_move(started, started + STOP_LIMIT)
    s.stop_answered = answer.move is not None
    if answer.move is None and not answer.errors:
        return "fail", f"no bestmove within {ms(STOP_LIMIT)} after stop"
    pos = s.search_pos
    assert pos is not None
    (status, reason), _ = judge(pos, answer)
    return status, reason + (" after stop" if status == "pass" else "")


async def _single_bestmove(s: Session) -> Verdict:
    """A second ``bestmove`` would be taken as the *next* turn's answer in a game: listen for it."""
    if not s.stop_answered:
        return "skip", "no bestmove after stop to follow (see stop)"
    deadline = s.now() + QUIET_WINDOW
    while True:
        try:
            event = await s.read(deadline)
        except EngineFailure as exc:  # a second bestmove is a codec violation
            raise EngineFailure(exc.kind, f"after the bestmove for stop: {exc.detail}") from None
        if event is None:
            return "pass", f"nothing else within {ms(QUIET_WINDOW)} after the bestmove"


async def _ask(s: Session, pos: Position, request: Command, kind: type, what: str) -> tuple[EngineMessage | None, str]:
    """Send ``pos`` and ``request``; the engine's ``kind`` answer, or None and why it failed
    (no answer within the timeout, or an ``error``)."""
    await s.ensure_game(pos.gods)
    deadline = await s.send(PositionCommand(sps=pos.sps()), request) + s.timeout
    while True:
        event = await s.read(deadline)
        if event is None:
            return None, f"no reply to {what} within {s.timeout:g} s ({pos.sps()})"
        if isinstance(event, EngineError):
            return None, f"engine sent error {quote(event.text)} to {what} ({pos.sps()})"
        if isinstance(event, kind):
            return event, ""


def _feature_positions(s: Session) -> list[Position]:
    """Where ``legalmoves``/``perft`` are compared: two mortal positions and each selected god's."""
    positions = [Position.from_sps(CROSS_SPS), after(Position.start(), OPENING)]
    positions += [Position.from_sps(god_sps(g)) for g in s.selected_gods if _claims(s, g)]
    return positions


async def _legalmoves(s: Session) -> Verdict:
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


async def _perft(s: Session) -> Verdict:
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


async def _unknown_command(s: Session) -> Verdict:
    before = len(s.infos)
    await s.send_raw(b"xyzzy plugh\n")
    elapsed = await s.ping(READY_LIMIT)
    if elapsed is None:
        return "fail", f"no readyok within {ms(READY_LIMIT)} after an unknown command"
    errors = s.take_errors()
    if errors:
        advice = "SEI: ignore it, optionally 'info string unknown command ...'"
        return "warn", f"answered error {quote(errors[0])} ({advice})"
    reported = any(info.string is not None for info, _ in s.infos[before:])
    return "pass", "ignored" + (", reported as info string" if reported else "") + f"; readyok in {ms(elapsed)}"


async def _result(s: Session) -> Verdict:
    await s.send(Result(result="1-0", reason="climb"))
    elapsed = await s.ping(READY_LIMIT)
    if elapsed is None:
        return "fail", f"no readyok within {ms(READY_LIMIT)} after 'result 1-0 climb'"
    return "pass", f"'result 1-0 climb' accepted; readyok in {ms(elapsed)}"


def info_problem(info: Info, pos: Position | None) -> str | None:
    """Why an ``info`` line is malformed (None if it is fine): the codec's strict reading
    (``Info.problem``), then its ``pv`` played out from ``pos`` (the searched position) if known.

    The referee reads ``info`` leniently and ignores garbled fields, so such a line never costs a
    game -- but the telemetry is lost, which is what an author wants to hear about.
    """
    if info.problem is not None:
        return info.problem
    if info.string is None and info.pv and pos is not None:
        return _pv_problem(info.pv, pos)
    return None


def _pv_problem(pv: tuple[str, ...], pos: Position) -> str | None:
    for n, turn in enumerate(pv, 1):
        if pos.is_lost():
            return f"pv turn {n} {quote(turn)} comes after the game is over"
        try:
            transition = pos.play(turn)
        except NotationError as exc:
            return f"pv turn {n} {quote(turn)} is illegal: {exc}"
        if transition.win and n < len(pv):
            return f"pv continues after the winning turn {turn}"
        pos = transition.position
    return None


async def _info(s: Session) -> Verdict:
    if not s.infos:
        return "pass", "no info lines (they are optional)"
    bad = [(info.raw, problem) for info, pos in s.infos if (problem := info_problem(info, pos))]
    if bad:
        raw, problem = bad[0]
        return "fail", f"{len(bad)} of {len(s.infos)} info lines malformed; first {quote(raw)}: {problem}"
    return "pass", f"{len(s.infos)} info lines well-formed"


async def _stray_output(s: Session) -> Verdict:
    if s.unknown:
        return "warn", f"{len(s.unknown)} lines that are not SEI, first {quote(s.unknown[0])} (use 'info string')"
    return "pass", "no lines outside SEI"


async def _quit(s: Session) -> Verdict:
    proc = s._channel().process
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
    return "pass", f"exit code 0 in {ms(elapsed)}"


async def _eof(s: Session) -> Verdict:
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
    return "pass", f"exit code 0 in {ms(elapsed)} after EOF on its input"


# --- The run --------------------------------------------------------------------------------------

_SEARCH = ("infinite",)
_NO_SEARCH = "no search running (see infinite)"

PLAN: tuple[Check | GodChecks, ...] = (
    Check("handshake", _handshake, vital=True),
    Check("id", _id),
    Check("gods", _gods),
    Check("options", _options),
    Check("features", _features),
    Check("setoption", _setoption),
    Check("isready", _isready),
    Check("newgame", _newgame),
    Check("unsupported-god", _unsupported_god),
    Check("placement", _placement),
    Check("placement-2", _placement_2),
    Check("cross", _cross),
    Check("midgame", _midgame),
    Check("win-in-one", _win_in_one),
    Check("position-moves", _position_moves),
    Check("sps-moves", _sps_moves),
    Check("athena-up", _athena_up),
    GodChecks("god-<god>", requires=("handshake",)),
    *(Check(name, run) for name, run in SEAT_CHECKS),
    Check("clock", _clock),
    Check("clock-p2", _clock_p2),
    Check("movetime", _movetime),
    Check("depth", _depth),
    Check("nodes", _nodes),
    Check("infinite", _infinite, keeps_state=True),
    Check("isready-searching", _isready_searching, requires=_SEARCH, unmet=_NO_SEARCH, keeps_state=True),
    Check("stop", _stop, requires=_SEARCH, unmet=_NO_SEARCH, keeps_state=True),
    Check("single-bestmove", _single_bestmove, requires=_SEARCH, unmet="no bestmove after stop to follow (see stop)"),
    Check("legalmoves", _legalmoves),
    Check("perft", _perft),
    Check("unknown-command", _unknown_command),
    Check("result", _result),
    Check("info", _info),
    Check("stray-output", _stray_output),
    Check("quit", _quit, closes_engine=True),
    Check("eof", _eof, closes_engine=True),
)
"""Every check, in run order (after ``handshake``, which is vital, every check needs a live
engine, so only ``requires`` beyond that is spelled out)."""

CHECKS: tuple[str, ...] = tuple(c.name for c in PLAN)
"""Check names in run order; ``god-<god>`` stands for one check per god the engine claims."""


def select_gods(claimed: Sequence[str], gods: Sequence[str] | None) -> tuple[str, ...]:
    """The gods that get a ``god-<name>`` check: ``gods`` (None: every god the engine claims)."""
    if gods is None:
        return tuple(dict.fromkeys(g for g in claimed if g in GODS and g != MORTAL))
    return tuple(g for g in dict.fromkeys(gods) if g != MORTAL)
