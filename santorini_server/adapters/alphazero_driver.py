"""The AlphaZero engine's side of its adapter: a small server run by the user's Python, in their checkout.

``PYTHON alphazero_driver.py SOCKET CHECKOUT WEIGHTS [IDLE]`` imports cestpasphoto/alpha-zero-general
the way its ``pit.py`` does (``GameSwitcher.import_game("santorini")``, the net's
``load_checkpoint``, an ``MCTS`` with the checkpoint's settings), runs a warm-up search (numba
compiles the game and PyTorch exports the net on first use: about a minute of CPU), and only then
listens on the Unix socket ``SOCKET``, so a socket that accepts is an engine that is ready; it holds
a lock on ``SOCKET``'s ``.lock`` file from its start to its exit, so that an adapter can tell a
server still warming up from none (a second server exits at once, status 3).  It
outlives its adapter: the referee restarts an adapter after a fault, and a restarted adapter
finds the engine warm.  It exits after ``IDLE`` seconds (default 600) with no adapter connected.

Per connection, one JSON object per line: first ``{"ready": true, "nb_gods": G, "action_size":
K, "gods": {"NO_GOD": 0, "APOLLO": 1, ...}}`` from the server (the engine's own constants); then
``{"state": [[[workers, level, gods] x 5] x 5], "sims": N}`` -> ``{"action": A, "decoded":
[worker, power, move_direction, build_direction], "sims": N, "seconds": S}``, the decoding by
the engine's own ``_decode_action``; or ``{"over": [v0, v1]}`` when the engine's game model calls
the position finished (its ``getGameEnded``: its MCTS cannot search it), or ``{"error": "..."}``.
Searches of several connections take turns.  A start-up failure is one line on stderr and exit status 1.

Only the standard library here: this file runs in the engine's environment (numpy, torch,
numba...), never in ours, and must not import santorini_server.  The engine's own prints go to
stderr.
"""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import socket
import sys
import threading
import time
from typing import Any

#: Simulations of the warm-up search at start-up.
WARMUP_SIMS = 4
#: Seconds with no adapter connected after which the server exits.
DEFAULT_IDLE_S = 600.0
#: Exit status when another server for the same socket is starting or up (it holds the lock).
ANOTHER_SERVER = 3
#: The engine's god constants reported to the adapter (its numbering, read from its own module).
GOD_NAMES = (
    "NO_GOD", "APOLLO", "MINOTAUR", "ATLAS", "HEPHAESTUS", "ARTEMIS", "DEMETER", "HERMES", "PAN", "ATHENA", "PROMETHEUS",
)  # fmt: skip


def _load(checkout: str, weights: str) -> tuple[Any, Any, Any, Any]:
    sys.path.insert(0, checkout)
    os.chdir(checkout)
    np = importlib.import_module("numpy")
    import_game = importlib.import_module("GameSwitcher").import_game
    mcts_class = importlib.import_module("MCTS").MCTS
    dotdict = importlib.import_module("utils").dotdict
    constants = importlib.import_module("santorini.SantoriniConstants")
    game_class, nnet_class, _players, _n = import_game("santorini")
    game = game_class()
    net = nnet_class(game, dict(lr=None, dropout=0.0, epochs=None, batch_size=None, nn_version=-1))
    folder, filename = os.path.split(os.path.abspath(weights))
    keys = net.load_checkpoint(folder, filename)
    if keys is None:  # the engine prints why and plays on with an untrained net: never that
        raise RuntimeError(f"the engine could not load the weights {weights}")
    cpuct = keys.get("cpuct")
    cpuct = float(cpuct[0]) if isinstance(cpuct, list) else cpuct
    args = dotdict(
        {  # pit.py's settings for a checkpoint
            "numMCTSSims": WARMUP_SIMS,
            "fpu": keys.get("fpu", 0.0),
            "universes": keys.get("universes", 1),
            "cpuct": cpuct,
            "prob_fullMCTS": 1.0,
            "forced_playouts": keys.get("forced_playouts", False),
            "no_mem_optim": False,
        }
    )
    return np, game, mcts_class(game, net, args), constants


