"""Write the perft suites protocol/perft/<god>.tsv, 3p.tsv and 4p.tsv from the reference oracle.

Why a script: the suites are data the rules engine is tested against, so they must be reproducible.
Every position is listed here with its comment; positions with a ``hand`` count were also counted by
hand at depth 1 (the reasoning is the comment), and the script refuses to write a suite if the oracle
disagrees with the hand count.  Run from the repository root:

    python tests/oracle/make_perft_suites.py [SUITE ...]

base.tsv is not generated: its rows are copied from the base-game table of SPEC.md section 3.4.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle.reference import parse_sps, reference_perft

OUT = Path(__file__).resolve().parents[2] / "protocol" / "perft"

#: Depth 3 is written only when the depth-2 count is at most this (keeps each file's runtime small).
D3_IF_D2_AT_MOST = 4000

BOX_E5 = "d4 d5 e4"  # domes that box in a worker on e5 (it can neither move nor build)


def sps(gods: str, p1: str, p2: str, h: str = "", d: str = "", tomove: int = 1,
        turn: int = 2) -> str:
    """Build an SPS from readable parts: h="b1=1 c1=2", d="a2 b2" (domes), p1="a1 e5"."""
    grid = {(f, r): "0" for f in "abcde" for r in range(1, 6)}
    for item in h.split():
        sq, value = item.split("=")
        grid[(sq[0], int(sq[1]))] = value
    for sq in d.split():
        grid[(sq[0], int(sq[1]))] = "4"
    board = "/".join("".join(grid[(f, r)] for f in "abcde") for r in range(5, 0, -1))
    sides = ",".join(sorted(p1.split())) + "/" + ",".join(sorted(p2.split()))
    text = f"{gods};{board};{sides};{tomove};{turn}"
    parse_sps(text)  # validate
    return text


def nsps(gods: str, groups: list[str], h: str = "", d: str = "", tomove: int = 1, turn: int = 2,
         board: str | None = None) -> str:
    """An SPS of 3 or 4 seats from readable parts: groups=["a1 e5", "x", "-"] (3p: one per seat; 4p:
    team A (seats 1 and 3) then team B (seats 2 and 4)); h and d as for ``sps``, or a whole board."""
    grid = {(f, r): "0" for f in "abcde" for r in range(1, 6)}
    for item in h.split():
        sq, value = item.split("=")
        grid[(sq[0], int(sq[1]))] = value
    for sq in d.split():
        grid[(sq[0], int(sq[1]))] = "4"
    if board is None:
        board = "/".join("".join(grid[(f, r)] for f in "abcde") for r in range(5, 0, -1))
    workers = "/".join(g if g in ("-", "x") else ",".join(sorted(g.split())) for g in groups)
    text = f"{gods};{board};{workers};{tomove};{turn}"
    parse_sps(text)  # validate
    return text


@dataclass
class Case:
    comment: str
    sps: str
    hand: int | None = None  # depth-1 count found by hand (the comment says how)
    max_depth: int = 3


#: The midgame board of SPEC.md section 3.4's perft table (heights 0-3 and domes).
MID = "01234/12321/00240/31012/40123"


def open_cases(god: str) -> list[Case]:
    """The god on open boards: the cross start and SPEC.md section 3.4's midgame board, both seats."""
    cases = [
        Case(f"{god} (P1) vs mortal, cross start after placement",
             f"{god}/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"),
        Case(f"{god} (P1) vs mortal, midgame board, {god} to move",
             f"{god}/mortal;{MID};b4,e2/b2,d4;1;22"),
        Case(f"mortal vs {god} (P2), midgame board, {god} to move",
             f"mortal/{god};{MID};b4,e2/b2,d4;2;22"),
    ]
    if god != "athena":
        cases += [
            Case(f"{god} vs athena[up]: Athena moved up last turn, so {god} may not move up",
                 f"{god}/athena[up];{MID};b4,e2/b2,d4;1;22"),
            Case(f"{god} vs athena (P2), Athena to move: her climb b2-c3 makes {god}'s next "
                 f"position carry athena[up] (her other climbs win)",
                 f"{god}/athena;{MID};b4,e2/b2,d4;2;22"),
        ]
    return cases


