"""Every ruling of SPEC.md section 1 pinned on a concrete position, plus the worked cases.

Each test names the ruling it holds; positions are built with ``tests.positions.sps`` so the
squares in a test read like the rulebook sentence above it.
"""

from __future__ import annotations

import pytest

from santorini_server.rules import (
    WIN_CLIMB,
    WIN_NONE,
    WIN_PAN,
    IllegalTurnError,
    MalformedTurnError,
    Position,
    divide,
    perft,
    ruleset_of,
)
from santorini_server.rules.movegen import generate
from santorini_server.rules.squares import NEIGHBOURS, parse_square

from .positions import pos, sps


def turns(p: Position) -> set[str]:
    return set(p.legal_turns())


def legal(p: Position, stn: str) -> bool:
    try:
        p.play(stn)
    except IllegalTurnError:
        return False
    return True


def starting(p: Position, prefix: str) -> set[str]:
    return {t for t in p.legal_turns() if t.startswith(prefix)}


# --- board, setup, turns ------------------------------------------------------------------------


def test_neighbours_are_king_moves_without_wraparound() -> None:
    assert NEIGHBOURS[parse_square("a1")].bit_count() == 3
    assert NEIGHBOURS[parse_square("c3")].bit_count() == 8
    assert NEIGHBOURS[parse_square("e3")].bit_count() == 5
    assert not NEIGHBOURS[parse_square("e3")] >> parse_square("a4") & 1  # no wrap to the next row


def test_placement_both_workers_in_one_turn_player1_first() -> None:
    start = Position.start()
    assert start.count_turns() == 300  # C(25, 2)
    after = start.play("d3,b3")  # any order accepted, canonical order recorded
    assert after.stn == "b3,d3"
    assert after.position.sps() == "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1"
    assert after.position.count_turns() == 253  # C(23, 2): not on player 1's workers
    second = after.position.play("c2,c4").position
    assert second.sps() == "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"


def test_placement_not_on_a_worker_or_dome_nor_twice_the_same_square() -> None:
    p = pos(domes="a1", p1="b3,d3", stm=2)
    assert not legal(p, "b3,c2")
    assert not legal(p, "a1,c2")
    assert not legal(p, "c2,c2")
    assert legal(p, "c2,c4")


def test_placement_phase_rejects_moves_and_play_phase_rejects_placements() -> None:
    with pytest.raises(IllegalTurnError, match="place both workers first"):
        Position.start().play("b3-b4+c5")
    with pytest.raises(IllegalTurnError, match="your workers are placed: move one, then build"):
        pos(p1="b3,d3", p2="c2,c4").play("a1,a2")


def test_move_at_most_one_level_up_worked_case_1() -> None:
    p = pos(h={"b1": 1, "b2": 2}, p1="a1,e5", p2="c5,e1")
    assert legal(p, "a1-b1+a1")
    assert not legal(p, "a1-b2+a1")
    assert p.count_turns() == 26


def test_move_down_any_number_of_levels_is_not_a_win_for_a_mortal() -> None:
    p = pos(h={"a1": 3}, p1="a1,e5", p2="c5,e1")
    t = p.play("a1-b1+a1")
    assert t.win == WIN_NONE


def test_no_entry_to_occupied_or_domed_squares() -> None:
    p = pos(domes="b2", p1="a1,e5", p2="b1,c5")
    assert not legal(p, "a1-b2+a1")
    assert not legal(p, "a1-b1+a1")
    assert legal(p, "a1-a2+a1")


def test_build_on_any_free_neighbour_of_the_moved_worker_including_the_vacated_square() -> None:
    p = pos(domes="c3", p1="a1,e5", p2="c1,c5")
    # b2's neighbours: c1 holds a worker, c3 a dome; a1 was just vacated
    assert starting(p, "a1-b2") == {"a1-b2+a1", "a1-b2+a2", "a1-b2+a3", "a1-b2+b1", "a1-b2+b3", "a1-b2+c2"}


