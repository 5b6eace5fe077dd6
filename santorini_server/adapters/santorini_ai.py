"""``santorini adapter santorini-ai --binary PATH``: JPricey/santorini-ai's ``uci`` program as an SEI engine.

SPEC.md section 20.2.  The program reads one command a line and answers JSON lines on stdout
(errors go to its stderr):

* at start ``{"type":"started"}``;
* ``set_position FEN`` starts a search that runs until ``stop`` (or until it finds the game
  decided); each better move is a line ``{"type":"best_move", "original_str": FEN, "next_state":
  FEN, "trigger": ..., "meta": {"score", "calculated_depth", "nodes_visited", "actions",
  "action_str", ...}}``; the trigger ``seed`` comes at once, ``improvement``/``saved`` as the
  search deepens, and the last line of a search is ``stop_flag`` (after ``stop``) or ``end_of_line``
  (it stopped by itself);
* ``next_moves FEN`` answers every legal turn with its next state (``tools/rules_diff.py`` uses it);
* ``ping`` -> ``pong``; ``quit``.

What the adapter does: one engine process for the adapter's life (a search is started and
stopped by command, so nothing is stale between positions); the position as FEN
(:func:`~.santorini_ai_notation.fen_of`); the search stopped when the helper's budget is spent
(less :data:`RESERVE_S` for the ``stop`` round trip), at once on ``end_of_line``, and when a
``go depth``/``nodes`` limit is reached by a reported line; the last line's actions translated to STN
(:func:`~.santorini_ai_notation.turn_of_actions`: placement in one action, a winning climb without
a build, Artemis' path found in our rules) and checked by :func:`~.common.judge`, never repaired.
Gods: the ten of ours and ``mortal``; two seats.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import threading
import time
from typing import Any

import click

from santorini_engines.sei_bot import Info, Limits, run_bot

from ..rules import Position
from .common import ForeignEngineError, ForeignProcess, budget_seconds, judge, wire_token
from .santorini_ai_notation import GODS, fen_of, turn_of_actions

__all__ = ["command", "ENGINE", "RESERVE_S", "best_move_turn"]

ENGINE = "santorini-ai"
#: Seconds kept off the budget for ``stop``, the engine's last line, our parse and check (the
#: engine checks its stop flag between nodes: measured a few ms on this machine).
RESERVE_S = 0.020
#: How long the program may take to print ``started``.
START_TIMEOUT_S = 30.0
#: How long after ``stop`` the adapter waits for the search's last line before it gives up.
GRACE_S = 2.0
#: The triggers of a search's last line.
_FINAL = ("stop_flag", "end_of_line")


def best_move_turn(position: Position, line: dict[str, Any], info: Info) -> str:
    """The turn to send for a ``best_move`` line: its actions in STN, judged by our rules."""
    meta = line.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    actions = meta.get("actions")
    foreign = json.dumps(actions, separators=(",", ":"))
    if not isinstance(actions, list):
        info(f"string {ENGINE} sent a best_move without actions")
        return wire_token(foreign)
    try:
        candidate = turn_of_actions(position, actions)
    except ValueError as exc:
        info(f"string {ENGINE} answered {wire_token(foreign)}, which is no turn: {exc}")
        return wire_token(foreign)
    return judge(position, candidate, foreign, info, ENGINE)


class _Adapter:
    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.proc: ForeignProcess | None = None

    def engine(self) -> ForeignProcess:
        """The running program, started (and its ``started`` line awaited) if it is not yet."""
        if self.proc is None:
            proc = ForeignProcess([self.binary])
            proc.expect(lambda line: _kind(_json(line)) == "started", START_TIMEOUT_S)
            self.proc = proc
        return self.proc

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        proc = self.engine()
        fen = fen_of(position)
        think = math.inf if limits.infinite else budget_seconds(limits, position.player, RESERVE_S)
        proc.send(f"set_position {fen}")
        deadline = time.monotonic() + think
        best: str | None = None
        final = reached = False
        while not (final or reached or stop.is_set()):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            line = _next_line(proc, min(left, 0.05))
            if line is not None:
                best, final = _take(line, fen, best)
                reached = best is not None and _reached(best, limits)
        if not final:
            proc.send("stop")
            end = time.monotonic() + GRACE_S
            while not final:
                line = _next_line(proc, end - time.monotonic())
                if line is None:
                    info(f"string {ENGINE} sent no last line within {GRACE_S} s of stop")
                    break
                best, final = _take(line, fen, best)
        line = _json(best) if best is not None else None
        if not isinstance(line, dict):
            raise ForeignEngineError(f"{ENGINE} found no move for {fen}")
        meta = line.get("meta") or {}
        info(f"string {ENGINE} depth {meta.get('calculated_depth')} score {meta.get('score')} trigger {line.get('trigger')}")
        return best_move_turn(position, line, info)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.close()


def _json(line: str) -> Any:
    if not line.startswith("{"):
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def _kind(obj: Any) -> str | None:
    return obj.get("type") if isinstance(obj, dict) else None


def _next_line(proc: ForeignProcess, timeout: float) -> str | None:
    """The engine's next line within ``timeout`` seconds, None if none came.  Raises
    ForeignEngineError when it has exited."""
    if timeout <= 0:
        return None
    try:
        line = proc.lines.get(timeout=timeout)
    except queue.Empty:
        return None
    if line is None:
        proc.lines.put(None)
        raise ForeignEngineError(f"{ENGINE} exited (status {proc.proc.wait()})")
    return line


def _take(line: str, fen: str, best: str | None) -> tuple[str | None, bool]:
    """Fold one engine line into the search: (the last ``best_move`` line of ``fen`` so far, raw,
    and whether it was the search's last).  Only the line finally played is parsed as JSON (the
    program's serde writes its fields in a fixed order, so the type, the position and the trigger
    are read from the text).  Lines of another position (a search stopped late) and other text go
    to stderr, so the referee's engine log keeps them."""
    if not line.startswith(f'{{"type":"best_move","original_str":"{fen}"'):
        print(f"{ENGINE}: {line}", file=sys.stderr, flush=True)
        return best, False
    return line, any(f'"trigger":"{trigger}"' in line for trigger in _FINAL)


def _reached(best: str, limits: Limits) -> bool:
    """Whether a ``go depth``/``nodes`` limit is reached by the depth or nodes ``best`` reports."""
    if limits.depth is None and limits.nodes is None:
        return False
    meta = (_json(best) or {}).get("meta") or {}
    return (limits.depth is not None and (meta.get("calculated_depth") or 0) >= limits.depth) or (
        limits.nodes is not None and (meta.get("nodes_visited") or 0) >= limits.nodes
    )


@click.command(name=ENGINE)
@click.option("--binary", required=True, type=click.Path(exists=True, dir_okay=False), help="santorini-ai's built uci program.")
def command(binary: str) -> None:
    """JPricey/santorini-ai as an SEI engine: the ten gods and mortal, two seats."""
    adapter = _Adapter(binary)
    try:
        adapter.engine()  # started during the handshake, so the first search's clock does not pay for it
    except ForeignEngineError as exc:
        print(f"{ENGINE}: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    try:
        run_bot(
            adapter.choose,
            name=f"{ENGINE} (its own placement)",
            author="JPricey, through santorini-server's adapter",
            gods=[god for god in GODS if god != "mortal"],
            verbatim=True,
        )
    finally:
        adapter.close()
