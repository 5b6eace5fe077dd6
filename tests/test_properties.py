"""Hypothesis invariants over random reachable positions of every god pairing."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.rules import GODS, Position, divide, format_stn, parse_sps, parse_stn, perft

PAIRS = [(a, b) for a in GODS for b in GODS if a != b or a == "mortal"]


@st.composite
def reachable(draw: st.DrawFn) -> Position:
    """A position reached by random legal play from the empty board of a random matchup."""
    gods = draw(st.sampled_from(PAIRS))
    pos = Position.start(gods)
    for _ in range(draw(st.integers(0, 30))):
        transitions = pos.transitions()
        if not transitions:
            break
        t = transitions[draw(st.integers(0, len(transitions) - 1))]
        if t.win:
            break
        pos = t.position
    return pos


common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(reachable())
def test_sps_round_trips(pos: Position) -> None:
    assert parse_sps(pos.sps()) == pos
    assert parse_sps(pos.sps()).sps() == pos.sps()


@common
@given(reachable())
def test_every_successor_is_valid_and_monotone(pos: Position) -> None:
    for t in pos.transitions():
        child = t.position
        assert child.problems() == []
        assert parse_sps(child.sps()) == child
        # heights never fall; a dome never goes away
        assert child.domes & pos.domes == pos.domes
        for before, after in ((pos.h1, child.h1), (pos.h2, child.h2), (pos.h3, child.h3)):
            assert (before & ~after) & ~child.domes == 0
        w1, w2 = child.workers
        assert w1 & w2 == 0 and (w1 | w2) & child.domes == 0
        if not t.win and not pos.is_placement:
            # a non-winning play turn adds at least one level somewhere (SPEC.md section 1.4: no repetition)
            assert _total(child) > _total(pos)


def _total(p: Position) -> int:
    return p.h1.bit_count() + p.h2.bit_count() + p.h3.bit_count() + 4 * p.domes.bit_count()


@common
@given(reachable(), st.randoms(use_true_random=False))
def test_each_legal_turn_parses_back_to_itself(pos: Position, rnd: random.Random) -> None:
    transitions = pos.transitions()
    assert len({t.stn for t in transitions}) == len(transitions)  # each canonical turn once
    for t in transitions:
        assert format_stn(parse_stn(t.stn)) == t.stn
    # replaying a turn is the costly part (a Hermes position has thousands): a drawn sample of them
    for t in rnd.sample(transitions, min(len(transitions), 80)):
        again = pos.play(t.stn)
        assert again == t


@common
@given(reachable())
def test_count_matches_generation(pos: Position) -> None:
    assert pos.count_turns() == len(pos.transitions())
    assert pos.is_lost() == (pos.count_turns() == 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable())
def test_divide_sums_to_perft(pos: Position) -> None:
    assert sum(divide(pos, 2).values()) == perft(pos, 2)


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable(), st.randoms(use_true_random=False))
def test_plain_turn_fast_path_agrees_with_generation(pos: Position, rnd: random.Random) -> None:
    """The referee's per-turn fast path decides a turn only when generation agrees exactly.

    Every legal turn is tried (it must be found, with the same win and successor, whenever it
    has the plain shape and the mover's god is plain), then near misses: random texts of the
    plain shape, which must be None unless legal.
    """
    from santorini_server.rules.movegen import _PLAIN_GODS, RawTurn, generate, plain_turn
    from santorini_server.rules.squares import SQUARE_NAMES

    legal = {t.stn: t for t in generate(pos)}
    placing = not pos.workers[pos.to_move]
    plain_god = not placing and pos.gods[pos.to_move] in _PLAIN_GODS
    assert pos.is_lost() == (not legal)
    for stn, raw in legal.items():
        got = plain_turn(pos, stn)
        got = None if got is None else RawTurn(stn, *got)
        plain_shape = len(stn) in (5, 8) and stn[2] == "-" and (len(stn) == 5 or stn[5] == "+")
        if placing or (plain_god and plain_shape):
            assert got == raw, stn
        else:
            assert got is None or got == raw, stn
    for _ in range(300):
        a, b, c = (rnd.choice(SQUARE_NAMES) for _ in range(3))
        for text in (f"{a}-{b}+{c}", f"{a}-{b}", f"{a}x{b}+{c}", f"{a}-{b}+{c}D", f"{a},{b}"):
            got = plain_turn(pos, text)
            if got is not None:
                assert legal.get(text) == RawTurn(text, *got), text