SUITES: dict[str, list[Case]] = {
    "apollo": [
        Case("swap with no build: e5 boxed; a1's only open neighbour is b1 (mortal); a1xb1 puts "
             "the mortal on a1 and b1's other neighbours a2,b2,c1,c2 are domes, so no build: "
             "no complete turn, Apollo loses. hand d1=0",
             sps("apollo/mortal", "a1 e5", "b1 c4", d="a2 b2 c1 c2 " + BOX_E5), hand=0),
        Case("as above with c2 open: the only turn is a1xb1+c2. hand d1=1",
             sps("apollo/mortal", "a1 e5", "b1 c4", d="a2 b2 c1 " + BOX_E5), hand=1),
        Case("Apollo on 2 swaps with a worker on 3: b2xc3 wins (no build); the mortal "
             "forced down to 2 does not matter",
             sps("apollo/mortal", "b2 e5", "a5 c3", h="b2=2 c3=3 c2=1 d3=2")),
        Case("same, Athena moved up: b2xc3 (up) is illegal, swaps down/level stay legal",
             sps("apollo/athena[up]", "b2 e5", "a5 c3", h="b2=2 c3=3 c2=1 d3=2")),
        Case("Apollo on 3 swaps down with a mortal on 2: the mortal is forced onto 3 and does "
             "not win; at depth 2 its 3->3 move does not win either",
             sps("apollo/mortal", "c3 e5", "a5 b2", h="c3=3 b2=2 c4=3 b3=1")),
        Case("Apollo (c3, level 1) swaps Athena (c4, level 0) up to level 1: forced, so no "
             "athena[up] follows; Athena's own later climb does set it",
             sps("apollo/athena", "c3 e1", "a5 c4", h="c3=1 b4=1 b5=2 d5=1")),
        Case("worked case 4 of SPEC.md section 1.6 (72 turns; after c3xc4 the builds are b3,b4,b5,"
             "c5,d3,d4,d5)", sps("apollo/mortal", "c3 e5", "a1 c4"), hand=72),
        *open_cases("apollo"),
    ],
    "artemis": [
        Case("worked case 7 of SPEC.md section 1.6: 205 turns (each path is its own turn)",
             sps("artemis/mortal", "a1 e5", "a5 e3", h="b1=1 c1=2"), hand=205),
        Case("3->2->3 wins: a1 (3) steps to b1 (2): builds a1 (dome) or c1 (dome), or a second "
             "step to c1 (3) which wins; a1-b1-a1 is illegal; a2,b2,c2,d1,d2 domes; e5 boxed. "
             "hand d1=3 (a1-b1+a1 a1-b1+c1 a1-b1-c1)",
             sps("artemis/mortal", "a1 e5", "a5 c4", h="a1=3 b1=2 c1=3",
                 d="a2 b2 c2 d1 d2 " + BOX_E5), hand=3),
        Case("same with athena[up]: the second step b1->c1 is up, so only a1-b1+a1 and "
             "a1-b1+c1. hand d1=2",
             sps("artemis/athena[up]", "a1 e5", "a5 c4", h="a1=3 b1=2 c1=3",
                 d="a2 b2 c2 d1 d2 " + BOX_E5), hand=2),
        Case("first step up onto 3 wins at once (b2-c3, no second step); 1->2->3 two-step win "
             "via b2 from a1; 0->1->2 paths",
             sps("artemis/mortal", "a1 b2", "e1 e5", h="a1=1 b2=2 c3=3 b1=1 c2=2")),
        *open_cases("artemis"),
    ],
    "athena": [
        Case("mortal vs athena[up]: a1 may go to a2 (level) but not b1 (up); b2 dome, e5 boxed; "
             "builds from a2: a1,a3,b1,b3. hand d1=4",
             sps("mortal/athena[up]", "a1 e5", "c5 e1", h="b1=1", d="b2 " + BOX_E5), hand=4),
        Case("same without the Athena state: a1-b1 adds builds a1,a2,c1,c2. hand d1=8",
             sps("mortal/athena", "a1 e5", "c5 e1", h="b1=1", d="b2 " + BOX_E5), hand=8),
        Case("worked case 6 of SPEC.md section 1.6: 29 turns",
             sps("mortal/athena[up]", "a1 e5", "c5 e1", h="b1=1"), hand=29),
        Case("Athena to move next to level 1 and 2 squares: her climbs set athena[up] for the "
             "mortal's reply, her level moves do not",
             sps("athena/mortal", "a1 c3", "e1 e5", h="a2=1 b2=2 d4=1 e4=2")),
        Case("SPEC.md section 4.7, example transcript C: Prometheus vs Athena",
             "prometheus/athena;00010/00000/00000/01000/00000;b2,d4/c4,e1;1;3"),
        *open_cases("athena"),
    ],
    "atlas": [
        Case("only move a1-b1 (a2 is level 3, b2 dome); builds from b1: a1 (level 1) block or "
             "dome, a2 (level 3) dome only (+a2), c1 (0) block or dome, c2 (2) block or dome. "
             "hand d1=7",
             sps("atlas/mortal", "a1 e5", "a5 c4", h="a1=1 a2=3 c2=2", d="b2 " + BOX_E5),
             hand=7),
        Case("Atlas with several levels around both workers",
             sps("atlas/mortal", "b2 d4", "a5 e1", h="a1=1 b3=2 c2=3 d3=1 e5=2")),
        *open_cases("atlas"),
    ],
    "demeter": [
        Case("only move a1-b1; build squares a1, c1, c2 (level 3: dome): 3 single builds + 3 "
             "pairs (+a1+c1 +a1+c2 +c1+c2), never twice on one square. hand d1=6",
             sps("demeter/mortal", "a1 e5", "a5 c4", h="c2=3", d="a2 b2 " + BOX_E5), hand=6),
        *open_cases("demeter"),
    ],
    "hephaestus": [
        Case("only move a1-b1 (a2 is level 3, b2 dome); builds: a1 (0) +a1 or +a1+a1, c1 (1) +c1 "
             "or +c1+c1, c2 (2) only +c2 (2->3->dome not allowed), a2 (3) only +a2. hand d1=6",
             sps("hephaestus/mortal", "a1 e5", "a5 c4", h="a2=3 c1=1 c2=2", d="b2 " + BOX_E5),
             hand=6),
        *open_cases("hephaestus"),
    ],
    "hermes": [
        Case("corridor a1-b1-c1 at level 0 (a2,b2,c2,d1,d2 domes), Hermes on a1,b1: the workers "
             "block each other, reachable endpoint sets {a1,b1} {a1,c1} {b1,c1}, each with one "
             "free build square: +c1, b1-c1+b1, a1-c1+a1 (endpoint label, not a path). "
             "hand d1=3",
             sps("hermes/mortal", "a1 b1", "a5 c4", d="a2 b2 c2 d1 d2"), hand=3),
        Case("no worker can move (c1 is level 2) but b1 can build: Hermes does not lose, the "
             "only turn is +c1. hand d1=1",
             sps("hermes/mortal", "a1 b1", "a5 c4", h="c1=2", d="a2 b2 c2"), hand=1),
        Case("workers on different levels roam separately (a1 on 0, d5 on 2)",
             sps("hermes/mortal", "a1 d5", "a5 c3", h="d5=2 e5=2 e4=2 d4=1 c5=2 b1=1")),
        Case("same with athena[up]: normal up moves are gone, power turns stay",
             sps("hermes/athena[up]", "a1 d5", "a5 c3", h="d5=2 e5=2 e4=2 d4=1 c5=2 b1=1")),
        *open_cases("hermes"),
    ],
    "minotaur": [
        Case("c3 (level 0): b4 opponent cannot be pushed (a5 dome); d2 opponent is pushed to e1 "
             "(level 3: legal, no win); c3-c2 builds b1,c1,c3,d1; c3xd2 builds c1,c2,c3 (vacated "
             "square),d1,e2,e3 (not e1); other neighbours domes; e5 boxed. hand d1=10",
             sps("minotaur/mortal", "c3 e5", "b4 d2", h="e1=3",
                 d="a5 b2 b3 c4 d3 " + BOX_E5), hand=10),
        Case("no turn: b2xa1 would push off the board, b2xc3 and d4xc3 would push into the "
             "Minotaur's own worker (d4 / b2); everything else is domed. hand d1=0",
             sps("minotaur/mortal", "b2 d4", "a1 c3",
                 d="a2 a3 b1 b3 c1 c2 c4 c5 d3 d5 e3 e4 e5"), hand=0),
        Case("Minotaur on 2 pushes a worker off level 3 (b2xc3 to d4) and wins by the step up",
             sps("minotaur/mortal", "b2 e1", "a5 c3", h="b2=2 c3=3 d4=1")),
        Case("same with athena[up]: the climbing push is illegal",
             sps("minotaur/athena[up]", "b2 e1", "a5 c3", h="b2=2 c3=3 d4=1")),
        Case("Minotaur (c2) pushes Athena (c3, level 0) onto c4 (level 2): forced, no athena[up]",
             sps("minotaur/athena", "c2 e1", "a5 c3", h="c4=2 b4=2 d5=1 c2=1")),
        Case("Minotaur on 3 pushes Pan from level 3 down to 0 (c3xc4 to c5): a forced drop, "
             "Pan does not win",
             sps("minotaur/pan", "c3 e1", "a1 c4", h="c3=3 c4=3 b4=2")),
        *open_cases("minotaur"),
    ],
    "pan": [
        Case("a1 (3): a1-a2 (3->1) and a1-b2 (3->0) win, a1-b1 (3->2) builds a1,a2,b2 (c1,c2 "
             "domes); e5 (2): e5-d5 (2->0) wins, e5-e4 (2->1) builds d5,e5 (d3,d4,e3 domes). "
             "hand d1=8",
             sps("pan/mortal", "a1 e5", "a5 c4", h="a1=3 a2=1 b1=2 e5=2 e4=1",
                 d="c1 c2 d3 d4 e3"), hand=8),
        Case("same with athena[up]: every move is down, Athena cannot stop the drops. hand d1=8",
             sps("pan/athena[up]", "a1 e5", "a5 c4", h="a1=3 a2=1 b1=2 e5=2 e4=1",
                 d="c1 c2 d3 d4 e3"), hand=8),
        Case("Pan climbs too: c2 (2) -> c3 (3) wins; 1->0 and 2->1 do not",
             sps("pan/mortal", "b1 c2", "e5 a5", h="b1=1 c2=2 c3=3 d2=1")),
        *open_cases("pan"),
    ],
    "prometheus": [
        Case("a1 (0), a2 (0), b1 (1), b2 dome; e5 boxed. No pre-build: a1-a2 (builds a1,b1), a1-b1 "
             "(builds a1,a2). Pre-build a2: a2 and b1 are then up, dead end. Pre-build b1 (to 2): "
             "a1-a2 then +a1 or +b1 (same square again). hand d1=6",
             sps("prometheus/mortal", "a1 e5", "a5 c4", h="b1=1",
                 d="a3 b2 b3 c1 c2 " + BOX_E5), hand=6),
        Case("b1 on level 3: pre-build b1 makes a dome, so the final build cannot go there: "
             "a1-a2+a1 a1-a2+b1 +b1a1-a2+a1. hand d1=3",
             sps("prometheus/mortal", "a1 e5", "a5 c4", h="b1=3",
                 d="a3 b2 b3 c1 c2 " + BOX_E5), hand=3),
        Case("first position with athena[up]: a1-b1 gone, pre-build turns unchanged. hand d1=4",
             sps("prometheus/athena[up]", "a1 e5", "a5 c4", h="b1=1",
                 d="a3 b2 b3 c1 c2 " + BOX_E5), hand=4),
        Case("SPEC.md section 4.7, example transcript C after Athena climbed: prometheus/athena[up]",
             "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4"),
        *open_cases("prometheus"),
    ],
}


