"""As the engine's MCTS: getActionProb(board, temp, force_full_search) -> (probs, q, is_full_search)."""

import fcntl
import json
import os

import numpy as np
from santorini.SantoriniConstants import _decode_action, _encode_action


def _behaviour():
    path = os.environ.get("FAKE_AZ_SCRIPT")
    if not path or not os.path.exists(path):
        return "first"
    with open(path, "r+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = f.read().splitlines()
        f.seek(0)
        f.truncate()
        f.write("".join(line + "\n" for line in lines[1:]))
    return lines[0].strip() if lines else "first"


class MCTS:
    def __init__(self, game, nnet, args, dirichlet_noise=False, batch_info=None):
        self.game, self.nnet, self.args = game, nnet, args

    def getActionProb(self, canonicalBoard, temp=1, force_full_search=False):
        assert canonicalBoard.dtype == np.int8 and canonicalBoard.shape == (5, 5, 3)
        log = os.environ.get("FAKE_AZ_LOG")
        if log:
            with open(log, "a") as f:
                f.write(json.dumps({"board": canonicalBoard.tolist(), "sims": self.args.numMCTSSims}) + "\n")
        behaviour = _behaviour()
        if behaviour == "crash":
            os._exit(3)
        valid = self.game.getValidMoves(canonicalBoard, 0)
        if behaviour == "invalid":
            action = int(np.argmin(valid))
        elif behaviour == "power":
            action = _encode_action(0, 1, 0, 0)
        else:
            action = int(np.argmax(valid))
            levels = canonicalBoard[:, :, 1]
            for a in np.flatnonzero(valid):
                worker, _power, move, _build = _decode_action(int(a))
                old = np.argwhere(canonicalBoard[:, :, 0] == worker + 1)[0]
                new = (old[0] + move // 3 - 1, old[1] + move % 3 - 1)
                if levels[new] == 3 and levels[tuple(old)] < 3:
                    action = int(a)
                    break
        probs = [0.0] * self.game.getActionSize()
        probs[action] = 1.0
        return probs, [0.0, 0.0], True
