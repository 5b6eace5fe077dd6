"""Tests of the sans-IO SEI codec (santorini_server/sei), h11-style: boundaries first."""

from __future__ import annotations

import ast
import itertools
import pathlib
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import santorini_server.sei as sei
from santorini_server.sei import (
    COUNTING,
    EOF,
    ERROR,
    HANDSHAKE,
    IDLE,
    LISTING,
    MAX_LINE_LENGTH,
    NEED_DATA,
    NEW,
    QUIT,
    SEARCHING,
    STOPPING,
    BestMove,
    Debug,
    EngineError,
    Feature,
    Go,
    Gods,
    Id,
    Info,
    IsReady,
    LegalMoves,
    LegalMovesRequest,
    LocalProtocolError,
    NewGame,
    Option,
    PerftRequest,
    PerftResult,
    PositionCommand,
    Quit,
    ReadyOk,
    RemoteProtocolError,
    Resign,
    Result,
    Sei,
    SeiConnection,
    SeiOk,
    SeiProtocolError,
    SetOption,
    State,
    Stop,
    Unknown,
)
from santorini_server.sei.errors import MAX_QUOTE_LENGTH

SEI_DIR = pathlib.Path(sei.__file__).parent

# --------------------------------------------------------------------------------------------
# Helpers


def drain(conn: SeiConnection) -> list[Any]:
    """All events up to (not including) NEED_DATA or EOF."""
    out: list[Any] = []
    while True:
        event = conn.next_event()
        if event is NEED_DATA or event is EOF:
            return out
        out.append(event)


def feed(conn: SeiConnection, data: bytes) -> list[Any]:
    conn.receive_data(data)
    return drain(conn)


def state_of(conn: SeiConnection) -> State:
    """The state, read through a call so mypy does not keep a narrowed type across sends."""
    return conn.state


def new_conn(**kw: Any) -> SeiConnection:
    return SeiConnection(**kw)


def handshake_conn(**kw: Any) -> SeiConnection:
    conn = SeiConnection(**kw)
    conn.send(Sei(version=1))
    return conn


def idle_conn(**kw: Any) -> SeiConnection:
    conn = handshake_conn(**kw)
    assert feed(conn, b"seiok 1\n") == [SeiOk(version=1)]
    assert conn.state is IDLE
    return conn


def searching_conn(**kw: Any) -> SeiConnection:
    conn = idle_conn(**kw)
    conn.send(Go(depth=3))
    return conn


def stopping_conn(**kw: Any) -> SeiConnection:
    conn = searching_conn(**kw)
    conn.send(Stop())
    return conn


def listing_conn(**kw: Any) -> SeiConnection:
    conn = idle_conn(**kw)
    conn.send(LegalMovesRequest())
    return conn


def counting_conn(**kw: Any) -> SeiConnection:
    conn = idle_conn(**kw)
    conn.send(PerftRequest(depth=3))
    return conn


def quit_conn(**kw: Any) -> SeiConnection:
    conn = idle_conn(**kw)
    conn.send(Quit())
    return conn


def error_conn(**kw: Any) -> SeiConnection:
    conn = idle_conn(**kw)
    conn.receive_data(b"bestmove b3-b4+c5\n")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()
    return conn


BUILDERS: dict[str, Callable[..., SeiConnection]] = {
    "NEW": new_conn,
    "HANDSHAKE": handshake_conn,
    "IDLE": idle_conn,
    "SEARCHING": searching_conn,
    "STOPPING": stopping_conn,
    "LISTING": listing_conn,
    "COUNTING": counting_conn,
    "QUIT": quit_conn,
}


def test_builders_reach_their_states() -> None:
    expected = {
        "NEW": NEW,
        "HANDSHAKE": HANDSHAKE,
        "IDLE": IDLE,
        "SEARCHING": SEARCHING,
        "STOPPING": STOPPING,
        "LISTING": LISTING,
        "COUNTING": COUNTING,
        "QUIT": QUIT,
    }
    for name, build in BUILDERS.items():
        assert build().state is expected[name]
    assert error_conn().state is ERROR


# --------------------------------------------------------------------------------------------
# h11's triple feed: whole, byte by byte, with trailing data


TRIPLE_CASES: list[tuple[str, bytes, Any]] = [
    ("HANDSHAKE", b"id name Kronos 0.3\n", Id(field="name", value="Kronos 0.3")),
    ("HANDSHAKE", b"id author Jane Doe\r\n", Id(field="author", value="Jane Doe")),
    (
        "HANDSHAKE",
        b"option name Hash type spin default 16 min 1 max 1024\n",
        Option(name="Hash", type="spin", default="16", min=1, max=1024),
    ),
    ("HANDSHAKE", b"gods apollo artemis pan\n", Gods(names=("apollo", "artemis", "pan"))),
    ("HANDSHAKE", b"feature legalmoves perft\n", Feature(names=("legalmoves", "perft"))),
    ("HANDSHAKE", b"seiok 1\n", SeiOk(version=1)),
    ("SEARCHING", b"bestmove b3-b4+c5\n", BestMove(turn="b3-b4+c5")),
    ("STOPPING", b"bestmove resign\n", Resign()),
    (
        "SEARCHING",
        b"info depth 6 score cp 21 pv b3-b4+c5\n",
        Info(depth=6, score_cp=21, pv=("b3-b4+c5",), raw="info depth 6 score cp 21 pv b3-b4+c5"),
    ),
    ("IDLE", b"error unsupported god zeus\n", EngineError(text="unsupported god zeus")),
    (
        "LISTING",
        b"legalmoves 2 b3-a2+a1 b3-a2+a3\n",
        LegalMoves(count=2, turns=("b3-a2+a1", "b3-a2+a3")),
    ),
    ("COUNTING", b"perft 3 350208\n", PerftResult(depth=3, count=350208)),
    ("IDLE", b"Kronos 0.3 by Jane\n", Unknown(line="Kronos 0.3 by Jane")),
]