# --- Three and four seats (SPEC.md section 15) ---------------------------------------------------

G3 = "apollo/minotaur/pan"  # the three-seat start of SPEC.md section 15
G4 = "apollo/minotaur/pan/athena"
EMPTY = "00000/00000/00000/00000/00000"
#: Case A: Apollo (seat 1) on c3 between a Pan worker (c4, seat 3) and a Minotaur worker (d3, seat 2).
CASE_A_DOMES = "b2 b3 b4 c2 d2 d4 d5 e4"
#: Case C: seat 2's workers boxed in on a1 (Pan's b1 blocks it, the push square c1 is domed) and e5.
CASE_C_DOMES = "a2 b2 c1 c2 d1 d2 e2 d4 d5 e4"
#: Athena's restriction: the a1 worker may climb to a2 (level 1) or step to b1; the e5 worker may
#: climb to d5 (level 1) or step to e4; a5 and e1 are boxed in.
ATHENA_H = "a2=1 d5=1"
ATHENA_D = "b2 d1 d2 e2 a4 b4 b5 d4"
#: Case B and the 4p Minotaur: team A on c3,c4 with team B on d3; everything else around is domed.
PAIR_D = "b2 b3 b4 b5 c2 d2 d4 d5"

THREE: list[Case] = [
    Case("3p start: seat 1 places two workers on any two of 25 squares. hand d1=C(25,2)=300",
         f"{G3};{EMPTY};-/-/-;1;1", hand=300, max_depth=2),
    Case("3p placement: seat 2 places on two of the 23 free squares. hand d1=C(23,2)=253",
         f"{G3};{EMPTY};b3,d3/-/-;2;1", hand=253, max_depth=2),
    Case("3p placement: seat 3 places last (C(21,2)=210), then seat 1 plays in round 2. hand d1=210",
         f"{G3};{EMPTY};b3,d3/c2,c4/-;3;1", hand=210, max_depth=2),
    Case("3p after placement, seat 1 (Apollo) to move in round 2; c4 and c2 are seat 2's (swappable)",
         f"{G3};{EMPTY};b3,d3/c2,c4/a1,e5;1;2"),
    Case("worked case A: Apollo (seat 1) on c3 swaps with either opponent: c3xc4 (Pan, seat 3) builds "
         "b5 c5, c3xd3 (Minotaur, seat 2) builds e2 e3; b2 b3 b4 c2 d2 d4 domes, e5 boxed. hand d1=4",
         nsps(G3, ["c3 e5", "a1 d3", "a5 c4"], d=CASE_A_DOMES, tomove=1, turn=6), hand=4),
    Case("Minotaur (seat 2) on c3: c3xb4 pushes seat 1 to a5 (builds a3 a4 b5 c3); c3xc4 is blocked "
         "because the push square c5 holds seat 3's worker; c3xd3 pushes seat 3 to e3 (builds c3 e2 "
         "e4); a1 boxed. hand d1=7",
         nsps(G3, ["b4 c4", "a1 c3", "c5 d3"], d="a2 b1 b2 b3 c2 d2 d4", tomove=2, turn=6), hand=7),
    Case("worked case C: seat 2 (Minotaur: a1 blocked by Pan's b1, whose push square c1 is a dome; e5 "
         "boxed) has no complete turn and is eliminated without using depth; seat 3 moves in the same "
         "round onto the freed a1: b1-a1+b1 is its only turn. hand d1=1",
         nsps(G3, ["b4 c4", "a1 e5", "b1 e1"], d=CASE_C_DOMES, tomove=2, turn=5), hand=1),
    Case("case C one step on: seat 3 to move after seat 2's elimination (x), then seat 1 in round 6. "
         "hand d1=1",
         nsps(G3, ["b4 c4", "x", "b1 e1"], d=CASE_C_DOMES, tomove=3, turn=5), hand=1),
    Case("seat 3 (Pan on a1 and e1, both boxed in by domes) has no complete turn: eliminated, and seat 1 "
         "moves next in round 8 (the eliminated seat counts as the seat that just moved)",
         nsps(G3, ["b4 c4", "c2 d3", "a1 e1"], d="a2 b1 b2 d1 d2 e2", tomove=3, turn=7)),
    Case("seat 3 has no complete turn and seat 2 is already out: seat 1 is the only seat left and wins; "
         "no leaves at any depth. hand d1=0",
         nsps(G3, ["b4 c4", "x", "a1 e1"], d="a2 b1 b2 d1 d2 e2", tomove=3, turn=7), hand=0),
    Case("seats 2 and 3 both have no complete turn: seat 2 is eliminated, then seat 3, leaving seat 1 "
         "alone: 0 at every depth. hand d1=0",
         nsps(G3, ["c3 c4", "a5 e5", "a1 e1"], d="a2 b1 b2 d1 d2 e2 a4 b4 b5 d4 d5 e4", tomove=2, turn=7),
         hand=0),
    Case("Athena (seat 1) to move: her climb c4-d5 sets athena[up] for both seats after her; c3 and c4 "
         "are hers, seat 2 (Pan) a1,e1, seat 3 (Minotaur) a5,e5",
         nsps("athena/pan/minotaur", ["c3 c4", "a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=1, turn=9)),
    Case("athena[up], seat 2 restricted: a1-a2 is up, so only a1-b1 builds a1 a2 c1 c2. hand d1=4",
         nsps("athena[up]/pan/minotaur", ["c3 c4", "a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=2,
              turn=9), hand=4),
    Case("athena[up] still holds for seat 3, the second opponent: e5-d5 is up, e5-e4 builds d3 d5 e3 "
         "e5. hand d1=4",
         nsps("athena[up]/pan/minotaur", ["c3 c4", "a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=3,
              turn=9), hand=4),
    Case("same without the tag: e5-d5 adds builds c5 e4 e5 (c4 is Athena's). hand d1=7",
         nsps("athena/pan/minotaur", ["c3 c4", "a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=3,
              turn=9), hand=7),
    Case("athena[up] eliminates seat 2 (its only move a1-a2 is up: b1 domed), and the tag outlives the "
         "elimination: seat 3 is still restricted. hand d1=4",
         nsps("athena[up]/pan/minotaur", ["c3 c4", "a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D + " b1",
              tomove=2, turn=9), hand=4),
    Case("seat 2 out (x): seats 1 and 3 alternate on the midgame board; seat 3's turn ends the round",
         nsps("athena/apollo/minotaur", ["b4 e2", "x", "b2 d4"], board=MID, tomove=3, turn=22)),
    Case("seat 1 out (x): seat 2 (Apollo) to move, then seat 3, then seat 2 in the next round",
         nsps("athena/apollo/minotaur", ["x", "b4 e2", "b2 d4"], board=MID, tomove=2, turn=22)),
    Case("Prometheus, Artemis, Demeter on the midgame board, seat 1 to move",
         nsps("prometheus/artemis/demeter", ["b4 e2", "b2 d4", "a3 c2"], board=MID, turn=22)),
    Case("Artemis (seat 2) to move on the midgame board, Prometheus and Demeter around",
         nsps("prometheus/artemis/demeter", ["b4 e2", "b2 d4", "a3 c2"], board=MID, tomove=2,
              turn=22)),
    Case("Hermes, Atlas, Hephaestus on the midgame board, seat 3 (Hephaestus) to move",
         nsps("hermes/atlas/hephaestus", ["b4 e2", "b2 d4", "a3 c2"], board=MID, tomove=3, turn=22)),
    Case("Hermes (seat 1) to move: power turns around the workers of two opponent seats",
         nsps("hermes/atlas/hephaestus", ["b4 e2", "b2 d4", "a3 c2"], board=MID, tomove=1, turn=22)),
    Case("Pan, Apollo, Minotaur on the midgame board, seat 1 (Pan) to move: drops win",
         nsps("pan/apollo/minotaur", ["b4 e2", "b2 d4", "a3 c2"], board=MID, tomove=1, turn=22)),
]

FOUR: list[Case] = [
    Case("4p start: seat 1 places team A (seats 1 and 3). hand d1=C(25,2)=300",
         f"{G4};{EMPTY};-/-;1;1", hand=300, max_depth=2),
    Case("4p placement: seat 2 places team B on two of 23 squares, then seat 3 plays in round 1. "
         "hand d1=C(23,2)=253",
         f"{G4};{EMPTY};b3,d3/-;2;1", hand=253, max_depth=2),
    Case("4p after placement: seat 3 (Pan) takes the first play turn, round 1; both team A workers are "
         "its own",
         f"{G4};{EMPTY};b3,d3/c2,c4;3;1"),
    Case("worked case B: seat 1 (Apollo) never swaps with c4 or c3 (team A, its own team); it may swap "
         "either team A worker with team B's d3: c3xd3 and c4xd3 each build e2 e3 e4. hand d1=6",
         nsps(G4, ["c3 c4", "a1 d3"], d=PAIR_D + " c5", tomove=1, turn=4), hand=6),
    Case("4p Minotaur (seat 1) pushes team B only: c3xd3 (to e3) builds c3 e2 e4, c4xd3 (to e2) builds "
         "c4 e3 e4, c4-c5 builds c4; c3xc4 (teammate, push square c5 free) is no turn. hand d1=7",
         nsps("minotaur/apollo/pan/athena", ["c3 c4", "a1 d3"], d=PAIR_D, tomove=1, turn=4), hand=7),
    Case("seat 3 must move the team worker on c3 (a1 is boxed in): c3-d3 builds c3 e2 e3 e4. hand d1=4",
         nsps("pan/apollo/minotaur/athena", ["a1 c3", "a5 e5"], d="a2 b1 b2 b3 b4 c2 c4 d2 d4", tomove=3,
              turn=4), hand=4),
    Case("the same team one turn earlier: seat 1 (Pan) moves the c3 worker, seat 2 answers, seat 3 moves "
         "that worker again",
         nsps("pan/apollo/minotaur/athena", ["a1 c3", "a5 e5"], d="a2 b1 b2 b3 b4 c2 c4 d2 d4", tomove=1,
              turn=4)),
    Case("team A (seat 3 to move) has no complete turn: it loses at once, no elimination in 4p. hand d1=0",
         nsps(G4, ["a1 e1", "c3 e5"], d="a2 b1 b2 d1 d2 e2", tomove=3, turn=4), hand=0),
    Case("worked case D: Athena (seat 2) to move: e5-d5 (up) sets athena[up], e5-e4 does not; both "
         "build 4 ways. hand d1=8",
         nsps("apollo/athena/minotaur/pan", ["a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=2, turn=5),
         hand=8),
    Case("case D, seat 3 (opponent) under athena[up]: a1-a2 is up, a1-b1 builds a1 a2 c1 c2. hand d1=4",
         nsps("apollo/athena[up]/minotaur/pan", ["a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=3,
              turn=5), hand=4),
    Case("case D, seat 4 (Athena's teammate) is not restricted and keeps the tag for seat 1: e5-d5 and "
         "e5-e4, 4 builds each. hand d1=8",
         nsps("apollo/athena[up]/minotaur/pan", ["a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=4,
              turn=5), hand=8),
    Case("case D, seat 1 (the other opponent) still restricted in the next round. hand d1=4",
         nsps("apollo/athena[up]/minotaur/pan", ["a1 e1", "a5 e5"], h=ATHENA_H, d=ATHENA_D, tomove=1,
              turn=6), hand=4),
    Case("Hermes (seat 3) moves team A's two workers: corridor a1-b1-c1 (a2 b2 c2 d1 d2 domed); "
         "endpoint sets give +c1, b1-c1+b1, a1-c1+a1. hand d1=3",
         nsps("apollo/minotaur/hermes/athena", ["a1 b1", "a5 e5"], d="a2 b2 c2 d1 d2", tomove=3, turn=4),
         hand=3),
    Case("Hermes (seat 2, team B) on the midgame board, team A's workers in the way",
         nsps("artemis/hermes/prometheus/demeter", ["b4 e2", "b2 d4"], board=MID, tomove=2,
              turn=22)),
    Case("Artemis, Hermes, Prometheus, Demeter on the midgame board, seat 3 (Prometheus) to move",
         nsps("artemis/hermes/prometheus/demeter", ["b4 e2", "b2 d4"], board=MID, tomove=3,
              turn=22)),
    Case("Apollo (seat 4) and Minotaur (seat 1) around each other on the midgame board, seat 4 to move",
         nsps("minotaur/atlas/pan/apollo", ["b4 e2", "b2 d4"], board=MID, tomove=4, turn=22)),
]

SUITES["3p"] = THREE
SUITES["4p"] = FOUR

#: Header lines of the N-seat suites (the god suites get the two-seat header of ``write_suite``).
NSEAT_HEADERS = {
    "3p": ["# Perft suite: three seats (SPEC.md sections 3.4 and 15). SPS<TAB>depth<TAB>count.",
           "# Counts are distinct canonical STN turns at the leaves; a winning turn is one leaf; a seat",
           "# with no complete turn is eliminated without using depth (the count is the next seat's),",
           "# and when one seat would remain the count is 0; perft at depth 0 is always 1."],
    "4p": ["# Perft suite: four seats in two teams (SPEC.md sections 3.4 and 15). SPS<TAB>depth<TAB>count.",
           "# Counts are distinct canonical STN turns at the leaves; a winning turn is one leaf; a seat",
           "# with no complete turn loses for its team and has no children."],
}


def write_suite(god: str, cases: list[Case]) -> float:
    """Compute and write one suite; return the oracle time spent."""
    if god in NSEAT_HEADERS:
        lines = [*NSEAT_HEADERS[god],
                 "# Computed by tests/oracle/reference.py (tests/oracle/make_perft_suites.py); 'hand' cases",
                 "# were also counted by hand at depth 1."]
    else:
        lines = [
            f"# Perft suite: {god}. Format (SPEC.md section 3.4): SPS<TAB>depth<TAB>count.",
            "# Counts are distinct canonical STN turns at the leaves; a winning turn is one leaf;",
            "# a side with no legal turn has no children. Computed by tests/oracle/reference.py",
            "# (tests/oracle/make_perft_suites.py); 'hand' cases were also counted by hand at depth 1.",
        ]
    spent = 0.0
    for case in cases:
        lines.append("")
        lines.append(f"# {case.comment}")
        start = time.perf_counter()
        d1 = reference_perft(case.sps, 1)
        if case.hand is not None and d1 != case.hand:
            raise SystemExit(f"{god}: hand count {case.hand} != oracle {d1} for {case.sps}")
        lines.append(f"{case.sps}\t1\t{d1}")
        d2 = reference_perft(case.sps, 2)
        lines.append(f"{case.sps}\t2\t{d2}")
        if case.max_depth >= 3 and d2 <= D3_IF_D2_AT_MOST:
            lines.append(f"{case.sps}\t3\t{reference_perft(case.sps, 3)}")
        spent += time.perf_counter() - start
    (OUT / f"{god}.tsv").write_text("\n".join(lines) + "\n")
    return spent


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:])
    for god, cases in SUITES.items():
        if only and god not in only:
            continue
        spent = write_suite(god, cases)
        print(f"{god}.tsv: {len(cases)} positions, oracle {spent:.1f} s")


if __name__ == "__main__":
    main()
