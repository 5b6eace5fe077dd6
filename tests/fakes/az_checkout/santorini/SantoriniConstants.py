"""As the engine's SantoriniConstants: its action encoding."""

NO_MOVE = 4
NO_BUILD = 4
NO_GOD = 0
APOLLO = 1
MINOTAUR = 2
ATLAS = 3
HEPHAESTUS = 4
ARTEMIS = 5
DEMETER = 6
HERMES = 7
PAN = 8
ATHENA = 9
PROMETHEUS = 10
NB_GODS = 11


def _decode_action(action):
    worker, action_ = divmod(action, NB_GODS * 9 * 9)
    power, action_ = divmod(action_, 9 * 9)
    move_direction, build_direction = divmod(action_, 9)
    return worker, power, move_direction, build_direction


def _encode_action(worker, power, move_direction, build_direction):
    return NB_GODS * 9 * 9 * worker + 9 * 9 * power + 9 * move_direction + build_direction