@pytest.mark.parametrize(("state", "data", "expected"), TRIPLE_CASES)
def test_triple_feed(state: str, data: bytes, expected: Any) -> None:
    # Whole input.
    conn = BUILDERS[state]()
    conn.receive_data(data)
    assert conn.next_event() == expected
    assert conn.next_event() is NEED_DATA

    # One byte at a time: NEED_DATA until the LF arrives.
    conn = BUILDERS[state]()
    for i in range(len(data) - 1):
        conn.receive_data(data[i : i + 1])
        assert conn.next_event() is NEED_DATA
    conn.receive_data(data[-1:])
    assert conn.next_event() == expected
    assert conn.next_event() is NEED_DATA

    # With trailing data, which must stay buffered until completed.
    conn = BUILDERS[state]()
    conn.receive_data(data + b"info dep")
    assert conn.next_event() == expected
    assert conn.next_event() is NEED_DATA
    assert bytes(conn._buffer) == b"info dep"
    conn.receive_data(b"th 3\n")
    assert conn.next_event() == Info(depth=3, raw="info depth 3")


# --------------------------------------------------------------------------------------------
# Commands: the bytes on the wire


COMMAND_CASES: list[tuple[str, Any, bytes]] = [
    ("NEW", Sei(version=1), b"sei 1\n"),
    ("NEW", Sei(version=12), b"sei 12\n"),
    ("IDLE", SetOption(name="Hash", value="64"), b"setoption name Hash value 64\n"),
    ("IDLE", SetOption(name="Clear Hash"), b"setoption name Clear Hash\n"),
    (
        "IDLE",
        SetOption(name="Book File", value="my book.bin"),
        b"setoption name Book File value my book.bin\n",
    ),
    ("IDLE", IsReady(), b"isready\n"),
    ("SEARCHING", IsReady(), b"isready\n"),
    ("IDLE", NewGame(gods=("mortal", "mortal")), b"newgame gods mortal/mortal\n"),
    ("IDLE", NewGame(gods=("prometheus", "athena")), b"newgame gods prometheus/athena\n"),
    ("IDLE", PositionCommand(), b"position startpos\n"),
    ("IDLE", PositionCommand(moves=("b3,d3", "c2,c4")), b"position startpos moves b3,d3 c2,c4\n"),
    (
        "IDLE",
        PositionCommand(sps="prometheus/athena;00010/00000/00000/01000/00000;b2,d4/c4,e1;1;3"),
        b"position sps prometheus/athena;00010/00000/00000/01000/00000;b2,d4/c4,e1;1;3\n",
    ),
    (
        "IDLE",
        PositionCommand(
            sps="mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2", moves=("b3-b4+c5",)
        ),
        b"position sps mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
        b" moves b3-b4+c5\n",
    ),
    ("IDLE", Go(), b"go\n"),
    (
        "IDLE",
        Go(p1time=60000, p2time=60000, p1inc=1000, p2inc=1000),
        b"go p1time 60000 p2time 60000 p1inc 1000 p2inc 1000\n",
    ),
    (
        "IDLE",
        Go(
            infinite=True,
            nodes=5,
            depth=4,
            movetime=100,
            movestogo=7,
            p2inc=0,
            p1inc=0,
            p2time=0,
            p1time=0,
        ),
        b"go p1time 0 p2time 0 p1inc 0 p2inc 0 movestogo 7 movetime 100 depth 4 nodes 5 infinite\n",
    ),
    ("IDLE", Go(infinite=True), b"go infinite\n"),
    ("SEARCHING", Stop(), b"stop\n"),
    ("IDLE", Result(result="1-0", reason="climb"), b"result 1-0 climb\n"),
    ("IDLE", Result(result="0-1", reason="pan-drop"), b"result 0-1 pan-drop\n"),
    ("IDLE", Debug(on=True), b"debug on\n"),
    ("SEARCHING", Debug(on=False), b"debug off\n"),
    ("IDLE", Quit(), b"quit\n"),
    ("SEARCHING", Quit(), b"quit\n"),
    ("IDLE", LegalMovesRequest(), b"legalmoves\n"),
    ("IDLE", PerftRequest(depth=3), b"perft 3\n"),
]


@pytest.mark.parametrize(("state", "command", "wire"), COMMAND_CASES)
def test_command_bytes(state: str, command: Any, wire: bytes) -> None:
    assert BUILDERS[state]().send(command) == wire


def test_every_command_type_has_a_wire_case() -> None:
    covered = {type(c) for _, c, _ in COMMAND_CASES}
    assert covered == {
        Sei, SetOption, IsReady, NewGame, PositionCommand, Go, Stop, Result, Debug, Quit,
        LegalMovesRequest, PerftRequest,
    }  # fmt: skip


def test_position_and_go_combine_in_one_write() -> None:
    conn = idle_conn()
    wire = conn.send(PositionCommand(moves=("b3,d3",))) + conn.send(Go(p1time=1, p2time=2))
    assert wire == b"position startpos moves b3,d3\ngo p1time 1 p2time 2\n"
    assert conn.state is SEARCHING


