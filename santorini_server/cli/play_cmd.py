"""``santorini play``: a person plays an engine in the terminal.

Theory of operation.  One trio task runs the game; the engine is started in a nursery that
closes it on every way out (game over, ``quit``, end of input, Ctrl-C, an engine failure).  The
engine's turns go through the referee's :class:`~santorini_server.referee.engine.Engine` with its
clock enforced exactly as in a match; the human's clock is charged and recorded but never
enforced.  Human input is read by a worker thread with ``os.read`` on fd 0 (not ``sys.stdin``:
a thread abandoned inside a buffered ``readline`` would hold the stdin lock at interpreter
shutdown), so the trio loop never blocks and a cancelled read is simply abandoned.

Every decision (legality, the engine's clock, resignation, the outcome) is the
:class:`~santorini_server.adjudicator.Adjudicator`'s, with the human's seat marked as a person's;
this module reads, prints and drives.  The game is saved as SGN (the adjudicator's record)
whatever the ending; an interrupted game is saved as ``*`` / ``aborted``.
"""

from __future__ import annotations

import datetime
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import trio

from ..adjudicator import Abort, Adjudicator, Answer, GameSetup, Outcome, Request, Resignation, TimeControl
from ..records import GameRecord, RecordError, SgnWriter
from ..referee.engine import Engine, EngineFailure
from ..referee.engine_spec import EngineSpec
from ..referee.game import ask_engine, forfeit, record_date, rule_missed_deadline
from ..render import render
from ..rules import IllegalTurnError, MalformedTurnError, Position, parse_square, respell_stn
from ..termination import Termination
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, GODS, SPS, TC, warn_time_controls

__all__ = ["play", "format_legal_turns"]

HUMAN = "Human"


# --- pure helpers (tested directly) ---------------------------------------------------------


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
    human: int  # 0 or 1: the human's seat (player 1 or 2)
    adjudicator: Adjudicator
    colour: bool
    failure: EngineFailure | None = None
    """The engine could not be started or does not play these gods: no game, no record."""

    @property
    def names(self) -> tuple[str, str]:
        return (HUMAN, self.spec.name) if self.human == 0 else (self.spec.name, HUMAN)

    def record(self) -> GameRecord:
        """The game's record; a game that did not finish is recorded as aborted."""
        if self.adjudicator.outcome is None:
            self.adjudicator.receive(Abort())
        return self.adjudicator.record(self.names, date=record_date())


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
            gods = game.adjudicator.position.gods
            if not engine.supports(gods):
                game.failure = EngineFailure(
                    "engine-error",
                    f"{engine.name} does not support {'/'.join(gods)} (it lists: {' '.join(engine.info.gods)})",
                )
                return
            await _play_game(game, engine)
        finally:
            with trio.CancelScope(shield=True):
                await engine.aclose()


async def _play_game(game: _Game, engine: Engine) -> None:
    adjudicator = game.adjudicator
    pos = adjudicator.position
    try:
        await engine.new_game(pos.gods)
    except EngineFailure as exc:
        forfeit(adjudicator, 1 - game.human, exc)
        return
    stdin = _Stdin()
    me = "X" if game.human == 0 else "O"
    _say(f"You are player {game.human + 1} ({me}, {pos.gods[game.human]}) against "
         f"{engine.name} ({pos.gods[1 - game.human]}). Type a turn in STN, ? for the legal "
         "turns, resign or quit.")
    _say(render(pos, colour=game.colour))
    step = adjudicator.next_request()
    while isinstance(step, Request):
        played = len(adjudicator.moves)
        if step.seat == game.human:
            step = await _human_turn(adjudicator, stdin)
        else:
            step = await _engine_turn(adjudicator, engine, step)
        if len(adjudicator.moves) > played:
            _say(render(adjudicator.position, colour=game.colour))
    if step.winner is not None:
        await engine.send_result(step.result, step.termination)


