"""Why a turn is illegal: the rules core's one-line reasons, and that they never contradict the
legal-turn generator.

The property test plays random games for every god pairing, mutates legal turns the ways engines
and people get them wrong (a dropped build, a wrong square, uppercase, an extra part, a power the
god does not have) and checks each explanation against the legal set: a legal turn gets none,
an offered example is legal, and the part of the turn a reason refutes begins no legal turn.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.rules import (
    GODS,
    MORTAL,
    IllegalTurnError,
    MalformedTurnError,
    NotationError,
    Position,
    canonical_stn,
    explain_turn,
    format_stn,
    parse_stn,
)
from santorini_server.rules.squares import SQUARE_NAMES, parse_square

BASE = Position.from_sps("mortal/mortal;00000/00000/00200/00000/00000;b3,d4/a1,e1;1;4")


@pytest.mark.parametrize(
    ("sps", "turn", "reason"),
    [
        (BASE.sps(), "b3-c3+c4", "c3 is two levels up from b3: a worker moves up at most one level"),
        (BASE.sps(), "b3-b5+b4", "b5 is not next to b3: a worker moves one square"),
        (BASE.sps(), "a1-a2+a3", "a1 holds your opponent's worker: yours are on b3 and d4"),
        (BASE.sps(), "c5-c4+c3", "c5 has no worker of yours: yours are on b3 and d4"),
        (BASE.sps(), "b3-b4", "after moving, build next to b4 (e.g. b3-b4+b3)"),
        (BASE.sps(), "b3-b4+d4", "d4 is not next to b4: build next to the worker that moved"),
        (BASE.sps(), "b3-b2+a1", "a1 is occupied"),
        (BASE.sps(), "b3-b4+c5+c5", "one build per turn (only Demeter and Hephaestus build twice): b3-b4+c5 is complete "
                                    "(e.g. b3-b4+c5)"),
        (BASE.sps(), "b3-b4-b5+c5", "only Artemis moves twice"),
        (BASE.sps(), "+c2b3-b4+c5", "only Prometheus builds before moving"),
        (BASE.sps(), "b3-b4,d4-d5+c5", "only Hermes moves both workers"),
        (BASE.sps(), "b3-b4+c5D", "only Atlas builds a dome below level 3 (c5 is level 0)"),
        (BASE.sps(), "+c2", "a worker moves before it builds (only Hermes may build without moving)"),
        (BASE.sps(), "c2,c4", "your workers are placed: move one, then build (e.g. d4-c5+b5)"),
        (BASE.sps(), "B3-B4+C5", "squares are lowercase (b3-b4+c5 is legal here)"),
        (BASE.sps(), "B3-C3+C4", "squares are lowercase (and b3-c3+c4 would be illegal: c3 is two levels up from b3: "
                                 "a worker moves up at most one level)"),
        (BASE.sps(), "b3-b9", "b9 is not a square (files a-e, ranks 1-5)"),
        (BASE.sps(), "b3 b4+c5", "no spaces inside a turn"),
        (BASE.sps(), "b3-b4+c5d", "a dome is a capital D (+c3D) (and b3-b4+c5D would be illegal: only Atlas builds "
                                  "a dome below level 3 (c5 is level 0))"),
        (BASE.sps(), "b3b4+c5", "squares of a move are joined by '-' (b3-b4), of a placement by ','"),
        (BASE.sps(), "zz", "not STN (e.g. b3,d3 or b3-b4+c5)"),
        (Position.start().sps(), "b3-b4+c5", "place both workers first, on two empty squares (e.g. b3,d3)"),
        (Position.start().sps(), "c3,c3", "both workers cannot stand on c3"),
        ("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1", "b3,c4", "b3 is occupied: place on two empty squares"),
        # SPEC.md 1.7, one ruling per god
        ("apollo/mortal;00040/00044/00000/44000/00400;a1,e5/b1,c4;1;2", "a1xb1+a1",
         "a1 is occupied: the opponent's worker was forced there"),
        ("apollo/mortal;00000/00000/00320/02100/00000;b2,e5/a5,c3;1;2", "b2xc3+b2",
         "b2xc3 already wins by moving up to level 3: the turn ends there (e.g. b2xc3)"),
        ("apollo/athena[up];00000/00000/00320/02100/00000;b2,e5/a5,c3;1;2", "b2xc3",
         "Athena moved up last turn: no worker may move up this turn"),
        ("artemis/mortal;00040/00044/00000/44440/32340;a1,e5/a5,c4;1;2", "a1-b1-a1+b1",
         "Artemis may not move back to a1, where she started"),
        ("atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2", "a1-b1+b2D", "b2 is domed"),
        ("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2", "a1-b1+c1+c1",
         "Demeter's second build must be on another square than c1 (e.g. a1-b1+c1)"),
        ("hephaestus/mortal;00040/00044/00000/34200/00100;a1,e5/a5,c4;1;2", "a1-b1+c2+c2",
         "Hephaestus' second build must be a block, not a dome (c2 would be domed) (e.g. a1-b1+c2)"),
        ("hephaestus/mortal;00040/00044/00000/34200/00100;a1,e5/a5,c4;1;2", "a1-b1+c1+a1",
         "Hephaestus' second build goes on c1 again (e.g. a1-b1+c1)"),
        ("hermes/mortal;00222/00012/00000/00000/01000;a1,d5/a5,c3;1;2", "a1-b1,d5-e4+e3",
         "a1-b1 changes level: Hermes moves both workers only when neither does"),
        ("hermes/mortal;00000/00000/00000/44400/00200;a1,b1/a5,c4;1;2", "b1-c1+b1",
         "c1 is two levels up from b1: a worker moves up at most one level"),
        ("minotaur/mortal;40040/00444/04040/04000/00003;c3,e5/b4,d2;1;2", "c3xb4+c3",
         "the Minotaur cannot push the worker on b4: a5 beyond it is domed"),
        ("minotaur/mortal;40040/00444/04040/04000/00003;c3,e5/b4,d2;1;2", "c3xd2+e1",
         "e1 is occupied: the opponent's worker was forced there"),
        ("pan/athena[up];00002/00041/00044/10400/32400;a1,e5/a5,c4;1;2", "a1-b1",
         "after moving, build next to b1 (e.g. a1-b1+a1)"),
        ("pan/athena[up];00002/00041/00044/10400/32400;a1,e5/a5,c4;1;2", "a1-b2+a1",
         "a1-b2 already wins by Pan's drop of two levels: the turn ends there (e.g. a1-b2)"),
        ("prometheus/mortal;00040/00044/44000/04400/01400;a1,e5/a5,c4;1;2", "+a2a1-a2+a1",
         "after building first, Prometheus may not move up (a1 is level 0, a2 is now 1)"),
        ("prometheus/mortal;00040/00044/44000/04400/03400;a1,e5/a5,c4;1;2", "+b1a1-a2+b1", "b1 is domed"),
        # the rarer facts, one position each
        ("apollo/mortal;00000/00000/00000/44400/00400;a1,e5/b1,c4;1;2", "a1xb1+c2",
         "a1 to b1 leaves no square to build on, so no complete turn begins with it"),
        ("minotaur/mortal;00000/00000/00000/00000/00000;b2,e5/a1,c4;1;2", "b2xa1+b2",
         "the Minotaur cannot push the worker on a1: the square beyond is off the board"),
        ("minotaur/mortal;00000/00000/00000/00000/00000;b3,d5/c4,e1;1;2", "b3xc4+b3",
         "the Minotaur cannot push the worker on c4: d5 beyond it is occupied"),
        ("prometheus/mortal;00000/00000/00000/00000/00000;a1,e5/b1,c4;1;2", "+b1a1-a2+a1", "b1 is occupied"),
        ("prometheus/mortal;00000/00000/00000/04000/00000;a1,e5/b1,c4;1;2", "+b2a1-a2+a1", "b2 is domed"),
        ("prometheus/mortal;00000/00000/00000/00000/00000;a1,e5/b1,c4;1;2", "+c3a1-a2+a1",
         "c3 is not next to your workers (a1 and e5)"),
        ("prometheus/mortal;00000/00000/00000/00000/00000;a1,e5/b1,c4;1;2", "+d5a1-a2+a1",
         "the pre-build on d5 is not next to a1, the worker that moves"),
        ("hermes/mortal;00000/00000/00100/00000/00000;a1,e5/a5,e1;1;2", "a1-c3+c2",
         "c3 is not next to a1, and Hermes goes farther only across his own level"),
        ("hermes/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2", "a1-b2,a1-c2+c3",
         "a1-b2 already moves the worker on a1: the second move is your other worker's"),
        ("hermes/mortal;00000/00000/00000/00004/00000;a1,e5/a5,e1;1;2", "a1-b2,e5-e2+e3", "e2 is domed"),
        ("hermes/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e4;1;2", "a1-b2,e5-e4+e3", "e4 is occupied"),
        ("hermes/mortal;00001/00000/00000/00000/00000;a1,e5/a5,e1;1;2", "a1-b2,e5-d4+c3",
         "d4 is not at e5's level: when both workers move, neither changes level"),
        ("hermes/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2", "a1-b2,c3-c4+c5",
         "c3 has no worker of yours: yours are on a1 and e5"),
        ("artemis/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2", "a1-b2-d4+d3",
         "d4 is not next to b2: each step goes one square"),
        ("artemis/mortal;00000/00000/00400/00000/00000;a1,e5/a5,e1;1;2", "a1-b2-c3+d3", "c3 is domed"),
        ("mortal/mortal;00000/00000/00000/44400/00400;a1,b1/e5,e4;1;2", "a1-b1+a1",
         "player 1 has no legal turn here: the game is over"),
        ("mortal/mortal;00000/00000/00400/00000/00000;-/-;1;1", "b3,c3", "c3 is domed: place on two empty squares"),
        (BASE.sps(), "b3-b3+b4", "the worker on b3 must move to another square"),
        # Hermes' move to its own square is a stay: with no build there is no turn at all (found by
        # test_fuzz: the referee's matcher asserted, the explanation indexed an empty turn)
        ("hermes/demeter;01000/00100/00000/00020/00000;b2,c4/d3,e5;1;5", "a1-a1",
         "the turn builds nothing: every turn ends with a build (e.g. +b5)"),
        ("hermes/demeter;01000/00100/00000/00020/00000;b2,c4/d3,e5;1;5", "A1-A1",
         "squares are lowercase (and a1-a1 would be illegal: the turn builds nothing: every turn ends with a build "
         "(e.g. +b5))"),
    ],
)
def test_reasons(sps: str, turn: str, reason: str) -> None:
    pos = Position.from_sps(sps)
    assert explain_turn(pos, turn).text == reason
    with pytest.raises(NotationError) as caught:
        pos.play(turn)
    assert caught.value.reason == reason  # type: ignore[attr-defined]
    assert str(caught.value).endswith(": " + reason)


def test_the_errors_carry_the_reason_and_quote_the_turn() -> None:
    with pytest.raises(IllegalTurnError) as illegal:
        BASE.play("b3-b4")
    assert str(illegal.value) == f"illegal turn 'b3-b4' in {BASE.sps()}: after moving, build next to b4 (e.g. b3-b4+b3)"
    with pytest.raises(MalformedTurnError) as malformed:
        Position.start().play("B2,B3")
    assert str(malformed.value) == "malformed turn 'B2,B3': squares are lowercase (b2,b3 is legal here)"
    assert malformed.value.reason == "squares are lowercase (b2,b3 is legal here)"
    with pytest.raises(MalformedTurnError) as bare:
        parse_stn("B2,B3")  # no position: the grammar's reason alone
    assert bare.value.reason == "squares are lowercase"


def test_a_legal_turn_has_no_explanation() -> None:
    for turn in ("b3-b4+c5", "b3-b4+c5D".replace("D", ""), "d4-c5+d4"):
        with pytest.raises(ValueError, match="is a legal turn"):
            explain_turn(BASE, turn)
    with pytest.raises(ValueError, match="is a legal turn"):
        explain_turn(Position.start(), "d3,b3")  # an accepted spelling of b3,d3


def test_reasons_survive_pickling() -> None:
    import pickle

    with pytest.raises(IllegalTurnError) as caught:
        BASE.play("b3-b4")
    again = pickle.loads(pickle.dumps(caught.value))
    assert (type(again), str(again), again.reason) == (IllegalTurnError, str(caught.value), caught.value.reason)


# --- the property: never a contradiction of the legal set -----------------------------------------------

PAIRINGS = [(a, b) for a in GODS for b in GODS if a != b or a == MORTAL]
_SQ = re.compile(r"[a-e][1-5]")


def _random_position(gods: tuple[str, str], seed: int, plies: int) -> Position:
    rng = random.Random(seed)
    pos = Position.start(gods)
    for _ in range(plies):
        turns = pos.legal_turns()
        if not turns:
            break
        t = pos.play(rng.choice(turns))
        if t.win:
            break
        pos = t.position
    return pos


def _mutate(turn: str, rng: random.Random) -> str:
    """A legal turn gone wrong, the ways engines and people get it wrong."""
    sq = rng.choice(SQUARE_NAMES)
    kind = rng.randrange(13)
    if kind == 0:  # the build dropped
        return re.sub(r"(\+[a-e][1-5]D?)+$", "", turn) or turn[:-1]
    if kind == 1:  # one square wrong
        spots = list(_SQ.finditer(turn))
        m = rng.choice(spots)
        return turn[: m.start()] + sq + turn[m.end() :]
    if kind == 2:  # uppercase, all or one square
        return turn.upper() if rng.random() < 0.5 else _SQ.sub(lambda m: m[0].upper(), turn, count=1)
    if kind == 3:  # an extra build
        return turn + "+" + sq + rng.choice(["", "D"])
    if kind == 4:  # an extra step after the move
        return re.sub(r"^(\+[a-e][1-5])?([a-e][1-5][-x][a-e][1-5])", rf"\1\2-{sq}", turn)
    if kind == 5:  # a pre-build
        return "+" + sq + turn
    if kind == 6:  # a dome mark
        return re.sub(r"(\+[a-e][1-5])$", r"\1D", turn)
    if kind == 7:  # x for - or the reverse
        return turn.replace("-", "x", 1) if "-" in turn else turn.replace("x", "-", 1)
    if kind == 8:  # a second worker's move
        other = rng.choice(SQUARE_NAMES)
        return re.sub(r"(\+[a-e][1-5]D?)", rf",{sq}-{other}\1", turn, count=1)
    if kind == 9:  # the move reversed
        return re.sub(r"([a-e][1-5])([-x])([a-e][1-5])", r"\3\2\1", turn, count=1)
    if kind == 10:  # a placement
        return f"{sq},{rng.choice(SQUARE_NAMES)}"
    if kind == 11:  # cut short
        return turn[: rng.randrange(1, len(turn) + 1)]
    return turn.replace("+", " +", 1)  # a space


def _begins(legal: str, refuted: str, pre: bool) -> bool:
    """Whether the STN text ``legal`` begins with the atoms ``refuted`` (a string prefix ending at an
    atom's end); ``pre``: ``refuted`` is a pre-build alone, which a move must follow."""
    if not legal.startswith(refuted):
        return False
    rest = legal[len(refuted) :]
    if pre:
        return rest[:1] in tuple("abcde")
    return not rest or rest[0] in "+-,"


def _check(pos: Position, legal: set[str], text: str) -> None:
    """``text`` in ``pos`` (whose legal turns are ``legal``): explained iff refused, never contradicting."""
    try:
        pos.play(text)
    except NotationError as exc:
        why = explain_turn(pos, text)
        assert exc.reason == why.text  # type: ignore[attr-defined]
        assert why.malformed == isinstance(exc, MalformedTurnError)
        if why.example is not None:
            assert why.example in legal, (pos.sps(), text, why)
            assert why.example in why.text
        if why.refuted is not None:
            canon = format_stn(canonical_stn(pos, parse_stn(text)))
            assert canon.startswith(why.refuted), (pos.sps(), text, why)
            pre = canon[len(why.refuted) : len(why.refuted) + 1] in tuple("abcde")
            assert not any(_begins(t, why.refuted, pre) for t in legal), (pos.sps(), text, why)
        _check_facts(pos, text, why.text)
    else:
        with pytest.raises(ValueError, match="is a legal turn"):
            explain_turn(pos, text)


def _check_facts(pos: Position, text: str, reason: str) -> None:
    """The facts a reason states, read back from the position (not from the explainer)."""
    me = pos.to_move
    mine = {SQUARE_NAMES[s] for s in range(25) if pos.workers[me] >> s & 1}
    m = re.match(r"([a-e][1-5]) is (two|three) levels up from ([a-e][1-5])", reason)
    if m and not text.startswith("+"):
        up = pos.level(parse_square(m[1])) - pos.level(parse_square(m[3]))
        assert up == {"two": 2, "three": 3}[m[2]], (pos.sps(), text, reason)
    m = re.match(r"([a-e][1-5]) (has no worker of yours|holds your opponent's worker).*: yours are on (.*)", reason)
    if m:
        assert m[1] not in mine and set(m[3].split(" and ")) == mine
    if reason.startswith("Athena moved up"):
        assert pos.athena_up
    m = re.match(r"only (\w+) ", reason)
    if m and m[1] in ("Artemis", "Prometheus", "Hermes", "Atlas"):
        assert pos.gods[me] != m[1].lower()


def _check_mutants(pos: Position, rng: random.Random, count: int) -> None:
    turns = pos.legal_turns()
    legal = set(turns)
    for _ in range(count if turns else 0):
        _check(pos, legal, _mutate(rng.choice(turns), rng))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAIRINGS), st.integers(0, 2**32), st.integers(0, 24), st.integers(0, 2**32))
def test_explanations_never_contradict_the_legal_set(gods: tuple[str, str], seed: int, plies: int, mseed: int) -> None:
    _check_mutants(_random_position(gods, seed, plies), random.Random(mseed), 8)


def test_every_god_pairing_is_explained_on_a_seeded_sweep() -> None:
    """The same property, deterministically, over every pairing (the hypothesis run samples them)."""
    rng = random.Random(12)
    for gods in PAIRINGS:
        _check_mutants(_random_position(gods, rng.randrange(2**32), rng.randrange(2, 20)), rng, 6)