BAD_COMMANDS: list[Callable[[], Any]] = [
    lambda: Sei(version=0),
    lambda: Sei(version=True),
    lambda: SetOption(name=""),
    lambda: SetOption(name="Hash\nquit"),
    lambda: SetOption(name="Hash  Size"),
    lambda: SetOption(name=" Hash"),
    lambda: SetOption(name="Hash\t"),
    lambda: SetOption(name="my value thing"),
    lambda: SetOption(name="Hash", value=""),
    lambda: SetOption(name="Hash", value="1\r\n"),
    lambda: SetOption(name="Path", value="caf\u00e9"),
    lambda: NewGame(gods=("mortal",)),  # type: ignore[arg-type]
    lambda: NewGame(gods=("mortal", "")),
    lambda: NewGame(gods=("mortal", "a/b")),
    lambda: NewGame(gods=("mortal", "pan pan")),
    lambda: NewGame(gods=["mortal", "pan"]),  # type: ignore[arg-type]
    lambda: PositionCommand(sps=""),
    lambda: PositionCommand(sps="mortal/mortal;00000 /00000"),
    lambda: PositionCommand(sps="x\n"),
    lambda: PositionCommand(moves=("b3-b4 +c5",)),
    lambda: PositionCommand(moves=("b3-b4+c5\n",)),
    lambda: PositionCommand(moves=("b3-b4+c5\x00",)),
    lambda: PositionCommand(moves=("",)),
    lambda: PositionCommand(moves=["b3,d3"]),  # type: ignore[arg-type]
    lambda: PositionCommand(moves=("b3\u2013b4",)),
    lambda: Go(p1time=-1),
    lambda: Go(p2inc=-5),
    lambda: Go(movetime=0),
    lambda: Go(depth=0),
    lambda: Go(nodes=-1),
    lambda: Go(movestogo=0),
    lambda: Go(p1time=1.5),  # type: ignore[arg-type]
    lambda: Go(depth=True),
    lambda: Go(infinite=1),  # type: ignore[arg-type]
    lambda: Result(result="1/2-1/2", reason="climb"),  # type: ignore[arg-type]
    lambda: Result(result="1-0", reason="aborted"),
    lambda: Result(result="1-0", reason="climb\nquit"),
    lambda: Debug(on="on"),  # type: ignore[arg-type]
    lambda: PerftRequest(depth=0),
]


@pytest.mark.parametrize("make", BAD_COMMANDS)
def test_bad_commands_are_rejected_when_built(make: Callable[[], Any]) -> None:
    with pytest.raises(LocalProtocolError):
        make()


def test_commands_are_frozen_and_keyword_only() -> None:
    go = Go(depth=3)
    with pytest.raises(AttributeError):
        go.depth = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        Go(3)  # type: ignore[call-arg]
    assert Go(depth=3) == go and hash(Go(depth=3)) == hash(go)


# --------------------------------------------------------------------------------------------
# Engine lines


def one_event(data: bytes, state: str = "SEARCHING") -> Any:
    conn = BUILDERS[state]()
    events = feed(conn, data)
    assert len(events) == 1, events
    return events[0]


def test_info_with_every_field() -> None:
    line = (
        "info depth 6 seldepth 9 time 870 nodes 1402311 nps 1611852 score cp -21"
        " wdl 300 400 300 pv b3-b4+c5 c4-c5+b5"
    )
    assert one_event(line.encode() + b"\n") == Info(
        depth=6,
        seldepth=9,
        time=870,
        nodes=1402311,
        nps=1611852,
        score_cp=-21,
        wdl=(300, 400, 300),
        pv=("b3-b4+c5", "c4-c5+b5"),
        raw=line,
    )


def test_info_score_win_negative_and_positive() -> None:
    assert one_event(b"info score win -3\n").score_win == -3
    assert one_event(b"info score win +2\n").score_win == 2
    assert one_event(b"info depth 1 time 0 nodes 55 score win 1 pv c5-b5\n") == Info(
        depth=1,
        time=0,
        nodes=55,
        score_win=1,
        pv=("c5-b5",),
        raw="info depth 1 time 0 nodes 55 score win 1 pv c5-b5",
    )


def test_info_long_pv_stops_at_the_next_keyword() -> None:
    turns = [f"{f}{r}-{f}{r}+a1" for f in "abcde" for r in "12345"] * 4
    line = "info pv " + " ".join(turns) + " depth 12 multipv 1"
    event = one_event(line.encode() + b"\n")
    assert event.pv == tuple(turns)
    assert event.depth == 12


def test_info_garbage_fields_are_ignored() -> None:
    line = (
        "info depth abc seldepth -3 time 1.5 nodes \u0663 nps 1_000 score mate 3 score cp x"
        " wdl 1 2 foo hashfull 500 currmove b3-b4 bogus 17 depth 4"
    )
    event = one_event(line.encode() + b"\n")
    assert event == Info(depth=4, raw=line)


def test_info_huge_numbers_do_not_escape_as_value_error() -> None:
    event = one_event(b"info depth " + b"9" * 5000 + b" nodes 12\n")
    assert event.depth is None and event.nodes == 12


def test_info_string_keeps_the_rest_verbatim() -> None:
    assert (
        one_event(b"info string  hello\t world  depth 3 pv x  \n").string
        == "hello\t world  depth 3 pv x  "
    )
    assert one_event(b"info depth 2 string\n") == Info(
        depth=2, string="", raw="info depth 2 string"
    )
    assert one_event(b"info string unknown command foo\n").string == "unknown command foo"


def test_info_alone_and_in_every_live_state() -> None:
    for state in BUILDERS:
        assert one_event(b"info\n", state) == Info(raw="info")


def test_tabs_and_runs_of_spaces_separate_tokens() -> None:
    assert one_event(b"bestmove\t \tb3-b4+c5 \t\n") == BestMove(turn="b3-b4+c5")
    assert one_event(b"  \tbestmove b3,d3\n") == BestMove(turn="b3,d3")
    assert one_event(b"info\tdepth\t3\tscore  cp\t7\n").score_cp == 7


def test_crlf_and_lone_cr() -> None:
    assert one_event(b"bestmove b3,d3\r\n") == BestMove(turn="b3,d3")
    # Only one trailing CR is stripped: a second one is part of the token, which is then bad.
    conn = searching_conn()
    conn.receive_data(b"bestmove b3,d3\r\r\n")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_blank_lines_are_skipped() -> None:
    conn = searching_conn()
    assert feed(conn, b"\n\r\n \t \n\nbestmove b3,d3\n") == [BestMove(turn="b3,d3")]