async def _human_turn(adjudicator: Adjudicator, stdin: _Stdin) -> Request | Outcome:
    """Read until the human plays a legal turn, resigns or quits (an abort)."""
    pos = adjudicator.position
    started = trio.current_time()
    while True:
        prompt = "place both workers" if pos.is_placement else "your turn"
        _say(f"{pos.turn}{'.' if pos.player == 1 else '...'} {prompt}> ", nl=False)
        line = await stdin.readline()
        if line is None:
            _say()
            _say("end of input: game aborted")
            return adjudicator.receive(Abort())
        text = line.strip()
        if not text:
            continue
        word = text.lower()
        if word in ("?", "help", "h"):
            _say(format_legal_turns(pos))
            continue
        elapsed_ms = (trio.current_time() - started) * 1000
        if word == "resign":
            return adjudicator.receive(Resignation(elapsed_ms=elapsed_ms))
        if word in ("quit", "exit", "q"):
            _say("game aborted")
            return adjudicator.receive(Abort())
        try:  # people type B3-C3+D4d as readily as the canonical text: respelled, not refused
            return adjudicator.receive(Answer(turn=respell_stn(text), elapsed_ms=elapsed_ms))
        except MalformedTurnError as exc:
            _say(f"malformed: {text!r} is not a turn: {exc.reason} — type ? for the legal turns")
        except IllegalTurnError as exc:
            _say(f"illegal: {exc.reason} — type ? for the legal turns")


async def _engine_turn(adjudicator: Adjudicator, engine: Engine, request: Request) -> Request | Outcome:
    _say(f"{engine.name} is thinking...")
    played = len(adjudicator.moves)
    with trio.CancelScope() as deadline:
        step = await ask_engine(engine, adjudicator, request, deadline=deadline)
    if deadline.cancelled_caught:
        return await rule_missed_deadline(engine, adjudicator)
    if isinstance(step, Outcome) and step.termination is Termination.RESIGN:
        _say(f"{engine.name} resigns")
    if len(adjudicator.moves) > played:
        turn = adjudicator.turns[-1]
        extra = [f"score {turn.score}"] if turn.score is not None else []
        if turn.depth is not None:
            extra.append(f"depth {turn.depth}")
        seconds = (turn.time_ms or 0) / 1000
        _say(f"{engine.name} plays {turn.turn} ({seconds:.2f} s{', ' + ', '.join(extra) if extra else ''})")
    return step


def _default_out() -> Path:
    return Path(f"santorini-play-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}.sgn")


@click.command()
@click.argument("engine", type=ENGINE)
@click.option("--gods", type=GODS, help="Gods of player 1 / player 2, e.g. apollo/mortal (default mortal/mortal).")
@click.option(
    "--as", "side", type=click.Choice(["1", "2"]), default="1", show_default=True,
    help="Play as player 1 (X, places and moves first) or 2 (O).",
)
@click.option(
    "--tc", type=TC, default="60+1", show_default=True,
    help="The engine's time control (yours is recorded, not enforced).",
)
@click.option("--opening", type=SPS, help="Start from this SPS (its gods are the game's gods).")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path),
    help="Save the game here (appended); default santorini-play-DATE-TIME.sgn.",
)
@click.option(
    "--colour/--no-colour", "colour", default=None, help="Colour boards (default: when stdout is a terminal)."
)
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
            raise click.ClickException(
                f"--gods {'/'.join(gods)} disagrees with the opening's gods {'/'.join(start.gods)}"
            )
    else:
        start = Position.start(gods or ("mortal", "mortal"))
    human = int(side) - 1
    engine_tc = engine.tc or tc
    warn_time_controls(tc, engine.tc)
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
    adjudicator = Adjudicator(setup, humans={human})
    game = _Game(engine, human, adjudicator, sys.stdout.isatty() if colour is None else colour)
    status = 0
    try:
        try:
            trio.run(_session, game)
        except BaseException as exc:  # Ctrl-C may arrive wrapped in a group
            if not is_interrupt(exc):
                raise
            _say()
            _say("interrupted: game aborted, engine stopped")
            status = INTERRUPTED_STATUS
        if game.failure is not None:
            writer.close()
            if not existed and path.exists() and path.stat().st_size == 0:
                path.unlink()
            raise click.ClickException(game.failure.detail)
        record = game.record()
        outcome = adjudicator.outcome
        if outcome is not None and outcome.winner is not None:
            _say(f"{outcome.result} {{{outcome.reason(game.names)}}}")
        writer.append(record)
        _say(f"game saved to {path}")
    finally:
        writer.close()
    sys.exit(status)