def test_build_on_level_3_is_a_dome_and_domes_close_the_square() -> None:
    p = pos(h={"b2": 3}, p1="a1,e5", p2="c5,e1")
    after = p.play("a1-a2+b2").position
    assert after.level(parse_square("b2")) == 4
    assert after.sps().split(";")[1] == "00000/00000/00000/04000/00000"
    assert not legal(after.play("e1-d1+e1").position, "a2-b2+a1")  # nobody enters a dome
    assert p.play("a1-a2+b2D").stn == "a1-a2+b2"  # a D on level 3 is just the ordinary dome


def test_mortal_cannot_dome_below_level_3() -> None:
    p = pos(p1="a1,e5", p2="c5,e1")
    assert not legal(p, "a1-a2+b2D")


def test_climbing_onto_level_3_wins_at_once_without_build_worked_case_2() -> None:
    p = pos(h={"b2": 2, "c3": 3}, domes="b3 b4 c2 c4 d2 d3 d4", p1="b2,e5", p2="a5,e1")
    t = p.play("b2-c3")
    assert (t.win, t.termination) == (WIN_CLIMB, "climb")
    assert not legal(p, "b2-c3+b2")  # the turn ends on the winning move
    assert p.count_turns() == 24


def test_moving_3_to_3_is_not_moving_up() -> None:
    p = pos(h={"a1": 3, "b1": 3}, p1="a1,e5", p2="c5,e1")
    assert p.play("a1-b1+a1").win == WIN_NONE
    assert not legal(p, "a1-b1")


def test_no_complete_turn_loses_before_moving_worked_case_3() -> None:
    p = pos(domes="a2 b2 c2 c1", p1="a1,b1", p2="e5,e4")
    assert p.is_lost()
    assert p.transitions() == []


def test_turn_counter_counts_full_turns() -> None:
    p = pos(p1="b3,d3", p2="c2,c4")
    a = p.play("b3-b4+c5").position
    assert (a.player, a.turn) == (2, 2)
    b = a.play("c4-c5+b5").position
    assert (b.player, b.turn) == (1, 3)
    assert b.sps() == "mortal/mortal;01100/00000/00000/00000/00000;b4,d3/c2,c5;1;3"


def test_two_players_may_not_share_a_god_but_may_face_a_mortal() -> None:
    with pytest.raises(ValueError, match="share"):
        Position.start(("pan", "pan"))
    assert Position.start(("pan", "mortal")).gods == ("pan", "mortal")
    assert Position.start(("mortal", "mortal")).count_turns() == 300


# --- Apollo -------------------------------------------------------------------------------------


def test_apollo_swaps_into_an_opponent_worker_worked_case_4() -> None:
    p = pos("apollo/mortal", p1="c3,e5", p2="c4,a1")
    builds = {t.split("+")[1] for t in starting(p, "c3xc4")}
    assert builds == {"b3", "b4", "b5", "c5", "d3", "d4", "d5"}
    after = p.play("c3xc4+b4").position
    assert after.sps().split(";")[2] == "c4,e5/a1,c3"
    assert p.count_turns() == 72


def test_apollo_writes_x_and_a_dash_is_normalised() -> None:
    p = pos("apollo/mortal", p1="c3,e5", p2="c4,a1")
    assert p.play("c3-c4+b4").stn == "c3xc4+b4"
    assert p.play("c3xd3+c3").stn == "c3-d3+c3"


def test_apollo_only_swaps_with_opponents_and_obeys_the_climb_limit() -> None:
    p = pos("apollo/mortal", h={"c4": 2}, p1="c3,d3", p2="c4,a1")
    assert not legal(p, "c3xd3+c2")  # own worker
    assert not starting(p, "c3xc4")  # +2 levels
    assert not any("x" in t for t in p.legal_turns() if t.startswith("d3"))


def test_apollo_forcing_an_opponent_onto_level_3_is_no_win_for_anyone() -> None:
    p = pos("apollo/mortal", h={"c3": 3, "c4": 3}, p1="c3,e5", p2="c4,a1")
    t = p.play("c3xc4+b4")  # 3 -> 3: not up; the opponent is forced from 3 to 3
    assert t.win == WIN_NONE
    q = pos("apollo/mortal", h={"c3": 3}, p1="c3,e5", p2="c4,a1")
    t = q.play("c3xc4+b4")  # the opponent is forced up onto level 3
    assert t.win == WIN_NONE
    assert not t.position.is_lost()
    assert all(x.win == WIN_NONE for x in t.position.transitions() if x.stn.startswith("c3-"))


