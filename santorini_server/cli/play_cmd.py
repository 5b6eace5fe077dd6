"""``santorini play``: a person plays an engine in the terminal.

Theory of operation.  One trio task runs the game; the engine is started in a nursery that
closes it on every way out (game over, ``quit``, end of input, Ctrl-C, an engine failure).  The
engine's turns go through the referee's :class:`~santorini_server.referee.engine.Engine` with its
clock enforced exactly as in a match; the human's clock is charged and recorded but never
enforced.  Human input is read by a worker thread with ``os.read`` on fd 0 (not ``sys.stdin``:
a thread abandoned inside a buffered ``readline`` would hold the stdin lock at interpreter
shutdown), so the trio loop never blocks and a cancelled read is simply abandoned.

The game is saved as SGN (with the referee's tags, via ``make_record``) whatever the ending;
an interrupted game is saved as ``*`` / ``aborted``.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import trio

from ..records import GameRecord, RecordError, SgnWriter, TurnRecord
from ..referee.engine import Engine, EngineFailure, Reply
from ..referee.engine_spec import EngineSpec
from ..referee.game import GameSetup, make_record, score_text, turn_record
from ..referee.game import _go as referee_go  # the match's exact go line (both clocks)
from ..referee.outcome import Outcome
from ..referee.timecontrol import Clock, TimeControl
from ..render import render
from ..rules import IllegalTurnError, MalformedTurnError, Position, Transition, parse_square, parse_stn
from ..sei import Position as PositionCommand
from .options import ENGINE, GODS, SPS, TC

__all__ = ["play", "explain_illegal", "format_legal_turns", "normalise_input"]

HUMAN = "Human"


# --- pure helpers (tested directly) ---------------------------------------------------------


def normalise_input(text: str) -> str:
    """What a person types -> an STN candidate: no spaces, lowercase squares, ``D`` for a dome.

    STN is lowercase except the dome mark; people type ``B3-C3+D4d`` as readily as the
    canonical text, and the rules engine then canonicalises the rest (order, ``x``...).
    """
    t = "".join(text.split()).lower()
    return re.sub(r"(\+[a-e][1-5])d", r"\1D", t)


def _split(stn: str) -> tuple[str, str]:
    """(move part, builds) of a canonical turn: ``b3-c3+d4`` -> ``("b3-c3", "+d4")``."""
    m = re.match(r"((?:\+[a-e][1-5](?=[a-e]))?[^+]*)(.*)", stn)
    assert m is not None
    return m[1], m[2]


def format_legal_turns(pos: Position) -> str:
    """The legal turns, compact: one line per move (grouped by worker), its builds after it."""
    turns = pos.transitions()
    if not turns:
        return "no legal turn: you have lost"
    if pos.is_placement:
        taken = pos.workers[0] | pos.workers[1]
        empty = [name for name in _square_names() if not taken >> parse_square(name) & 1]
        return (f"{len(turns)} placements: any two empty squares, e.g. {turns[0].stn}\n"
                f"  empty: {' '.join(empty)}")
    groups: dict[str, list[str]] = {}
    for t in turns:
        head, builds = _split(t.stn)
        groups.setdefault(head or "(no move)", []).append("wins!" if t.win else (builds or "(no build)"))
    width = max(len(h) for h in groups)
    lines = [f"{len(turns)} legal turns (move, then the builds that may follow):"]
    for head in sorted(groups):
        lines.append(f"  {head:<{width}}  {' '.join(sorted(groups[head]))}")
    return "\n".join(lines)


def _square_names() -> list[str]:
    return [f"{f}{r}" for f in "abcde" for r in "12345"]


def explain_illegal(pos: Position, text: str) -> str | None:
    """Why the (well-formed, illegal) turn ``text`` breaks the rules, when it can be said simply.

    Only rules that hold for the mover's god are used, so an explanation is never wrong;
    None means "no simple reason found" and the caller prints the generic message.
    """
    try:
        turn = parse_stn(text)
    except MalformedTurnError:
        return None
    me = pos.to_move
    god = pos.gods[me]
    mine, theirs = pos.workers[me], pos.workers[1 - me]
    occupied = mine | theirs
    if pos.is_placement:
        if turn.place is None:
            return "both workers must be placed first: type two empty squares, e.g. b3,d3"
        a, b = turn.place
        if a == b:
            return f"both workers cannot go on {a}"
        for sq in (a, b):
            if occupied >> parse_square(sq) & 1:
                return f"{sq} is occupied"
            if pos.level(parse_square(sq)) == 4:
                return f"{sq} is domed"
        return None
    if turn.place is not None:
        return "your workers are placed: move one and build, e.g. b3-b4+c5"
    if turn.frm is None or god == "hermes" or turn.pre is not None:
        return None
    if turn.to is None:
        return None
    frm, to = parse_square(turn.frm), parse_square(turn.to)
    if not mine >> frm & 1:
        whose = "your opponent's worker" if theirs >> frm & 1 else "empty"
        return f"{turn.frm} is {whose}: your workers are on {_names(mine)}"
    if frm == to:
        return f"the worker on {turn.frm} must move to another square"
    if not _adjacent(frm, to):
        return f"{turn.frm} and {turn.to} are not neighbours: a worker moves one square"
    hs, hd = pos.level(frm), pos.level(to)
    if hd == 4:
        return f"{turn.to} is domed"
    if mine >> to & 1:
        return f"{turn.to} is occupied by your other worker"
    if theirs >> to & 1 and god not in ("apollo", "minotaur"):
        return f"{turn.to} is occupied"
    if hd - hs >= 2:
        return f"{turn.frm} cannot climb {'two' if hd - hs == 2 else 'three'} levels onto {turn.to}"
    if pos.athena_up and hd > hs:
        return "Athena moved up last turn: your workers may not move up this turn"
    if turn.to2 is not None or theirs >> to & 1:
        return None  # Artemis' second step, Apollo's swap, Minotaur's push: the generic message
    wins = (hd == 3 and hs < 3) or (god == "pan" and hs - hd >= 2)
    if wins and turn.builds:
        return f"{turn.frm}-{turn.to} already wins: type it without a build"
    if not wins and not turn.builds:
        return f"after moving, build next to {turn.to}: e.g. {turn.frm}-{turn.to}+{turn.frm}"
    for b, _dome in turn.builds:
        bsq = parse_square(b)
        if not _adjacent(bsq, to):
            return f"{b} is not next to {turn.to}: build next to the worker that moved"
        if pos.level(bsq) == 4:
            return f"{b} is domed"
        if bsq != frm and (occupied ^ (1 << frm)) >> bsq & 1:
            return f"{b} is occupied"
    return None


def _adjacent(a: int, b: int) -> bool:
    return a != b and max(abs(a // 5 - b // 5), abs(a % 5 - b % 5)) == 1


def _names(mask: int) -> str:
    return " and ".join(n for n in _square_names() if mask >> parse_square(n) & 1)


# --- the session ----------------------------------------------------------------------------


class _Stdin:
    """Lines from fd 0, read in a worker thread so trio never blocks (see the module docstring)."""

    def __init__(self) -> None:
        self._buffer = b""
        self._eof = False

    async def readline(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        while b"\n" not in self._buffer and not self._eof:
            chunk = await trio.to_thread.run_sync(_read0, abandon_on_cancel=True)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True
        if not self._buffer:
            return None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")


def _read0() -> bytes:
    try:
        return os.read(0, 4096)
    except OSError:
        return b""


@dataclass
class _Game:
    """Everything the session knows, kept outside trio so Ctrl-C still saves the game."""

    spec: EngineSpec
    human: int  # 0 or 1: the human's side (player 1 or 2)
    setup: GameSetup
    pos: Position
    colour: bool
    moves: list[str] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    outcome: Outcome | None = None
    failure: EngineFailure | None = None

    @property
    def names(self) -> tuple[str, str]:
        return (HUMAN, self.spec.name) if self.human == 0 else (self.spec.name, HUMAN)

    def record(self) -> GameRecord:
        outcome = self.outcome or Outcome(None, "aborted", "the game was interrupted")
        return make_record(self.setup, self.names, outcome, self.turns)


def _say(text: str = "", nl: bool = True) -> None:
    click.echo(text, nl=nl)
    sys.stdout.flush()


async def _session(game: _Game) -> None:
    async with trio.open_nursery() as nursery:
        try:
            engine = await Engine.start(nursery, game.spec)
        except EngineFailure as exc:
            game.failure = exc
            return
        try:
            if not engine.supports(game.pos.gods):
                game.failure = EngineFailure(
                    "engine-error",
                    f"{engine.name} does not support {'/'.join(game.pos.gods)} (it lists: {' '.join(engine.info.gods)})",
                )
                return
            await _play_game(game, engine)
        finally:
            with trio.CancelScope(shield=True):
                await engine.aclose()


async def _play_game(game: _Game, engine: Engine) -> None:
    stdin = _Stdin()
    clocks = [Clock(tc, margin) for tc, margin in zip(game.setup.tcs, game.setup.margins)]
    try:
        await engine.new_game(game.pos.gods)
    except EngineFailure as exc:
        game.outcome = Outcome(game.human + 1, exc.kind, exc.detail)
        return
    me = "X" if game.human == 0 else "O"
    _say(f"You are player {game.human + 1} ({me}, {game.pos.gods[game.human]}) against "
         f"{engine.name} ({game.pos.gods[1 - game.human]}). Type a turn in STN, ? for the legal "
         "turns, resign or quit.")
    _say(render(game.pos, colour=game.colour))
    while game.outcome is None:
        pos = game.pos
        if pos.is_lost():
            game.outcome = Outcome(2 - pos.to_move, "no-moves", f"player {pos.player} has no complete turn")
            break
        mover = pos.to_move
        played = len(game.turns)
        if mover == game.human:
            done = await _human_turn(game, stdin, clocks[mover])
        else:
            done = await _engine_turn(game, engine, clocks)
        if len(game.turns) > played:
            _say(render(game.pos, colour=game.colour))
        if not done:
            break
    if game.outcome is not None and game.outcome.winner is not None:
        await engine.send_result(game.outcome.result, game.outcome.termination)


async def _human_turn(game: _Game, stdin: _Stdin, clock: Clock) -> bool:
    """Read until the human plays a legal turn, resigns or quits; False to stop the game loop."""
    pos = game.pos
    started = trio.current_time()
    while True:
        prompt = "place both workers" if pos.is_placement else "your turn"
        _say(f"{pos.turn}{'.' if pos.player == 1 else '...'} {prompt}> ", nl=False)
        line = await stdin.readline()
        if line is None:
            _say()
            _say("end of input: game aborted")
            return False
        text = line.strip()
        if not text:
            continue
        word = text.lower()
        if word in ("?", "help", "h"):
            _say(format_legal_turns(pos))
            continue
        if word == "resign":
            game.outcome = Outcome(2 - game.human, "resign", "the human resigned")
            return True
        if word in ("quit", "exit", "q"):
            _say("game aborted")
            return False
        candidate = normalise_input(text)
        try:
            transition = pos.play(candidate)
        except MalformedTurnError:
            _say(f"malformed: {text!r} is not a turn (e.g. b3,d3 or b3-b4+c5) — type ? for the legal turns")
            continue
        except IllegalTurnError:
            why = explain_illegal(pos, candidate)
            if why:
                _say(f"illegal: {why}")
            else:
                _say(f"illegal turn {text!r} — type ? for the legal turns")
            continue
        elapsed_ms = (trio.current_time() - started) * 1000
        clock.charge(elapsed_ms)  # recorded, never enforced
        _record_turn(game, transition, round(elapsed_ms), None)
        return True


def _record_turn(game: _Game, transition: Transition, time_ms: int, reply: Reply | None) -> None:
    game.turns.append(turn_record(transition.stn, time_ms, reply.info if reply is not None else None))
    game.moves.append(transition.stn)
    mover = game.pos.to_move
    game.pos = transition.position
    if transition.win:
        game.outcome = Outcome(mover + 1, transition.termination or "climb", "")


async def _engine_turn(game: _Game, engine: Engine, clocks: list[Clock]) -> bool:
    mover = game.pos.to_move
    clock = clocks[mover]
    command = PositionCommand(sps=game.setup.opening, moves=tuple(game.moves))
    _say(f"{engine.name} is thinking...")
    with trio.CancelScope() as deadline:
        try:
            reply = await engine.think(command, referee_go(clocks, clock.tc, mover), deadline=deadline, allowance=clock.allowance_ms() / 1000)
        except EngineFailure as exc:
            game.outcome = Outcome(2 - mover, exc.kind, exc.detail)
            return False
    if deadline.cancelled_caught:
        elapsed_ms = (trio.current_time() - engine.turn_started) * 1000
        overrun = clock.charge(elapsed_ms) or 0.0
        game.outcome = Outcome(2 - mover, "time", f"by {max(1, math.ceil(overrun))} ms (no reply by the deadline)")
        await engine.stop_search()
        return False
    elapsed_ms = reply.elapsed * 1000
    overrun = clock.charge(elapsed_ms)
    if overrun is not None:
        game.outcome = Outcome(2 - mover, "time", f"by {math.ceil(overrun)} ms")
        return False
    if reply.turn is None:
        game.outcome = Outcome(2 - mover, "resign", "bestmove resign")
        _say(f"{engine.name} resigns")
        return False
    try:
        transition = game.pos.play(reply.turn)
    except (MalformedTurnError, IllegalTurnError) as exc:
        game.outcome = Outcome(2 - mover, "illegal", str(exc)[:200])
        return False
    info = reply.info
    extra = []
    score = score_text(info)
    if score is not None:
        extra.append(f"score {score}")
    if info is not None and info.depth is not None:
        extra.append(f"depth {info.depth}")
    _say(f"{engine.name} plays {transition.stn} ({reply.elapsed:.2f} s{', ' + ', '.join(extra) if extra else ''})")
    _record_turn(game, transition, round(elapsed_ms), reply)
    return True


def _default_out() -> Path:
    return Path(f"santorini-play-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}.sgn")


def _interrupted(exc: BaseException) -> bool:
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return exc.subgroup(KeyboardInterrupt) is not None
    return False


@click.command()
@click.argument("engine", type=ENGINE)
@click.option("--gods", type=GODS, help="Gods of player 1 / player 2, e.g. apollo/mortal (default mortal/mortal).")
@click.option("--as", "side", type=click.Choice(["1", "2"]), default="1", show_default=True, help="Play as player 1 (X, places and moves first) or 2 (O).")
@click.option("--tc", type=TC, default="60+1", show_default=True, help="The engine's time control (yours is recorded, not enforced).")
@click.option("--opening", type=SPS, help="Start from this SPS (its gods are the game's gods).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Save the game here (appended); default santorini-play-DATE-TIME.sgn.")
@click.option("--colour/--no-colour", "colour", default=None, help="Colour boards (default: when stdout is a terminal).")
def play(
    engine: EngineSpec,
    gods: tuple[str, str] | None,
    side: str,
    tc: TimeControl,
    opening: str | None,
    out: Path | None,
    colour: bool | None,
) -> None:
    """Play against ENGINE in the terminal.

    Type your turns in STN (any accepted spelling: b3,d3 to place, b3-b4+c5 to move and build);
    ? lists your legal turns, resign gives up, quit (or Ctrl-D) abandons the game.  The board is
    drawn after every turn; the game is saved as SGN with the referee's tags.

    \b
    Example:
      santorini play alphabeta --gods apollo/mortal --as 2 --tc 30+0.5
    """
    if opening is not None:
        start = Position.from_sps(opening)
        if gods is not None and gods != start.gods:
            raise click.ClickException(f"--gods {'/'.join(gods)} disagrees with the opening's gods {'/'.join(start.gods)}")
    else:
        start = Position.start(gods or ("mortal", "mortal"))
    human = int(side) - 1
    engine_tc = engine.tc or tc
    setup = GameSetup(
        gods=start.gods,
        opening=opening,
        tcs=(tc, engine_tc) if human == 0 else (engine_tc, tc),
        margins=(0, engine.timemargin_ms) if human == 0 else (engine.timemargin_ms, 0),
        event="santorini play",
    )
    path = out or _default_out()
    existed = path.exists()
    try:
        writer = SgnWriter(path)
    except (OSError, RecordError) as exc:
        raise click.ClickException(f"cannot write {path}: {exc}") from None
    game = _Game(engine, human, setup, start, sys.stdout.isatty() if colour is None else colour)
    status = 0
    try:
        try:
            trio.run(_session, game)
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C may arrive wrapped in a group
            if not _interrupted(exc):
                raise
            _say()
            _say("interrupted: game aborted, engine stopped")
            status = 130
        if game.failure is not None:
            writer.close()
            if not existed and path.exists() and path.stat().st_size == 0:
                path.unlink()
            raise click.ClickException(game.failure.detail)
        outcome = game.outcome
        if outcome is not None:
            _say(f"{outcome.result} {{{outcome.reason(game.names)}}}")
        writer.append(game.record())
        _say(f"game saved to {path}")
    finally:
        writer.close()
    sys.exit(status)
