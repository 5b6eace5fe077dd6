"""Pins the reference oracle (tests/oracle/reference.py) to the rules of SPEC.md.

Why: the oracle is what the bitboard rules engine is checked against, so it must itself reproduce
every worked case of SPEC.md section 1.6, the base perft rows of SPEC.md section 3.4, the STN examples,
and the committed perft suites in protocol/perft/.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.oracle.reference import format_sps, parse_sps, reference_legal, reference_perft

ROOT = Path(__file__).resolve().parents[1]
PERFT_DIR = ROOT / "protocol" / "perft"

START = "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"
CROSS = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
MID1 = "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22"
MID2 = "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;2;22"


def wins(legal: dict[str, str | None]) -> list[str]:
    return sorted(stn for stn, succ in legal.items() if succ is None)


# --- SPEC.md section 1.6 worked cases -----------------------------------------------------------------

def test_case1_climb_limit() -> None:
    legal = reference_legal("mortal/mortal;00000/00000/00000/02000/01000;a1,e5/c5,e1;1;2")
    assert len(legal) == 26
    assert "a1-b1+a1" in legal
    assert not any(stn.startswith("a1-b2") for stn in legal)  # 0 -> 2 is two levels up


def test_case2_win_has_no_build() -> None:
    legal = reference_legal("mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;2")
    assert len(legal) == 24
    assert wins(legal) == ["b2-c3"]
    assert not any(stn.startswith("b2-c3+") for stn in legal)


def test_case3_no_complete_turn_loses() -> None:
    sps = "mortal/mortal;00000/00000/00000/44400/00400;a1,b1/e4,e5;1;2"
    assert reference_legal(sps) == {}
    assert reference_perft(sps, 3) == 0


def test_case4_apollo_swap_builds() -> None:
    legal = reference_legal("apollo/mortal;00000/00000/00000/00000/00000;c3,e5/a1,c4;1;2")
    assert len(legal) == 72
    builds = sorted(stn[len("c3xc4+"):] for stn in legal if stn.startswith("c3xc4"))
    assert builds == ["b3", "b4", "b5", "c5", "d3", "d4", "d5"]
    assert legal["c3xc4+b3"] == "apollo/mortal;00000/00000/01000/00000/00000;c4,e5/a1,c3;2;2"


def test_case5_minotaur_push_onto_level3_is_not_a_win() -> None:
    legal = reference_legal("minotaur/mortal;00000/00300/00000/00000/00000;c2,e5/a5,c3;1;2")
    assert wins(legal) == []
    assert legal["c2xc3+c2"] == "minotaur/mortal;00000/00300/00000/00100/00000;c3,e5/a5,c4;2;2"


def test_case6_athena_up_blocks_climbing() -> None:
    legal = reference_legal("mortal/athena[up];00000/00000/00000/00000/01000;a1,e5/c5,e1;1;2")
    assert len(legal) == 29
    assert "a1-a2+a1" in legal
    assert not any(stn.startswith("a1-b1") for stn in legal)
    # The state lasts one turn: the successor (Athena to move) drops it.
    assert legal["a1-a2+a1"] == "mortal/athena;00000/00000/00000/00000/11000;a2,e5/c5,e1;2;2"


def test_case7_artemis_paths() -> None:
    legal = reference_legal("artemis/mortal;00000/00000/00000/00000/01200;a1,e5/a5,e3;1;2")
    assert len(legal) == 205
    # 0->1->2 is two normal steps; the build may use the intermediate or the start square.
    assert "a1-b1-c1+b1" in legal and "a1-b1-b2+a1" in legal
    assert not any(stn.startswith("a1-b1-a1") for stn in legal)


# --- SPEC.md section 3.4 base perft ----------------------------------------------------------

@pytest.mark.parametrize(
    ("sps", "depth", "count"),
    [
        (START, 1, 300), (START, 2, 75_900),
        (CROSS, 1, 68), (CROSS, 2, 5_156), (CROSS, 3, 350_208),
        (MID1, 1, 50), (MID1, 2, 2_220), (MID1, 3, 78_262),
        (MID2, 1, 49), (MID2, 2, 2_193), (MID2, 3, 80_189),
    ],
)
def test_base_perft(sps: str, depth: int, count: int) -> None:
    assert reference_perft(sps, depth) == count


# --- SPEC.md examples -------------------------------------------------------------------------

GAME = [
    "b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5", "b4-b5+a5", "c5-d5+e5", "b5-c4+c5", "d5-e5+e4", "c4-b5+c4",
    "c2-b2+b3", "d3-c4+d5", "b2-b3+a2", "b5-c5+b5", "b3-c2+b2", "c4-b5+a4", "c2-b2+a1", "b5-c4+b5", "b2-c2+c3",
]


def test_sgn_game_replays_to_a_climb() -> None:
    sps: str | None = START
    for stn in GAME:
        assert sps is not None
        sps = reference_legal(sps)[stn]
    assert sps == "mortal/mortal;13211/10101/01100/11000/10000;c4,c5/c2,e5;1;10"
    legal = reference_legal(sps)
    assert len(legal) == 54
    assert wins(legal) == ["c5-b5"]


def test_turn_counter_through_placement() -> None:
    after_p1 = reference_legal(START)["b3,d3"]
    assert after_p1 == "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1"
    assert reference_legal(after_p1)["c2,c4"] == CROSS
    assert "c4,c2" not in reference_legal(after_p1)  # canonical order only


def test_example_c_prometheus_athena() -> None:
    sps = "prometheus/athena;00010/00000/00000/01000/00000;b2,d4/c4,e1;1;3"
    after = reference_legal(sps)["+a1b2-b1+c1"]
    assert after == "prometheus/athena;00010/00000/00000/01000/10100;b1,d4/c4,e1;2;3"
    after = reference_legal(after)["c4-d5+c5"]
    assert after == "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4"
    legal = reference_legal(after)
    assert "d4-c5+b5" not in legal and "d4-c4+b5" in legal


# --- one legal and one illegal turn per god (SPEC.md section 1.7) ------------------

RULINGS = [
    # (SPS, a legal turn, a turn not in the canonical legal set: illegal, or a non-canonical
    # spelling the referee would normalise first)
    ("apollo/mortal;00040/00044/00000/44000/00400;a1,e5/b1,c4;1;2", "a1xb1+c2", "a1xb1+a1"),
    ("apollo/mortal;00040/00044/00000/44400/00400;a1,e5/b1,c4;1;2", None, "a1xb1"),
    ("apollo/mortal;00000/00000/00320/02100/00000;b2,e5/a5,c3;1;2", "b2xc3", "b2xc3+b2"),
    ("apollo/athena[up];00000/00000/00320/02100/00000;b2,e5/a5,c3;1;2", "b2-c2+b2", "b2xc3"),
    ("artemis/mortal;00040/00044/00000/44440/32340;a1,e5/a5,c4;1;2", "a1-b1-c1", "a1-b1-a1+b1"),
    ("artemis/athena[up];00040/00044/00000/44440/32340;a1,e5/a5,c4;1;2", "a1-b1+c1", "a1-b1-c1"),
    ("mortal/athena[up];00040/00044/00000/04000/01000;a1,e5/c5,e1;1;2", "a1-a2+b1", "a1-b1+a1"),
    ("atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2", "a1-b1+c1D", "a1-b1+a2D"),
    ("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2", "a1-b1+a1+c2", "a1-b1+c2+a1"),
    ("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2", "a1-b1+c1", "a1-b1+c1+c1"),
    ("hephaestus/mortal;00040/00044/00000/34200/00100;a1,e5/a5,c4;1;2", "a1-b1+c1+c1",
     "a1-b1+c2+c2"),
    ("hermes/mortal;00000/00000/00000/44440/00040;a1,b1/a5,c4;1;2", "a1-c1+a1", "b1-c1,a1-b1+a1"),
    ("hermes/mortal;00000/00000/00000/44400/00200;a1,b1/a5,c4;1;2", "+c1", "b1-c1+b1"),
    ("hermes/mortal;00222/00012/00000/00000/01000;a1,d5/a5,c3;1;2", "a1-a2,d5-e4+e3",
     "a1-b1,d5-e4+e3"),
    ("minotaur/mortal;40040/00444/04040/04000/00003;c3,e5/b4,d2;1;2", "c3xd2+c3", "c3xb4+c3"),
    ("minotaur/mortal;40040/00444/04040/04000/00003;c3,e5/b4,d2;1;2", "c3xd2+e2", "c3xd2+e1"),
    ("minotaur/mortal;00444/00404/44044/40400/04400;b2,d4/a1,c3;1;2", None, "b2xa1+b2"),
    ("pan/athena[up];00002/00041/00044/10400/32400;a1,e5/a5,c4;1;2", "a1-b2", "a1-b1"),
    ("pan/mortal;00002/00041/00044/10400/32400;a1,e5/a5,c4;1;2", "e5-e4+e5", "e5-e4"),
    ("prometheus/mortal;00040/00044/44000/04400/01400;a1,e5/a5,c4;1;2", "+b1a1-a2+b1",
     "+a2a1-a2+a1"),
    ("prometheus/mortal;00040/00044/44000/04400/03400;a1,e5/a5,c4;1;2", "+b1a1-a2+a1",
     "+b1a1-a2+b1"),
]


@pytest.mark.parametrize(("sps", "legal", "illegal"), RULINGS)
def test_god_rulings(sps: str, legal: str | None, illegal: str) -> None:
    turns = reference_legal(sps)
    if legal is None:
        assert turns == {}
    else:
        assert legal in turns
    assert illegal not in turns


def test_winning_turns_marked() -> None:
    assert reference_legal(RULINGS[2][0])["b2xc3"] is None  # Apollo climbs by swapping
    assert reference_legal(RULINGS[4][0])["a1-b1-c1"] is None  # Artemis 3->2->3
    pan = reference_legal(RULINGS[18][0])
    assert wins(pan) == ["a1-a2", "a1-b2", "e5-d5"]  # 3->1, 3->0, 2->0; not 3->2 or 2->1


def test_forced_drop_is_no_pan_win() -> None:
    legal = reference_legal("minotaur/pan;00000/02300/00300/00000/00000;c3,e1/a1,c4;1;2")
    after = legal["c3xc4+b3"]
    assert after == "minotaur/pan;00000/02300/01300/00000/00000;c4,e1/a1,c5;2;2"


def test_forced_up_sets_no_athena_state() -> None:
    legal = reference_legal("apollo/athena;02010/01000/00100/00000/00000;c3,e1/a5,c4;1;2")
    after = legal["c3xc4+d4"]  # Athena forced from c4 (0) up to c3 (1)
    assert after == "apollo/athena;02010/01010/00100/00000/00000;c4,e1/a5,c3;2;2"
    athena_turns = reference_legal(after)
    # Only Athena's own climb sets the state: c3-b4 is level (1->1), a5-b4 is up (0->1).
    assert athena_turns["c3-b4+c3"] == "apollo/athena;02010/01010/00200/00000/00000;c4,e1/a5,b4;1;3"
    assert athena_turns["a5-b4+a5"] == "apollo/athena[up];12010/01010/00100/00000/00000;c4,e1/b4,c3;1;3"


# --- SPS handling -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    "bad",
    [
        "mortal/athena[up];00000/00000/00000/00000/00000;a1,e5/c5,e1;2;2",  # Athena to move
        "athena[down]/mortal;00000/00000/00000/00000/00000;a1,e5/c5,e1;2;2",
        "mortal/mortal;00000/00000/00000/00000/00000;e5,a1/c5,e1;1;2",  # unsorted
        "mortal/mortal;40000/00000/00000/00000/00000;a5,e5/c5,e1;1;2",  # worker on dome
        "mortal/mortal;00000/00000/00000/00000/00000;a1,e5/a1,e1;1;2",  # shared square
        "zeus/mortal;00000/00000/00000/00000/00000;a1,e5/c5,e1;1;2",
        "pan/pan;00000/00000/00000/00000/00000;a1,e5/c5,e1;1;2",  # shared god
        "mortal/mortal;00000/00000/00000/00000/00000;-/c5,e1;1;1",  # P2 placed first
        "mortal/mortal;00000/00000/00000/00000/00000;a1,e5/-;1;1",  # P2 must place next
        "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;2",  # placement is turn 1
        "mortal/mortal;00000/00000/00000/00000/00000;a1,e5/c5,e1;1;2\n",
    ],
)
def test_bad_sps_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_sps(bad)


# --- self-consistency on random games ---------------------------------------------------------

_SQ = r"[a-e][1-5]"
PLACE_RE = re.compile(rf"{_SQ},{_SQ}")
STAY_RE = re.compile(rf"\+{_SQ}")
TURN_RE = re.compile(
    rf"(?:\+{_SQ})?{_SQ}[-x]{_SQ}(?:-{_SQ})?(?:,{_SQ}-{_SQ})?(?:\+{_SQ}D?(?:\+{_SQ}D?)?)?"
)
GODS = ["apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "hermes", "minotaur",
        "pan", "prometheus"]


@pytest.mark.parametrize("god", GODS)
def test_random_games_stay_canonical(god: str) -> None:
    rng = random.Random(god)
    opponent = "mortal" if god == "athena" else "athena"
    for gods in (f"{god}/mortal", f"{opponent}/{god}"):
        sps: str | None = f"{gods};00000/00000/00000/00000/00000;-/-;1;1"
        plies = 0
        while sps is not None:
            pos = parse_sps(sps)
            assert format_sps(pos) == sps
            legal = reference_legal(sps)
            if not legal:
                break
            for stn, succ in legal.items():
                assert PLACE_RE.fullmatch(stn) or STAY_RE.fullmatch(stn) or TURN_RE.fullmatch(stn)
                if succ is not None:
                    nxt = parse_sps(succ)
                    assert nxt.tomove != pos.tomove
                    assert nxt.turn == pos.turn + (pos.tomove == 2)
            sps = legal[rng.choice(sorted(legal))]
            plies += 1
        assert plies <= 2 + 100


# --- committed perft suites -------------------------------------------------------------------

#: Suite rows up to this count are re-run here (bigger ones are left to the suite generator).
SUITE_ROW_LIMIT = 50_000


def _suite_rows() -> list[tuple[str, str, int, int]]:
    rows = []
    for path in sorted(PERFT_DIR.glob("*.tsv")):
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            sps, depth, count = line.split("\t")
            if int(count) <= SUITE_ROW_LIMIT:
                rows.append((path.name, sps, int(depth), int(count)))
    return rows


def test_every_god_has_a_suite() -> None:
    names = {p.stem for p in PERFT_DIR.glob("*.tsv")}
    assert names >= {"base", *GODS}


@pytest.mark.parametrize(("suite", "sps", "depth", "count"), _suite_rows())
def test_suite_row(suite: str, sps: str, depth: int, count: int) -> None:
    assert reference_perft(sps, depth) == count
