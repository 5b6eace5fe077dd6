"""``santorini adapter alphazero --checkout DIR [--python PATH] [--sims N] [--warm]``: AlphaZero as SEI.

SPEC.md section 20.3.  cestpasphoto/alpha-zero-general's ``santorini`` folder is a Python library,
not a program: ``alphazero_driver.py`` (ours) runs in the user's environment (``--python``, with
PyTorch, numba, onnxruntime) inside the checkout and asks its ``MCTS.getActionProb`` for an action
on a 5x5x3 int8 board.  The engine needs about a minute of CPU to start (numba compiles its game,
PyTorch exports the net), more than the referee waits, so the driver is a server on a Unix
socket (:func:`socket_path`, one per interpreter, checkout and checkpoint) that the first adapter
starts detached and every later one (a restart after a fault, the next game, a second seat)
connects to; it exits after ``--idle`` seconds with no adapter.  The referee's engine guard ends
every descendant of an engine with it (SPEC.md section 5), so a server that an adapter under the
referee started dies with that adapter: ``--warm`` starts it outside, before a tournament.
This module translates both ways:

* the board, from the mover's side: layer 0 the workers (``1``, ``2`` the mover's, in square
  order a5..e1; ``-1``, ``-2`` the opponent's), layer 1 the levels (``4`` a dome), layer 2 the god
  bits (``64`` at cell ``GOD`` for the mover and ``GOD + NB_GODS`` for the opponent, ``+1`` on the
  opponent's Athena when she moved up) and, at cell ``2 * NB_GODS``, the number of turns played
  since the placements (the engine counts its rounds there);
* the action, decoded by the engine's ``_decode_action`` into (worker, power, move direction, build
  direction), directions ``0``-``8`` row-major over the 3x3 block around the square (``4`` is the
  square itself) with row 0 the a5 side of the board (:func:`az_turn` for the powers); every
  action carries a build, so a winning move loses its build (our winning turn has none).

The engine has no placement phase (its nets were trained on random placements): the adapter
places at random and says so in its ``id`` line.  Gods: those it plays in one call of its game
model (:data:`GODS`: Apollo, Minotaur, Atlas, Hephaestus, Pan, Athena; its nets were trained with
a god on each side); Artemis, Demeter, Hermes and Prometheus act over several calls and are not
translated.  Strength is set by ``--sims``
(default 200; the author's README measured 50 and 800); with a clock the adapter runs fewer,
from the measured seconds per simulation, so the turn fits the budget.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

from santorini_engines.sei_bot import Info, Limits, Option, run_bot

from ..rules import Position
from .common import ForeignEngineError, budget_seconds, judge, random_placement, wins_alone

__all__ = ["az_state", "az_turn", "socket_path", "command", "ENGINE", "PLACEMENT", "DRIVER"]

ENGINE = "alphazero"
PLACEMENT = "placement: random (the engine has no placement phase; its nets were trained on random placements)"
#: Our program that runs in the engine's environment (stdlib only there).
DRIVER = Path(__file__).with_name("alphazero_driver.py")
#: The driver's exit status when another server holds the lock (``alphazero_driver.ANOTHER_SERVER``).
ANOTHER_SERVER = 3
#: Seconds kept off the budget for the adapter's round trip (JSON both ways, the pipe, our check).
RESERVE_S = 0.020
#: Loading torch and the net, compiling numba and the warm-up search may take this long.
START_TIMEOUT_S = 300.0
#: How long past its budget the adapter waits for an answer before it gives the engine up.
GRACE_S = 10.0
#: Seconds per simulation assumed before the first search has been measured.
FIRST_SECONDS_PER_SIM = 0.005
#: The engine's "no move"/"no build" direction: the centre of the 3x3 block.
CENTRE = 4


#: Our gods whose powers the engine plays in one call of its game model, by its constant's name.
#: (Artemis, Demeter, Hermes and Prometheus take several calls: not translated.)
GODS: dict[str, str] = {
    "mortal": "NO_GOD",
    "apollo": "APOLLO",
    "minotaur": "MINOTAUR",
    "atlas": "ATLAS",
    "hephaestus": "HEPHAESTUS",
    "pan": "PAN",
    "athena": "ATHENA",
}
#: The engine's ids when its constants are the published ones (the server reports its own).
DEFAULT_IDS = {"NO_GOD": 0, "APOLLO": 1, "MINOTAUR": 2, "ATLAS": 3, "HEPHAESTUS": 4, "PAN": 8, "ATHENA": 9}
#: The engine's god-bit values: the god is held (64), plus Athena's "moved up" bit.
HELD, ATHENA_UP = 64, 1


def _ply(position: Position) -> int:
    """Turns played since both placements (the engine's round counter, capped at its int8 127)."""
    return min(127, 2 * (position.turn - 2) + position.to_move)


def az_state(position: Position, nb_gods: int, ids: dict[str, int] = DEFAULT_IDS) -> list[list[list[int]]]:
    """The engine's 5x5x3 board for a two-seat position with workers placed, from the mover's side
    (row ``y`` is rank ``5 - y``, column ``x`` file ``x``: our square index ``5y + x``)."""
    me, them = position.to_move, 1 - position.to_move
    state = [[[0, position.level(5 * y + x), 0] for x in range(5)] for y in range(5)]
    for mask, sign in ((position.workers[me], 1), (position.workers[them], -1)):
        squares = [sq for sq in range(25) if mask >> sq & 1]
        for worker, sq in enumerate(squares, 1):
            state[sq // 5][sq % 5][0] = sign * worker
    gods = [0] * 25
    for side, seat in ((0, me), (1, them)):
        god = position.gods[seat]
        gods[ids[GODS[god]] + nb_gods * side] = HELD + (ATHENA_UP if god == "athena" and position.athena_up else 0)
    gods[2 * nb_gods] = _ply(position)
    for i, value in enumerate(gods):
        state[i // 5][i % 5][2] = value
    return state


def _name(y: int, x: int) -> str:
    return f"{'abcde'[x]}{5 - y}"


def az_turn(position: Position, decoded: tuple[int, int, int, int], ids: dict[str, int] = DEFAULT_IDS) -> str:
    """STN for the engine's decoded action.  Its powers: Apollo's swap and the Minotaur's push are
    a move with ``x``, Atlas' dome ``+sqD``, Hephaestus' double block ``+sq+sq``.  Every action has a
    build; a move that wins here (the rules core says so: a climb onto level 3, Pan's drop) has none.
    An action that is no move and build on the board, or a power the mover's god does not have,
    comes back as ``az:W/P/M/B`` to be refused."""
    worker, power, move, build = decoded
    raw = f"az:{worker}/{power}/{move}/{build}"
    god = ids.get(GODS.get(position.gods[position.to_move], ""), -1)
    mine = position.workers[position.to_move]
    squares = [sq for sq in range(25) if mine >> sq & 1]
    on_board = worker in (0, 1) and 0 <= move < 9 and 0 <= build < 9 and CENTRE not in (move, build)
    if power not in (ids["NO_GOD"], god) or not on_board:
        return raw
    y, x = divmod(squares[worker], 5)
    ny, nx = y + move // 3 - 1, x + move % 3 - 1
    by, bx = ny + build // 3 - 1, nx + build % 3 - 1
    if not (0 <= ny < 5 and 0 <= nx < 5 and 0 <= by < 5 and 0 <= bx < 5):
        return raw
    step = "x" if power in (ids.get("APOLLO"), ids.get("MINOTAUR")) else "-"
    moved = f"{_name(y, x)}{step}{_name(ny, nx)}"
    if wins_alone(position, 5 * y + x, 5 * ny + nx, moved):
        return moved
    spot = _name(by, bx)
    if power == ids.get("ATLAS"):
        return f"{moved}+{spot}D"
    if power == ids.get("HEPHAESTUS"):
        return f"{moved}+{spot}+{spot}"
    return f"{moved}+{spot}"


def socket_path(python: str, checkout: str, weights: str) -> Path:
    """Where the engine server for this interpreter, checkout and checkpoint listens (one per user)."""
    key = "\0".join([os.path.abspath(python), os.path.abspath(checkout), os.path.abspath(weights)])
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"santorini-az-{os.getuid()}-{digest}.sock"


class _Connection:
    """JSON lines to and from the engine server, each read with a timeout."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.stream = sock.makefile("rw", encoding="utf-8", newline="\n")

    def request(self, message: dict[str, object] | None, timeout: float) -> dict[str, object]:
        try:
            if message is not None:
                self.stream.write(json.dumps(message) + "\n")
                self.stream.flush()
            self.sock.settimeout(max(0.001, timeout))
            line = self.stream.readline()
        except TimeoutError:
            raise ForeignEngineError(f"{ENGINE} answered nothing within {timeout:.1f} s") from None
        except OSError as exc:
            raise ForeignEngineError(f"{ENGINE} is gone: {exc}") from None
        if not line:
            raise ForeignEngineError(f"{ENGINE} closed the connection (the engine server ended)")
        reply: dict[str, object] = json.loads(line)
        return reply

    def close(self) -> None:
        try:
            self.stream.close()
            self.sock.close()
        except OSError:
            pass


def _try_connect(path: Path) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def connect(python: str, checkout: str, weights: str, idle: float, timeout: float) -> _Connection:
    """A connection to the engine server, started (detached, so it outlives this adapter) unless one
    is up or starting (it holds the lock file); raises ForeignEngineError with the server's last log
    line if it fails to start."""
    path = socket_path(python, checkout, weights)
    log_path, lock_path = path.with_suffix(".log"), path.with_suffix(".lock")
    deadline = time.monotonic() + timeout
    proc: subprocess.Popen[bytes] | None = None
    while (sock := _try_connect(path)) is None:
        if proc is not None and proc.poll() not in (None, ANOTHER_SERVER):
            lines = log_path.read_text(errors="replace").strip().splitlines() or ["(no output)"]
            raise ForeignEngineError(f"{ENGINE} did not start (exit status {proc.returncode}): {lines[-1]}")
        if (proc is None or proc.poll() is not None) and not _server_alive(lock_path):
            path.unlink(missing_ok=True)  # a server that died leaves its socket file behind
            with open(log_path, "ab") as log:
                try:
                    proc = subprocess.Popen(
                        [python, str(DRIVER), str(path), checkout, weights, str(idle)],
                        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                    )  # fmt: skip
                except OSError as exc:
                    raise ForeignEngineError(f"cannot start {python}: {exc.strerror or exc}") from None
        if time.monotonic() > deadline:
            raise ForeignEngineError(f"{ENGINE} did not start within {timeout:.0f} s (its log: {log_path})")
        time.sleep(0.1)
    return _Connection(sock)


def _server_alive(lock_path: Path) -> bool:
    """Whether a server holds the lock (it is starting or up)."""
    with open(lock_path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
        return False


class _Adapter:
    def __init__(self, python: str, checkout: str, weights: str, sims: int, idle: float) -> None:
        self.sims = sims
        self.rng = random.Random()
        self.args = (python, checkout, weights, idle)
        self.conn: _Connection | None = None
        self.nb_gods = 0
        self.ids: dict[str, int] = {}
        self.seconds_per_sim = FIRST_SECONDS_PER_SIM
        self.ready = threading.Event()
        self.failure: ForeignEngineError | None = None
        threading.Thread(target=self._start, daemon=True).start()  # while the referee shakes hands

    def _start(self) -> None:
        try:
            python, checkout, weights, idle = self.args
            self.conn = connect(python, checkout, weights, idle, START_TIMEOUT_S)
            hello = self.conn.request(None, START_TIMEOUT_S)
            self.nb_gods = int(str(hello["nb_gods"]))
            reported = hello.get("gods")
            self.ids = {str(k): int(v) for k, v in reported.items()} if isinstance(reported, dict) else dict(DEFAULT_IDS)
            missing = [name for name in GODS.values() if name not in self.ids]
            if missing:
                raise ForeignEngineError(f"{ENGINE} has no {', '.join(missing)} (its SantoriniConstants)")
        except ForeignEngineError as exc:
            self.failure = exc
        self.ready.set()

    def sims_for(self, limits: Limits, player: int) -> int:
        """``--sims``, or ``nodes`` if the ``go`` says so, or fewer to fit the clock's budget."""
        sims = min(self.sims, limits.nodes) if limits.nodes else self.sims
        if limits.budget_for(player) is not None:
            think = budget_seconds(limits, player, RESERVE_S)
            sims = min(sims, int(think / self.seconds_per_sim))
        return max(1, sims)

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        if position.is_placement:
            return random_placement(position, self.rng)
        self.ready.wait()
        if self.failure is not None:
            raise self.failure
        assert self.conn is not None
        sims = self.sims_for(limits, position.player)
        request = {"state": az_state(position, self.nb_gods, self.ids), "sims": sims}
        reply = self.conn.request(request, sims * self.seconds_per_sim + GRACE_S)
        if "over" in reply:  # e.g. a worker forced onto level 3: a win in its rules, not in ours
            info(f"string {ENGINE}'s game model calls this position finished ({reply['over']}): resigning")
            return "resign"
        if "decoded" not in reply:
            raise ForeignEngineError(f"{ENGINE} answered {reply}")
        done, seconds = int(str(reply["sims"])), float(str(reply["seconds"]))
        if done >= 8:  # a short search measures mostly its fixed cost
            self.seconds_per_sim = 0.7 * self.seconds_per_sim + 0.3 * seconds / done
        info(f"nodes {done} string action {reply['action']}")
        decoded = reply["decoded"]
        assert isinstance(decoded, list)
        worker, power, move, build = (int(v) for v in decoded)
        turn = az_turn(position, (worker, power, move, build), self.ids)
        return judge(position, turn, f"action {reply['action']}", info, ENGINE)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


@click.command(name="alphazero")
@click.option("--checkout", required=True, type=click.Path(exists=True, file_okay=False), help="alpha-zero-general's checkout.")
@click.option("--python", default=sys.executable, show_default="this interpreter", help="Python of the engine's environment.")
@click.option("--weights", default=None, help="Checkpoint (default: CHECKOUT/santorini/pretrained_withgods.pt).")
@click.option("--sims", default=200, show_default=True, type=click.IntRange(1), help="MCTS simulations per turn at most.")
@click.option(
    "--idle",
    default=600.0,
    show_default=True,
    type=click.FloatRange(1),
    help="Seconds the engine server stays up with no adapter connected.",
)
@click.option(
    "--warm",
    is_flag=True,
    help="Start the engine server (or find it up), wait until it is ready, print where, and exit.",
)
def command(checkout: str, python: str, weights: str | None, sims: int, idle: float, warm: bool) -> None:
    """cestpasphoto/alpha-zero-general's Santorini engine as an SEI engine: base game, random placement.

    The engine takes about a minute of CPU to start, longer than the referee waits for an engine
    to be ready: run this once with --warm before a tournament (the same arguments), and every
    adapter the referee starts finds the engine up.
    """
    weights = weights or str(Path(checkout) / "santorini" / "pretrained_withgods.pt")
    if not Path(weights).is_file():
        raise click.ClickException(f"no weights file {weights}")
    if warm:
        try:
            connect(python, checkout, weights, idle, START_TIMEOUT_S).close()
        except ForeignEngineError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"{ENGINE} engine ready on {socket_path(python, checkout, weights)} (exits after {idle:g} s unused)")
        return
    adapter = _Adapter(python, checkout, weights, sims, idle)
    seed = Option("Seed", "spin", default=0, min=0, max=2**31 - 1)
    seed.on_change = lambda value: adapter.rng.seed(value or None)
    try:
        run_bot(
            adapter.choose,
            name=f"{ENGINE} ({PLACEMENT})",
            author="cestpasphoto, through santorini-server's adapter",
            options=[seed],
            gods=tuple(GODS),
            verbatim=True,
            # the referee waits for readyok after newgame (30 s), not for a search: the engine's
            # start (torch, numba, the warm-up) is waited for there, off the clock
            on_newgame=lambda gods: adapter.ready.wait(START_TIMEOUT_S),
        )
    finally:
        adapter.close()
