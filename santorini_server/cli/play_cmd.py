"""``santorini play``: a person takes one seat against engines in the others, in the terminal.

Theory of operation.  One trio task runs the game; the engines (one process per engine seat:
one with two seats, two or three with three or four seats) are started in a nursery that closes
them on every way out (game over, ``quit``, end of input, Ctrl-C, an engine failure).  The
engines' turns go through the referee's :class:`~santorini_server.referee.engine.Engine` with its
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
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import click
import trio

from ..adjudicator import Abort, Adjudicator, Answer, GameSetup, Outcome, Request, Resignation, TimeControl
from ..records import ArchiveError, GameRecord, RecordError, SgnWriter
from ..referee.engine import Engine, EngineFailure, seats_refusal
from ..referee.engine_spec import EngineSpec
from ..referee.game import ask_engine, forfeit, record_date, rule_missed_deadline
from ..render import render
from ..rules import IllegalTurnError, MalformedTurnError, Position, check_gods, parse_square, respell_stn
from ..termination import Termination
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, SPS, TC, Parsed, gods_against_opening, warn_time_controls
from .output_files import SGN_OUT

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
        taken = 0
        for group in pos.workers:
            taken |= group
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


def parse_gods(value: str) -> tuple[str, ...]:
    """``--gods``: one god per seat, two to four (the rules' :func:`check_gods` says which may meet).

    Raises:
        ValueError: the wrong count, an unknown god, mortal or a repeated god with 3 or 4 seats.
    """
    gods = tuple(value.split("/"))
    check_gods(gods)
    return gods


def seat_engines(engines: tuple[EngineSpec, ...], seats: int, human: int) -> dict[int, EngineSpec]:
    """The engine of every seat but the human's: the list fills them in seat order; one engine
    given for several seats plays each of them (one process per seat).

    Raises:
        ValueError: neither one engine nor one per other seat.
    """
    others = [seat for seat in range(seats) if seat != human]
    if len(engines) == 1:
        engines = engines * len(others)
    if len(engines) != len(others):
        raise ValueError(
            f"{len(engines)} engines for the {len(others)} other seats of a {seats}-seat game (give one, or one per seat)"
        )
    return dict(zip(others, engines, strict=True))


GODS = Parsed("G1/G2[/G3[/G4]]", parse_gods, ValueError, tuple)


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

    specs: dict[int, EngineSpec]
    """The engine of each other seat (0 for player 1, ...)."""
    human: int  # the human's seat (0 for player 1, ...)
    adjudicator: Adjudicator
    colour: bool
    failure: EngineFailure | None = None
    """An engine could not be started or does not play these gods or seats: no game, no record."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(HUMAN if seat == self.human else self.specs[seat].name for seat in range(self.adjudicator.nseats))

    def record(self) -> GameRecord:
        """The game's record; a game that did not finish is recorded as aborted."""
        if self.adjudicator.outcome is None:
            self.adjudicator.receive(Abort())
        return self.adjudicator.record(self.names, date=record_date())


def _say(text: str = "", nl: bool = True) -> None:
    click.echo(text, nl=nl)
    sys.stdout.flush()


async def _session(game: _Game) -> None:
    engines: dict[int, Engine] = {}
    async with trio.open_nursery() as nursery:
        try:
            for seat, spec in game.specs.items():
                try:
                    engines[seat] = await Engine.start(nursery, spec)
                except EngineFailure as exc:
                    game.failure = exc
                    return
            refusal = _refusal(game.adjudicator.position, engines.values())
            if refusal is not None:
                game.failure = EngineFailure("engine-error", refusal)
                return
            await _play_game(game, engines)
        finally:
            with trio.CancelScope(shield=True):
                for engine in engines.values():
                    await engine.aclose()


def _refusal(pos: Position, engines: Collection[Engine]) -> str | None:
    """Why the game cannot start with these engines (a god or the seat count they lack), or None."""
    for engine in engines:
        if not engine.supports(pos.gods):
            return f"{engine.name} does not support {'/'.join(pos.gods)} (it lists: {' '.join(engine.info.gods)})"
        refusal = seats_refusal(engine.name, engine.info, pos.nseats)
        if refusal is not None:
            return refusal
    return None


async def _play_game(game: _Game, engines: dict[int, Engine]) -> None:
    adjudicator = game.adjudicator
    pos = adjudicator.position
    for seat, engine in engines.items():
        try:
            await engine.new_game(pos.gods)
        except EngineFailure as exc:
            if isinstance(forfeit(adjudicator, seat, exc), Outcome):
                return
    stdin = _Stdin()
    _say(_welcome(game, pos))
    _say(render(pos, colour=game.colour))
    told: set[int] = set()  # three seats: the seats already announced as eliminated
    step = adjudicator.next_request()
    while True:
        _announce_eliminations(game, engines, told)
        if not isinstance(step, Request):
            break
        played = len(adjudicator.moves)
        if step.seat == game.human:
            step = await _human_turn(adjudicator, stdin)
        else:
            step = await _engine_turn(adjudicator, engines[step.seat], step)
        if len(adjudicator.moves) > played:
            _say(render(adjudicator.position, colour=game.colour))
    await _tell_results(step, engines, told)


def _welcome(game: _Game, pos: Position) -> str:
    """Who plays whom, and how to type."""
    how = "Type a turn in STN, ? for the legal turns, resign or quit."
    if pos.nseats == 2:
        engine = game.specs[1 - game.human].name
        me = "X" if game.human == 0 else "O"
        god, theirs = pos.gods[game.human], pos.gods[1 - game.human]
        return f"You are player {game.human + 1} ({me}, {god}) against {engine} ({theirs}). {how}"
    others = ", ".join(f"{spec.name} (player {seat + 1}, {pos.gods[seat]})" for seat, spec in sorted(game.specs.items()))
    team = f", team {'AB'[game.human % 2]} with player {(game.human + 2) % 4 + 1}" if pos.nseats == 4 else ""
    return f"You are player {game.human + 1} of {pos.nseats} ({pos.gods[game.human]}{team}) against {others}. {how}"


def _announce_eliminations(game: _Game, engines: dict[int, Engine], told: set[int]) -> None:
    """Three seats: say who left the game (and how) as soon as the adjudicator rules it."""
    for elimination in game.adjudicator.eliminations:
        seat = elimination.seat
        if seat in told:
            continue
        told.add(seat)
        who = "you are" if seat == game.human else f"{game.names[seat]} is"
        detail = f": {elimination.detail}" if elimination.detail else ""
        _say(f"player {seat + 1} is eliminated ({elimination.termination}{detail}): {who} out, place {elimination.placing}")
        if seat == game.human and game.adjudicator.outcome is None:
            _say("the engines play on")


async def _tell_results(step: Outcome, engines: dict[int, Engine], told: set[int]) -> None:
    """Every engine's ``result``: an eliminated one its own place when it left, the others the placings."""
    if step.winner is None:
        return
    if len(step.placings) == 2:
        for engine in engines.values():
            await engine.send_result(step.result, step.termination)
        return
    for elimination in step.eliminated:
        if elimination.seat in engines:
            await engines[elimination.seat].send_result(elimination.notice(len(step.placings)), elimination.termination)
    left = {e.seat for e in step.eliminated}
    for seat, engine in engines.items():
        if seat not in left:
            await engine.send_result(step.placings, step.termination)


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
@click.argument("engines", metavar="ENGINE...", type=ENGINE, nargs=-1, required=True)
@click.option(
    "--gods", type=GODS,
    help="One god per seat, e.g. apollo/mortal (default mortal/mortal), or apollo/pan/atlas for three seats.",
)
@click.option(
    "--as", "side", type=click.Choice(["1", "2", "3", "4"]), default="1", show_default=True,
    help="Your seat: 1 (X, places and moves first), 2 (O), 3 or 4 with three or four gods.",
)
@click.option(
    "--tc", type=TC, default="60+1", show_default=True,
    help="The engine's time control (yours is recorded, not enforced).",
)
@click.option("--opening", type=SPS, help="Start from this SPS (its gods are the game's gods).")
@click.option(
    "--out", type=SGN_OUT,
    help="Save the game here (appended); default santorini-play-DATE-TIME.sgn.",
)
@click.option(
    "--colour/--no-colour", "colour", default=None, help="Colour boards (default: when stdout is a terminal)."
)
def play(
    engines: tuple[EngineSpec, ...],
    gods: tuple[str, ...] | None,
    side: str,
    tc: TimeControl,
    opening: str | None,
    out: Path | None,
    colour: bool | None,
) -> None:
    """Play against ENGINE in the terminal, or take one seat of a three- or four-seat game.

    With three or four gods the engines fill the other seats in order; one engine given plays
    every other seat.  Type your turns in STN (any accepted spelling: b3,d3 to place, b3-b4+c5 to move and build);
    ? lists your legal turns, resign gives up, quit (or Ctrl-D) abandons the game.  The board is
    drawn after every turn; the game is saved as SGN with the referee's tags.

    \b
    Example:
      santorini play alphabeta --gods apollo/mortal --as 2 --tc 30+0.5
      santorini play alphabeta greedy --gods apollo/pan/atlas --as 2
    """
    if opening is not None:
        start = Position.from_sps(opening)
        if (disagreement := gods_against_opening(gods, start.gods)) is not None:
            raise click.ClickException(disagreement)
    else:
        start = Position.start(gods or ("mortal", "mortal"))
    human = int(side) - 1
    if human >= start.nseats:
        raise click.ClickException(f"--as {side}: a {start.nseats}-seat game has players 1 to {start.nseats}")
    try:
        specs = seat_engines(engines, start.nseats, human)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    warn_time_controls(tc, *(spec.tc for spec in specs.values()))
    setup = GameSetup(
        gods=start.gods,
        opening=opening,
        tcs=tuple(tc if seat == human else specs[seat].tc or tc for seat in range(start.nseats)),
        margins=tuple(0 if seat == human else specs[seat].timemargin_ms for seat in range(start.nseats)),
        event="santorini play",
    )
    path = out or _default_out()
    existed = path.exists()
    try:
        writer = SgnWriter(path)
    except (OSError, ArchiveError) as exc:
        raise click.ClickException(f"cannot write {path}: {exc}") from None
    except RecordError as exc:  # what the file holds is not SGN to append to (the message names it)
        raise click.ClickException(str(exc)) from None
    adjudicator = Adjudicator(setup, humans={human})
    game = _Game(specs, human, adjudicator, sys.stdout.isatty() if colour is None else colour)
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