def test_apollo_wins_by_swapping_up_onto_level_3() -> None:
    p = pos("apollo/mortal", h={"c3": 2, "c4": 3}, p1="c3,e5", p2="c4,a1")
    assert p.play("c3xc4").win == WIN_CLIMB


def test_apollo_swap_that_leaves_no_build_is_not_a_turn() -> None:
    # Apollo at a1 swaps with b1; every other neighbour of b1 is domed: no build, no turn.
    p = pos("apollo/mortal", domes="a2 b2 c2 c1", p1="a1,e5", p2="b1,e3")
    assert not starting(p, "a1xb1")
    assert not legal(p, "a1xb1+a1")


# --- Artemis ------------------------------------------------------------------------------------


def test_artemis_worked_case_7() -> None:
    p = pos("artemis/mortal", h={"b1": 1, "c1": 2}, p1="a1,e5", p2="a5,e3")
    assert legal(p, "a1-b1-c1+d1")
    assert not legal(p, "a1-b1-a1+a2")
    assert p.count_turns() == 205


def test_artemis_each_step_is_a_normal_move() -> None:
    p = pos("artemis/mortal", h={"b1": 1, "c1": 3, "b2": 2}, p1="a1,e5", p2="a5,e3")
    assert legal(p, "a1-b1-b2+a1")  # 0 -> 1 -> 2
    assert not legal(p, "a1-b1-c1")  # 1 -> 3
    q = pos("artemis/mortal", h={"a1": 2, "b1": 1, "c1": 3}, p1="a1,e5", p2="a5,e3")
    assert not legal(q, "a1-b1-c1")  # 2 -> 1 -> 3


def test_artemis_first_step_up_onto_3_wins_with_no_second_step() -> None:
    p = pos("artemis/mortal", h={"a1": 2, "b1": 3, "c1": 3}, p1="a1,e5", p2="a5,e3")
    assert p.play("a1-b1").win == WIN_CLIMB
    assert not legal(p, "a1-b1-c1")


def test_artemis_second_step_up_onto_3_wins() -> None:
    p = pos("artemis/mortal", h={"a1": 2, "b1": 2, "c1": 3}, p1="a1,e5", p2="a5,e3")
    assert p.play("a1-b1-c1").win == WIN_CLIMB  # 2 -> 2 -> 3
    q = pos("artemis/mortal", h={"a1": 3, "b1": 2, "c1": 3}, p1="a1,e5", p2="a5,e3")
    assert q.play("a1-b1-c1").win == WIN_CLIMB  # 3 -> 2 -> 3 (a worker once forced onto 3)
    r = pos("artemis/mortal", h={"a1": 3, "b1": 3, "c1": 3}, p1="a1,e5", p2="a5,e3")
    assert r.play("a1-b1-c1+d1").win == WIN_NONE  # 3 -> 3 -> 3 climbs nothing
    assert not legal(r, "a1-b1-c1")


def test_artemis_builds_on_the_start_or_the_intermediate_square() -> None:
    p = pos("artemis/mortal", p1="a1,e5", p2="a5,e3")
    assert legal(p, "a1-b1-c1+b1")
    assert legal(p, "a1-b2-c2+b2")
    assert legal(p, "a1-b1-b2+a1")


# --- Athena -------------------------------------------------------------------------------------


def test_athena_up_forbids_opponent_climbing_worked_case_6() -> None:
    p = pos("mortal/athena[up]", h={"b1": 1}, p1="a1,e5", p2="c5,e1")
    assert not legal(p, "a1-b1+a1")
    assert legal(p, "a1-a2+a1")
    assert p.count_turns() == 29


