"""Fuzzing every parser: random bytes and near misses may only raise the parser's own errors.

Near misses are valid inputs mutated a few times: a character dropped, doubled, swapped with its
neighbour, its case changed, or whitespace, a control character or a non-ASCII look-alike
(NBSP, a fullwidth or Arabic-Indic digit, a BOM, U+FFFD...) inserted or substituted.  Those are
the inputs that get furthest into a parser before it must refuse them.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import click
import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.adjudicator import parse_tc
from santorini_server.cli.tournament_cmd import new_settings, tournament
from santorini_server.records import (
    ArchiveError,
    GameRecord,
    RecordError,
    TurnRecord,
    decode_record,
    encode_frame,
    encode_record,
    format_sgn,
    parse_sgn,
    scan_archive,
)
from santorini_server.referee import parse_engine_spec
from santorini_server.rules import NotationError, Position, parse_sps, parse_stn
from santorini_server.sei import EOF, NEED_DATA, Go, RemoteProtocolError, Sei, SeiConnection
from santorini_server.tournament.config import Settings, TournamentConfig, load_toml

#: ``FUZZ_EXAMPLES=5000 pytest tests/test_fuzz.py`` for a longer hunt.
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "250")), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

#: Characters a near miss inserts or substitutes.
ODD = [" ", "\t", "\r", "\n", "\x00", "\x07", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\u00a0", "\u2003",
       "\ufeff", "\ufffd", "\u0663", "\uff11", "\u00e9", "\u0130", "\U0001f600",
       "-", "+", ",", "/", ";", "[", "]", "="]  # fmt: skip


@st.composite
def near_miss(draw: st.DrawFn, seeds: list[str]) -> str:
    text = list(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["drop", "dup", "swap", "case", "insert", "replace"]))
        i = draw(st.integers(0, max(0, len(text) - 1)))
        if op == "insert" or not text:
            text.insert(i, draw(st.sampled_from(ODD) | st.characters()))
        elif op == "drop":
            del text[i]
        elif op == "dup":
            text.insert(i, text[i])
        elif op == "swap" and i + 1 < len(text):
            text[i], text[i + 1] = text[i + 1], text[i]
        elif op == "case":
            text[i] = text[i].swapcase()
        elif op == "replace":
            text[i] = draw(st.sampled_from(ODD) | st.characters())
    return "".join(text)


def inputs(seeds: list[str]) -> st.SearchStrategy[str]:
    return near_miss(seeds) | st.text(max_size=80) | st.binary(max_size=80).map(lambda b: b.decode("latin-1"))


# --- notation ----------------------------------------------------------------------------------------

SPS_SEEDS = [
    "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1",
    "apollo/minotaur;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2",
    "mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22",
    "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4",
    "hermes/pan;00000/00000/00000/00000/00000;b3,d3/-;2;1",
]
STN_SEEDS = ["b3,d3", "b3-b4+c5", "+a1b2-b1+c1", "b3-d3,c2-e2+e1", "c5-b5", "d4-c5+b5", "b2-c3+c4+c4", "a1-a2+a3"]
POSITIONS = [
    Position.start(),
    Position.from_sps("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1"),
    Position.from_sps("mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;1;22"),
    Position.from_sps("prometheus/athena;00010/00000/00000/01000/00000;b2,d4/c4,e1;1;3"),
    Position.from_sps("hermes/demeter;01000/00100/00000/00020/00000;b2,c4/d3,e5;1;5"),
]


@FUZZ
@given(inputs(SPS_SEEDS))
def test_parse_sps_raises_only_notation_errors(text: str) -> None:
    try:
        pos = parse_sps(text)
    except NotationError:
        return
    assert parse_sps(pos.sps()).sps() == pos.sps()  # what it accepts, it writes back canonically


@FUZZ
@given(inputs(STN_SEEDS))
def test_parse_stn_raises_only_notation_errors(text: str) -> None:
    try:
        parse_stn(text)
    except NotationError:
        pass


_NEAR_LEGAL = st.sampled_from(POSITIONS).flatmap(lambda p: near_miss(p.legal_turns()[:50]))


@FUZZ
@given(st.sampled_from(POSITIONS), inputs(STN_SEEDS) | _NEAR_LEGAL)
def test_position_play_raises_only_notation_errors(pos: Position, text: str) -> None:
    try:
        transition = pos.play(text)
    except NotationError:
        return
    assert transition.stn in pos.legal_turns()


# --- records ------------------------------------------------------------------------------------------


def _record() -> GameRecord:
    pos, turns = Position.start(("apollo", "pan")), []
    while not pos.is_lost() and len(turns) < 12:
        turn = pos.legal_turns()[0]
        transition = pos.play(turn)
        turns.append(TurnRecord(turn=transition.stn, time_ms=12, score="+5", depth=3, nodes=100))
        pos = transition.position
        if transition.win:
            break
    return GameRecord.build(
        event="fuzz", site="here", date="2026.01.02", round="1", player1="A \"quoted\"", player2="B\\",
        gods="apollo/pan", ruleset="santorini-1", start="startpos", time_control="10+0.1", result="1-0",
        termination="time", termination_detail="by 3 ms", game_number=7, turns=turns,
    )


RECORD = _record()
SGN = format_sgn(RECORD)


@st.composite
def sgn_near_miss(draw: st.DrawFn) -> str:
    lines = SGN.splitlines(keepends=True)
    i = draw(st.integers(0, len(lines) - 1))
    lines[i] = draw(near_miss([lines[i]]))
    if draw(st.booleans()):
        lines = lines[: draw(st.integers(0, len(lines)))]  # truncated file
    return "".join(lines)


@FUZZ
@given(sgn_near_miss() | st.text(max_size=200) | near_miss([SGN[:300]]))
def test_parse_sgn_raises_only_record_errors(text: str) -> None:
    try:
        parse_sgn(text)
    except RecordError:  # SgnError is one
        pass


FRAMES = encode_frame(RECORD) * 2


@st.composite
def damaged_archive(draw: st.DrawFn) -> bytes:
    data = bytearray(FRAMES)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        i = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del data[i:]
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[i : i + draw(st.integers(1, 16))]
    return bytes(data)


@FUZZ
@given(damaged_archive() | st.binary(max_size=300))
def test_scan_archive_never_raises(data: bytes) -> None:
    items = list(scan_archive(data))
    assert all(isinstance(item, GameRecord) or hasattr(item, "reason") for item in items)


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats() | st.text(max_size=20) | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=6),
    max_leaves=20,
)


@st.composite
def record_like_payload(draw: st.DrawFn) -> bytes:
    """A payload shaped like a record, with one part replaced by something random."""
    obj = msgpack.unpackb(encode_record(RECORD), raw=False)
    where = draw(st.sampled_from(["v", "tags", "tag", "tag-value", "turns", "turn", "turn-field", "extra"]))
    junk = draw(msgpack_values)
    if where in ("v", "tags", "turns"):
        obj[where] = junk
    elif where == "tag":
        obj["tags"][draw(st.integers(0, len(obj["tags"]) - 1))] = junk
    elif where == "tag-value":
        obj["tags"][draw(st.integers(0, len(obj["tags"]) - 1))][draw(st.integers(0, 1))] = junk
    elif where == "turn":
        obj["turns"][draw(st.integers(0, len(obj["turns"]) - 1))] = junk
    elif where == "turn-field":
        row = obj["turns"][draw(st.integers(0, len(obj["turns"]) - 1))]
        row[draw(st.integers(0, len(row) - 1))] = junk
    else:
        obj[draw(st.text(max_size=5))] = junk
    try:
        return msgpack.packb(obj, use_bin_type=True)  # type: ignore[no-any-return]
    except (OverflowError, ValueError, TypeError):
        return b"\xc1"  # unpackable junk (e.g. an int over 64 bits): a never-used msgpack byte


_PACKED = msgpack_values.map(lambda v: msgpack.packb(v, use_bin_type=True) if _packable(v) else b"\xc1")


@FUZZ
@given(record_like_payload() | _PACKED | st.binary(max_size=100))
def test_decode_record_raises_only_archive_errors(payload: bytes) -> None:
    try:
        decode_record(payload)
    except ArchiveError:
        pass


def _packable(value: object) -> bool:
    try:
        msgpack.packb(value, use_bin_type=True)
    except (OverflowError, ValueError, TypeError):
        return False
    return True


# --- SEI codec ----------------------------------------------------------------------------------------

SEI_SEEDS = [
    "id name Kronos 0.3", "id author Jane Doe", "option name Hash type spin default 16 min 1 max 1024",
    "option name Style type combo default Normal var Solid var Normal var Risky", "gods apollo artemis athena",
    "feature legalmoves perft", "seiok 1", "readyok", "bestmove b3,d3", "bestmove resign", "error unsupported god zeus",
    "info depth 6 seldepth 9 time 870 nodes 1402311 nps 1611852 score cp 21 pv b3-b4+c5 c4-c5+b5",
    "info score win -3 wdl 100 0 900 string hello  world ", "legalmoves 2 b3,d3 b3,d4", "perft 3 350208",
]  # fmt: skip


@st.composite
def engine_output(draw: st.DrawFn) -> list[bytes]:
    """What an engine writes, cut into the chunks the referee happens to read."""
    lines = draw(st.lists(near_miss(SEI_SEEDS) | st.sampled_from(SEI_SEEDS), max_size=8))
    data = "\n".join(lines).encode("utf-8", "surrogatepass") + draw(st.sampled_from([b"", b"\n", b"\r\n"]))
    data += draw(st.binary(max_size=20))
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=4)))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True) if data[a:b]]


@FUZZ
@given(st.sampled_from(["new", "handshake", "idle", "searching"]), engine_output(), st.booleans())
def test_sei_codec_raises_only_remote_protocol_errors(state: str, chunks: list[bytes], eof: bool) -> None:
    conn = SeiConnection(max_line_length=64)
    if state != "new":
        conn.send(Sei(version=1))
    if state in ("idle", "searching"):
        conn.receive_data(b"seiok 1\n")
        assert conn.next_event() is not NEED_DATA
    if state == "searching":
        conn.send(Go(p1time=1000, p2time=1000))
    for chunk in [*chunks, *([b""] if eof else [])]:
        conn.receive_data(chunk)
        try:
            while conn.next_event() not in (NEED_DATA, EOF):
                pass
        except RemoteProtocolError:
            return
    if eof:
        try:
            assert conn.next_event() is EOF
        except RemoteProtocolError:
            pass


# --- time controls, engine specs, tournament settings ----------------------------------------------------

TC_SEEDS = ["10+0.1", "40/60+0", "60+0.5", "movetime=0.1", "depth=6", "nodes=1000", "1+0", "0.5+0.01", "40/1:30+2"]
SPEC_SEEDS = [
    "cmd=./mybot name=MyBot arg=--fast arg=--log=x dir=/opt/bot option.Hash=64 tc=10+0.1 timemargin=50",
    "alphabeta", "greedy", "cmd=x limit.memory=512M limit.cpu=10 restart=on proto=sei",
    "cmd=./bot \"option.Time Buffer=80\" name='My Bot'", "bundled=random name=R",
]  # fmt: skip


@FUZZ
@given(inputs(TC_SEEDS))
def test_parse_tc_raises_only_value_errors(text: str) -> None:
    try:
        parse_tc(text)
    except ValueError:
        pass


@FUZZ
@given(inputs(SPEC_SEEDS))
def test_parse_engine_spec_raises_only_value_errors(text: str) -> None:
    try:
        parse_engine_spec(text)
    except ValueError:
        pass


FIELDS = [*Settings.__struct_fields__, "engine", "rating-interval", "bogus"]
toml_scalars = st.text(max_size=12) | st.integers(-5, 100) | st.booleans() | st.floats(allow_nan=False, allow_infinity=False)
toml_values = (
    toml_scalars
    | st.lists(toml_scalars, max_size=3)
    | near_miss([*TC_SEEDS, *SPEC_SEEDS, "round-robin", "gauntlet", "apollo/pan", "all"])
)


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        chars = (c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in value if ord(c) < 0x10000)
        return '"' + "".join(chars) + '"'
    assert isinstance(value, list)
    return "[" + ", ".join(_toml(v) for v in value) + "]"


GOOD_TOML = 'engines = ["alphabeta", "greedy"]\ntc = "1+0.01"\nrounds = 2\ngods = "apollo/pan"\n'


@st.composite
def toml_text(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["settings", "near", "random"]))
    if kind == "near":
        return draw(near_miss([GOOD_TOML]))
    if kind == "random":
        return draw(st.text(max_size=60))
    base = {"engines": ["alphabeta", "greedy"], "tc": "1+0.01"}
    base.update(draw(st.dictionaries(st.sampled_from(FIELDS), toml_values, max_size=4)))
    return "".join(f"{k} = {_toml(v)}\n" for k, v in base.items())


_TOML_DIR = Path(tempfile.mkdtemp(prefix="fuzz-toml-"))


@FUZZ
@given(toml_text())
def test_tournament_toml_settings_raise_only_value_errors(text: str) -> None:
    """The CLI's path: --config read into click's default_map, the settings merged, then parsed.

    Bad input is a ValueError or a click error (a file value outside a flag's range): both are
    one line from the command, never a traceback."""
    path = _TOML_DIR / "t.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        ctx = tournament.make_context("tournament", ["--config", str(path)])
        TournamentConfig.from_settings(new_settings(ctx))
    except (ValueError, click.ClickException):
        pass


def test_a_setting_of_the_wrong_type_is_a_one_line_value_error(tmp_path: Path) -> None:
    """Found by the fuzzer above: these escaped as TypeError/AttributeError tracebacks."""
    import pytest

    for text, message in [
        ("engines = 0\n", "Expected `array`, got `int` - at `$.engines`"),
        ('engines = ["a", 2]\n', "Expected `str`, got `int` - at `$.engines[1]`"),
        ('engines = ["a", "b"]\ntc = 10\n', "Expected `str`, got `int` - at `$.tc`"),
        ('rounds = "2"\n', "Expected `int`, got `str` - at `$.rounds`"),
        ("rounds = 2.0\n", "Expected `int`, got `float` - at `$.rounds`"),
        ("ping = 1\n", "Expected `bool`, got `int` - at `$.ping`"),
    ]:
        path = tmp_path / "t.toml"
        path.write_text(text)
        with pytest.raises(ValueError, match=re.escape(f"{path}: {message}")):
            load_toml(path)
