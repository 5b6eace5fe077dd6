"""God names and rulesets (SPEC.md section 1.1)."""

from __future__ import annotations

from typing import Literal, TypeAlias

__all__ = ["God", "GODS", "SIMPLE_GODS", "EXTRA_SIMPLE_GODS", "MORTAL", "ruleset_of", "check_matchup"]

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


def ruleset_of(god1: str, god2: str) -> Ruleset:
    """The ruleset a matchup is played under: base without gods, simple gods otherwise."""
    return "santorini-base-v1" if god1 == god2 == MORTAL else "santorini-simple-gods-v1"
