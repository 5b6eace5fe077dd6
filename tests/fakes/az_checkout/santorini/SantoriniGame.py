"""As the engine's SantoriniGame over its 5x5x3 int8 board: valid actions without god powers (an
opponent's Athena that moved up stops a climb, as in the engine)."""

import numpy as np

from .SantoriniConstants import ATHENA, NB_GODS, NO_BUILD, NO_GOD, NO_MOVE, _encode_action

NUMBER_PLAYERS = 2


def _apply_direction(position, direction):
    return (position[0] + direction // 3 - 1, position[1] + direction % 3 - 1)


def _inside(position):
    return 0 <= position[0] < 5 and 0 <= position[1] < 5


class SantoriniGame:
    def __init__(self):
        self.num_players = NUMBER_PLAYERS

    def getInitBoard(self):
        board = np.zeros((5, 5, 3), dtype=np.int8)
        for place, worker in zip((6, 8, 16, 18), (1, -1, 2, -2), strict=True):
            board[place // 5, place % 5, 0] = worker
        board[0, 0, 2] = 64
        board[(NB_GODS) // 5, (NB_GODS) % 5, 2] = 64
        return board

    def getActionSize(self):
        return NB_GODS * 2 * 9 * 9

    def getValidMoves(self, board, player):
        workers, levels = board[:, :, 0], board[:, :, 1]
        opponent = (player + 1) % 2
        climb = 0 if board[:, :, 2].flat[ATHENA + NB_GODS * opponent] > 64 else 1  # the opponent's Athena moved up
        valid = np.zeros(self.getActionSize(), dtype=np.bool_)
        for worker in range(2):
            worker_id = (worker + 1) * (1 if player == 0 else -1)
            found = np.argwhere(workers == worker_id)
            old = (int(found[0][0]), int(found[0][1]))
            for move in range(9):
                new = _apply_direction(old, move)
                if move == NO_MOVE or not _inside(new) or workers[new] != 0:
                    continue
                if levels[new] > 3 or levels[new] > levels[old] + climb:
                    continue
                for build in range(9):
                    spot = _apply_direction(new, build)
                    if build == NO_BUILD or not _inside(spot) or workers[spot] not in (0, worker_id):
                        continue
                    if levels[spot] < 4:
                        valid[_encode_action(worker, NO_GOD, move, build)] = True
        return valid

    def getGameEnded(self, board, next_player):
        """As the engine: a side with a worker on level 3 has won (however it got there), and a side
        to move with no valid action has lost."""
        workers, levels = board[:, :, 0], board[:, :, 1]
        if ((workers > 0) & (levels == 3)).any():
            return np.array([1, -1], dtype=np.float32)
        if ((workers < 0) & (levels == 3)).any():
            return np.array([-1, 1], dtype=np.float32)
        if not self.getValidMoves(board, next_player).any():
            return np.array([-1, 1] if next_player == 0 else [1, -1], dtype=np.float32)
        return np.array([0, 0], dtype=np.float32)

    def stringRepresentation(self, board):
        return board.tobytes()