def test_placements_from_an_opening_are_checked_by_the_referees_check() -> None:
    """``Position.play`` (canonical placements take a fast path) against domes and workers."""
    p = pos(h={"b3": 2}, domes="c3", p1="a1,e5", stm=2, turn=1)
    assert p.play("b3,d3").stn == "b3,d3"  # a built square is free to stand on
    assert p.play("d3,b3").stn == "b3,d3"  # any order, written canonically
    for taken in ("c3,d3", "a1,d3", "d3,d3"):
        with pytest.raises(IllegalTurnError):
            p.play(taken)
    assert not p.is_lost()
    domes = " ".join(f"{f}{r}" for f in "abcde" for r in "12345" if f"{f}{r}" not in ("a1", "e5", "c3"))
    full = pos(domes=domes, p1="a1,e5", stm=2, turn=1)
    assert full.is_lost()  # one free square: no placement


def test_athena_up_is_enforced_by_the_referees_check_too() -> None:
    """``Position.play`` (the per-turn check, with its plain-turn fast path) applies the ruling."""
    p = pos("mortal/athena[up]", h={"b1": 1}, p1="a1,e5", p2="c5,e1")
    with pytest.raises(IllegalTurnError):
        p.play("a1-b1+a1")
    assert not p.play("a1-a2+a1").position.athena_up
    climber = pos("pan/athena[up]", h={"a1": 2, "b2": 3}, p1="a1,e5", p2="c5,e1")
    with pytest.raises(IllegalTurnError):
        climber.play("a1-b2")
    athena = pos("mortal/athena", h={"d5": 1, "c4": 2, "d4": 3}, p1="a1,e5", p2="c5,c4", stm=2)
    assert athena.play("c4-d4").position.athena_up  # her winning climb carries the state too


def test_athena_moving_up_sets_the_state_and_only_for_one_turn() -> None:
    p = pos("mortal/athena", h={"d5": 1}, p1="a1,e5", p2="c5,e1", stm=2)
    up = p.play("c5-d5+c5").position
    assert up.athena_up and up.sps().startswith("mortal/athena[up];")
    level = p.play("c5-b5+c5").position
    assert not level.athena_up
    after = up.play("a1-a2+a1").position  # the opponent's turn passes: the state is gone
    assert not after.athena_up and after.sps().startswith("mortal/athena;")


def test_athena_blocks_every_step_of_every_opponent_worker_but_not_level_or_down_moves() -> None:
    artemis = pos("artemis/athena[up]", h={"b1": 1, "a2": 1}, p1="a1,e5", p2="c5,e1")
    assert not any(t.startswith(("a1-b1", "a1-a2")) for t in artemis.legal_turns())
    assert not any("-a2" in t for t in artemis.legal_turns() if t.startswith("a1-b2"))  # 2nd step up
    apollo = pos("apollo/athena[up]", h={"b1": 1}, p1="a1,e5", p2="b1,c5")
    assert not starting(apollo, "a1xb1")
    minotaur = pos("minotaur/athena[up]", h={"b2": 1}, p1="a1,e5", p2="b2,c5")
    assert not starting(minotaur, "a1xb2")
    hermes = pos("hermes/athena[up]", h={"b1": 1}, p1="a1,e5", p2="c5,e1")
    assert not starting(hermes, "a1-b1")
    down = pos("mortal/athena[up]", h={"a1": 2, "b1": 1}, p1="a1,e5", p2="c5,e1")
    assert legal(down, "a1-b1+a1") and legal(down, "a1-a2+a1")


def test_athena_does_not_stop_pans_drop_win_but_stops_the_climb() -> None:
    p = pos("pan/athena[up]", h={"a1": 2, "b2": 3}, p1="a1,e5", p2="c5,e1")
    assert p.play("a1-b1").win == WIN_PAN
    assert not legal(p, "a1-b2")


def test_athena_forced_up_does_not_trigger() -> None:
    # Minotaur pushes Athena's worker up; after Minotaur's turn Athena is to move (no state), and
    # after Athena's level move the state stays off.
    p = pos("minotaur/athena", h={"c4": 2}, p1="c2,e5", p2="c3,a5")
    after = p.play("c2xc3+b2").position
    assert not after.athena_up
    t = after.play("c4-d4+c4")  # level 2 -> 0 : down, not up
    assert not t.position.athena_up