def test_form_feed_is_not_a_separator() -> None:
    conn = searching_conn()
    conn.receive_data(b"bestmove\x0cb3,d3\n")
    assert conn.next_event() == Unknown(line="bestmove\x0cb3,d3")


def test_keywords_are_case_sensitive() -> None:
    assert one_event(b"BESTMOVE b3,d3\n") == Unknown(line="BESTMOVE b3,d3")


def test_option_lines() -> None:
    def opt(text: str) -> Any:
        return one_event(text.encode() + b"\n", "HANDSHAKE")

    assert opt("option name Clear Hash type button") == Option(name="Clear Hash", type="button")
    assert opt("option name Ponder type check default false") == Option(
        name="Ponder", type="check", default="false"
    )
    assert opt(
        "option name Style type combo default Normal var Solid var Normal var Risky Play"
    ) == Option(
        name="Style", type="combo", default="Normal", vars=("Solid", "Normal", "Risky Play")
    )
    assert opt("option name Book type string default") == Option(
        name="Book", type="string", default=""
    )
    assert opt("option name Contempt type spin default -10 min -100 max 100") == Option(
        name="Contempt", type="spin", default="-10", min=-100, max=100
    )
    # A name runs until `type`, keywords included.
    assert opt("option name Use default max type check") == Option(
        name="Use default max", type="check"
    )


@pytest.mark.parametrize(
    "line",
    [
        b"option\n",
        b"option type spin\n",
        b"option foo name Hash type spin\n",
        b"option name Hash\n",
        b"option name Hash type integer\n",
        b"option name Hash type spin min one\n",
        b"option name Hash type spin max 1.5\n",
        b"option name type spin\n",
        b"gods apollo pa\xffn\n",
        b"feature perft\x01\n",
        b"seiok\n",
        b"seiok 0\n",
        b"seiok 2\n",  # above the requested version 1
        b"seiok one\n",
        b"seiok 1 2\n",
    ],
)
def test_malformed_handshake_lines(line: bytes) -> None:
    conn = handshake_conn()
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()
    assert conn.state is ERROR


def test_seiok_may_be_below_the_requested_version() -> None:
    conn = new_conn()
    conn.send(Sei(version=3))
    assert feed(conn, b"seiok 2\n") == [SeiOk(version=2)]
    assert conn.state is IDLE


def test_id_lines() -> None:
    assert one_event(b"id name  Kronos\t0.3 \n", "HANDSHAKE") == Id(
        field="name", value="Kronos\t0.3 "
    )
    assert one_event(b"id name\n", "HANDSHAKE") == Id(field="name", value="")
    assert one_event(b"id author J\xc3\xbcrgen\n", "HANDSHAKE") == Id(
        field="author", value="J\u00fcrgen"
    )
    # Unknown id fields are tolerated, for forward compatibility.
    assert one_event(b"id version 3\n", "HANDSHAKE") == Unknown(line="id version 3")
    assert one_event(b"id\n", "HANDSHAKE") == Unknown(line="id")


def test_gods_and_feature_may_be_empty() -> None:
    assert one_event(b"gods\n", "HANDSHAKE") == Gods(names=())
    assert one_event(b"feature\n", "HANDSHAKE") == Feature(names=())


def test_error_lines_in_every_live_state_change_nothing() -> None:
    for build in BUILDERS.values():
        conn = build()
        before = conn.state
        assert feed(conn, b"error bad SPS  'x'\n") == [EngineError(text="bad SPS  'x'")]
        assert conn.state is before
    assert one_event(b"error\n", "IDLE") == EngineError(text="")


def test_unknown_lines_in_every_live_state_change_nothing() -> None:
    for build in BUILDERS.values():
        conn = build()
        before = conn.state
        assert feed(conn, b"hello world\n") == [Unknown(line="hello world")]
        assert conn.state is before


@pytest.mark.parametrize(
    "line",
    [
        b"bestmove\n",
        b"bestmove b3,d3 ponder c2,c4\n",
        b"bestmove b3-b4+c\xff5\n",
        b"bestmove b3-b4\x00+c5\n",
        b"bestmove b3-b4+c5\x7f\n",
        b"bestmove \xc3\xa93,d3\n",
        b"bestmove b3\rd3\n",
    ],
)
def test_malformed_bestmove_is_a_remote_error(line: bytes) -> None:
    conn = searching_conn()
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()
    assert conn.state is ERROR


def test_bestmove_token_is_not_validated_as_stn() -> None:
    # Malformed STN is the rules layer's business (an `illegal` loss), not a protocol error.
    assert one_event(b"bestmove B3-C3^d4\n") == BestMove(turn="B3-C3^d4")
    assert one_event(b"bestmove (none)\n") == BestMove(turn="(none)")


@pytest.mark.parametrize(
    "line",
    [
        b"legalmoves\n",
        b"legalmoves 3 a b\n",
        b"legalmoves 1 a b\n",
        b"legalmoves -1\n",
        b"legalmoves two a b\n",
        b"legalmoves 1 \xff\n",
    ],
)
def test_malformed_legalmoves(line: bytes) -> None:
    conn = listing_conn()
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_legalmoves_zero_and_many() -> None:
    assert one_event(b"legalmoves 0\n", "LISTING") == LegalMoves(count=0, turns=())
    turns = [f"b3-{f}{r}+a1" for f in "abcde" for r in "12345"] * 3
    line = f"legalmoves {len(turns)} " + " ".join(turns)
    assert one_event(line.encode() + b"\n", "LISTING") == LegalMoves(
        count=len(turns), turns=tuple(turns)
    )


@pytest.mark.parametrize(
    "line", [b"perft 3\n", b"perft 3 1 2\n", b"perft 2 350208\n", b"perft 3 many\n", b"perft x 3\n"]
)
def test_malformed_perft(line: bytes) -> None:
    conn = counting_conn()
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


