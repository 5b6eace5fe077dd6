"""Three and four seats (SPEC.md section 15) in the independent oracle, and the rules engine against it.

Part one pins the oracle (``tests/oracle/reference.py``) itself: one named test per ruling N1-N9
and worked case A-D, with positions chosen small enough that the expected turn sets are reasoned
by hand in the comments.  Part two holds the bitboard engine (``santorini_server.rules``) to the
oracle: the same legal turns and successors on random reachable 3- and 4-seat positions (random
god triples and quads, eliminations included), the same elimination step and round counter, SPS
round trips both ways, ``divide`` per first turn on the perft suites protocol/perft/3p.tsv and
4p.tsv (whose every row tests/test_oracle_cross.py runs through ``rules.perft``), and
``santorini legal --json`` equal to ``reference_legal_json``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from santorini_server.cli import main as cli
from santorini_server.rules import GODS, Position, divide
from tests.oracle.reference import (
    eliminate,
    format_sps,
    legal_turns,
    parse_sps,
    reference_legal,
    reference_legal_json,
    reference_perft,
)
from tests.test_oracle_cross import _rows as cross_rows

PERFT_DIR = Path(__file__).resolve().parents[1] / "protocol" / "perft"
EMPTY = "00000/00000/00000/00000/00000"
START3 = f"apollo/minotaur/pan;{EMPTY};-/-/-;1;1"
START4 = f"apollo/minotaur/pan/athena;{EMPTY};-/-;1;1"

# Boards (rank 5 first, files a-e; 4 = dome) shared by several tests; the squares are spelled out at
# each use.
CASE_A = "apollo/minotaur/pan;00040/04044/04000/04440/00000"  # domes b2 b3 b4 c2 d2 d4 d5 e4
CASE_C = "apollo/minotaur/pan;00040/00044/00000/44444/00440"  # domes a2 b2 c1 c2 d1 d2 e2 d4 d5 e4
#: a2 and d5 at level 1; domes a4 b4 b5 b2 d1 d2 e2 d4 (a5 and e1 boxed in).
ATHENA_BOARD = "04010/44040/00000/14044/00040"
PAIR_BOARD = "04440/04040/04000/04440/00000"  # domes b2 b3 b4 b5 c2 c5 d2 d4 d5


def stems(legal: dict[str, str | None]) -> set[str]:
    """The move part of each turn (before the first build), e.g. ``c3xc4`` of ``c3xc4+b5``."""
    return {stn.split("+")[0] if not stn.startswith("+") else stn for stn in legal}


# =====================================================================================================
# Part one: the oracle's own rulings


# --- N1: gods and SPS validity ------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        f"apollo/mortal/pan;{EMPTY};-/-/-;1;1",  # no mortal with three seats
        f"apollo/minotaur/pan/mortal;{EMPTY};-/-;1;1",  # nor four
        f"apollo/pan/apollo;{EMPTY};-/-/-;1;1",  # a repeated god
        f"zeus/minotaur/pan;{EMPTY};-/-/-;1;1",
        f"apollo/minotaur/pan;{EMPTY};-/-;1;1",  # three seats write three groups
        f"apollo/minotaur/pan/athena;{EMPTY};-/-/-;1;1",  # four seats write two (teams)
        f"apollo/minotaur/pan;{EMPTY};a1,a2/b1,b2/c1,c2/d1,d2;1;2",  # eight workers
        f"apollo/minotaur/pan/athena;{EMPTY};a1,a2/x;1;2",  # 'x' only in three seats
        f"apollo/minotaur/pan;{EMPTY};a1,a2/x/c1,c2;2;2",  # the seat to move is out
        f"apollo/minotaur/pan;{EMPTY};a1,a2/x/x;1;2",  # two seats must stay in
        f"apollo/minotaur/pan;{EMPTY};a1,a2/b1,b2/c1,c2;4;2",  # no seat 4
        f"apollo/minotaur/pan;{EMPTY};a1,a2/-/c1,c2;2;1",  # seat 3 placed before seat 2
        f"apollo/minotaur/pan;{EMPTY};a1,a2/-/-;3;1",  # seat 2 places next
        f"apollo/minotaur/pan;{EMPTY};a1,a2/b1,b2/-;3;2",  # placement is round 1
        f"apollo/minotaur/pan/athena;{EMPTY};a1,a2/-;3;1",  # seat 2 places team B before seat 3 plays
        f"athena[up]/minotaur/pan;{EMPTY};a1,a2/b1,b2/c1,c2;1;2",  # Athena to move: no tag
        f"athena[up]/minotaur/pan;{EMPTY};x/b1,b2/c1,c2;2;2",  # eliminated Athena: no tag
        f"apollo/minotaur/pan/athena[up];{EMPTY};a1,a2/b1,b2;4;2",  # Athena (seat 4) to move
        f"apollo/minotaur/pan;{EMPTY};a2,a1/b1,b2/c1,c2;1;2",  # squares in canonical order
        f"apollo/minotaur/pan;{EMPTY};a1,a2/a2,b2/c1,c2;1;2",  # two workers on one square
    ],
)
def test_n1_bad_nseat_sps_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_sps(bad)


def test_n1_start_positions_parse_and_format() -> None:
    for sps in (START3, START4):
        assert format_sps(parse_sps(sps)) == sps
    assert parse_sps(START3).nseats == 3 and len(parse_sps(START4).workers) == 2


# --- N2: order and placement inside the cycle --------------------------------------------------


def test_n2_three_seats_place_in_turn_then_seat_1_plays_in_round_2() -> None:
    # Each seat places on any two free squares: C(25,2), C(23,2), C(21,2).
    first = reference_legal(START3)
    assert len(first) == 300
    second = reference_legal(first["b3,d3"] or "")
    assert len(second) == 253 and "b3,c2" not in second
    third = reference_legal(second["c2,c4"] or "")
    assert len(third) == 210
    assert third["a1,e5"] == f"apollo/minotaur/pan;{EMPTY};b3,d3/c2,c4/a1,e5;1;2"


def test_n2_four_seats_1_and_2_place_the_teams_and_seat_3_plays_first() -> None:
    # The section 15 example: after placements `;b3,d3/c2,c4;3;1`, seat 3 moves `;4;1`, seat 4 `;1;2`.
    after_a = reference_legal(START4)["b3,d3"]
    assert after_a == f"apollo/minotaur/pan/athena;{EMPTY};b3,d3/-;2;1"
    placed = reference_legal(after_a)["c2,c4"]
    assert placed == f"apollo/minotaur/pan/athena;{EMPTY};b3,d3/c2,c4;3;1"
    seat3 = reference_legal(placed)  # seat 3 (Pan) moves team A: b3 or d3
    assert {stn[:2] for stn in seat3} == {"b3", "d3"}
    after3 = seat3["b3-a2+a1"]
    assert after3 == "apollo/minotaur/pan/athena;00000/00000/00000/00000/10000;a2,d3/c2,c4;4;1"
    after4 = reference_legal(after3 or "")["c2-b1+a1"]
    assert after4 == "apollo/minotaur/pan/athena;00000/00000/00000/00000/20000;a2,d3/b1,c4;1;2"


def test_n2_the_cycle_skips_an_eliminated_seat() -> None:
    # Seat 2 is out: seat 1 -> seat 3 in the same round, seat 3 -> seat 1 in the next.
    sps = "athena/apollo/minotaur;01234/12321/00240/31012/40123;b4,e2/x/b2,d4;1;22"
    assert {parse_sps(s).tomove for s in reference_legal(sps).values() if s} == {3}
    sps3 = "athena/apollo/minotaur;01234/12321/00240/31012/40123;b4,e2/x/b2,d4;3;22"
    assert {(parse_sps(s).tomove, parse_sps(s).turn) for s in reference_legal(sps3).values() if s} == {(1, 23)}


# --- N3: three-seat elimination -----------------------------------------------------------------


def test_case_c_seat_2_is_eliminated_and_its_squares_free_up_for_seat_3() -> None:
    # Seat 2 (Minotaur) on a1 and e5: a1's neighbours are a2 (dome), b2 (dome) and b1, which holds
    # seat 3's Pan; pushing it goes to c1, a dome.  e5 is boxed by d4 d5 e4.  No complete turn.
    sps = f"{CASE_C};b4,c4/a1,e5/b1,e1;2;5"
    assert reference_legal(sps) == {}
    after = f"{CASE_C};b4,c4/x/b1,e1;3;5"  # same round: seat 3 follows seat 2
    assert reference_legal_json(sps) == {"sps": sps, "status": "eliminated", "turns": {}, "next": after}
    # Seat 3's b1 worker could go nowhere while seat 2 stood on a1 (b2 c1 c2 a2 domes); now b1-a1,
    # building on the square it left (a1's other neighbours are domes).  e1 is boxed (d1 d2 e2).
    assert reference_legal(after) == {"b1-a1+b1": "apollo/minotaur/pan;00040/00044/00000/44444/01440;b4,c4/x/a1,e1;1;6"}
    # Perft: the elimination uses no depth.
    assert reference_perft(sps, 1) == 1
    assert reference_perft(sps, 2) == reference_perft(after, 2) == 40


def test_n3_seat_3_eliminated_in_round_r_gives_seat_1_in_round_r_plus_1() -> None:
    # Seat 3 (Pan) on a1 (a2 b1 b2 domes) and e1 (d1 d2 e2 domes) cannot move.
    board = "apollo/minotaur/pan;00000/00000/00000/44044/04040"
    out = reference_legal_json(f"{board};b4,c4/c2,d3/a1,e1;3;7")
    assert out["status"] == "eliminated" and out["next"] == f"{board};b4,c4/c2,d3/x;1;8"


def test_n3_one_seat_left_is_the_winner() -> None:
    board = "apollo/minotaur/pan;00000/00000/00000/44044/04040"
    sps = f"{board};b4,c4/x/a1,e1;3;7"
    assert reference_legal_json(sps) == {"sps": sps, "status": "eliminated", "turns": {}, "winner": 1}
    assert [reference_perft(sps, d) for d in (0, 1, 2)] == [1, 0, 0]  # perft(p, 0) = 1 always


def test_n3_two_eliminations_in_a_row_leave_seat_1_alone() -> None:
    # Seat 2 on a5 (a4 b4 b5 domes) and e5 (d4 d5 e4), seat 3 on a1 and e1: both boxed in.
    board = "apollo/minotaur/pan;04040/44044/00000/44044/04040"
    sps = f"{board};c3,c4/a5,e5/a1,e1;2;7"
    nxt = f"{board};c3,c4/x/a1,e1;3;7"
    assert reference_legal_json(sps)["next"] == nxt
    assert reference_legal_json(nxt)["winner"] == 1
    assert [reference_perft(sps, d) for d in (0, 1, 3)] == [1, 0, 0]


def test_n3_eliminated_athena_restricts_nobody_and_a_win_ends_the_game() -> None:
    # Athena (seat 2) boxed in on a1/e1 is eliminated while to move; her tag is never written for her.
    board = "pan/athena/minotaur;00000/00000/00000/44044/04040"
    after = eliminate(parse_sps(f"{board};b4,c4/a1,e1/c2,d3;2;7"))
    assert not isinstance(after, int)
    assert format_sps(after) == f"{board};b4,c4/x/c2,d3;3;7" and not after.athena_up
    # A climb onto level 3 by seat 2 of 3 (b2 level 2 -> c3 level 3) wins at once: a leaf, no
    # successor for seat 3.
    win = reference_legal("apollo/minotaur/pan;00000/00000/00300/02000/00000;a1,e5/b2,d4/a5,e1;2;4")
    assert win["b2-c3"] is None


# --- N5: four seats in two teams ------------------------------------------------------------------


def test_n5_a_seat_moves_either_team_worker_with_its_own_god_only() -> None:
    # Team A (seats 1 Apollo, 3 Pan) on c3,c4; team B's d3 next to both.  Seat 1 swaps (6 turns,
    # case B); seat 3 is Pan: it cannot use its teammate's power, and both workers are blocked.
    assert len(reference_legal(f"apollo/minotaur/pan/athena;{PAIR_BOARD};c3,c4/a1,d3;1;4")) == 6
    assert reference_legal(f"apollo/minotaur/pan/athena;{PAIR_BOARD};c3,c4/a1,d3;3;4") == {}


def test_n5_a_seat_with_no_turn_loses_for_its_team_and_nothing_is_removed() -> None:
    sps = "apollo/minotaur/pan/athena;00000/00000/00000/44044/04040;a1,e1/c3,e5;3;4"
    assert reference_legal_json(sps) == {"sps": sps, "status": "lost", "turns": {}}
    assert reference_perft(sps, 2) == 0
    with pytest.raises(ValueError):
        eliminate(parse_sps(sps))


def test_n5_seat_3_must_move_the_worker_its_teammate_moved() -> None:
    # Team A on a1 (boxed: a2 b1 b2 domes) and c3, whose only free neighbour is d3; from d3 the free
    # build squares are c3 (just left), e2, e3, e4.  Seat 1 (Pan) has exactly these turns; after any
    # team-B reply seat 3 (Minotaur) has them again with the same worker.
    board = "pan/apollo/minotaur/athena;00000/04440/04000/44440/04000"
    turns = {"c3-d3+c3", "c3-d3+e2", "c3-d3+e3", "c3-d3+e4"}
    assert set(reference_legal(f"{board};a1,c3/a5,e5;3;4")) == turns
    assert set(reference_legal(f"{board};a1,c3/a5,e5;1;4")) == turns


# --- N6: opponents for Apollo and the Minotaur ---------------------------------------------------


def test_case_a_three_seat_apollo_swaps_with_either_opponent() -> None:
    # Apollo (seat 1) on c3: c4 holds seat 3's Pan, d3 seat 2's Minotaur, the rest is domed.
    # c3xc4: Apollo on c4 builds b5 or c5 (c3 has Pan now, d3 the Minotaur); c3xd3 builds e2 or e3.
    legal = reference_legal(f"{CASE_A};c3,e5/a1,d3/a5,c4;1;6")
    assert set(legal) == {"c3xc4+b5", "c3xc4+c5", "c3xd3+e2", "c3xd3+e3"}
    assert legal["c3xc4+b5"] == "apollo/minotaur/pan;01040/04044/04000/04440/00000;c4,e5/a1,d3/a5,c3;2;6"


def test_case_b_four_seat_apollo_never_swaps_with_its_own_team() -> None:
    # Team A (Apollo at seat 1) on c3 and c4, team B on d3: c3xc4 / c4xc3 are not turns; either
    # team-A worker swaps with d3, then builds e2, e3 or e4.
    legal = reference_legal(f"apollo/minotaur/pan/athena;{PAIR_BOARD};c3,c4/a1,d3;1;4")
    assert stems(legal) == {"c3xd3", "c4xd3"} and len(legal) == 6


def test_n6_minotaur_push_square_must_be_free_of_every_seat() -> None:
    # Minotaur (seat 2) on c3; seat 1 on b4 and c4, seat 3 on c5 and d3; a1 boxed.  c3xb4 pushes
    # seat 1 to a5; c3xc4 would push onto c5 (seat 3's worker): no; c3xd3 pushes seat 3 to e3.
    sps = "apollo/minotaur/pan;00000/00040/04000/44440/04000;b4,c4/a1,c3/c5,d3;2;6"
    legal = reference_legal(sps)
    assert stems(legal) == {"c3xb4", "c3xd3"} and len(legal) == 7
    assert legal["c3xd3+c3"] == "apollo/minotaur/pan;00000/00040/04100/44440/04000;b4,c4/a1,d3/c5,e3;3;6"


def test_n6_four_seat_minotaur_pushes_only_the_other_team() -> None:
    # As case B with c5 open: c3xc4 would push the teammate onto the free c5, and is no turn.
    legal = reference_legal("minotaur/apollo/pan/athena;04040/04040/04000/04440/00000;c3,c4/a1,d3;1;4")
    assert stems(legal) == {"c3xd3", "c4xd3", "c4-c5"} and len(legal) == 7


# --- N7: Athena binds every opponent seat until she moves again ---------------------------------


def test_n7_three_seat_athena_binds_both_other_seats_in_turn() -> None:
    # Athena (seat 1) on c3,c4; seat 2 (Pan) may climb a1-a2 or step a1-b1; seat 3 (Minotaur) may
    # climb e5-d5 or step e5-e4.  With the tag neither climbs; it survives seat 2's turn.
    board = f"athena[up]/pan/minotaur;{ATHENA_BOARD}"
    seat2 = reference_legal(f"{board};c3,c4/a1,e1/a5,e5;2;9")
    assert set(seat2) == {"a1-b1+a1", "a1-b1+a2", "a1-b1+c1", "a1-b1+c2"}
    seat3 = reference_legal(seat2["a1-b1+a1"] or "")
    assert set(seat3) == {"e5-e4+d3", "e5-e4+d5", "e5-e4+e3", "e5-e4+e5"}
    # ... and is dropped when Athena is to move again.
    assert all(s is not None and s.startswith("athena/") for s in seat3.values())
    untagged = reference_legal(f"athena/pan/minotaur;{ATHENA_BOARD};c3,c4/a1,e1/a5,e5;3;9")
    assert stems(untagged) == {"e5-e4", "e5-d5"} and len(untagged) == 7


def test_n7_the_tag_outlives_an_elimination_it_caused() -> None:
    # b1 domed too: seat 2's only move a1-a2 is up, so seat 2 is eliminated; seat 3 is still bound.
    board = "athena[up]/pan/minotaur;04010/44040/00000/14044/04040"
    out = reference_legal_json(f"{board};c3,c4/a1,e1/a5,e5;2;9")
    assert out["next"] == f"{board};c3,c4/x/a5,e5;3;9"
    assert reference_perft(f"{board};c3,c4/a1,e1/a5,e5;2;9", 1) == 4


def test_case_d_four_seat_athena_binds_the_other_team_not_her_teammate() -> None:
    # Team A (seats 1 Apollo, 3 Minotaur) on a1,e1; team B (seats 2 Athena, 4 Pan) on a5,e5.
    gods = "apollo/athena/minotaur/pan"
    tagged = "apollo/athena[up]/minotaur/pan"
    athena = reference_legal(f"{gods};{ATHENA_BOARD};a1,e1/a5,e5;2;5")
    assert len(athena) == 8
    assert athena["e5-d5+c5"] == f"{tagged};04110/44040/00000/14044/00040;a1,e1/a5,d5;3;5"  # her climb
    assert athena["e5-e4+e3"] == f"{gods};04010/44040/00001/14044/00040;a1,e1/a5,e4;3;5"  # level
    seat3 = reference_legal(f"{tagged};{ATHENA_BOARD};a1,e1/a5,e5;3;5")
    assert stems(seat3) == {"a1-b1"} and len(seat3) == 4
    seat4 = reference_legal(f"{tagged};{ATHENA_BOARD};a1,e1/a5,e5;4;5")
    assert stems(seat4) == {"e5-d5", "e5-e4"} and len(seat4) == 8  # the teammate climbs
    # The teammate's climb neither clears nor sets anything: seat 1 (round 6) is still bound ...
    assert seat4["e5-d5+c5"] == f"{tagged};04110/44040/00000/14044/00040;a1,e1/a5,d5;1;6"
    seat1 = reference_legal(f"{tagged};{ATHENA_BOARD};a1,e1/a5,e5;1;6")
    assert stems(seat1) == {"a1-b1"}
    # ... until Athena is to move.
    assert all(s is not None and s.startswith(f"{gods};") for s in seat1.values())


def test_n7_the_teammate_climbing_never_triggers_athena() -> None:
    untagged = reference_legal(f"apollo/athena/minotaur/pan;{ATHENA_BOARD};a1,e1/a5,e5;4;5")
    assert untagged["e5-d5+c5"] == "apollo/athena/minotaur/pan;04110/44040/00000/14044/00040;a1,e1/a5,d5;1;6"


def test_n7_forced_up_never_triggers_athena_with_three_seats() -> None:
    # Apollo (seat 1, c3 level 1) swaps Athena (seat 3, c4 level 0) up onto c3: no tag follows.
    legal = reference_legal("apollo/minotaur/athena;00000/00000/00100/00000/00000;c3,e1/a1,e5/a5,c4;1;4")
    assert all(s is not None and "[up]" not in s for s in legal.values())
    assert "c3xc4+d4" in legal


# --- N8: Hermes moves the team's two workers ----------------------------------------------------


def test_n8_four_seat_hermes_moves_the_team_s_two_workers() -> None:
    # Team A on a1,b1 in the corridor a1-b1-c1 (a2 b2 c2 d1 d2 domes); Hermes is seat 3.  Endpoint
    # sets {a1,b1} {a1,c1} {b1,c1}, each with one free build square.
    legal = reference_legal("apollo/minotaur/hermes/athena;00000/00000/00000/44440/00040;a1,b1/a5,e5;3;4")
    assert set(legal) == {"+c1", "b1-c1+b1", "a1-c1+a1"}


# --- N9 and the perft contract ------------------------------------------------------------------


def test_n9_perft_through_an_elimination_and_at_depth_0() -> None:
    sps = f"{CASE_C};b4,c4/a1,e5/b1,e1;2;5"
    assert reference_perft(sps, 0) == 1
    # perft(p, d) for an eliminated seat to move is perft(next, d).
    nxt = reference_legal_json(sps)["next"]
    assert isinstance(nxt, str)
    assert [reference_perft(sps, d) for d in (1, 2, 3)] == [reference_perft(nxt, d) for d in (1, 2, 3)]


def test_legal_json_two_seats_unchanged() -> None:
    sps = "mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;2"
    out = reference_legal_json(sps)
    assert out["status"] == "ongoing" and set(out) == {"sps", "status", "turns"}
    turns = out["turns"]
    assert isinstance(turns, dict) and turns["b2-c3"] == "win" and len(turns) == 24
    lost = "mortal/mortal;00000/00000/00000/44400/00400;a1,b1/e4,e5;1;2"
    assert reference_legal_json(lost) == {"sps": lost, "status": "lost", "turns": {}}


def test_oracle_nseat_random_games_stay_canonical() -> None:
    """Every successor is canonical SPS, names the next seat still in, and turns the round over exactly
    when that seat's number is lower than the mover's."""
    rng = random.Random(13)
    gods = [g for g in GODS if g != "mortal"]
    for n in (3, 3, 4, 4):
        groups = "/".join(["-"] * (3 if n == 3 else 2))
        pos = parse_sps(f"{'/'.join(rng.sample(gods, n))};{EMPTY};{groups};1;1")
        for _ply in range(40):
            assert parse_sps(format_sps(pos)) == pos
            turns = legal_turns(pos)
            if not turns:
                if n == 4:
                    break
                after = eliminate(pos)
                if isinstance(after, int):
                    break
                pos = after
                continue
            cycle = [*range(pos.tomove + 1, n + 1), *range(1, pos.tomove + 1)]
            for succ in turns.values():
                if succ is not None:
                    assert succ.tomove == next(s for s in cycle if not succ.eliminated(s))
                    assert succ.turn == pos.turn + (succ.tomove < pos.tomove)
            going_on = [succ for _stn, succ in sorted(turns.items()) if succ is not None]
            if not going_on:
                break
            pos = rng.choice(going_on)


# =====================================================================================================
# Part two: the rules engine against the oracle


def engine_legal(pos: Position) -> dict[str, str | None]:
    return {t.stn: (None if t.win else t.position.sps()) for t in pos.transitions()}


def _random_games(seed: int, games: int, plies: int) -> list[tuple[Position, bool]]:
    """Positions of random 3- and 4-seat games (random gods; non-winning turns so games go on), each
    with whether it came right after an elimination.  Placement positions after the first are left
    out (300-odd turns each, nothing N-seat to see that the start does not show)."""
    rng = random.Random(seed)
    gods = [g for g in GODS if g != "mortal"]
    out: list[tuple[Position, bool]] = []
    for game in range(games):
        n = 3 if game % 2 == 0 else 4
        pos = Position.start(tuple(rng.sample(gods, n)))
        after_elimination = False
        for ply in range(plies):
            if ply == 0 or not pos.is_placement:
                out.append((pos, after_elimination))
            after_elimination = False
            if pos.is_lost():
                nxt = pos.eliminate() if n == 3 else None
                if nxt is None:
                    break
                pos, after_elimination = nxt, True
                continue
            transitions = [t for t in pos.transitions() if not t.win]
            if not transitions:
                break
            pos = rng.choice(transitions).position
    return out


def test_engine_and_oracle_agree_on_random_nseat_games() -> None:
    positions = _random_games(seed=1318, games=8, plies=60)
    eliminations = with_x = 0
    for pos, after_elimination in positions:
        sps = pos.sps()
        assert format_sps(parse_sps(sps)) == sps  # the oracle reads and writes the engine's SPS
        assert Position.from_sps(sps) == pos
        legal = reference_legal(sps)
        assert engine_legal(pos) == legal, sps
        assert pos.is_lost() == (not legal)
        if not legal and pos.nseats == 3:
            mine = pos.eliminate()
            theirs = eliminate(parse_sps(sps))
            assert (None if mine is None else mine.sps()) == (None if isinstance(theirs, int) else format_sps(theirs))
        eliminations += after_elimination
        with_x += pos.nseats == 3 and pos.eliminated != 0
    assert len(positions) > 400
    # The seed was chosen so that games go through eliminations (three here, in natural play).
    assert eliminations >= 3 and with_x > 50


def test_engine_and_oracle_agree_after_forced_eliminations() -> None:
    """A seat that faults is eliminated the same way (N3): remove a seat at random points of random
    3-seat games, whatever its turns, and compare the two rules from there on."""
    rng = random.Random(1302)
    gods = [g for g in GODS if g != "mortal"]
    checked = 0
    for _game in range(6):
        pos = Position.start(tuple(rng.sample(gods, 3)))
        cut = rng.randrange(4, 16)
        for ply in range(40):
            if ply == cut:
                nxt = pos.eliminate()
                theirs = eliminate(parse_sps(pos.sps()))
                assert nxt is not None and not isinstance(theirs, int)
                assert nxt.sps() == format_sps(theirs)
                pos = nxt
            if not pos.is_placement:
                assert engine_legal(pos) == reference_legal(pos.sps()), pos.sps()
                checked += 1
            transitions = [t for t in pos.transitions() if not t.win]
            if not transitions:
                break
            pos = rng.choice(transitions).position
    assert checked > 80


def test_every_nseat_suite_row_is_run_through_the_engine() -> None:
    """tests/test_oracle_cross.py runs suite rows up to its count limit through ``rules.perft``: every
    3- and 4-seat row must be among them (so a bigger row added here would fail this test)."""
    engine_rows = {(suite, sps, depth, count) for suite, sps, depth, count in cross_rows()}
    ours = []
    for suite in ("3p.tsv", "4p.tsv"):
        for line in (PERFT_DIR / suite).read_text().splitlines():
            if line and not line.startswith("#"):
                sps, depth, count = line.split("\t")
                ours.append((suite, sps, int(depth), int(count)))
    assert len(ours) > 100 and set(ours) <= engine_rows


def _suite_positions(max_d2: int | None = None) -> list[str]:
    """The positions of the 3- and 4-seat suites, in file order; with ``max_d2`` only those whose
    depth-2 count is at most that (to bound the oracle's time)."""
    out: list[str] = []
    for suite in ("3p.tsv", "4p.tsv"):
        for line in (PERFT_DIR / suite).read_text().splitlines():
            if not line or line.startswith("#"):
                continue
            sps, depth, count = line.split("\t")
            if sps not in out and (max_d2 is None or (depth == "2" and int(count) <= max_d2)):
                out.append(sps)
    return out


def test_divide_of_every_suite_position_matches_the_oracle() -> None:
    """Per first turn (depth 2 below each), so a disagreement names the turn; 3- and 4-seat suites."""
    for sps in _suite_positions(max_d2=5000):
        pos = Position.from_sps(sps)
        if pos.is_placement:
            continue
        theirs = {stn: 1 if succ is None else reference_perft(succ, 1) for stn, succ in reference_legal(sps).items()}
        assert divide(pos, 2) == theirs, sps


def test_legal_json_of_every_suite_position_matches_the_oracle() -> None:
    positions = [s for s in _suite_positions() if not Position.from_sps(s).is_placement]
    result = CliRunner().invoke(cli, ["legal", "--json", *positions])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) == len(positions)
    for sps, line in zip(positions, lines, strict=True):
        assert json.loads(line) == reference_legal_json(sps), sps


@pytest.mark.parametrize("cut", [1, 2])
def test_a_fault_elimination_during_placement_round_trips(cut: int) -> None:
    """A seat that faults while placing is eliminated (N3) like any other: the game goes on with the
    next seat placing, and that position is a valid SPS (nothing in section 15 forbids an `x` before
    a `-`).  Seat ``cut + 1`` of 3 is removed right at its placement turn."""
    pos = Position.start(("apollo", "minotaur", "pan"))
    for stn in ["b3,d3", "c2,c4"][:cut]:
        pos = pos.play(stn).position
    mine = pos.eliminate()
    theirs = eliminate(parse_sps(pos.sps()))
    assert mine is not None and not isinstance(theirs, int)
    assert mine.sps() == format_sps(theirs)
    assert Position.from_sps(mine.sps()) == mine
    assert engine_legal(mine) == reference_legal(mine.sps())
