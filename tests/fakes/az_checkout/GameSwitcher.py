"""As the engine's GameSwitcher.import_game."""

import importlib


def import_game(pkg_name):
    if pkg_name != "santorini":
        raise Exception(f"Game {pkg_name} is not known")
    game_module = importlib.import_module("santorini.SantoriniGame")
    nnet_module = importlib.import_module("santorini.NNet")
    players_module = importlib.import_module("santorini.SantoriniPlayers")
    return game_module.SantoriniGame, nnet_module.NNetWrapper, players_module, game_module.NUMBER_PLAYERS