@pytest.mark.parametrize("line", [b"readyok now\n"])
def test_malformed_readyok(line: bytes) -> None:
    conn = idle_conn()
    conn.send(IsReady())
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


# --------------------------------------------------------------------------------------------
# Sequencing


def test_full_game_sequence_like_transcript_a() -> None:
    conn = new_conn()
    assert conn.send(Sei(version=1)) == b"sei 1\n"
    events = feed(
        conn,
        b"id name Kronos 0.3\nid author Jane Doe\n"
        b"option name Hash type spin default 16 min 1 max 1024\n"
        b"gods apollo artemis athena atlas demeter hephaestus hermes minotaur pan prometheus\n"
        b"feature legalmoves perft\nseiok 1\n",
    )
    assert [type(e) for e in events] == [Id, Id, Option, Gods, Feature, SeiOk]
    assert conn.state is IDLE
    conn.send(SetOption(name="Hash", value="64"))
    conn.send(NewGame(gods=("mortal", "mortal")))
    conn.send(IsReady())
    assert conn.ping_outstanding
    assert feed(conn, b"readyok\n") == [ReadyOk()]
    assert not conn.ping_outstanding
    conn.send(PositionCommand())
    conn.send(Go(p1time=60000, p2time=60000, p1inc=1000, p2inc=1000))
    events = feed(
        conn, b"info depth 2 time 14 nodes 21450 score cp 0 pv b3,d3 c2,c4\nbestmove b3,d3\n"
    )
    assert events[-1] == BestMove(turn="b3,d3")
    assert conn.state is IDLE
    conn.send(Result(result="1-0", reason="climb"))
    conn.send(Quit())
    assert conn.state is QUIT


def test_analysis_with_isready_during_search_and_stop() -> None:
    conn = idle_conn()
    conn.send(PositionCommand(sps="mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22"))
    conn.send(Go(infinite=True))
    assert feed(conn, b"info depth 1 time 0 nodes 50 score win 1 pv b4-c4\n")[0].score_win == 1
    conn.send(IsReady())
    assert feed(conn, b"readyok\n") == [ReadyOk()]
    assert state_of(conn) is SEARCHING
    conn.send(Stop())
    assert state_of(conn) is STOPPING
    assert feed(conn, b"info depth 2\nbestmove b4-c4\n")[-1] == BestMove(turn="b4-c4")
    assert state_of(conn) is IDLE


def test_readyok_crossing_a_bestmove() -> None:
    # isready sent while searching; the engine answers bestmove first, then readyok.
    conn = searching_conn()
    conn.send(IsReady())
    assert feed(conn, b"bestmove b3,d3\nreadyok\n") == [BestMove(turn="b3,d3"), ReadyOk()]
    assert conn.state is IDLE and not conn.ping_outstanding


def test_legalmoves_and_perft_round_trips() -> None:
    conn = idle_conn()
    conn.send(LegalMovesRequest())
    assert feed(conn, b"legalmoves 1 b3-a2+a1\n") == [LegalMoves(count=1, turns=("b3-a2+a1",))]
    assert conn.state is IDLE
    conn.send(PerftRequest(depth=2))
    assert feed(conn, b"perft 2 5156\n") == [PerftResult(depth=2, count=5156)]
    assert conn.state is IDLE
    conn.receive_data(b"perft 2 5156\n")  # a second reply is out of sequence
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


FORBIDDEN_LINES: list[tuple[str, bytes]] = [
    ("NEW", b"id name X\n"),
    ("NEW", b"seiok 1\n"),
    ("NEW", b"bestmove b3,d3\n"),
    ("NEW", b"readyok\n"),
    ("HANDSHAKE", b"bestmove b3,d3\n"),
    ("HANDSHAKE", b"readyok\n"),
    ("HANDSHAKE", b"legalmoves 0\n"),
    ("IDLE", b"bestmove b3,d3\n"),
    ("IDLE", b"bestmove resign\n"),
    ("IDLE", b"seiok 1\n"),
    ("IDLE", b"id name X\n"),
    ("IDLE", b"option name Hash type button\n"),
    ("IDLE", b"gods pan\n"),
    ("IDLE", b"feature perft\n"),
    ("IDLE", b"readyok\n"),
    ("IDLE", b"legalmoves 0\n"),
    ("IDLE", b"perft 3 1\n"),
    ("SEARCHING", b"seiok 1\n"),
    ("SEARCHING", b"readyok\n"),
    ("SEARCHING", b"legalmoves 0\n"),
    ("SEARCHING", b"perft 3 1\n"),
    ("STOPPING", b"readyok\n"),
    ("LISTING", b"bestmove b3,d3\n"),
    ("LISTING", b"perft 3 1\n"),
    ("COUNTING", b"bestmove b3,d3\n"),
    ("COUNTING", b"legalmoves 0\n"),
]


@pytest.mark.parametrize(("state", "line"), FORBIDDEN_LINES)
def test_lines_the_state_forbids_are_remote_errors(state: str, line: bytes) -> None:
    conn = BUILDERS[state]()
    conn.receive_data(line)
    with pytest.raises(RemoteProtocolError) as info:
        conn.next_event()
    assert repr(line.rstrip(b"\n").decode())[:20] in str(info.value)  # the line is quoted
    assert conn.state is ERROR


def test_second_bestmove_for_one_go() -> None:
    conn = searching_conn()
    conn.receive_data(b"bestmove b3,d3\nbestmove c2,c4\n")
    assert conn.next_event() == BestMove(turn="b3,d3")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_seiok_twice() -> None:
    conn = handshake_conn()
    conn.receive_data(b"seiok 1\nseiok 1\n")
    assert conn.next_event() == SeiOk(version=1)
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_quit_tolerates_every_line() -> None:
    conn = searching_conn()
    conn.send(Quit())
    events = feed(conn, b"info depth 3\nbestmove b3,d3\nbestmove c2,c4\nreadyok\nseiok 1\n")
    assert [type(e) for e in events] == [Info, BestMove, BestMove, ReadyOk, SeiOk]
    assert conn.state is QUIT