class _Server:
    def __init__(self, np: Any, game: Any, mcts: Any, constants: Any) -> None:
        self.np, self.game, self.mcts, self.constants = np, game, mcts, constants
        self.search_lock = threading.Lock()
        self.count_lock = threading.Lock()
        self.connected = 0
        self.last_seen = time.monotonic()

    def hello(self) -> dict[str, Any]:
        gods = {name: int(getattr(self.constants, name)) for name in GOD_NAMES if hasattr(self.constants, name)}
        return {
            "ready": True,
            "nb_gods": int(self.constants.NB_GODS),
            "gods": gods,
            "action_size": int(self.game.getActionSize()),
        }

    def search(self, request: dict[str, Any]) -> dict[str, Any]:
        np = self.np
        board = np.array(request["state"], dtype=np.int8)
        with self.search_lock:
            try:
                return self._search(np, board, request)
            except Exception as exc:  # the adapter reports it; the server stays up for the others
                return {"error": f"{type(exc).__name__}: {exc}"}

    def _search(self, np: Any, board: Any, request: dict[str, Any]) -> dict[str, Any]:
        ended = self.game.getGameEnded(board, 0)
        if np.any(ended):  # its MCTS cannot search a position its game model calls finished
            return {"over": [float(v) for v in ended]}
        self.mcts.args["numMCTSSims"] = max(1, int(request["sims"]))
        started = time.perf_counter()
        probs = self.mcts.getActionProb(board, temp=0, force_full_search=True)[0]
        seconds = time.perf_counter() - started
        sims = self.mcts.args["numMCTSSims"]
        action = int(np.argmax(probs))
        decoded = [int(x) for x in self.constants._decode_action(action)]
        return {"action": action, "decoded": decoded, "sims": sims, "seconds": seconds}

    def attach(self) -> None:
        """Count a connection in (before its thread starts: the idle clock must not see a gap)."""
        with self.count_lock:
            self.connected += 1

    def serve(self, conn: socket.socket) -> None:
        try:
            with conn, conn.makefile("rw", encoding="utf-8", newline="\n") as stream:
                stream.write(json.dumps(self.hello()) + "\n")
                stream.flush()
                for line in stream:
                    stream.write(json.dumps(self.search(json.loads(line))) + "\n")
                    stream.flush()
        except (OSError, ValueError, KeyError) as exc:
            print(f"alphazero driver: connection ended: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            with self.count_lock:
                self.connected -= 1
                self.last_seen = time.monotonic()

    def idle_for(self) -> float:
        with self.count_lock:
            return 0.0 if self.connected else time.monotonic() - self.last_seen


def main(argv: list[str]) -> int:
    """Load the engine, then serve adapters until idle; returns the exit status."""
    if len(argv) not in (3, 4):
        print("usage: alphazero_driver.py SOCKET CHECKOUT WEIGHTS [IDLE_SECONDS]", file=sys.stderr)
        return 2
    path, checkout, weights = argv[:3]
    idle = float(argv[3]) if len(argv) == 4 else DEFAULT_IDLE_S
    os.dup2(2, 1)  # the engine's own prints go to stderr (the log), like everything else here
    # held for the server's life (the descriptor stays open until exit): "a server is starting or up"
    lock = os.open(os.path.splitext(path)[0] + ".lock", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return ANOTHER_SERVER
    try:
        np, game, mcts, constants = _load(checkout, weights)
        mcts.getActionProb(game.getInitBoard(), temp=0, force_full_search=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
    except Exception as exc:
        print(f"alphazero driver: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        return 1
    server = _Server(np, game, mcts, constants)
    listener.listen(8)
    listener.settimeout(1.0)
    try:
        while server.idle_for() < idle:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(None)
            server.attach()
            threading.Thread(target=server.serve, args=(conn,), daemon=True).start()
    finally:
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
