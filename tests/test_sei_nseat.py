"""SEI for three and four seats (SPEC.md section 4): ``newgame`` with 3 or 4 gods, every seat's
clock in ``go``, ``feature players``, ``result`` with placings; two-seat lines unchanged."""

from __future__ import annotations

import queue
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from santorini_server.referee import Engine, EngineFailure
from santorini_server.referee.engine_spec import EngineSpec
from santorini_server.rules import Position
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


# --------------------------------------------------------------------------------------------
# The bot helper (engines/sei_bot.py) with three and four seats, as a real process

SEATS_BOT = Path(__file__).parent / "gallery" / "seats_bot.py"
#: Three seats: seat 2's workers (a1, b1) are walled in by domes; seat 1 is to move.
WALLED = "atlas/demeter/hephaestus;00000/00000/00000/44400/00400;c4,e5/a1,b1/e1,e3;1;5"


class Bot:
    """``tests/gallery/seats_bot.py`` over pipes; a reader thread so every wait has a timeout."""

    def __init__(self, *players: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(SEATS_BOT), *map(str, players)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def until(self, word: str, *lines: str) -> list[str]:
        """Send ``lines``; every reply up to and including the first starting with ``word``."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()
        out: list[str] = []
        while not out or out[-1].split(" ", 1)[0] != word:
            line = self.lines.get(timeout=10)
            assert line is not None, f"the bot closed stdout after {out}"
            out.append(line)
        return out

    def ask(self, *lines: str) -> list[str]:
        """Replies to ``lines`` (sent before an ``isready``), before the ``readyok``."""
        return self.until("readyok", *lines, "isready")[:-1]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture
def bot234() -> Iterator[Bot]:
    bot = Bot(2, 3, 4)
    bot.until("seiok", "sei 1")
    yield bot
    bot.close()


@pytest.fixture
def bot2() -> Iterator[Bot]:
    bot = Bot()
    yield bot
    bot.close()


def test_the_helper_declares_seat_counts_only_when_the_bot_opts_in(bot2: Bot) -> None:
    assert not [line for line in bot2.until("seiok", "sei 1") if "players" in line]
    bot = Bot(2, 4, 3)
    try:
        assert "feature players 2 3 4" in bot.until("seiok", "sei 1")
    finally:
        bot.close()


def test_a_two_seat_bot_refuses_a_game_of_more_seats(bot2: Bot) -> None:
    bot2.until("seiok", "sei 1")
    assert bot2.ask("newgame gods apollo/minotaur/pan", f"position sps {WALLED}") == [
        "error unsupported players 3 (this engine plays 2: feature players)",
        "error unsupported players 3 (this engine plays 2: feature players)",
    ]


@pytest.mark.parametrize(
    ("gods", "error"),
    [
        ("apollo/mortal/pan", "error a 3-seat game is played with god powers: every seat needs a god, not mortal"),
        ("apollo/pan/atlas/apollo", "error two seats have apollo: each seat has its own god"),
        ("apollo/pan/atlas/athena/hermes",
         "error bad gods 'apollo/pan/atlas/athena/hermes': expected 2 to 4 gods joined by '/', one per seat"),
        ("zeus/pan/atlas", "error unsupported god zeus"),
    ],
)
def test_an_impossible_newgame_is_one_error_line(bot234: Bot, gods: str, error: str) -> None:
    assert bot234.ask(f"newgame gods {gods}") == [error]


def test_three_seats_from_startpos_with_every_seats_clock(bot234: Bot) -> None:
    """Placement goes round the three seats; the bot is told its seat and all three clocks."""
    start = Position.start(("apollo", "minotaur", "pan"))
    moves: list[str] = []
    pos = start
    for seat in (1, 2, 3, 1):
        replies = bot234.until(
            "bestmove",
            "newgame gods apollo/minotaur/pan",
            "position startpos" + (" moves " + " ".join(moves) if moves else ""),
            "go p1time 3000 p2time 2000 p3time 1000 p1inc 30 p2inc 20 p3inc 10",
        )
        assert replies[0].startswith(f"info string seat {seat} of 3 clocks 3000+30 2000+20 1000+10 budget ")
        turn = replies[-1].split()[1]
        assert turn in pos.legal_turns()
        pos = pos.play(turn).position
        moves.append(turn)
    assert pos.player == 2


def test_a_seat_with_no_turn_leaves_the_game_when_the_helper_replays_it(bot234: Bot) -> None:
    """SPEC.md section 15: after seat 1's turn seat 2 has no complete turn, so it is out and seat
    3 moves, with seat 2's squares free (worked case C)."""
    pos = Position.from_sps(WALLED)
    turn = "e5-d5+c5"
    after = pos.play(turn).position
    assert after.player == 2 and after.is_lost()
    replies = bot234.until(
        "bestmove", "newgame gods atlas/demeter/hephaestus", f"position sps {WALLED} moves {turn}", "go movetime 1000",
    )
    assert replies[0].startswith("info string seat 3 of 3 clocks None+None None+None None+None budget ")
    left = after.eliminate()
    assert left is not None and left.sps() == "atlas/demeter/hephaestus;00100/00000/00000/44400/00400;c4,d5/x/e1,e3;3;5"
    assert replies[-1].split()[1] in left.legal_turns()
    # the position after the elimination, as an SPS, is the same game
    same = bot234.until("bestmove", f"position sps {left.sps()}", "go movetime 1000")
    assert same[-1] == replies[-1]


def test_a_moves_list_that_leaves_one_seat_is_refused(bot234: Bot) -> None:
    # seat 1 of three is to move with seat 3 already out and seat 2 walled in: after seat 1's
    # turn seat 2 is eliminated and seat 1 is the only seat left
    sps = "atlas/demeter/hephaestus;00000/00000/00000/44400/00400;c4,e5/a1,b1/x;1;5"
    assert Position.from_sps(sps).play("e5-d5+c5").position.eliminate() is None
    assert bot234.ask("newgame gods atlas/demeter/hephaestus", f"position sps {sps} moves e5-d5+c5") == [
        "error position: one seat is left, the game is over"
    ]
    assert bot234.until("bestmove", "go movetime 50")[-1] == "bestmove resign"


def test_four_seats_teams_share_workers(bot234: Bot) -> None:
    """Seat 1 places team A, seat 2 team B, seat 3 takes the first play turn with team A's workers."""
    gods = "apollo/minotaur/pan/athena"
    replies = bot234.until(
        "bestmove", f"newgame gods {gods}", "position startpos moves b3,d3 c2,c4",
        "go p1time 4000 p2time 3000 p3time 2000 p4time 1000 p1inc 40 p2inc 30 p3inc 20 p4inc 10",
    )
    assert replies[0].startswith("info string seat 3 of 4 clocks 4000+40 3000+30 2000+20 1000+10 budget ")
    pos = Position.start(tuple(gods.split("/"))).play("b3,d3").position.play("c2,c4").position
    turn = replies[-1].split()[1]
    assert turn in pos.legal_turns() and turn[:2] in ("b3", "d3")