ALL_COMMANDS: list[Any] = [
    Sei(version=1),
    SetOption(name="Hash", value="1"),
    IsReady(),
    NewGame(gods=("mortal", "mortal")),
    PositionCommand(),
    Go(depth=1),
    Stop(),
    Result(result="1-0", reason="climb"),
    Debug(on=True),
    Quit(),
    LegalMovesRequest(),
    PerftRequest(depth=1),
]
ALLOWED_SENDS: dict[str, set[type]] = {
    "NEW": {Sei, Quit},
    "HANDSHAKE": {Quit},
    "IDLE": {
        SetOption,
        IsReady,
        NewGame,
        PositionCommand,
        Go,
        Result,
        Debug,
        Quit,
        LegalMovesRequest,
        PerftRequest,
    },
    "SEARCHING": {Stop, IsReady, Debug, Quit},
    "STOPPING": {IsReady, Debug, Quit},
    "LISTING": {IsReady, Debug, Quit},
    "COUNTING": {IsReady, Debug, Quit},
    "QUIT": set(),
}


@pytest.mark.parametrize("state", list(BUILDERS))
@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: type(c).__name__)
def test_send_rules(state: str, command: Any) -> None:
    conn = BUILDERS[state]()
    if type(command) in ALLOWED_SENDS[state]:
        assert conn.send(command).endswith(b"\n")
        assert conn.state is not ERROR
    else:
        with pytest.raises(LocalProtocolError):
            conn.send(command)
        assert conn.state is ERROR


def test_only_one_isready_outstanding() -> None:
    conn = idle_conn()
    conn.send(IsReady())
    with pytest.raises(LocalProtocolError):
        conn.send(IsReady())


def test_send_rejects_non_commands() -> None:
    with pytest.raises(LocalProtocolError):
        idle_conn().send(BestMove(turn="b3,d3"))  # type: ignore[arg-type]


def test_error_is_sticky() -> None:
    conn = error_conn()
    conn.receive_data(b"info depth 1\n")
    for _ in range(2):
        with pytest.raises(RemoteProtocolError):
            conn.next_event()
    with pytest.raises(LocalProtocolError):
        conn.send(IsReady())
    assert conn.state is ERROR
    # quit may still be sent, so a misbehaving engine can be asked to exit before it is killed.
    assert conn.send(Quit()) == b"quit\n"
    assert conn.state is ERROR


def test_local_error_is_sticky_too() -> None:
    conn = searching_conn()
    with pytest.raises(LocalProtocolError):
        conn.send(Go(depth=1))
    conn.receive_data(b"bestmove b3,d3\n")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_send_failed_moves_to_error() -> None:
    conn = idle_conn()
    conn.send(Go(depth=1))
    conn.send_failed()
    assert conn.state is ERROR
    with pytest.raises(LocalProtocolError):
        conn.send(Stop())


# --------------------------------------------------------------------------------------------
# Framing limits, decoding, EOF


def test_overlong_line_without_newline_keeps_memory_bounded() -> None:
    conn = searching_conn()
    conn.receive_data(b"info depth 1\n")
    chunk = b"x" * 65536
    for _ in range(160):  # 10 MiB, no newline
        conn.receive_data(chunk)
        assert len(conn._buffer) <= MAX_LINE_LENGTH + len(chunk)
    assert len(conn._buffer) <= len(b"info depth 1\n")
    # The lines before the overlong one are still delivered, then the error.
    assert conn.next_event() == Info(depth=1, raw="info depth 1")
    with pytest.raises(RemoteProtocolError, match="longer than") as info:
        conn.next_event()
    assert len(str(info.value)) < MAX_QUOTE_LENGTH + 200
    assert conn.state is ERROR
    # Later data (even a good line) is dropped, not buffered.
    conn.receive_data(b"\nbestmove b3,d3\n")
    assert len(conn._buffer) == 0


def test_overlong_line_fed_byte_by_byte_is_linear_and_bounded() -> None:
    conn = searching_conn(max_line_length=4096)
    for _ in range(20000):
        conn.receive_data(b"y")
        assert len(conn._buffer) <= 4096
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_overlong_complete_line_in_one_chunk() -> None:
    conn = searching_conn(max_line_length=100)
    conn.receive_data(b"info depth 1\n" + b"info string " + b"z" * 200 + b"\nbestmove b3,d3\n")
    assert len(conn._buffer) <= 100
    assert conn.next_event() == Info(depth=1, raw="info depth 1")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_line_of_exactly_the_limit_is_accepted() -> None:
    limit = 64
    line = b"info string " + b"a" * (limit - len(b"info string "))
    assert len(line) == limit
    conn = searching_conn(max_line_length=limit)
    assert feed(conn, line + b"\n") == [Info(string="a" * (limit - 12), raw=line.decode())]
    conn.receive_data(line + b"a\n")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_default_limit_accepts_a_large_legalmoves_reply() -> None:
    turns = ["b3-d3,c2-e2+e1"] * 4500  # about the Hermes worst case
    line = (f"legalmoves {len(turns)} " + " ".join(turns)).encode()
    assert len(line) < MAX_LINE_LENGTH
    conn = listing_conn()
    assert feed(conn, line + b"\n")[0].count == 4500


def test_invalid_utf8_is_replaced_in_free_text() -> None:
    event = one_event(b"info string caf\xe9 \xff\xfe\n")
    assert event.string == "caf\ufffd \ufffd\ufffd"
    assert one_event(b"\xffgarbage\n") == Unknown(line="\ufffdgarbage")


