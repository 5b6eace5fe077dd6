"""As the engine's net wrapper: load_checkpoint returns the checkpoint's keys, or prints and returns None."""

import json
import os


class NNetWrapper:
    def __init__(self, game, nn_args):
        self.game = game

    def load_checkpoint(self, folder="checkpoint", filename="checkpoint.pth.tar"):
        filepath = os.path.join(folder, filename)
        if not os.path.exists(filepath):
            print(f"No model in path {filepath}")
            return None
        try:
            with open(filepath) as f:
                return json.load(f)
        except ValueError:
            print(f"MODEL {filepath} CAN'T BE READ but file exists")
            return None
