"""SPS and STN: valid and invalid tokens per error class, canonical spellings, round trips."""

from __future__ import annotations

import pytest

from santorini_server.rules import (
    START_SPS,
    IllegalTurnError,
    InvalidPositionError,
    MalformedPositionError,
    MalformedTurnError,
    NotationError,
    Position,
    canonical_stn,
    format_sps,
    format_stn,
    parse_sps,
    parse_square,
    parse_stn,
)
from santorini_server.rules.sps import MAX_TURN, SpsFields, read_sps
from santorini_server.rules.squares import BB_ALL
from santorini_server.rules.stn import first_step_masks

VALID_SPS = [
    START_SPS,
    "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2",
    "mortal/mortal;01100/00000/00000/00000/00000;b4,d3/c2,c5;1;3",
    "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4",
    "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22",
    "apollo/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1",
    "hermes/prometheus;00000/00000/00000/00000/00000;-/-;1;1",
]


@pytest.mark.parametrize("text", VALID_SPS)
def test_valid_sps_round_trips(text: str) -> None:
    pos = parse_sps(text)
    assert format_sps(pos) == text
    assert parse_sps(format_sps(pos)) == pos
    assert eval(repr(pos), {"Position": Position}) == pos


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "expected 5 fields"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1", "expected 5 fields"),
        ("mortal;00000/00000/00000/00000/00000;-/-;1;1", "gods field"),
        ("Mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1", "gods field"),
        ("mortal/mortal;00000/00000/00000/00000;-/-;1;1", "board field"),
        ("mortal/mortal;00000/00000/00000/00000/00005;-/-;1;1", "board field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3/-;1;1", "workers field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;f3,a1/-;1;1", "workers field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;3;1", "side to move field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;0", "turn field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;01", "turn field"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1\n", "turn field"),
        (" mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1", "gods field"),
    ],
)
def test_malformed_sps_names_the_field(text: str, fragment: str) -> None:
    with pytest.raises(MalformedPositionError, match=fragment) as info:
        parse_sps(text)
    assert repr(text) in str(info.value)  # the input is quoted


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("zeus/mortal;00000/00000/00000/00000/00000;-/-;1;1", "unknown god 'zeus'"),
        ("pan/pan;00000/00000/00000/00000/00000;-/-;1;1", "may not share"),
        ("pan[up]/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2", "has no state"),
        ("mortal/athena[down];00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2", "only state is [up]"),
        ("athena[up]/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2", "opponent is to move"),
        ("mortal/athena[up];00000/00000/00000/00000/00000;b3,d3/-;2;1", "opponent is to move"),
        ("athena[up]/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1", "before both sides have placed"),
        ("mortal/mortal;00000/00000/04000/00000/00000;b3,d3/c2,c4;1;2", "on a dome at b3"),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3,b3/c2,c4;1;2", "two workers on b3"),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/b3,c4;1;2", "two workers on b3"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/c2,c4;1;1", "player 1 places first"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;2;1", "player 1 has not placed"),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;1;1", "player 2 has not placed"),
        ("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;5", "placement happens on turn 1"),
    ],
)
def test_invalid_sps_lists_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(InvalidPositionError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        parse_sps(text)


def test_invalid_sps_lists_every_problem() -> None:
    with pytest.raises(InvalidPositionError) as info:
        parse_sps("mortal/mortal;44444/00000/00000/00000/00000;a5,b5/a5,c5;1;2")
    message = str(info.value)
    assert "on a dome at a5" in message and "on a dome at b5" in message and "two workers on a5" in message


def test_errors_are_value_errors_and_the_base_is_abstract() -> None:
    assert issubclass(MalformedTurnError, ValueError)
    with pytest.raises(TypeError):
        NotationError("x")


def test_huge_input_is_quoted_cut_short() -> None:
    with pytest.raises(MalformedTurnError) as info:
        parse_stn("x" * 100_000)
    assert len(str(info.value)) < 300


@pytest.mark.parametrize(
    "text",
    ["b3,d3", "b3-b4+c5", "c5-b5", "b3xc4+b4", "c2-c3-d4+e5", "c2-c3-d4", "b3-c3+d4+e4", "b3-c3+d4+d4",
     "b3-c3+d4D", "+a1b2-b1+c1", "b3-d3+e4", "b3-d3,c2-e2+e1", "+e1"],
)
def test_protocol_examples_parse_and_format_back(text: str) -> None:
    assert format_stn(parse_stn(text)) == text


@pytest.mark.parametrize(
    "text",
    ["b3-c3+", "b3c3+d4", "b3-c3^d4", "B3-C3+D4", "b3-c6+d4", "b3-c3+d4d", "", "b3-c3+d4\n",
     "b3-c3+d4+e4+a1", " b3-c3+d4", "b3,d3,e1", "++a1"],
)
def test_protocol_rejections(text: str) -> None:
    with pytest.raises(MalformedTurnError):
        parse_stn(text)


def test_accepted_spellings_normalise_to_the_canonical_turn() -> None:
    p = Position.from_sps("demeter/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    assert p.play("b3-b4+c5+a5").stn == "b3-b4+a5+c5"
    assert p.play("b3xb4+c5").stn == "b3-b4+c5"
    s = Position.start()
    assert s.play("e5,a1").stn == "a1,e5"
    with pytest.raises(IllegalTurnError):
        p.play("b3-b4+c5+c5")


# --- the layers below Position: raw SPS fields and the generator's first-step filters ----------


def test_read_sps_gives_the_raw_fields_a_position_holds() -> None:
    text = "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4"
    fields = read_sps(text)
    assert isinstance(fields, SpsFields)
    pos = parse_sps(text)
    assert fields == (
        pos.gods, pos.h1, pos.h2, pos.h3, pos.domes, pos.workers, pos.to_move, pos.turn, pos.athena_up, pos.eliminated
    )


def test_read_sps_checks_each_token_but_not_the_whole_position() -> None:
    with pytest.raises(InvalidPositionError, match="unknown god 'zeus'"):
        read_sps("zeus/mortal;00000/00000/00000/00000/00000;-/-;1;1")
    # a worker on a dome is a problem of the position, which parse_sps (Position.problems) finds
    on_dome = "mortal/mortal;40000/00000/00000/00000/00000;a5,b5/c2,c4;1;2"
    assert read_sps(on_dome).domes == 1
    with pytest.raises(InvalidPositionError, match="stands on a dome at a5"):
        parse_sps(on_dome)


def test_first_step_masks_filter_by_the_written_first_step() -> None:
    cross = parse_sps("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    bit = {name: 1 << parse_square(name) for name in ("b3", "b4", "d3", "c2")}
    assert first_step_masks(cross, "b3-b4+c5") == (bit["b3"], bit["b4"])
    assert first_step_masks(cross, "b3,d3") is None  # a placement while moving
    assert first_step_masks(cross, "nonsense") is None
    assert first_step_masks(Position.start(), "d3,b3") == (bit["d3"], bit["b3"])
    hermes = parse_sps("hermes/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    assert first_step_masks(hermes, "b3-d3,c2-e2+e1") == (BB_ALL, BB_ALL)  # endpoint labels
    assert first_step_masks(hermes, "+e1") == (BB_ALL, BB_ALL)


def test_turn_text_prints_as_stn() -> None:
    assert str(parse_stn("b3xc4+b4")) == "b3xc4+b4"
    p = parse_sps("apollo/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    assert str(canonical_stn(p, parse_stn("b3-c4+b4"))) == "b3xc4+b4"


@pytest.mark.parametrize("turn", [str(MAX_TURN + 1), "9" * 5000])
def test_a_turn_counter_beyond_the_bound_is_malformed_not_an_int_limit_error(turn: str) -> None:
    with pytest.raises(MalformedPositionError, match=f"turn field .*: expected a positive integer up to {MAX_TURN}$"):
        parse_sps(f"mortal/mortal;00000/00000/00000/00000/00000;a1,b2/c3,d4;1;{turn}")
    assert parse_sps(f"mortal/mortal;00000/00000/00000/00000/00000;a1,b2/c3,d4;1;{MAX_TURN}").turn == MAX_TURN