def test_eof_after_complete_lines() -> None:
    conn = searching_conn()
    conn.receive_data(b"info depth 1\n")
    conn.receive_data(b"")
    assert conn.next_event() == Info(depth=1, raw="info depth 1")
    assert conn.next_event() is EOF
    assert conn.next_event() is EOF
    assert conn.trailing_data == b""
    conn.receive_data(b"")  # a second EOF is harmless
    with pytest.raises(RuntimeError):
        conn.receive_data(b"bestmove b3,d3\n")


def test_eof_mid_line_is_eof_with_trailing_data() -> None:
    conn = searching_conn()
    conn.receive_data(b"info depth 1\nbestmove b3-b4+c")
    assert conn.next_event() == Info(depth=1, raw="info depth 1")
    assert conn.next_event() is NEED_DATA
    conn.receive_data(b"")
    assert conn.next_event() is EOF
    assert conn.trailing_data == b"bestmove b3-b4+c"
    assert conn.state is SEARCHING  # what EOF means (a crash) is the caller's call


def test_sentinels_and_abstract_error() -> None:
    assert type(NEED_DATA) is NEED_DATA and repr(NEED_DATA) == "NEED_DATA"
    assert type(EOF) is EOF and repr(IDLE) == "IDLE"
    with pytest.raises(TypeError):
        SeiProtocolError("x")
    assert issubclass(LocalProtocolError, ValueError) and issubclass(
        RemoteProtocolError, SeiProtocolError
    )


def test_error_messages_cut_long_lines() -> None:
    conn = searching_conn()
    conn.receive_data(b"bestmove " + b"\x01" * 10000 + b"\n")
    with pytest.raises(RemoteProtocolError) as info:
        conn.next_event()
    assert len(str(info.value)) < 4 * MAX_QUOTE_LENGTH + 200


# --------------------------------------------------------------------------------------------
# Fuzz: h11's invariant.  Any bytes, in any chunks, give events, NEED_DATA/EOF or a
# RemoteProtocolError, nothing else; the result does not depend on the chunking; and between
# reads the buffer holds at most one partial line.

FRAGMENTS = [
    b"\n", b"\r\n", b"\r", b" ", b"\t", b"\x00", b"\xff", b"\xc3\xa9", b"\x0c",
    b"bestmove ", b"bestmove b3,d3\n", b"bestmove resign\n", b"readyok\n", b"seiok 1\n",
    b"info ", b"depth ", b"score cp ", b"score win -3 ", b"wdl 1 2 3 ", b"pv ", b"string ",
    b"id name ", b"option name Hash type spin min 1 max 9\n", b"gods pan\n", b"feature perft\n",
    b"error oops\n", b"legalmoves 1 b3\n", b"perft 3 9\n", b"perft ", b"legalmoves ",
    b"b3-b4+c5", b"12", b"-7", b"9" * 30,
]  # fmt: skip

EVENT_TYPES = (
    Id, Option, Gods, Feature, SeiOk, ReadyOk, BestMove, Resign, Info, EngineError, LegalMoves,
    PerftResult, Unknown,
)  # fmt: skip


def run_chunks(build: Callable[..., SeiConnection], chunks: list[bytes], limit: int) -> list[Any]:
    conn = build(max_line_length=limit)
    if build is counting_conn or build is searching_conn:
        conn.send(IsReady())
    out: list[Any] = []
    for chunk in [*chunks, b""]:
        conn.receive_data(chunk)
        while True:
            try:
                event = conn.next_event()
            except RemoteProtocolError:
                out.append("RemoteProtocolError")
                return out
            if event is NEED_DATA:
                assert chunk != b""
                assert len(conn._buffer) <= limit
                break
            if event is EOF:
                out.append(EOF)
                return out
            assert isinstance(event, EVENT_TYPES)
            out.append(event)
    raise AssertionError("EOF was fed but never returned")


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(st.binary(max_size=12), st.sampled_from(FRAGMENTS)), max_size=40),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=10),
    state=st.sampled_from(list(BUILDERS)),
    limit=st.sampled_from([16, 64, MAX_LINE_LENGTH]),
)
def test_fuzz_events_need_data_eof_or_remote_error_only(
    parts: list[bytes], cuts: list[int], state: str, limit: int
) -> None:
    data = b"".join(parts)
    points = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(points) if b > a]
    build = BUILDERS[state]
    assert run_chunks(build, chunks, limit) == run_chunks(build, [data] if data else [], limit)


# --------------------------------------------------------------------------------------------
# Purity: the codec imports no I/O framework