# --- Atlas --------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [0, 1, 2])
def test_atlas_domes_at_any_level(level: int) -> None:
    p = pos("atlas/mortal", h={"b2": level} if level else {}, p1="a1,e5", p2="c5,e1")
    after = p.play("a1-a2+b2D").position
    assert after.level(parse_square("b2")) == 4
    assert legal(p, "a1-a2+b2")  # he may still build blocks


def test_atlas_dome_on_level_3_is_written_without_d() -> None:
    p = pos("atlas/mortal", h={"b2": 3}, p1="a1,e5", p2="c5,e1")
    assert p.play("a1-a2+b2D").stn == "a1-a2+b2"
    assert "a1-a2+b2D" not in turns(p)


def test_a_low_dome_is_a_dome_for_every_purpose() -> None:
    p = pos("atlas/minotaur", p1="a1,e5", p2="c2,c4")
    after = p.play("a1-b1+b2D").position.play("c4-d4+c4").position
    assert not legal(after, "b1-b2+a1")  # no entry
    assert not any(t.endswith("+b2") for t in after.legal_turns())  # no build
    m = pos("minotaur/mortal", domes="d3", p1="b1,e5", p2="c2,a5")
    assert not starting(m, "b1xc2")  # no push into it (b1 -> c2 pushes to d3)


# --- Demeter ------------------------------------------------------------------------------------


def test_demeter_second_build_on_a_different_square_in_canonical_order() -> None:
    p = pos("demeter/mortal", p1="a1,e5", p2="c5,e1")
    assert legal(p, "a1-a2+a1+b2")
    assert p.play("a1-a2+b2+a1").stn == "a1-a2+a1+b2"
    assert not legal(p, "a1-a2+b2+b2")
    n = len(starting(p, "a1-a2"))
    assert n == 5 + 10  # 5 single builds, C(5, 2) pairs


def test_demeter_second_build_may_dome_a_level_3_square() -> None:
    p = pos("demeter/mortal", h={"b2": 3}, p1="a1,e5", p2="c5,e1")
    after = p.play("a1-a2+a1+b2").position
    assert after.level(parse_square("b2")) == 4 and after.level(parse_square("a1")) == 1


# --- Hephaestus ---------------------------------------------------------------------------------


def test_hephaestus_second_block_on_the_same_square_only_as_a_block() -> None:
    p = pos("hephaestus/mortal", h={"b1": 1, "b2": 2, "a1": 3}, p1="a2,e5", p2="c5,e1")
    assert p.play("a2-a3+a2+a2").position.level(parse_square("a2")) == 2  # 0 -> 2
    q = pos("hephaestus/mortal", h={"b1": 1, "b2": 2}, p1="a1,e5", p2="c5,e1")
    assert q.play("a1-a2+b1+b1").position.level(parse_square("b1")) == 3  # 1 -> 3
    assert not legal(q, "a1-a2+b2+b2")  # 2 -> 3 -> dome
    assert not legal(q, "a1-a2+a1+b1")  # not a Demeter


# --- Hermes -------------------------------------------------------------------------------------


def test_hermes_normal_turn_may_climb_and_win() -> None:
    p = pos("hermes/mortal", h={"a1": 2, "b1": 3}, p1="a1,e5", p2="c5,e3")
    assert p.play("a1-b1").win == WIN_CLIMB


def test_hermes_power_moves_any_number_of_same_level_steps_then_one_build() -> None:
    p = pos("hermes/mortal", h={"b2": 1, "c2": 1, "d2": 1}, p1="a1,e5", p2="a5,c4")
    assert legal(p, "a1-e1+d1")  # a1 -> b1 -> c1 -> d1 -> e1 on level 0
    assert legal(p, "a1-e1,e5-d5+e4")  # both workers move; the build is by either
    assert legal(p, "a1-e1,e5-d5+c1") is False  # c1 is next to neither final square
    assert legal(p, "a1-b1+c1")


