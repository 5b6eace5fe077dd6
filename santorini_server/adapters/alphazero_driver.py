"""The AlphaZero engine's side of its adapter: run by the user's Python, inside their checkout.

``PYTHON alphazero_driver.py CHECKOUT WEIGHTS`` imports cestpasphoto/alpha-zero-general the way
its ``pit.py`` does (``GameSwitcher.import_game("santorini")``, the net's ``load_checkpoint``, an
``MCTS`` with the checkpoint's settings) and then answers one JSON object per line on stdin:

* ``{"state": [[[workers, level, gods] x 5] x 5], "sims": N}`` -> ``{"action": A, "decoded":
  [worker, power, move_direction, build_direction], "sims": N, "seconds": S}`` (the decoding is
  the engine's own ``_decode_action``);
* the first line out is ``{"ready": true, "nb_gods": G, "action_size": K}`` after a warm-up
  search (numba compiles and the net is exported on first use: that cost stays off the clock),
  or ``{"error": "..."}``.

Only the standard library here: this file runs in the engine's environment (numpy, torch,
numba...), never in ours, and must not import santorini_server.  The engine's own prints go to
stderr; the protocol has stdout to itself.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from typing import Any

#: Simulations of the warm-up search at start-up.
WARMUP_SIMS = 4


def _open_protocol() -> Any:
    """Keep stdout for the protocol and send everything else printed (the engine's own prints) to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return proto


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


def main(argv: list[str]) -> int:
    """Serve the engine until end of input; returns the exit status."""
    proto = _open_protocol()
    if len(argv) != 2:
        proto.write(json.dumps({"error": "usage: alphazero_driver.py CHECKOUT WEIGHTS"}) + "\n")
        return 2
    try:
        np, game, mcts, constants = _load(argv[0], argv[1])
        mcts.getActionProb(game.getInitBoard(), temp=0, force_full_search=True)
    except Exception as exc:
        proto.write(json.dumps({"error": f"{type(exc).__name__}: {exc}"}) + "\n")
        return 1
    proto.write(json.dumps({"ready": True, "nb_gods": int(constants.NB_GODS), "action_size": game.getActionSize()}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        board = np.array(request["state"], dtype=np.int8)
        mcts.args["numMCTSSims"] = max(1, int(request["sims"]))
        started = time.perf_counter()
        probs = mcts.getActionProb(board, temp=0, force_full_search=True)[0]
        action = int(np.argmax(probs))
        seconds = time.perf_counter() - started
        decoded = [int(x) for x in constants._decode_action(action)]
        reply = {"action": action, "decoded": decoded, "sims": mcts.args["numMCTSSims"], "seconds": seconds}
        proto.write(json.dumps(reply) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
