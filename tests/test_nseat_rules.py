"""Three- and four-seat rules (SPEC.md section 15): one named test per ruling N1-N9 and worked case.

Positions are built square by square so each test says what stands where; the independent
oracle (``tests/oracle``) checks the same rulings on random games and the perft suites.
"""

from __future__ import annotations

import pytest

from santorini_server.rules import (
    IllegalTurnError,
    InvalidPositionError,
    MalformedPositionError,
    Position,
    check_gods,
    parse_square,
    perft,
)


def bits(*names: str) -> int:
    return sum(1 << parse_square(n) for n in names)


def pos(gods: str, *groups: str, to_move: int = 1, turn: int = 3, heights: str = "", domes: str = "",
        athena_up: bool = False, eliminated: str = "") -> Position:
    """``groups`` as "a1 b2" strings ("" unplaced); ``heights`` "c3=2 d4=1"; seats 1-based."""
    levels = {parse_square(k): int(v) for k, v in (h.split("=") for h in heights.split())}
    out = 0
    for seat in eliminated.split():
        out |= 1 << (int(seat) - 1)
    return Position(
        gods=tuple(gods.split("/")),
        heights=levels,
        domes=bits(*domes.split()),
        workers=tuple(bits(*g.split()) for g in groups),
        to_move=to_move - 1,
        turn=turn,
        athena_up=athena_up,
        eliminated=out,
    )