def test_sei_package_imports_no_io_framework() -> None:
    code = (
        "import sys, santorini_server.sei\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'trio', 'click', 'msgpack', 'structlog', 'asyncio', 'santorini_server.rules'} "
        "or m.startswith(('santorini_server.rules',)))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


ALLOWED_IMPORTS = {"__future__", "re", "copy", "dataclasses", "functools", "typing", "collections", "msgspec"}


def test_sei_modules_import_only_the_standard_library_basics() -> None:
    for path in sorted(SEI_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] in ALLOWED_IMPORTS, (path.name, alias.name)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module is not None and node.module.split(".")[0] in ALLOWED_IMPORTS, (
                    path.name,
                    node.module,
                )


def test_all_is_complete_and_exact() -> None:
    assert sorted(sei.__all__) == sorted(set(sei.__all__))
    for name in sei.__all__:
        assert hasattr(sei, name), name


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\r\n!-+,xD~abcde12345\x7f\u00e9\ufffd")), max_size=12))
def test_bestmove_fast_path_reads_like_the_general_reader(tail: str) -> None:
    """``next_event`` reads a searching engine's one-line ``bestmove`` chunk without framing
    and tokenizing; every event, error and state must be what the general path gives."""
    from santorini_server.sei import codec

    data = ("bestmove " + tail + "\n").encode("utf-8")

    def run(fast: bool) -> list[object]:
        conn = searching_conn()
        saved = codec._BESTMOVE_CHUNK
        if not fast:
            codec._BESTMOVE_CHUNK = re.compile(b"(?!)")  # never matches: the general path
        try:
            conn.receive_data(data)
            seen: list[object] = []
            for _ in range(4):
                try:
                    event = conn.next_event()
                except sei.RemoteProtocolError as exc:
                    seen.append(("error", str(exc)))
                    break
                seen.append(event)
                if event is sei.NEED_DATA:
                    break
            return [*seen, conn.state]
        finally:
            codec._BESTMOVE_CHUNK = saved

    assert run(fast=True) == run(fast=False)


_GO_ORDER = ("p1time", "p2time", "p1inc", "p2inc", "movestogo", "movetime", "depth", "nodes")
_maybe = st.none() | st.integers(1, 10**7)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries(dict.fromkeys(_GO_ORDER, _maybe)), st.booleans())
def test_go_lines_match_protocol_order(fields: dict[str, int | None], infinite: bool) -> None:
    """``write_go`` gives the line of SPEC.md section 4.2, fields in order, and ``send`` sends it."""
    from santorini_server.sei._writers import write_go

    go = Go(**fields, infinite=infinite)
    words = ["go"] + [f"{n} {fields[n]}" for n in _GO_ORDER if fields[n] is not None]
    expected = " ".join(words + (["infinite"] if infinite else []))
    assert write_go(go) == expected
    assert idle_conn().send(go) == (expected + "\n").encode()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("info depth 3 seldepth 5 time 10 nodes 99 nps 9900 score cp -12 wdl 400 200 400 pv b3-b4+c5", None),
        ("info score win -2 multipv 1 hashfull 3 string anything goes: depth x", None),
        ("info depth x", "depth needs an unsigned integer, got 'x'"),
        ("info multipv", "multipv needs an unsigned integer, got ''"),
        ("info score mate 3", "score must be 'cp <x>' or 'win <n>', got 'mate'"),
        ("info score cp +x", "score cp needs an integer, got '+x'"),
        ("info wdl 1 2", "wdl needs three unsigned integers, got '1 2'"),
        ("info nodes 5 depth " + "9" * 70, "depth needs an unsigned integer, got '" + "9" * 60 + "...'"),
    ],
)
def test_strict_info_names_the_first_garbled_field_from_the_one_info_reader(line: str, problem: str | None) -> None:
    """``strict_info`` only adds ``problem``: the fields read are the lenient reader's, and a
    lenient connection never sets it."""
    strict, lenient = SeiConnection(strict_info=True), SeiConnection()
    for conn in (strict, lenient):
        conn.receive_data(line.encode() + b"\n")
    strict_info, lenient_info = strict.next_event(), lenient.next_event()
    assert isinstance(strict_info, Info) and isinstance(lenient_info, Info)
    assert strict_info.problem == problem
    assert lenient_info.problem is None
    assert msgspec.structs.replace(strict_info, problem=None) == lenient_info


def test_unchecked_commands_equal_the_checked_ones() -> None:
    """The referee's per-turn position command (tokens from the rules core) is the command the
    validating constructor makes, sends the same bytes, and leaves the template it copies alone."""
    position = PositionCommand.unchecked("mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1", ("b3,d3",))
    assert position == PositionCommand(sps="mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1", moves=("b3,d3",))
    assert PositionCommand.unchecked(None, ()) == PositionCommand()
    go = Go(p1time=1000, p2time=0, p1inc=10, movestogo=40, depth=3)
    assert idle_conn().send(position) + idle_conn().send(go) == (
        b"position sps mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1 moves b3,d3\n"
        b"go p1time 1000 p2time 0 p1inc 10 movestogo 40 depth 3\n"
    )


# --- a handshake that never reaches seiok ------------------------------------------------------


def _trace(*lines: bytes) -> tuple[sei.HandshakeTrace, SeiConnection]:
    conn = SeiConnection()
    conn.send(sei.Sei(version=1))
    trace = sei.HandshakeTrace()
    conn.receive_data(b"".join(lines))
    while (event := conn.next_event()) not in (sei.NEED_DATA, sei.EOF):
        trace.saw(event)  # type: ignore[arg-type]
    return trace, conn


@pytest.mark.parametrize(
    ("data", "explanation"),
    [
        (b"", "no output at all: does the engine flush stdout after each line?"),
        (b"id name X\nSeiOk 1\n", "got 'SeiOk 1': keywords are lowercase"),
        (b"ID name X\n", "got 'ID name X': keywords are lowercase"),
        (b"id name X\nseiok 1", "got 'seiok 1' with no line end: end every line with a newline and flush"),
        (b"id name X\n", "got 1 handshake line (id, option, gods, feature) but no 'seiok 1' to end them"),
        (b"uciok\n", "got 'uciok', none of them 'seiok 1'"),
        (b"a\nb\n", "got 'a', 'b', none of them 'seiok 1'"),
        (b"\x1b[31mred\xff\n1\n2\n3\n", "got '\\x1b[31mred\\ufffd', '1', '2' and 1 more line, none of them 'seiok 1'"),
        (b"x" * 500 + b"\n", "got '" + "x" * 60 + "'..., none of them 'seiok 1'"),
    ],
)
def test_a_handshake_without_seiok_is_explained_from_what_arrived(data: bytes, explanation: str) -> None:
    trace, conn = _trace(data)
    assert trace.explain(conn.partial_line) == explanation


def test_partial_line_is_the_unended_output_and_at_eof_the_fragment() -> None:
    trace, conn = _trace(b"id name X\nseio")
    assert conn.partial_line == b"seio"
    conn.receive_data(b"")
    assert conn.next_event() is sei.EOF
    assert conn.partial_line == conn.trailing_data == b"seio"
    assert not trace.confusing
