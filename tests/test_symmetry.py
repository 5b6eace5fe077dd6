"""The board's eight symmetries (santorini_server.rules.symmetry, SPEC.md section 19.2): group laws on
the square tables, and that legal turns map to legal turns with the same successors, for every god
pairing and for three and four seats."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.rules import GODS, SIMPLE_GODS, Position, parse_sps
from santorini_server.rules.squares import NEIGHBOURS, PUSH_TARGET, parse_square
from santorini_server.rules.symmetry import (
    IDENTITY,
    canonical_key,
    canonical_position,
    compose,
    inverse,
    map_bitboard,
    map_direction,
    map_position,
    map_square,
    map_turn,
)

G = range(8)
PAIRS = [(a, b) for a in GODS for b in GODS if a != b or a == "mortal"]
TRIPLES = list(itertools.permutations(SIMPLE_GODS, 3))
QUADS = list(itertools.permutations(SIMPLE_GODS, 4))


def test_group_laws() -> None:
    for a, b, c in itertools.product(G, G, G):
        assert compose(a, compose(b, c)) == compose(compose(a, b), c)  # associative
    for a in G:
        assert compose(IDENTITY, a) == a == compose(a, IDENTITY)
        assert compose(a, inverse(a)) == IDENTITY == compose(inverse(a), a)
    # eight distinct permutations of the squares: the whole dihedral group of order 8
    assert len({tuple(map_square(g, s) for s in range(25)) for g in G}) == 8
    for g in G:
        assert sorted(map_square(g, s) for s in range(25)) == list(range(25))
        assert map_square(g, parse_square("c3")) == parse_square("c3")  # the centre is fixed


def test_adjacency_pushes_and_directions_are_preserved() -> None:
    for g, s in itertools.product(G, range(25)):
        assert map_bitboard(g, NEIGHBOURS[s]) == NEIGHBOURS[map_square(g, s)]
    for g, ((frm, to), push) in itertools.product(G, PUSH_TARGET.items()):
        assert PUSH_TARGET[(map_square(g, frm), map_square(g, to))] == map_square(g, push)
    for g, s in itertools.product(G, range(25)):
        f, r = s % 5, 4 - s // 5
        for d in itertools.product((-1, 0, 1), repeat=2):
            if d != (0, 0) and 0 <= f + d[0] < 5 and 0 <= r + d[1] < 5:
                t = (4 - (r + d[1])) * 5 + f + d[0]
                m, n = map_square(g, s), map_square(g, t)
                assert (n % 5 - m % 5, (4 - n // 5) - (4 - m // 5)) == map_direction(g, d)


@st.composite
def reachable(draw: st.DrawFn) -> Position:
    gods = draw(st.sampled_from(PAIRS + TRIPLES[:40] + QUADS[:40]))
    pos = Position.start(gods)
    for _ in range(draw(st.integers(0, 24))):
        transitions = pos.transitions()
        if not transitions:
            break
        t = transitions[draw(st.integers(0, len(transitions) - 1))]
        if t.win:
            break
        pos = t.position
    return pos


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable(), st.integers(0, 7), st.randoms(use_true_random=False))
def test_legal_turns_map_to_legal_turns(pos: Position, g: int, rnd: random.Random) -> None:
    image = map_position(g, pos)
    assert image.problems() == []
    assert parse_sps(image.sps()) == image
    turns = pos.transitions()
    assert sorted(map_turn(g, pos, t.stn) for t in turns) == sorted(image.legal_turns())
    for t in rnd.sample(turns, min(len(turns), 40)):
        played = image.play(map_turn(g, pos, t.stn))
        assert played.stn == map_turn(g, pos, t.stn)
        assert played.win == t.win
        assert played.position == map_position(g, t.position)
    assert map_position(inverse(g), image) == pos


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable(), st.integers(0, 7))
def test_canonical_form_names_the_class(pos: Position, g: int) -> None:
    image = map_position(g, pos)
    assert canonical_key(image) == canonical_key(pos)
    assert canonical_position(image) == canonical_position(pos)
    assert canonical_key(canonical_position(pos)) == canonical_key(pos)


def test_canonical_key_tells_different_openings_apart() -> None:
    a = parse_sps("apollo/pan;00000/00000/00000/00000/00000;b2,c3/d4,e5;1;2")
    mirrored = parse_sps("apollo/pan;00000/00000/00000/00000/00000;c3,d2/a5,b4;1;2")  # mirror-files
    assert canonical_key(a) == canonical_key(mirrored)
    assert canonical_key(a) != canonical_key(parse_sps("apollo/pan;00000/00000/00000/00000/00000;b2,c3/d4,e4;1;2"))
    swapped_gods = parse_sps("pan/apollo;00000/00000/00000/00000/00000;b2,c3/d4,e5;1;2")
    assert canonical_key(a) != canonical_key(swapped_gods)


@pytest.mark.parametrize("g", G)
def test_an_image_keeps_the_seat_to_move_and_athena(g: int) -> None:
    pos = parse_sps("mortal/athena[up];00000/00000/01000/00000/00000;a1,b2/c3,d4;1;3")
    image = map_position(g, pos)
    assert (image.to_move, image.turn, image.athena_up, image.gods) == (0, 3, True, pos.gods)
