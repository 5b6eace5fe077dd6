"""Games for the viewer's tests, made with the rules core, and the page's data read back.

Two-seat games are random legal turns from ``Position.start`` (seeded), chosen so that the god's
power is used at least once; three- and four-seat games come from ``test_records_nseat``'s
generator (eliminations included).  Each game keeps the positions the rules core produced, the
reference the page is compared with.
"""

from __future__ import annotations

import random
import re
from typing import Any

from santorini_server.records import GameRecord, TurnRecord, placings_result
from santorini_server.rules import GODS, Position, Transition, parse_stn, ruleset_of
from santorini_server.viewer.packed import decode_blob, unpack_games

from .test_records_nseat import Game, find_game, play_game

__all__ = ["GOD_GAMES", "Game", "god_game", "nseat_games", "page_data", "power_used", "expected_position"]

#: Every god, then the mortal: each plays a whole game against a mortal (the mortal against one).
GOD_GAMES: tuple[str, ...] = (*sorted(g for g in GODS if g != "mortal"), "mortal")


def power_used(god: str, transition: Transition) -> bool:
    """Whether a turn of ``god`` shows its power, so that the game's pictures include it (Pan's
    drop and the mortal have nothing to show but their moves)."""
    t = parse_stn(transition.stn)
    if t.place:
        return False
    builds = [square for square, _ in t.builds]
    shown = {
        "apollo": t.op == "x", "minotaur": t.op == "x", "artemis": t.to2 is not None, "hermes": t.frm_b is not None,
        "demeter": len(set(builds)) == 2, "hephaestus": len(builds) == 2 and len(set(builds)) == 1,
        "atlas": any(dome for _, dome in t.builds), "prometheus": t.pre is not None,
        "athena": transition.position.athena_up,
    }
    return shown.get(god, True)


def god_game(god: str, seed: int = 0) -> Game:
    """A whole random two-seat game of ``god`` (seat 1) against a mortal, with telemetry, in which
    the power is used (the first seed from ``seed`` on that gives one)."""
    gods = (god, "mortal") if god != "mortal" else ("mortal", "mortal")
    for s in range(seed, seed + 200):
        rng = random.Random(s)
        pos = Position.start(gods)
        positions, turns, used = [pos], [], False
        while True:
            transitions = pos.transitions()
            if not transitions:
                winner, term = 3 - pos.player, "no-moves"
                break
            t = rng.choice(transitions)
            used |= pos.to_move == 0 and power_used(god, t)
            turns.append(TurnRecord(t.stn, rng.randrange(0, 900), score=f"{rng.randrange(-50, 50):+d}".replace("+0", "0"),
                                    depth=rng.randrange(1, 12), nodes=rng.randrange(1, 10**6)))
            mover = pos.player
            pos = t.position
            positions.append(pos)
            if t.win:
                winner, term = mover, t.termination or ""
                break
        if used and len(turns) >= 8:
            record = GameRecord.build(
                event="viewer test", site="here", date="2026.12.02", round=str(s), player1=f"{god} bot", player2="mortal bot",
                gods="/".join(gods), ruleset=ruleset_of(*gods), start="startpos", time_control="10+0.1",
                result=placings_result((1, 2) if winner == 1 else (2, 1)), termination=term, termination_detail="",
                turns=turns,
            )
            return Game(record, positions)
    raise AssertionError(f"no seeded {god} game uses the power")


def nseat_games() -> dict[str, Game]:
    """A three-seat game with a no-moves elimination, one with a fault elimination, a four-seat game."""
    return {
        "3p-no-moves": find_game(("apollo", "minotaur", "pan"), "no-moves"),
        "3p-time": find_game(("athena", "atlas", "demeter"), "time", fault_at=10),
        "4p": play_game(("hermes", "artemis", "prometheus", "hephaestus"), 1),
    }


_DATA_RE = re.compile(r'<script type="text/plain" id="viewer-data">(.*?)</script>', re.S)


def page_data(html: str) -> dict[str, Any]:
    """What the page carries, decoded as the browser decodes it: ``games`` (its one packed data
    block, unpacked) and ``geometry``."""
    (block,) = _DATA_RE.findall(html)
    data = decode_blob(block)
    return {"games": unpack_games(data), "geometry": data["geometry"]}


def expected_position(pos: Position) -> tuple[list[int], list[bool], dict[int, int]]:
    """``(levels, domes, worker group by square)`` of a rules-core position: what must be drawn
    (a domed square's level is the rules core's 4)."""
    levels = [pos.level(sq) for sq in range(25)]
    domes = [level == 4 for level in levels]
    groups = {sq: g for g, mask in enumerate(pos.workers) for sq in range(25) if mask >> sq & 1}
    return levels, domes, groups