def test_hermes_power_labels_by_endpoints() -> None:
    # vacated {a1, e5} sorted, paired with occupied {d5, e1} sorted: not a literal path
    p = pos("hermes/mortal", p1="a1,e5", p2="a5,c3")
    assert p.play("e5-d5,a1-e1+e2").stn == "a1-d5,e5-e1+e2"
    assert p.play("a1-e1,e5-d5+e2").stn == "a1-d5,e5-e1+e2"
    assert p.play("a1-d5,e5-e1+e2").stn == "a1-d5,e5-e1+e2"
    # a worker that ends where it started is omitted; a worker moving twice is one pair
    assert p.play("a1-b1,b1-c1+d1").stn == "a1-c1+d1"


def test_hermes_zero_moves_then_a_build_is_a_turn() -> None:
    p = pos("hermes/mortal", h={"a2": 2, "b2": 2, "b1": 2}, p1="a1,e5", p2="c5,e3")
    assert "+a2" in turns(p)
    walled = pos("hermes/mortal", h={"a2": 2, "b2": 2, "b1": 2, "d5": 2, "d4": 2, "e4": 2}, p1="a1,e5", p2="c5,e3")
    # no worker can move at all (every neighbour is two levels up), yet Hermes can build
    assert not any("-" in t for t in walled.legal_turns())
    assert not walled.is_lost()
    assert turns(walled) == {"+a2", "+b1", "+b2", "+d4", "+d5", "+e4"}


def test_hermes_workers_block_each_other() -> None:
    # a level-0 corridor a1-b1-c1-d1 (row 2 and e1 domed): b1 must move on before a1 can follow
    p = pos("hermes/mortal", domes="a2 b2 c2 d2 e2 e1", p1="a1,b1", p2="a5,e5")
    assert legal(p, "a1-c1,b1-d1+b1")
    # the same workers in a two-square pocket cannot move at all: only builds remain
    q = pos("hermes/mortal", domes="a2 b2 c2 c1", p1="a1,b1", p2="a5,e5")
    assert not any("-" in t for t in q.legal_turns())
    assert turns(q) == set()  # and nothing to build on either: this Hermes has lost
    assert q.is_lost()


def test_hermes_power_turn_workers_on_different_levels_keep_their_levels() -> None:
    p = pos("hermes/mortal", h={"d1": 1, "e1": 1, "d2": 1}, p1="a1,d1", p2="a5,e5")
    assert legal(p, "a1-b1,d1-e1+c1")
    assert legal(p, "d1-c1+d1")  # a normal move down, adjacent
    assert not legal(p, "d1-b1+a2")  # not adjacent and not at d1's level: no power move
    assert not legal(p, "a1-e1+d1")  # e1 is level 1: the level-0 worker cannot get there
    q = pos("hermes/mortal", h={"c1": 1}, p1="a1,e5", p2="a5,e3")
    assert legal(q, "a1-d1+e1")  # a1 b2 c2 d1 all level 0, round the level-1 c1
    assert not legal(q, "a1-c1+d1")  # c1 is level 1 and not next to a1


# --- Minotaur -----------------------------------------------------------------------------------


def test_minotaur_push_onto_level_3_is_legal_and_wins_nothing_worked_case_5() -> None:
    p = pos("minotaur/mortal", h={"c4": 3}, p1="c2,e5", p2="c3,a5")
    t = p.play("c2xc3+b2")
    assert t.win == WIN_NONE
    assert t.position.sps().split(";")[2] == "c3,e5/a5,c4"


def test_minotaur_push_must_land_on_the_board_on_a_free_undomed_square() -> None:
    edge = pos("minotaur/mortal", p1="c3,e5", p2="c4,a1")
    assert legal(edge, "c3xc4+c3")  # c4 -> c5
    off = pos("minotaur/mortal", p1="c4,e1", p2="c5,a1")
    assert not starting(off, "c4xc5")  # c6 is off the board
    diag = pos("minotaur/mortal", p1="b2,e5", p2="c3,a5")
    assert legal(diag, "b2xc3+b2")  # diagonal push to d4
    blocked = pos("minotaur/mortal", p1="b2,d4", p2="c3,a5")
    assert not starting(blocked, "b2xc3")  # d4 holds a worker


