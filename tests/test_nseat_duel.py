"""tools/nseat_duel.py's schedule: ``with_god`` puts one god in every draw, at varying seats."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("nseat_duel", Path(__file__).parent.parent / "tools" / "nseat_duel.py")
assert _SPEC is not None and _SPEC.loader is not None
nseat_duel = importlib.util.module_from_spec(_SPEC)
sys.modules["nseat_duel"] = nseat_duel  # dataclasses look their module up
_SPEC.loader.exec_module(nseat_duel)


def test_with_god_is_drawn_in_every_game_at_every_seat() -> None:
    games = nseat_duel.schedule(4, ["alphabeta", "greedy"], 40, 5, None, "athena")
    assert len(games) == 80
    seats = set()
    for seats_of, gods, _seed in games:
        assert gods.count("athena") == 1 and len(set(gods)) == 4
        seats.add(gods.index("athena"))
        assert seats_of in (("alphabeta", "greedy") * 2, ("greedy", "alphabeta") * 2)
    assert seats == {0, 1, 2, 3}


def test_without_with_god_the_draw_is_unchanged() -> None:
    """The default schedule (and so every figure measured with it) stays the same."""
    games = nseat_duel.schedule(4, ["alphabeta", "greedy"], 30, 8, None)
    assert games == nseat_duel.schedule(4, ["alphabeta", "greedy"], 30, 8, None, None)
    assert any("athena" not in gods for _s, gods, _sd in games)
