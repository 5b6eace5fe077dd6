"""SEI for three and four seats (SPEC.md section 4): ``newgame`` with 3 or 4 gods, every seat's
clock in ``go``, ``feature players``, ``result`` with placings; two-seat lines unchanged."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.referee import Engine, EngineFailure
from santorini_server.referee.engine_spec import EngineSpec
from santorini_server.sei import (
    DEFAULT_PLAYERS,
    ERROR,
    IDLE,
    SEARCHING,
    Feature,
    Go,
    LocalProtocolError,
    NewGame,
    RemoteProtocolError,
    Result,
    Sei,
    SeiConnection,
    SeiOk,
)
from santorini_server.sei._writers import write_go

# --------------------------------------------------------------------------------------------
# Helpers


def idle_conn() -> SeiConnection:
    conn = SeiConnection()
    conn.send(Sei(version=1))
    conn.receive_data(b"seiok 1\n")
    assert conn.next_event() == SeiOk(version=1)
    return conn


def handshake_event(line: bytes) -> Any:
    conn = SeiConnection()
    conn.send(Sei(version=1))
    conn.receive_data(line)
    return conn.next_event()


def refusal(make: Callable[[], object]) -> str:
    with pytest.raises(LocalProtocolError) as info:
        make()
    return str(info.value)


# --------------------------------------------------------------------------------------------
# newgame


@pytest.mark.parametrize(
    ("gods", "wire"),
    [
        (("mortal", "mortal"), b"newgame gods mortal/mortal\n"),
        (("prometheus", "athena"), b"newgame gods prometheus/athena\n"),
        (("apollo", "minotaur", "pan"), b"newgame gods apollo/minotaur/pan\n"),
        (("apollo", "minotaur", "pan", "athena"), b"newgame gods apollo/minotaur/pan/athena\n"),
    ],
)
def test_newgame_names_one_god_per_seat(gods: tuple[str, ...], wire: bytes) -> None:
    command = NewGame(gods=gods)
    assert command.seats == len(gods)
    assert idle_conn().send(command) == wire


@pytest.mark.parametrize(
    ("gods", "message"),
    [
        (("apollo", "mortal", "pan"), "newgame gods apollo/mortal/pan: a 3-seat game has no mortal (every seat plays a god)"),
        (("mortal",) * 4, "newgame gods mortal/mortal/mortal/mortal: a 4-seat game has no mortal (every seat plays a god)"),
        (("pan", "apollo", "pan"), "newgame gods pan/apollo/pan: pan is named twice (each seat has a god of its own)"),
        (("apollo", "pan", "atlas", "apollo"), "newgame gods apollo/pan/atlas/apollo: apollo is named twice (each seat has a god"
         " of its own)"),
        (("apollo", "pan", "atlas", "athena", "hermes"), "newgame takes 2, 3 or 4 gods as a tuple (one per seat), got 5 gods"),
        (("apollo",), "newgame takes 2, 3 or 4 gods as a tuple (one per seat), got 1 god"),
        (("apollo", "pan", "a/b"), "god name may not contain '/': 'a/b'"),
        (("apollo", "pan", "at las"), "god name must be one token of printable ASCII without spaces, got 'at las'"),
    ],
)
def test_impossible_newgame_is_refused_with_one_precise_line(gods: tuple[str, ...], message: str) -> None:
    assert refusal(lambda: NewGame(gods=gods)) == message


def test_two_seat_newgame_is_checked_as_before() -> None:
    """Two seats keep today's rules: ``mortal`` (even twice) and a shared or unknown name are the
    rules' and the engine's business (``santorini check`` sends ``zeus`` on purpose)."""
    for gods in (("mortal", "mortal"), ("pan", "pan"), ("zeus", "mortal")):
        assert NewGame(gods=gods).gods == gods
    assert NewGame(gods=("zeus", "apollo", "pan")).seats == 3


# --------------------------------------------------------------------------------------------
# go

_GO_ORDER = (
    "p1time", "p2time", "p3time", "p4time", "p1inc", "p2inc", "p3inc", "p4inc",
    "movestogo", "movetime", "depth", "nodes",
)  # fmt: skip
_maybe = st.none() | st.integers(1, 10**7)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries(dict.fromkeys(_GO_ORDER, _maybe)), st.booleans())
def test_go_writes_every_seats_clock_then_every_increment(fields: dict[str, int | None], infinite: bool) -> None:
    """SPEC.md section 4.2's order: p1time..p4time, p1inc..p4inc, then the limits; a connection
    that saw no newgame sends whatever seats the go names."""
    go = Go(**fields, infinite=infinite)
    words = ["go"] + [f"{n} {fields[n]}" for n in _GO_ORDER if fields[n] is not None]
    expected = " ".join(words + (["infinite"] if infinite else []))
    assert write_go(go) == expected
    assert idle_conn().send(go) == (expected + "\n").encode()


def test_a_two_seat_go_is_byte_identical() -> None:
    conn = idle_conn()
    conn.send(NewGame(gods=("mortal", "mortal")))
    assert conn.send(Go(p1time=60000, p2time=60000, p1inc=1000, p2inc=1000)) == (
        b"go p1time 60000 p2time 60000 p1inc 1000 p2inc 1000\n"
    )


def test_a_four_seat_go() -> None:
    conn = idle_conn()
    conn.send(NewGame(gods=("apollo", "minotaur", "pan", "athena")))
    go = Go(p1time=9000, p2time=8000, p3time=7000, p4time=6000, p1inc=100, p2inc=100, p3inc=100, p4inc=100, movetime=50)
    assert conn.send(go) == (
        b"go p1time 9000 p2time 8000 p3time 7000 p4time 6000 p1inc 100 p2inc 100 p3inc 100 p4inc 100 movetime 50\n"
    )
    assert conn.state is SEARCHING


@pytest.mark.parametrize("field", ["p3time", "p4time", "p3inc", "p4inc"])
def test_clocks_of_seats_three_and_four_are_numbers_at_least_zero(field: str) -> None:
    assert Go(**{field: 0}) == Go(**{field: 0})
    assert refusal(lambda: Go(**{field: -1})) == f"go {field} must be >= 0, got -1"
    assert refusal(lambda: Go(**{field: 1.5})) == f"go {field} must be an int, got 1.5"
    assert refusal(lambda: Go(**{field: True})) == f"go {field} must be an int, got True"


@pytest.mark.parametrize(
    ("gods", "field", "message"),
    [
        (("mortal", "mortal"), "p3time", "can't send go p3time in a 2-seat game (the newgame named 2 gods)"),
        (("apollo", "pan"), "p4inc", "can't send go p4inc in a 2-seat game (the newgame named 2 gods)"),
        (("apollo", "minotaur", "pan"), "p4time", "can't send go p4time in a 3-seat game (the newgame named 3 gods)"),
    ],
)
def test_a_go_naming_a_seat_the_game_lacks_is_refused(gods: tuple[str, ...], field: str, message: str) -> None:
    """A referee bug (a clock for a seat that does not exist) is caught at the codec, and the
    connection goes to ERROR like any other refused command."""
    conn = idle_conn()
    conn.send(NewGame(gods=gods))
    go = Go(p1time=1000, p2time=1000, **{field: 1000})
    assert refusal(lambda: conn.send(go)) == message
    assert conn.state is ERROR


def test_the_seat_count_is_the_last_newgames() -> None:
    conn = idle_conn()
    assert conn.seats is None
    conn.send(Go(p3time=1, depth=1))  # no newgame yet: nothing to check against (analysis)
    conn.receive_data(b"bestmove b3,d3\n")
    conn.next_event()
    conn.send(NewGame(gods=("apollo", "minotaur", "pan")))
    assert conn.seats == 3
    conn.send(Go(p1time=1, p2time=1, p3time=1, p3inc=5))
    conn.receive_data(b"bestmove b3,d3\n")
    conn.next_event()
    conn.send(NewGame(gods=("apollo", "pan")))
    assert conn.seats == 2
    with pytest.raises(LocalProtocolError):
        conn.send(Go(p3inc=5, depth=1))


# --------------------------------------------------------------------------------------------
# feature players


@pytest.mark.parametrize(
    ("line", "event"),
    [
        (b"feature players 2 3 4\n", Feature(names=("players",), players=frozenset({2, 3, 4}))),
        (b"feature players 3\n", Feature(names=("players",), players=frozenset({3}))),
        (b"feature legalmoves perft players 4 2\n", Feature(names=("legalmoves", "perft", "players"), players=frozenset({2, 4}))),
        (b"feature players\t2  2 3\r\n", Feature(names=("players",), players=frozenset({2, 3}))),
        (b"feature legalmoves perft\n", Feature(names=("legalmoves", "perft"))),
    ],
)
def test_feature_players_names_seat_counts(line: bytes, event: Feature) -> None:
    assert handshake_event(line) == event


@pytest.mark.parametrize(
    "line",
    [
        "feature players",
        "feature players 5",
        "feature players 1 2",
        "feature players two three",
        "feature players 2 perft",
        "feature players 02",
        "feature players 3 players 4",
    ],
)
def test_bad_seat_counts_are_a_protocol_violation(line: str) -> None:
    conn = SeiConnection()
    conn.send(Sei(version=1))
    conn.receive_data(line.encode() + b"\n")
    with pytest.raises(RemoteProtocolError) as info:
        conn.next_event()
    assert str(info.value) == f"feature players takes seat counts 2, 3 or 4 up to the end of the line: {line!r}"
    assert conn.state is ERROR


def engine_spec(handshake: str) -> EngineSpec:
    """A real engine process that answers ``sei`` with ``handshake`` (then ``seiok 1``)."""
    code = textwrap.dedent(
        f"""
        import sys
        for line in sys.stdin:
            if line.startswith("sei"):
                print({handshake!r} + "seiok 1", flush=True)
            elif line.startswith("quit"):
                break
        """
    )
    return EngineSpec(name="seats", argv=(sys.executable, "-c", code))


@pytest.mark.parametrize(
    ("handshake", "players"),
    [
        ("id name Two\n", {2}),
        ("feature legalmoves perft\n", {2}),
        ("feature players 2 3 4\n", {2, 3, 4}),
        ("feature players 3\n", {3}),
        ("feature players 2\nfeature perft players 4\n", {2, 4}),
    ],
)
async def test_the_handshake_collects_the_declared_seat_counts(handshake: str, players: set[int]) -> None:
    """``EngineInfo.players``: every ``feature players`` line counts, none means two seats only
    (SPEC.md section 4.3), so the referee can refuse an engine before a game it did not declare."""
    async with trio.open_nursery() as nursery:
        engine = await Engine.start(nursery, engine_spec(handshake), handshake_timeout=5)
        await engine.aclose()
    assert engine.info.players == frozenset(players)
    assert frozenset({2}) == DEFAULT_PLAYERS


async def test_a_bad_players_line_fails_the_handshake() -> None:
    async with trio.open_nursery() as nursery:
        with pytest.raises(EngineFailure) as info:
            await Engine.start(nursery, engine_spec("feature players 2 5\n"), handshake_timeout=5)
    assert info.value.kind == "engine-error"
    assert "feature players takes seat counts 2, 3 or 4" in info.value.detail


# --------------------------------------------------------------------------------------------
# result


@pytest.mark.parametrize(
    ("result", "wire"),
    [
        (Result(placings=(1, 3, 2), reason="climb"), b"result 1-3-2 climb\n"),
        (Result(placings=(2, 1, 3), reason="no-moves"), b"result 2-1-3 no-moves\n"),
        (Result(placings=(1, 2, 2), reason="pan-drop"), b"result 1-2-2 pan-drop\n"),
        (Result(placings=(2, 1, 2, 1), reason="climb"), b"result 2-1-2-1 climb\n"),
        (Result(placings=(1, 2, 1, 2), reason="time"), b"result 1-2-1-2 time\n"),
        (Result(placings=(None, None, 3), reason="time"), b"result *-*-3 time\n"),
        (Result(placings=(3, None, None), reason="no-moves"), b"result 3-*-* no-moves\n"),
        (Result(placings=(1, 2), reason="climb"), b"result 1-0 climb\n"),
        (Result(placings=(2, 1), reason="resign"), b"result 0-1 resign\n"),
    ],
)
def test_result_carries_placings(result: Result, wire: bytes) -> None:
    assert idle_conn().send(result) == wire


def test_two_seat_placings_are_the_two_seat_result() -> None:
    """One command however it was spelt: equal, and the line is the two-seat line of today."""
    assert Result(placings=(1, 2), reason="climb") == Result(result="1-0", reason="climb")
    assert Result(placings=(2, 1), reason="time") == Result(result="0-1", reason="time")
    assert Result(result="1-0", reason="climb").text == "1-0"
    assert Result(placings=(None, None, 3), reason="time").text == "*-*-3"


_THREE = "three seats finish 1-2-3 in some order, or 1-2-2"
_FOUR = "four seats finish as teams, 1-2-1-2 or 2-1-2-1"
_UNDECIDED = "only a 3-seat game has an undecided place, when one seat is out (third)"


@pytest.mark.parametrize(
    ("placings", "message"),
    [
        ((1, 1, 2), f"result placings 1-1-2: {_THREE}"),
        ((2, 2, 3), f"result placings 2-2-3: {_THREE}"),
        ((1, 3, 3), f"result placings 1-3-3: {_THREE}"),
        ((1, 1, 2, 2), f"result placings 1-1-2-2: {_FOUR}"),
        ((1, 2, 3, 4), f"result placings 1-2-3-4: {_FOUR}"),
        ((None, None, 2), f"result placings *-*-2: {_UNDECIDED}"),
        ((None, 3, 3), f"result placings *-3-3: {_UNDECIDED}"),
        ((None, 2, None, 2), f"result placings *-2-*-2: {_UNDECIDED}"),
        ((1, 1), "result placings 1-1: two seats finish 1-2 or 2-1"),
        ((0, 1, 2), "result placings (0, 1, 2): a place is an int from 1 to 3 or None"),
        ((1, True, 2), "result placings (1, True, 2): a place is an int from 1 to 3 or None"),
        ((1, 2, 3, 4, 5), "result placings must be a tuple of 2 to 4 places, one per seat, got (1, 2, 3, 4, 5)"),
        ([1, 2, 3], "result placings must be a tuple of 2 to 4 places, one per seat, got [1, 2, 3]"),
    ],
)
def test_impossible_placings_are_refused(placings: Any, message: str) -> None:
    assert refusal(lambda: Result(placings=placings, reason="climb")) == message


def test_a_result_needs_one_outcome_and_a_reason_with_a_winner() -> None:
    assert refusal(lambda: Result(result="1-0", placings=(1, 2), reason="climb")) == "result takes result or placings, not both"
    assert refusal(lambda: Result(reason="climb")) == "result must be '1-0' or '0-1', got None"
    assert refusal(lambda: Result(placings=(1, 2, 3), reason="aborted")).startswith("result reason must be one of")


def test_an_n_seat_game_from_newgame_to_result_leaves_the_connection_idle() -> None:
    conn = idle_conn()
    wire = conn.send(NewGame(gods=("apollo", "minotaur", "pan")))
    wire += conn.send(Go(p1time=1000, p2time=1000, p3time=1000, p1inc=10, p2inc=10, p3inc=10))
    conn.receive_data(b"bestmove b3,d3\n")
    conn.next_event()
    wire += conn.send(Result(placings=(1, 3, 2), reason="climb"))
    assert wire.decode().splitlines() == [
        "newgame gods apollo/minotaur/pan",
        "go p1time 1000 p2time 1000 p3time 1000 p1inc 10 p2inc 10 p3inc 10",
        "result 1-3-2 climb",
    ]
    assert conn.state is IDLE