def test_minotaur_builds_on_the_vacated_square_not_on_the_push_square() -> None:
    p = pos("minotaur/mortal", p1="c2,e5", p2="c3,a5")
    assert legal(p, "c2xc3+c2")
    assert not legal(p, "c2xc3+c4")


def test_minotaur_wins_by_stepping_up_onto_3() -> None:
    p = pos("minotaur/mortal", h={"c2": 2, "c3": 3}, p1="c2,e5", p2="c3,a5")
    assert p.play("c2xc3").win == WIN_CLIMB


# --- Pan ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "end", "wins"),
    [(2, 0, True), (3, 1, True), (3, 0, True), (3, 2, False), (2, 1, False), (1, 0, False)],
)
def test_pan_wins_by_dropping_two_or_more_levels(start: int, end: int, wins: bool) -> None:
    h = {"a1": start}
    if end:
        h["b1"] = end
    p = pos("pan/mortal", h=h, p1="a1,e5", p2="c5,e3")
    if wins:
        t = p.play("a1-b1")
        assert (t.win, t.termination) == (WIN_PAN, "pan-drop")
    else:
        assert p.play("a1-b1+a1").win == WIN_NONE
        assert not legal(p, "a1-b1")


def test_pan_keeps_the_climbing_win() -> None:
    p = pos("pan/mortal", h={"a1": 2, "b1": 3}, p1="a1,e5", p2="c5,e3")
    assert p.play("a1-b1").win == WIN_CLIMB


def test_pan_forced_down_does_not_win() -> None:
    # Minotaur steps 3 -> 3 and pushes Pan's worker from level 3 down to level 0: no Pan win.
    p = pos("minotaur/pan", h={"c2": 3, "c3": 3}, p1="c2,e5", p2="c3,a5")
    t = p.play("c2xc3+b2")
    assert t.win == WIN_NONE and not t.position.is_lost()


# --- Prometheus ---------------------------------------------------------------------------------


def test_prometheus_build_move_build_without_moving_up() -> None:
    p = pos("prometheus/mortal", h={"b1": 1}, p1="b2,e5", p2="c4,e1")
    assert legal(p, "+a1b2-a2+a1")  # pre-build and final build on the same square
    assert not legal(p, "+a1b2-b1+c1")  # b1 is up
    assert legal(p, "b2-b1+c1")  # without a pre-build he may climb


def test_prometheus_pre_building_the_destination_makes_it_one_higher() -> None:
    p = pos("prometheus/mortal", h={"b2": 1, "b1": 0}, p1="b2,e5", p2="c4,e1")
    assert legal(p, "+b1b2-b1+c1")  # b1 becomes level 1 = b2's level: not up
    q = pos("prometheus/mortal", p1="b2,e5", p2="c4,e1")
    assert not legal(q, "+b1b2-b1+c1")  # b1 becomes level 1 > 0: up


def test_prometheus_pre_build_that_leaves_no_non_upward_move_is_not_a_turn() -> None:
    # Worker on a1 at level 0; a2 and b2 level 1, b1 level 0: pre-building b1 leaves no level move.
    p = pos("prometheus/mortal", h={"a2": 1, "b2": 1}, p1="a1,e5", p2="c5,e3")
    assert not any(t.startswith("+b1a1") for t in p.legal_turns())
    assert any(t.startswith("+a2a1-b1") for t in p.legal_turns())


def test_prometheus_cannot_build_on_his_own_pre_built_dome() -> None:
    p = pos("prometheus/mortal", h={"a2": 3}, p1="a1,e5", p2="c5,e3")
    assert legal(p, "+a2a1-b1+a1")
    assert not legal(p, "+a2a1-b1+a2")


# --- perft of the base game ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1", [300, 75900]),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2", [68, 5156, 350208]),
        ("mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22", [50, 2220, 78262]),
        ("mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;2;22", [49, 2193, 80189]),
    ],
)
def test_base_perft(text: str, counts: list[int]) -> None:
    p = Position.from_sps(text)
    assert [perft(p, d + 1) for d in range(len(counts))] == counts