# --- N1: gods -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gods", "message"),
    [
        (("apollo", "mortal", "pan"), "every seat needs a god, not mortal"),
        (("apollo", "pan", "apollo"), "two seats have apollo"),
        (("apollo", "pan", "atlas", "athena", "demeter"), "2, 3 or 4 seats"),
        (("apollo", "zeus", "pan"), "unknown god 'zeus'"),
    ],
)
def test_n1_three_and_four_seats_play_with_distinct_gods(gods: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_gods(gods)


def test_n1_start_positions_of_section_15() -> None:
    three = Position.start(("apollo", "minotaur", "pan"))
    four = Position.start(("apollo", "minotaur", "pan", "athena"))
    assert three.sps() == "apollo/minotaur/pan;00000/00000/00000/00000/00000;-/-/-;1;1"
    assert four.sps() == "apollo/minotaur/pan/athena;00000/00000/00000/00000/00000;-/-;1;1"
    assert Position.from_sps(three.sps()) == three and Position.from_sps(four.sps()) == four
    assert (three.nseats, four.nseats, len(three.workers), len(four.workers)) == (3, 4, 3, 2)


# --- N2: order and placement ----------------------------------------------------------------------


def test_n2_three_seats_place_in_turn_and_the_round_counter_turns_over() -> None:
    p = Position.start(("apollo", "minotaur", "pan"))
    p = p.play("a1,a2").position
    assert p.sps().endswith(";a1,a2/-/-;2;1")
    p = p.play("c3,c4").position
    with pytest.raises(IllegalTurnError):
        p.play("a1,e5")  # a1 holds seat 1's worker
    p = p.play("e4,e5").position
    assert p.sps().endswith(";a1,a2/c3,c4/e4,e5;1;2")
    assert not p.is_placement


def test_n2_four_seats_seats_1_and_2_place_the_teams_and_seat_3_plays_first() -> None:
    p = Position.start(("apollo", "minotaur", "pan", "athena")).play("b3,d3").position
    p = p.play("c2,c4").position
    assert p.sps() == "apollo/minotaur/pan/athena;00000/00000/00000/00000/00000;b3,d3/c2,c4;3;1"
    assert not p.is_placement  # seat 3 moves a team-A worker seat 1 placed
    p = p.play("b3-b4+b5").position
    assert p.sps().endswith(";4;1")
    p = p.transitions()[0].position
    assert p.sps().endswith(";1;2")


def test_n2_placement_out_of_order_is_invalid() -> None:
    with pytest.raises(InvalidPositionError, match="seat 3 is to move but seat 2 places next"):
        Position.from_sps("apollo/minotaur/pan;00000/00000/00000/00000/00000;a1,a2/-/-;3;1")
    with pytest.raises(InvalidPositionError, match="has not placed but a later group has"):
        Position.from_sps("apollo/minotaur/pan;00000/00000/00000/00000/00000;a1,a2/-/c1,c2;2;1")


# --- N3: elimination (worked case C) --------------------------------------------------------------


def boxed_seat_2() -> Position:
    """3p, seat 2 (Pan) to move, boxed in on a5/b5 by domes; seat 3's workers stand next to it."""
    return pos("apollo/pan/atlas", "d1 e1", "a5 b5", "c4 c3", to_move=2, domes="a4 b4 c5")


def test_case_c_a_seat_with_no_turn_is_eliminated_and_its_squares_free_up() -> None:
    p = boxed_seat_2()
    assert p.is_lost() and p.legal_turns() == []
    after = p.eliminate()
    assert after is not None
    assert after.sps() == "apollo/pan/atlas;00440/44000/00100/00000/00011;d1,e1/x/c3,c4;3;3".replace(
        "00440/44000/00100/00000/00011", after.sps().split(";")[1])
    assert after.workers[1] == 0 and after.eliminated == 0b010 and after.to_move == 2
    assert after.live_seats == (0, 2)
    # the same round: seat 3 moves next, and b5 (seat 2's square) is free for it now
    assert "c4-b5+a5" in after.legal_turns()
    assert after.turn == 3
    nxt = after.play("c4-b5+a5").position
    assert nxt.to_move == 0 and nxt.turn == 4  # seat 2 skipped: seat 1, next round


def test_n3_the_last_seat_standing_wins() -> None:
    p = pos("apollo/pan/atlas", "d1 e1", "a5 b5", "", to_move=2, domes="a4 b4 c5 c4", eliminated="3")
    assert p.is_lost()
    assert p.eliminate() is None


def test_n3_an_eliminated_seat_three_passes_to_seat_one_in_the_next_round() -> None:
    p = pos("apollo/atlas/pan", "d1 e1", "c3 c2", "a5 b5", to_move=3, domes="a4 b4 c5", turn=7)
    after = p.eliminate()
    assert after is not None and after.to_move == 0 and after.turn == 8


def test_n3_eliminated_athena_restricts_nobody() -> None:
    # Athena (seat 3) moved up, then seat 1 ... a tag with Athena out of the game is invalid
    with pytest.raises(InvalidPositionError, match="athena\\[up\\] without Athena in the game"):
        Position.from_sps("apollo/pan/athena[up];00000/00000/00000/00000/00000;a1,a2/c3,c4/x;1;5")
    # Athena at seat 1 moved up; seat 2 is eliminated on its turn: seat 3 is still bound
    p = pos("athena/apollo/pan", "d1 e1", "a5 b5", "c3 c2", to_move=2, domes="a4 b4 c5", athena_up=True,
            heights="c4=1")
    after = p.eliminate()
    assert after is not None and after.to_move == 2 and after.athena_up
    assert all("c4" not in t.split("+")[0] for t in after.legal_turns())
    # and when the next seat is Athena, the tag is dropped (she is to move)
    p = pos("apollo/athena/pan", "a5 b5", "d1 e1", "c3 c2", to_move=1, domes="a4 b4 c5", athena_up=True)
    after = p.eliminate()
    assert after is not None and after.to_move == 1 and not after.athena_up


def test_n3_perft_elimination_consumes_no_depth() -> None:
    p = boxed_seat_2()
    after = p.eliminate()
    assert after is not None
    assert perft(p, 0) == 1
    assert perft(p, 1) == perft(after, 1) == after.count_turns() > 0
    assert perft(p, 2) == perft(after, 2)
    won = pos("apollo/pan/atlas", "d1 e1", "a5 b5", "", to_move=2, domes="a4 b4 c5 c4", eliminated="3")
    assert perft(won, 1) == 0 and perft(won, 0) == 1


# --- N5: four seats, two teams --------------------------------------------------------------------


def test_n5_a_seat_moves_either_team_worker_with_its_own_god() -> None:
    # team A = seats 1 and 3 share b2/d2; seat 3 is Artemis, seat 1 Apollo
    p = pos("apollo/minotaur/artemis/pan", "b2 d2", "b4 d4", to_move=3)
    movers = {t[:2] for t in p.legal_turns()}
    assert movers == {"b2", "d2"}
    assert any(t.count("-") == 2 for t in p.legal_turns())  # Artemis' second step: seat 3's own god


def test_n5_a_seat_with_no_turn_loses_for_its_team_and_nothing_is_removed() -> None:
    p = pos("apollo/pan/atlas/demeter", "a5 b5", "d1 e1", to_move=3, domes="a4 b4 c5 c4")
    assert p.is_lost()
    with pytest.raises(ValueError, match="only three-seat games eliminate"):
        p.eliminate()


# --- N6: opponents (worked cases A and B) ---------------------------------------------------------


def test_case_a_three_seat_apollo_swaps_with_either_opponent() -> None:
    p = pos("apollo/minotaur/pan", "c3 a1", "e1 e2", "c4 a5", to_move=1)
    turns = p.legal_turns()
    assert any(t.startswith("c3xc4") for t in turns)
    after = p.play(next(t for t in turns if t.startswith("c3xc4"))).position
    assert after.workers[2] == bits("c3", "a5") and after.workers[0] == bits("c4", "a1")


def test_case_b_four_seat_apollo_never_swaps_with_its_own_team() -> None:
    p = pos("apollo/minotaur/pan/athena", "c3 c4", "d3 a1", to_move=1)
    turns = p.legal_turns()
    assert not any(t.startswith(("c3xc4", "c3-c4")) for t in turns)
    assert any(t.startswith("c3xd3") for t in turns)
    after = p.play(next(t for t in turns if t.startswith("c3xd3"))).position
    assert after.workers == (bits("d3", "c4"), bits("c3", "a1"))


def test_n6_minotaur_push_square_must_be_free_of_every_seat() -> None:
    # seat 2 Minotaur on b3 pushes seat 1's c3 towards d3, where seat 3 stands: blocked
    p = pos("apollo/minotaur/pan", "c3 a1", "b3 e5", "d3 e1", to_move=2)
    assert not any(t.startswith("b3xc3") for t in p.legal_turns())
    free = pos("apollo/minotaur/pan", "c3 a1", "b3 e5", "d4 e1", to_move=2)
    push = next(t for t in free.legal_turns() if t.startswith("b3xc3"))
    after = free.play(push).position
    assert after.workers[0] == bits("d3", "a1") and after.workers[2] == bits("d4", "e1")


def test_n6_four_seat_minotaur_pushes_only_the_other_team() -> None:
    p = pos("apollo/minotaur/pan/athena", "c3 a1", "b3 e5", to_move=2)
    assert any(t.startswith("b3xc3") for t in p.legal_turns())
    p = pos("apollo/minotaur/pan/athena", "c3 b3", "a1 e5", to_move=1)
    assert not any("xb3" in t or "xc3" in t for t in p.legal_turns())


# --- N7: Athena (worked case D) -------------------------------------------------------------------


def test_case_d_four_seat_athena_binds_the_other_team_until_she_moves_again() -> None:
    # Athena is seat 2 (team B: b2, d4); she moves up b2-b3 (level 1)
    p = pos("apollo/athena/pan/demeter", "a5 e1", "b2 d4", to_move=2, heights="b3=1 a4=1 d1=1 e5=1")
    p = p.play("b2-b3+b2").position
    assert p.athena_up and p.to_move == 2 and p.no_up  # seat 3 (team A) is bound
    assert not any(t.startswith("a5-a4") for t in p.legal_turns())
    p = p.play("e1-e2+e1").position
    assert p.athena_up and p.to_move == 3 and not p.no_up  # seat 4, her teammate, is not
    assert any(t.startswith("d4-e5") for t in p.legal_turns())
    p = p.play("d4-e5+e4").position  # her teammate moving up never triggers her power
    assert p.athena_up and p.to_move == 0 and p.no_up  # seat 1 is still bound
    assert "athena[up]" in p.sps()
    p = p.play("a5-b5+a5").position
    assert p.to_move == 1 and not p.athena_up  # Athena to move: the tag is dropped


def test_n7_three_seat_athena_binds_both_other_seats() -> None:
    p = pos("athena/apollo/pan", "b2 a1", "c4 e1", "d1 e5", to_move=1, heights="b3=1 c5=1 d2=1 e4=1")
    p = p.play("b2-b3+b2").position
    assert p.no_up and not any(t.startswith("c4-c5") for t in p.legal_turns())
    p = p.play("c4-d4+c4").position
    assert p.no_up and not any(t.startswith(("d1-d2", "e5-e4")) for t in p.legal_turns())
    p = p.play("d1-c1+d1").position
    assert p.to_move == 0 and not p.athena_up


def test_n7_athena_teammate_tag_is_written_and_read() -> None:
    text = "apollo/athena[up]/pan/demeter;00000/10000/01000/00000/00000;a5,e1/b3,d4;4;2"
    p = Position.from_sps(text)
    assert p.sps() == text and p.athena_up and not p.no_up
    with pytest.raises(InvalidPositionError, match="only written while Athena is not to move"):
        Position.from_sps(text.replace(";4;2", ";2;2"))


# --- N8: Hermes -----------------------------------------------------------------------------------


def test_n8_four_seat_hermes_moves_the_team_s_two_workers() -> None:
    p = pos("apollo/hermes/pan/demeter", "a1 a5", "c3 e3", to_move=2)
    turns = p.legal_turns()
    both = [t for t in turns if "," in t.split("+")[0]]
    assert both, "Hermes moves both team workers in one power turn"
    assert all({t[:2] for t in turns} | set() for t in both)
    assert any(t.startswith("c3-") for t in turns) and any(t.startswith("e3-") for t in turns)


# --- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sps", "message"),
    [
        ("apollo/mortal/pan;00000/00000/00000/00000/00000;-/-/-;1;1", "not mortal"),
        ("apollo/pan/apollo;00000/00000/00000/00000/00000;-/-/-;1;1", "two seats have apollo"),
        ("apollo/pan/atlas;00000/00000/00000/00000/00000;a1,a2/x/c1,c2;2;2", "seat 2 is to move but has been eliminated"),
        ("apollo/pan/atlas;00000/00000/00000/00000/00000;a1,a2/x/x;1;2", "at least two seats"),
        ("apollo/pan/atlas;00000/00000/00000/00000/00000;a1,a2/a2,b2/c1,c2;1;2", "two workers on a2"),
    ],
)
def test_nseat_sps_problems_are_named(sps: str, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_sps(sps)


@pytest.mark.parametrize(
    ("sps", "message"),
    [
        ("apollo/pan/atlas;00000/00000/00000/00000/00000;-/-/-;4;1", "side to move field '4': expected a seat 1-3"),
        ("apollo/pan/atlas;00000/00000/00000/00000/00000;a1,a2/b1,b2/c1,c2/d1,d2;1;2", "3 gods need 3 worker groups"),
        ("apollo/pan/atlas/demeter;00000/00000/00000/00000/00000;a1,a2/b1,b2/c1,c2;1;2", "4 gods need 2 worker groups"),
        ("apollo/pan/atlas/demeter;00000/00000/00000/00000/00000;a1,a2/x;1;2", "only written with three seats"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/x;1;1", "only written with three seats"),
    ],
)
def test_the_seat_count_shapes_the_grammar(sps: str, message: str) -> None:
    # the number of gods fixes the number of groups, where 'x' may stand, and the seats that may move
    with pytest.raises(MalformedPositionError, match=message):
        Position.from_sps(sps)


def test_nseat_random_games_agree_with_every_fast_path() -> None:
    """Random three- and four-seat games: SPS round trips, sampled legal turns replay to the same
    successor through ``play`` (and its plain-turn fast path), counting agrees with generation,
    every successor is valid, and eliminations keep the position valid."""
    import random

    from santorini_server.rules.movegen import RawTurn, generate, plain_turn

    rng = random.Random(13)
    gods_pool = ["apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "hermes", "minotaur", "pan", "prometheus"]
    eliminations = 0
    for game in range(24):
        p = Position.start(tuple(rng.sample(gods_pool, 3 if game % 2 else 4)))
        for _ in range(80):
            assert Position.from_sps(p.sps()) == p and p.problems() == []
            legal = list(generate(p))
            assert p.count_turns() == len(legal) and p.is_lost() == (not legal)
            if not legal:
                if p.nseats != 3:
                    break
                nxt = p.eliminate()
                eliminations += 1
                if nxt is None:
                    break
                p = nxt
                continue
            for raw in rng.sample(legal, min(8, len(legal))):
                t = p.play(raw.stn)
                assert (t.stn, t.win, t.position) == (raw.stn, raw.win, p.successor(raw.state))
                fast = plain_turn(p, raw.stn)
                assert fast is None or RawTurn(raw.stn, *fast) == raw
            raw = rng.choice(legal)
            if raw.win:
                break
            p = p.successor(raw.state)
    assert eliminations > 0  # the sample reaches three-seat eliminations


def test_nseat_positions_round_trip_through_random_games() -> None:
    import random

    rng = random.Random(13)
    for gods in (("apollo", "minotaur", "pan"), ("athena", "hermes", "prometheus", "artemis"), ("demeter", "atlas", "athena")):
        for _ in range(5):
            p = Position.start(gods)
            for _ in range(60):
                assert Position.from_sps(p.sps()) == p
                moves = p.transitions()
                if not moves:
                    if p.nseats != 3:
                        break
                    nxt = p.eliminate()
                    if nxt is None:
                        break
                    p = nxt
                    continue
                t = rng.choice(moves)
                assert p.play(t.stn).position == t.position
                if t.win:
                    break
                p = t.position
