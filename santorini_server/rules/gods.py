"""God names and rulesets (SPEC.md section 1.1)."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = [
    "God", "GODS", "SIMPLE_GODS", "EXTRA_SIMPLE_GODS", "MORTAL", "SEAT_COUNTS", "ruleset_of", "check_matchup", "check_gods",
]

God: TypeAlias = str

MORTAL: God = "mortal"
#: The eight gods of santorini-simple-gods-v1's default pool.
SIMPLE_GODS: tuple[God, ...] = (
    "apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "minotaur", "pan",
)
#: Supported, but only when named explicitly (SPEC.md section 1.1: "used only when named").
EXTRA_SIMPLE_GODS: tuple[God, ...] = ("hermes", "prometheus")
#: Every name a position may carry, in SPS spelling.
GODS: tuple[God, ...] = (MORTAL, *sorted(SIMPLE_GODS + EXTRA_SIMPLE_GODS))

Ruleset: TypeAlias = Literal["santorini-base-v1", "santorini-simple-gods-v1"]


def check_matchup(god1: str, god2: str) -> None:
    """Raise ValueError unless ``god1``/``god2`` may face each other.

    A god may face a mortal (handicap games); two players may not share one god.
    """
    for god in (god1, god2):
        if god not in GODS:
            raise ValueError(f"unknown god {god!r} (expected one of {', '.join(GODS)})")
    if god1 == god2 and god1 != MORTAL:
        raise ValueError(f"both players have {god1}: two players may not share one god")


#: How many seats a game may have: one god each (SPEC.md section 15).
SEAT_COUNTS: tuple[int, ...] = (2, 3, 4)


def check_gods(gods: tuple[str, ...]) -> None:
    """Raise ValueError unless ``gods`` (one per seat, in turn order) may play one game.

    Two seats: :func:`check_matchup`.  Three and four seats play with god powers only, each seat
    its own (SPEC.md section 15.1): no ``mortal``, no god twice.
    """
    n = len(gods)
    if n == 2:
        check_matchup(gods[0], gods[1])
        return
    if n not in SEAT_COUNTS:
        raise ValueError(f"a game has 2, 3 or 4 seats (one god each), got {n} gods")
    for god in gods:
        if god not in GODS:
            raise ValueError(f"unknown god {god!r} (expected one of {', '.join(GODS)})")
    if MORTAL in gods:
        raise ValueError(f"a {n}-seat game is played with god powers: every seat needs a god, not mortal")
    repeated = sorted({g for g in gods if gods.count(g) > 1})
    if repeated:
        raise ValueError(f"two seats have {repeated[0]}: each seat has its own god")


def ruleset_of(*gods: str) -> Ruleset:
    """The ruleset a game is played under: base without gods (two mortals), simple gods otherwise."""
    return "santorini-base-v1" if all(g == MORTAL for g in gods) else "santorini-simple-gods-v1"