def test_base_perft_depth_4_of_the_cross_position() -> None:
    p = Position.from_sps("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    assert perft(p, 4) == 24_545_388


def test_protocol_sample_game_replays_to_its_final_position() -> None:
    moves = (  # noqa: SIM905 - the game reads as the record writes it
        "b3,d3 c2,c4 b3-b4+c5 c4-c5+b5 b4-b5+a5 c5-d5+e5 b5-c4+c5 d5-e5+e4 c4-b5+c4 c2-b2+b3 "
        "d3-c4+d5 b2-b3+a2 b5-c5+b5 b3-c2+b2 c4-b5+a4 c2-b2+a1 b5-c4+b5 b2-c2+c3 c5-b5"
    ).split()
    p = Position.start()
    for m in moves[:-1]:
        p = p.play(m).position
    assert len(p.legal_turns()) == 54  # the SGN example game (SPEC.md section 13.2): 54 legal turns, one of them wins
    t = p.play(moves[-1])
    p = t.position
    assert t.win == WIN_CLIMB
    assert p.sps() == "mortal/mortal;13211/10101/01100/11000/10000;b5,c4/c2,e5;2;10"


def test_malformed_turns_are_rejected_with_the_input_quoted() -> None:
    p = pos(p1="b3,d3", p2="c2,c4")
    for bad in ["b3-c3+", "b3c3+d4", "b3-c3^d4", "B3-C3+D4", "b3-c6+d4", "b3-c3+d4d", "", "b3-c3+d4\n"]:
        with pytest.raises(MalformedTurnError, match="malformed turn"):
            p.play(bad)


def test_the_sps_helper_of_these_tests_spells_positions_as_sps_does() -> None:
    assert sps(p1="b3,d3", p2="c2,c4") == "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"


# --- Position as a value --------------------------------------------------------------------------


def test_keyword_constructor_builds_what_sps_spells_and_checks_it() -> None:
    p = Position(
        gods=("athena", "mortal"),
        heights={parse_square("b2"): 2, parse_square("a1"): 3},
        domes=1 << parse_square("e5"),
        workers=(1 << parse_square("b3") | 1 << parse_square("d3"), 1 << parse_square("c2") | 1 << parse_square("c4")),
        to_move=1,
        turn=3,
        athena_up=True,
    )
    assert p == Position.from_sps("athena[up]/mortal;00004/00000/00000/02000/30000;b3,d3/c2,c4;2;3")
    assert str(p) == p.sps() and p.level(parse_square("e5")) == 4 and p.player == 2
    with pytest.raises(ValueError, match="level 4 out of range"):
        Position(heights={0: 4})
    with pytest.raises(ValueError, match="player 1 must have 0 or 2 workers, has 1"):
        Position(workers=(1, 0), to_move=1)


def test_positions_are_immutable_values() -> None:
    p = Position.start()
    with pytest.raises(AttributeError, match="immutable"):
        p.turn = 2  # type: ignore[misc]
    assert p != "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"
    assert hash(p) == hash(Position.from_sps(p.sps()))


def test_successor_is_the_position_after_a_generated_turn() -> None:
    p = pos(p1="b3,d3", p2="c2,c4")
    after = {t.stn: t.position for t in p.transitions()}
    for raw in generate(p):
        assert p.successor(raw.state) == after[raw.stn] == p.play(raw.stn).position


def test_perft_depth_zero_is_one_and_divide_needs_a_positive_depth() -> None:
    # SPEC.md section 15.5: perft(p, 0) = 1 always (the empty sequence), for every seat count
    p = Position.start()
    assert perft(p, 0) == 1
    with pytest.raises(ValueError, match="`depth` must be at least 0, got -1"):
        perft(p, -1)
    with pytest.raises(ValueError, match="`depth` must be at least 1, got 0"):
        divide(p, 0)
    assert sum(divide(p, 2).values()) == perft(p, 2)


def test_the_ruleset_follows_from_the_gods() -> None:
    assert ruleset_of("mortal", "mortal") == "santorini-base-v1"
    assert ruleset_of("mortal", "pan") == "santorini-simple-gods-v1"
