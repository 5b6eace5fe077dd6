"""Game records: SGN and msgpack round trips, error reporting, archive damage and recovery."""

from __future__ import annotations

import ast
import io
import itertools
import json
import os
import pathlib
import re
import struct
import zlib

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import santorini_server.records as records
from santorini_server.records import (
    HEADER_SIZE,
    MAGIC,
    MAX_COUNT,
    MAX_LINE,
    REQUIRED_TAGS,
    ArchiveError,
    ArchiveWriter,
    Conversion,
    CorruptFrame,
    DeferredSgnWriter,
    GameRecord,
    RecordError,
    ResultsWriter,
    SgnError,
    SgnWriter,
    TurnRecord,
    archive_to_sgn,
    atomic_file,
    clean_text,
    convert_records,
    decode_record,
    detect_format,
    encode_frame,
    encode_record,
    format_of_name,
    format_sgn,
    format_sgn_games,
    fsync_dir,
    iter_archive,
    iter_sgn,
    parse_sgn,
    read_archive,
    record_bytes,
    result_summary,
    scan_archive,
    sgn_to_archive,
)
from santorini_server.termination import Termination

# The sample SGN game: the game of SPEC.md's example transcript B (section 4.7) (SPEC.md section 13.2, Layout: it
# re-formats byte for byte).
SAMPLE = """\
[Event "SEI ladder"]
[Site "local"]
[Date "2025.06.01"]
[Round "17"]
[Player1 "Kronos 0.3"]
[Player2 "Hestia 1.1"]
[Gods "mortal/mortal"]
[Start "startpos"]
[TimeControl "60+1"]
[Result "1-0"]
[Termination "climb"]

1. b3,d3 c2,c4 2. b3-b4+c5 {+21/6 0.87s} c4-c5+b5 3. b4-b5+a5 c5-d5+e5
4. b5-c4+c5 d5-e5+e4 5. c4-b5+c4 c2-b2+b3 6. d3-c4+d5 b2-b3+a2
7. b5-c5+b5 b3-c2+b2 8. c4-b5+a4 c2-b2+a1 9. b5-c4+b5 b2-c2+c3
10. c5-b5 {win/1} 1-0
"""

SAMPLE_TURNS = [
    "b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5", "b4-b5+a5", "c5-d5+e5", "b5-c4+c5", "d5-e5+e4", "c4-b5+c4",
    "c2-b2+b3", "d3-c4+d5", "b2-b3+a2", "b5-c5+b5", "b3-c2+b2", "c4-b5+a4", "c2-b2+a1", "b5-c4+b5",
    "b2-c2+c3", "c5-b5",
]

def make_record(**overrides: object) -> GameRecord:
    """A record as the referee writes it, with every kind of telemetry."""
    fields: dict[str, object] = dict(
        event="SEI ladder", site="local", date="2025.06.01", round="3",
        player1='Kronos "K" 0.3', player2="Hestia\\1.1", gods="apollo/pan",
        ruleset="santorini-simple-gods-v1", start="startpos", time_control="60+1",
        result="0-1", termination="time", termination_detail="loses on time by 37 ms",
        opening="cross", game_number=12,
        turns=(
            TurnRecord("b3,d3", 5),
            TurnRecord("c2,c4", 1234, "+0", 1, 99, "book"),
            TurnRecord("b3xc4+b4", 870, "-21", 6, 123456),
            TurnRecord("c2-c3+d4", 1000, "win/3"),
            TurnRecord("b4-b5+a5", None, None, 4),
            TurnRecord("c3-d3+e4", 0, comment="+5, looks like telemetry"),
            TurnRecord("b5-c5+b5", None, "-win/1", 12, None, ""),
        ),
    )
    fields.update(overrides)
    return GameRecord.build(**fields)  # type: ignore[arg-type]


# --- strategies ----------------------------------------------------------------------------

_TEXT_CHARS = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"))
texts = st.text(_TEXT_CHARS, max_size=12)
notes = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="{}"), max_size=12)
# Notes built from telemetry-like pieces, to hit the formatter's ambiguity rule.
tricky_notes = st.lists(
    st.sampled_from(["+21/6", "0.87s", "n=5", "d=3", "win/1", ",", ", ", " ", "book", "", "-"]), max_size=4
).map("".join)
squares = st.from_regex(r"[a-e][1-5]", fullmatch=True)
stn_turns = st.one_of(
    st.tuples(squares, squares).map(",".join),
    st.tuples(squares, st.sampled_from("-x"), squares, squares).map(lambda t: f"{t[0]}{t[1]}{t[2]}+{t[3]}"),
    st.from_regex(r"[A-Za-z0-9+,\-]{0,6}[A-Za-z][A-Za-z0-9+,\-]{0,6}", fullmatch=True),
)
counts = st.one_of(st.none(), st.integers(0, 10**6), st.just(MAX_COUNT), st.integers(0, MAX_COUNT))
scores = st.one_of(
    st.none(), st.from_regex(r"[+-]?(?:win/(?:0|[1-9][0-9]{0,3})|(?:0|[1-9][0-9]{0,5}))", fullmatch=True)
)
turn_records = st.builds(
    TurnRecord, stn_turns, counts, scores, counts, counts, st.one_of(st.none(), notes, tricky_notes)
)
sps = st.builds(
    lambda g1, g2, board, w, stm, turn: f"{g1}/{g2};{board};{w};{stm};{turn}",
    st.sampled_from(["mortal", "apollo", "athena[up]", "pan"]),
    st.sampled_from(["mortal", "minotaur", "hermes"]),
    st.lists(st.from_regex(r"[0-4]{5}", fullmatch=True), min_size=5, max_size=5).map("/".join),
    st.sampled_from(["-/-", "b3,d3/-", "b3,d3/c2,c4", "a1,e5/b2,d4"]),
    st.sampled_from("12"),
    st.integers(1, 10**9 - 1),
)
tag_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True)


@st.composite
def game_records(draw: st.DrawFn) -> GameRecord:
    tags = {name: draw(texts) for name in REQUIRED_TAGS}
    tags["Gods"] = draw(st.sampled_from(["mortal/mortal", "apollo/pan", "hermes/mortal"]))
    tags["Start"] = draw(st.one_of(st.just("startpos"), sps))
    tags["Result"] = draw(st.sampled_from(["1-0", "0-1", "*"]))
    tags["Termination"] = draw(st.sampled_from([t.value for t in Termination]))
    for name, value in draw(st.lists(st.tuples(tag_names, texts), max_size=3)):
        tags.setdefault(name, value)
    if draw(st.booleans()):
        tags.setdefault("GameNumber", str(draw(st.integers(1, 10**6))))
    order = draw(st.permutations(list(tags)))
    turns = draw(st.lists(turn_records, max_size=14))
    return GameRecord(tuple((n, tags[n]) for n in order), tuple(turns))


# --- the record value ----------------------------------------------------------------------


def test_record_properties_and_build_order() -> None:
    r = make_record()
    assert [n for n, _ in r.tags] == [
        "Event", "Site", "Date", "Round", "GameNumber", "Player1", "Player2", "Gods", "Ruleset",
        "Start", "Opening", "TimeControl", "Result", "Termination", "TerminationDetail",
    ]
    assert r.result == "0-1" and r.termination == "time"
    assert r.termination_detail == "loses on time by 37 ms"
    assert r.players == ('Kronos "K" 0.3', "Hestia\\1.1")
    assert r.gods == ("apollo", "pan")
    assert r.start == "startpos" and r.ruleset == "santorini-simple-gods-v1"
    assert r.opening == "cross" and r.game_number == 12
    assert r.tag("Nope") is None and r.tag("Nope", "x") == "x"
    assert hash(r) == hash(make_record()) and r == make_record()
    assert r != make_record(result="1-0")
    assert len({r, make_record(), make_record(round="4")}) == 2


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(turn="b3 c3"), "one token"),
        (dict(turn="1-0"), "holding a letter"),
        (dict(turn="12."), "holding a letter"),
        (dict(turn="b3-c3", time_ms=-1), "time_ms"),
        (dict(turn="b3-c3", time_ms=True), "time_ms"),
        (dict(turn="b3-c3", nodes=MAX_COUNT + 1), "nodes"),
        (dict(turn="b3-c3", depth=1.5), "depth"),
        (dict(turn="b3-c3", score="+0.21"), "score"),
        (dict(turn="b3-c3", score="win"), "score"),
        (dict(turn="b3-c3", comment="a}b"), "braces"),
        (dict(turn="b3-c3", comment="a\nb"), "control character"),
    ],
)
def test_turn_record_rejects(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment):
        TurnRecord(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("override", "fragment"),
    [
        (dict(result="1/2-1/2"), "Result must be"),
        (dict(termination="adjudication"), "Termination must be"),
        (dict(start="mortal/mortal;00000"), "Start must be"),
        (dict(start="mortal/mortal;00000/00000/00000/00000/00000;-/-;1;12345678901"), "out of range"),
        (dict(gods="Mortal/mortal"), "Gods must be"),
        (dict(event="a\tb"), "control character"),
        (dict(extra_tags=[("Event", "again")]), "duplicate tag"),
        (dict(extra_tags=[("9lives", "x")]), "bad tag name"),
        (dict(extra_tags=[("Note", 3)]), "must be a str"),
    ],
)
def test_game_record_rejects(override: dict[str, object], fragment: str) -> None:
    with pytest.raises(RecordError, match=fragment):
        make_record(**override)


def test_missing_required_tag() -> None:
    tags = tuple((n, v) for n, v in make_record().tags if n != "TimeControl")
    with pytest.raises(RecordError, match=r"missing required tag.*TimeControl"):
        GameRecord(tags)


def test_clean_text_makes_foreign_text_storable() -> None:
    dirty = "exit\ncode {3}\x00\u2028"
    TurnRecord("b3-c3", comment=clean_text(dirty, braces=False))
    make_record(termination_detail=clean_text(dirty))


# --- SGN -------------------------------------------------------------------------------------


def test_protocol_sample_parses_and_reformats_exactly() -> None:
    (game,) = parse_sgn(SAMPLE)
    assert [t.turn for t in game.turns] == SAMPLE_TURNS and len(game.turns) == 19
    assert game.result == "1-0" and game.termination == "climb"
    assert game.players == ("Kronos 0.3", "Hestia 1.1") and game.start == "startpos"
    assert game.turns[2] == TurnRecord("b3-b4+c5", time_ms=870, score="+21", depth=6)
    assert game.turns[18] == TurnRecord("c5-b5", score="win/1")
    assert game.ruleset is None and game.termination_detail is None
    assert format_sgn(game) == SAMPLE


def test_hand_record_formats_as_documented() -> None:
    text = format_sgn(make_record())
    assert text == (
        '[Event "SEI ladder"]\n[Site "local"]\n[Date "2025.06.01"]\n[Round "3"]\n'
        '[GameNumber "12"]\n[Player1 "Kronos \\"K\\" 0.3"]\n[Player2 "Hestia\\\\1.1"]\n'
        '[Gods "apollo/pan"]\n[Ruleset "santorini-simple-gods-v1"]\n[Start "startpos"]\n'
        '[Opening "cross"]\n[TimeControl "60+1"]\n[Result "0-1"]\n[Termination "time"]\n'
        '[TerminationDetail "loses on time by 37 ms"]\n'
        "\n"
        "1. b3,d3 {0.005s} c2,c4 {+0/1 1.234s n=99, book}\n"
        "2. b3xc4+b4 {-21/6 0.87s n=123456} c2-c3+d4 {win/3 1.00s}\n"
        "3. b4-b5+a5 {d=4} c3-d3+e4 {0.00s, +5, looks like telemetry}\n"
        "4. b5-c5+b5 {-win/1/12, } 0-1\n"
    )
    assert parse_sgn(text) == [make_record()]


@pytest.mark.parametrize(
    ("turn", "comment"),
    [
        (TurnRecord("a1-a2", time_ms=870), "{0.87s}"),
        (TurnRecord("a1-a2", time_ms=1234), "{1.234s}"),
        (TurnRecord("a1-a2", time_ms=5), "{0.005s}"),
        (TurnRecord("a1-a2", time_ms=1000), "{1.00s}"),
        (TurnRecord("a1-a2", time_ms=60_010), "{60.01s}"),
        (TurnRecord("a1-a2", nodes=7), "{n=7}"),
        (TurnRecord("a1-a2", comment="book"), "{book}"),
        (TurnRecord("a1-a2", comment="a, b"), "{a, b}"),
        (TurnRecord("a1-a2", comment="+21/6"), "{, +21/6}"),
        (TurnRecord("a1-a2", comment="n=5, x"), "{, n=5, x}"),
        (TurnRecord("a1-a2", comment=""), "{, }"),
        (TurnRecord("a1-a2", comment=" spaced  out "), "{ spaced  out }"),
        (TurnRecord("a1-a2"), None),
    ],
)
def test_comment_grammar(turn: TurnRecord, comment: str | None) -> None:
    record = make_record(turns=(turn,), result="*", termination="aborted")
    movetext = format_sgn(record).split("\n\n")[1]
    assert movetext == ("1. a1-a2 " + (comment + " " if comment else "") + "*\n")
    assert parse_sgn(format_sgn(record)) == [record]


def test_player2_first_numbering_follows_sps() -> None:
    start = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;2;5"
    turns = tuple(TurnRecord(t) for t in ("c4-c5+b5", "b3-b4+a5", "c2-b2+a1"))
    record = make_record(start=start, turns=turns, result="*", termination="aborted")
    assert format_sgn(record).endswith("\n5... c4-c5+b5 6. b3-b4+a5 c2-b2+a1 *\n")
    assert parse_sgn(format_sgn(record)) == [record]
    empty = make_record(start=start, turns=(), result="*", termination="aborted")
    assert format_sgn(empty).endswith('"]\n\n*\n') and parse_sgn(format_sgn(empty)) == [empty]


def test_lenient_input_is_accepted() -> None:
    lenient = (
        SAMPLE.replace("\n", "\r\n")
        .replace("{+21/6 0.87s} c4-c5+b5", "{+21/6 0.870s}\n  2... c4-c5+b5")
        .replace("1. b3,d3", "\t1.   b3,d3")
        .replace("[Round", "\r\n\r\n[ Round")  # blank lines among tags
    )
    assert parse_sgn("\ufeff" + lenient) == parse_sgn(SAMPLE)


def test_lines_wrap_by_full_turn() -> None:
    turns = tuple(TurnRecord(t, 1000 + i, "+1", 2, 10**12) for i, t in enumerate(SAMPLE_TURNS))
    long_note = TurnRecord("c5-b5", comment="x" * 100)
    record = make_record(turns=(*turns[:-1], long_note), result="1-0", termination="climb")
    movetext = format_sgn(record).split("\n\n")[1].splitlines()
    assert all(len(line) <= MAX_LINE or line == "{" + "x" * 100 + "}" for line in movetext), movetext
    # a full turn is split only between half turns, a turn never from its comment
    assert movetext[1:3] == [
        "2. b3-b4+c5 {+1/2 1.002s n=1000000000000}",
        "c4-c5+b5 {+1/2 1.003s n=1000000000000}",
    ]
    assert movetext[-3:] == ["10. c5-b5", "{" + "x" * 100 + "}", "1-0"]
    assert parse_sgn(format_sgn(record)) == [record]


def test_many_games_and_streaming() -> None:
    games = [make_record(), parse_sgn(SAMPLE)[0], make_record(turns=(), result="*", termination="aborted")]
    text = format_sgn_games(games)
    assert parse_sgn(text) == games
    assert list(iter_sgn(io.StringIO(text))) == games
    assert parse_sgn(text.replace("\n\n[", "\n[")) == games  # games need no blank line between
    assert parse_sgn("") == [] and parse_sgn("\n\n  \n") == []


def _err(text: str) -> SgnError:
    with pytest.raises(SgnError) as info:
        parse_sgn(text)
    return info.value


HEAD = SAMPLE.split("\n\n")[0] + "\n\n"  # 12 lines of tags and the blank line; movetext is line 13


def test_a_game_lacking_its_roster_tags_reads_them_as_unknown_and_writes_them_canonically() -> None:
    """PGN's import format: a missing roster tag reads as unknown; the Result tag as the result token."""
    text = "\n".join(line for line in SAMPLE.splitlines()
                     if not line.startswith(("[Event", "[Site", "[Date", "[Round", "[Player", "[TimeControl", "[Result")))
    record = parse_sgn(text + "\n")[0]
    assert [name for name, _ in record.tags] == [
        "Event", "Site", "Date", "Round", "Player1", "Player2", "Gods", "Start", "TimeControl", "Result", "Termination",
    ]
    assert record.tag("Date") == "????.??.??" and record.tag("Player1") == "?" and record.tag("TimeControl") == "?"
    assert record.result == "1-0" and record.turns == parse_sgn(SAMPLE)[0].turns
    canonical = format_sgn(record)
    assert parse_sgn(canonical) == [record] and format_sgn(parse_sgn(canonical)[0]) == canonical
    # tags the file has keep their place; the supplied ones go where the canonical order puts them
    custom = SAMPLE.replace('[Site "local"]\n', "").replace('[Termination "climb"]', '[Termination "climb"]\n[Annotator "me"]')
    assert [name for name, _ in parse_sgn(custom)[0].tags][:3] == ["Event", "Site", "Date"]
    assert [name for name, _ in parse_sgn(custom)[0].tags][-2:] == ["Termination", "Annotator"]


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ('[Event "SEI ladder]\n', 1, 8, "unterminated tag value"),
        ('[Event "SEI ladder"\n', 1, 20, "missing ']'"),
        ("[Event\n", 1, 7, "unterminated tag pair"),
        ('[Ev-ent "x"]\n', 1, 2, "bad tag name 'Ev-ent'"),
        ('[Event "a\\n"]\n', 1, 10, "bad escape '\\\\n'"),
        ('[Event "a"] [Site "b"]\n', 1, 13, "after tag pair"),
        ("garbage\n", 1, 1, "expected a tag pair"),
        ("\n\n  1. b3,d3 *\n", 3, 3, "expected a tag pair"),
        (HEAD.replace('"climb"', '"mate"'), 11, 14, "Termination must be one of"),
        (HEAD.replace('[Site "local"]', '[Event "x"]'), 2, 1, "duplicate tag 'Event'"),
        (HEAD.replace('[Gods "mortal/mortal"]\n', "") + "1. b3,d3 1-0\n", 12, 1, "missing required tag(s): Gods"),
        (HEAD + "1. b3,d3 c2,c4 3. b3-b4+c5 1-0\n", 13, 16, "bad move number '3.': expected '2.'"),
        (HEAD + "1. b3,d3 2... c2,c4 1-0\n", 13, 10, "bad move number '2...': expected '1...'"),
        (HEAD + "b3,d3 1-0\n", 13, 1, "missing move number before 'b3,d3': expected '1.'"),
        (HEAD + "1. b3,d3 c2,c4 b3-b4+c5 1-0\n", 13, 16, "missing move number"),
        (HEAD + "1. 1. b3,d3 1-0\n", 13, 4, "follows another move number"),
        (HEAD + "1. b3,d3 c2,c4\n", 13, 15, "missing result (expected '1-0')"),
        (HEAD, 12, 1, "movetext and result missing"),
        (HEAD + "1. b3,d3 c2,c4\n\n" + HEAD, 15, 1, "missing result"),
        (HEAD + "1. b3,d3 c2,c4 0-1\n", 13, 16, "differs from the Result tag '1-0'"),
        (HEAD + "1. b3,d3 1-0 extra\n", 13, 14, "'extra' after the result"),
        (HEAD + "1. b3,d3 {0.1s\n", 13, 10, "unterminated comment"),
        (HEAD + "1. b3,d3 {a{b} 1-0\n", 13, 10, "'{' inside a comment"),
        (HEAD + "1. b3,d3 } 1-0\n", 13, 10, "'}' without a comment"),
        (HEAD + "{start} 1. b3,d3 1-0\n", 13, 1, "must directly follow a turn"),
        (HEAD + "1. b3,d3 {a} {b} 1-0\n", 13, 14, "second comment"),
        (HEAD + "1. b3,d3 {a\tb} 1-0\n", 13, 10, "control character"),
        (HEAD + "1. b3,d3 c2,c4 2. b3-b4+c5! 1-0\n", 13, 19, "found 'b3-b4+c5!'"),
        (HEAD + "1. b3,d3 2. 1-0\n", 13, 10, "bad move number"),
        (HEAD + "1. 1-0\n", 13, 4, "follows a move number"),
    ],
)
def test_malformed_sgn_reports_position(text: str, line: int, column: int, fragment: str) -> None:
    err = _err(text)
    assert (err.line, err.column) == (line, column), str(err)
    assert fragment in err.message, str(err)
    assert str(err).startswith(f"line {line}, column {column}: ")
    assert isinstance(err, ValueError)


def test_start_tag_checked_before_numbering() -> None:
    err = _err(HEAD.replace('"startpos"', '"nowhere"') + "1. b3,d3 1-0\n")
    assert (err.line, err.column) == (8, 8) and "'nowhere'" in err.message


def test_undecodable_file_is_an_sgn_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.sgn"
    path.write_bytes(SAMPLE.encode() + b"\xff\xfe\n")
    with open(path, encoding="utf-8") as f, pytest.raises(SgnError, match="not valid UTF-8"):
        list(iter_sgn(f))


@settings(max_examples=150, deadline=None)
@given(game_records())
def test_sgn_round_trip_property(record: GameRecord) -> None:
    text = format_sgn(record)
    assert parse_sgn(text) == [record]
    assert format_sgn(parse_sgn(text)[0]) == text
    for line in text.split("\n\n", 1)[1].splitlines():
        assert len(line) <= MAX_LINE or "{" in line  # only an over-long comment overflows


@settings(max_examples=30, deadline=None)
@given(st.lists(game_records(), max_size=4))
def test_sgn_file_round_trip_property(games: list[GameRecord]) -> None:
    assert parse_sgn(format_sgn_games(games)) == games


# --- msgpack payload and frames ------------------------------------------------------------


def test_payload_schema() -> None:
    record = make_record()
    obj = msgpack.unpackb(encode_record(record))
    assert obj["v"] == 1 and list(obj) == ["v", "tags", "turns"]
    assert obj["tags"][0] == ["Event", "SEI ladder"]
    assert obj["turns"][0] == ["b3,d3", 5]  # trailing nils dropped
    assert obj["turns"][4] == ["b4-b5+a5", None, None, 4]
    assert obj["turns"][1] == ["c2,c4", 1234, "+0", 1, 99, "book"]
    assert decode_record(encode_record(record)) == record
    # unknown keys are ignored (forward compatible within v1)
    assert decode_record(msgpack.packb({**obj, "extra": [1, 2]})) == record


def test_frame_layout() -> None:
    record = make_record()
    frame = encode_frame(record)
    payload = encode_record(record)
    assert frame[:4] == MAGIC == b"\x89SGR" and HEADER_SIZE == 16
    length, crc, header_crc = struct.unpack(">III", frame[4:16])
    assert length == len(payload) and frame[16:] == payload and len(frame) == 16 + length
    assert crc == zlib.crc32(payload) and header_crc == zlib.crc32(frame[:12])


@pytest.mark.parametrize(
    ("obj", "fragment"),
    [
        ([1, 2], "Expected `object`, got `array`"),
        ({"v": 2, "tags": [], "turns": []}, "Invalid enum value 2 - at `$.v`"),
        ({"v": True, "tags": [], "turns": []}, "Expected `int`, got `bool` - at `$.v`"),
        ({"tags": [], "turns": []}, "missing required field `v`"),
        ({"v": 1, "tags": {"Event": "x"}, "turns": []}, "Expected `array`, got `object` - at `$.tags`"),
        ({"v": 1, "tags": [["Event", "x", "y"]], "turns": []}, "length 2, got 3 - at `$.tags[0]`"),
        ({"v": 1, "tags": [["Event", 7]], "turns": []}, "Expected `str`, got `int` - at `$.tags[0][1]`"),
        ({"v": 1, "tags": [], "turns": []}, "missing required tag"),
        ({"v": 1, "tags": "TAGS", "turns": [[]]}, "at `$.tags`"),
    ],
)
def test_decode_rejects_bad_payloads(obj: object, fragment: str) -> None:
    """Schema errors are one line naming the field (the path into the payload)."""
    with pytest.raises(ArchiveError, match=re.escape(fragment)) as info:
        decode_record(msgpack.packb(obj))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ([], "at least length 1, got 0 - at `$.turns[0]`"),
        (["b3,d3", 1, "2", 3, 4, "c", 6], "at most length 6, got 7 - at `$.turns[0]`"),
        (["b3,d3", "5"], "Expected `int | null`, got `str` - at `$.turns[0][1]`"),
        (["b3,d3", None, 21], "Expected `str | null`, got `int` - at `$.turns[0][2]`"),
        ([5], "Expected `str`, got `int` - at `$.turns[0][0]`"),
        (["b3,d3", -1], "time_ms must be None or an int"),
        (["b3,d3", 2**64 - 1], "time_ms must be None or an int"),
    ],
)
def test_decode_rejects_bad_turns(bad: list[object], fragment: str) -> None:
    obj = msgpack.unpackb(encode_record(make_record()))
    obj["turns"] = [bad]
    with pytest.raises(ArchiveError, match=re.escape(fragment)):
        decode_record(msgpack.packb(obj))


def test_decode_rejects_what_is_not_msgpack() -> None:
    with pytest.raises(ArchiveError, match="not msgpack"):
        decode_record(b"\xc1")
    with pytest.raises(ArchiveError, match="not msgpack"):
        decode_record(encode_record(make_record()) + b"\x00")  # trailing bytes


@settings(max_examples=150, deadline=None)
@given(game_records())
def test_msgpack_round_trip_property(record: GameRecord) -> None:
    assert decode_record(encode_record(record)) == record
    assert list(scan_archive(encode_frame(record) * 2)) == [record, record]


# --- archive damage --------------------------------------------------------------------------

THREE = [
    make_record(),
    parse_sgn(SAMPLE)[0],
    make_record(turns=(TurnRecord("b3,d3", comment="\u0249SGR: UTF-8 c9 89 53 47 52 holds the magic"),),
                result="*", termination="aborted"),
]
FRAMES = [encode_frame(r) for r in THREE]
ARCHIVE = b"".join(FRAMES)
BOUNDS = [0, len(FRAMES[0]), len(FRAMES[0]) + len(FRAMES[1]), len(ARCHIVE)]


def _split(items: list[GameRecord | CorruptFrame]) -> tuple[list[GameRecord], list[CorruptFrame]]:
    good = [i for i in items if isinstance(i, GameRecord)]
    bad = [i for i in items if isinstance(i, CorruptFrame)]
    assert len(good) + len(bad) == len(items)
    return good, bad


def test_clean_archive_reads_back() -> None:
    assert list(scan_archive(ARCHIVE)) == THREE
    assert list(scan_archive(b"")) == []


def test_truncation_at_every_offset() -> None:
    for cut in range(len(ARCHIVE) + 1):
        good, bad = _split(list(scan_archive(ARCHIVE[:cut])))
        complete = sum(1 for b in BOUNDS[1:] if b <= cut)
        assert good == THREE[:complete], cut
        if cut in BOUNDS:
            assert bad == [], cut
        else:
            assert bad == [CorruptFrame(BOUNDS[complete], cut - BOUNDS[complete], bad[0].reason, True)], cut


def test_bit_flip_loses_only_that_record() -> None:
    for index in range(3):
        for pos in range(BOUNDS[index], BOUNDS[index + 1]):
            damaged = bytearray(ARCHIVE)
            damaged[pos] ^= 1 << (pos % 8)
            good, bad = _split(list(scan_archive(bytes(damaged))))
            assert good == THREE[:index] + THREE[index + 1 :], (index, pos)
            # the lost record is reported as one region covering its frame
            assert len(bad) == 1 and bad[0].offset == BOUNDS[index], (index, pos, bad)
            if index < 2:
                assert bad[0].offset + bad[0].length == BOUNDS[index + 1] and not bad[0].truncated


def test_garbage_between_and_around_frames() -> None:
    data = b"junk" + FRAMES[0] + b"\x00" * 7 + MAGIC + b"\xff" * 20 + FRAMES[1] + b"tail"
    items = list(scan_archive(data))
    assert items[1] == THREE[0] and items[3] == THREE[1]
    assert items[0] == CorruptFrame(0, 4, "bytes outside any frame")
    assert items[2].offset == 4 + len(FRAMES[0]) and items[2].reason == "header checksum mismatch"
    assert items[4] == CorruptFrame(len(data) - 4, 4, "bytes outside any frame")


def test_unreadable_payload_is_reported_not_fatal() -> None:
    payload = msgpack.packb({"v": 2, "tags": [], "turns": []})
    head = struct.pack(">4sII", MAGIC, len(payload), zlib.crc32(payload))
    future = head + struct.pack(">I", zlib.crc32(head)) + payload
    items = list(scan_archive(FRAMES[0] + future + FRAMES[1]))
    assert items[0] == THREE[0] and items[2] == THREE[1]
    assert items[1] == CorruptFrame(len(FRAMES[0]), len(future), items[1].reason)
    assert "not a version-1 game record: Invalid enum value 2 - at `$.v`" in items[1].reason


def test_corrupt_length_is_not_mistaken_for_a_truncated_tail() -> None:
    # A frame whose header is valid but claims more bytes than follow, in the middle of a file,
    # is damage (the next frame is still read), not the end of the archive.
    payload = encode_record(THREE[0])
    head = struct.pack(">4sII", MAGIC, len(payload) + 10**6, zlib.crc32(payload))
    liar = head + struct.pack(">I", zlib.crc32(head)) + payload
    items = list(scan_archive(liar + FRAMES[1]))
    assert items[1] == THREE[1] and not items[0].truncated and "cut off" in items[0].reason


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.lists(st.integers(0, 2000), max_size=4))
def test_fuzz_archive_reader(noise: bytes, splice_at: list[int]) -> None:
    # random bytes, also spliced into a valid archive: only records and reports come out,
    # regions never overlap, and every frame left intact is read.
    data = bytearray(ARCHIVE)
    for at in splice_at:
        data[at:at] = noise
    for blob in (noise, bytes(data), MAGIC + noise):
        items = list(scan_archive(blob))
        assert all(isinstance(i, (GameRecord, CorruptFrame)) for i in items)
        regions = [(i.offset, i.length) for i in items if isinstance(i, CorruptFrame)]
        assert all(length > 0 for _, length in regions)
        assert regions == sorted(regions)
        assert all(a + la <= b for (a, la), (b, _) in itertools.pairwise(regions))
    good, _ = _split(list(scan_archive(bytes(data))))
    intact = [r for r, f in zip(THREE, FRAMES, strict=True) if f in bytes(data)]
    assert all(r in good for r in intact)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_decode_record(payload: bytes) -> None:
    try:
        decode_record(payload)
    except ArchiveError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=5) | st.binary(max_size=5),
    lambda inner: (st.lists(inner, max_size=4)
                   | st.dictionaries(st.sampled_from(["v", "tags", "turns", "x"]), inner, max_size=4)),
    max_leaves=12,
))
def test_fuzz_decode_structured(obj: object) -> None:
    for candidate in (obj, {"v": 1, "tags": obj, "turns": []}, {"v": 1, "tags": [], "turns": obj}):
        try:
            decode_record(msgpack.packb(candidate))
        except ArchiveError:
            pass


# --- SGN fuzz --------------------------------------------------------------------------------

sgn_alphabet = st.sampled_from([*list('[]{}"\\ \t\n\r.-+,*/=:0123456789abcdexDRs'), "1-0", "0-1", "win/"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(sgn_alphabet, max_size=120).map("".join)))
def test_fuzz_parse_sgn_random_text(text: str) -> None:
    try:
        parse_sgn(text)
    except SgnError:
        pass


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(SAMPLE)), st.integers(0, 12), st.text(max_size=4))
def test_fuzz_parse_sgn_mutations(at: int, delete: int, insert: str) -> None:
    text = SAMPLE[:at] + insert + SAMPLE[at + delete :]
    for candidate in (text, HEAD + text.split("\n\n", 1)[-1]):
        try:
            for game in parse_sgn(candidate):
                assert parse_sgn(format_sgn(game)) == [game]
        except SgnError as e:
            assert e.line >= 1 and e.column >= 1


# --- writers ---------------------------------------------------------------------------------


def test_archive_writer_appends_with_fsync(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.msgpack"
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    with ArchiveWriter(path) as w:
        assert w.count == 0 and w.recovered is None and w.damage == ()
        offsets = []
        for i, r in enumerate(THREE):
            before = len(synced)
            offsets.append(w.append(r))
            assert len(synced) > before  # fsync'd before append returned
            # readable by another reader at once, while the writer is still open
            assert read_archive(path) == (THREE[: i + 1], [])
    assert offsets == BOUNDS[:3]
    assert path.read_bytes() == ARCHIVE
    with ArchiveWriter(path) as w:
        assert w.count == 3 and w.recovered is None
        w.append(THREE[0])
    assert read_archive(path) == ([*THREE, THREE[0]], [])


def test_archive_writer_recovers_truncated_tail(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.msgpack"
    start = BOUNDS[2]
    cuts = sorted({start + 1, start + 3, start + 4, start + 15, start + 16, start + 17, len(ARCHIVE) - 1}
                  | set(range(start, len(ARCHIVE), 7)))
    for cut in cuts:
        path.write_bytes(ARCHIVE[:cut])
        with ArchiveWriter(path) as w:
            if cut == start:
                assert w.recovered is None
            else:
                assert w.recovered == CorruptFrame(start, cut - start, w.recovered.reason, True), cut
            assert w.count == 2
            w.append(THREE[2])
        assert path.read_bytes() == ARCHIVE, cut


def test_archive_writer_leaves_other_damage(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.msgpack"
    damaged = bytearray(ARCHIVE)
    damaged[BOUNDS[1] + 20] ^= 0x10  # payload of record 2
    path.write_bytes(bytes(damaged) + b"trailing junk")
    with ArchiveWriter(path) as w:
        assert w.recovered is None and len(w.damage) == 2 and w.count == 2
        w.append(THREE[1])
    good, bad = read_archive(path)
    assert good == [THREE[0], THREE[2], THREE[1]] and len(bad) == 2
    assert path.read_bytes().startswith(bytes(damaged))


def test_archive_writer_is_exclusive(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.msgpack"
    with ArchiveWriter(path), pytest.raises(ArchiveError, match="open for appending elsewhere"):
        ArchiveWriter(path)
    ArchiveWriter(path).close()


def test_writers_refuse_foreign_files(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "README"
    path.write_bytes(b"# not a record file\nhello")
    for writer in (ArchiveWriter, SgnWriter, ResultsWriter):
        with pytest.raises(RecordError, match="refusing to append"):
            writer(path)
        assert path.read_bytes() == b"# not a record file\nhello"
    path.write_bytes(MAGIC[:2])  # a first frame cut inside its magic is still an archive
    with ArchiveWriter(path) as w:
        assert w.recovered == CorruptFrame(0, 2, w.recovered.reason, True)
    assert path.read_bytes() == b""


def test_iter_archive_from_stream_and_pipe_like(tmp_path: pathlib.Path) -> None:
    assert list(iter_archive(io.BytesIO(ARCHIVE))) == THREE
    path = tmp_path / "empty.msgpack"
    path.write_bytes(b"")
    with open(path, "rb") as f:
        assert list(iter_archive(f)) == []


def test_sgn_writer_appends_and_recovers(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.sgn"
    with SgnWriter(path) as w:
        assert w.recovered is None
        for r in THREE:
            w.append(r)
    text = path.read_text(encoding="utf-8")
    assert text == format_sgn_games(THREE) and parse_sgn(text) == THREE
    data = path.read_bytes()
    last = data.rindex(b"\n\n[") + 2
    for cut in sorted(set(range(last, len(data), 11)) | {last + 1, len(data) - 2, len(data) - 1}):
        path.write_bytes(data[:cut])
        with SgnWriter(path) as w:
            if cut >= len(data) - 2:  # the game is whole; only its newlines were lost
                assert w.recovered is None
            elif cut == last:  # the cut fell between games
                assert w.recovered is None
                w.append(THREE[2])
            else:
                assert w.recovered == CorruptFrame(last, cut - last, w.recovered.reason, True), cut
                w.append(THREE[2])
        assert path.read_bytes() == data, cut


def test_sgn_writer_cuts_half_utf8(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "games.sgn"
    text = format_sgn_games(THREE[:1]).encode() + format_sgn(make_record(event="Ωmega")).encode()
    cut = text.index("Ω".encode()) + 1
    path.write_bytes(text[:cut])
    with SgnWriter(path) as w:
        assert w.recovered is not None and "half-written game" in w.recovered.reason
    assert path.read_text(encoding="utf-8") == format_sgn_games(THREE[:1])


def _bad_gods(game: str) -> str:
    return re.sub(r'\[Gods "[^"]*"\]', '[Gods "zz"]', game, count=1)


@pytest.mark.parametrize("bad", [0, 1, 2])
@pytest.mark.parametrize("ending", ["\n\n", "\n", ""])
def test_sgn_writer_refuses_a_damaged_game_that_is_not_a_torn_tail(tmp_path: pathlib.Path, bad: int, ending: str) -> None:
    """Reading stops at a malformed game, so games appended after it would be lost from view:
    only a last game cut short by a crash is cut; any other damage is refused, the file kept."""
    games = [format_sgn(r) + "\n" for r in THREE]
    games[bad] = _bad_gods(games[bad])
    path = tmp_path / "games.sgn"
    data = "".join(games).removesuffix("\n\n").encode() + ending.encode()
    path.write_bytes(data)
    line = 1 + "".join(games[:bad]).count("\n")
    message = rf"^{re.escape(str(path))}: game {bad + 1} \(from line {line}\) does not parse: line \d+, column 7: Gods "
    for writer in (SgnWriter, DeferredSgnWriter):
        with pytest.raises(RecordError, match=message) as caught:
            writer(path)
        assert "refusing to append" in str(caught.value) and "\n" not in str(caught.value)
        assert path.read_bytes() == data


def test_sgn_writer_refuses_damage_before_a_torn_tail_and_text_after_the_games(tmp_path: pathlib.Path) -> None:
    games = [format_sgn(r) + "\n" for r in THREE]
    path = tmp_path / "games.sgn"
    torn = (games[0] + _bad_gods(games[1]) + games[2][:40]).encode()
    path.write_bytes(torn)
    with pytest.raises(RecordError, match=r"game 2 \(from line \d+\) does not parse"):
        SgnWriter(path)
    assert path.read_bytes() == torn
    for junk in (b"notes\n", b"\n\nnotes", b'notes\n[Event "x"]\n'):
        data = "".join(games).encode() + junk
        path.write_bytes(data)
        with pytest.raises(RecordError, match=rf"^{re.escape(str(path))}: the text after game 3 is not SGN: line \d+"):
            SgnWriter(path)
        assert path.read_bytes() == data
    path.write_bytes(b"notes\n" + "".join(games).encode())
    with pytest.raises(RecordError, match=rf"^{re.escape(str(path))} is not an SGN file: line 1, column 1: "):
        SgnWriter(path)


def test_sgn_writer_appends_to_any_sgn_the_reader_reads(tmp_path: pathlib.Path) -> None:
    """Non-canonical SGN (CRLF, blank lines between tags, a BOM) is appended to, nothing cut;
    so is a file of blank lines."""
    path = tmp_path / "games.sgn"
    text = "\ufeff" + format_sgn_games(THREE).replace('"]\n[', '"]\n\n[').replace("\n", "\r\n")
    data = text.encode()
    path.write_bytes(data)
    with SgnWriter(path) as w:
        assert w.recovered is None
        w.append(THREE[0])
    assert path.read_bytes().startswith(data)
    with open(path, encoding="utf-8") as f:
        assert list(iter_sgn(f)) == [*THREE, THREE[0]]
    path.write_bytes(b"\n \n")
    with SgnWriter(path) as w:
        w.append(THREE[0])
    assert parse_sgn(path.read_text(encoding="utf-8")) == [THREE[0]]
    # a cut inside the first game of a file: the whole file was the torn write
    path.write_bytes(format_sgn(THREE[1]).encode()[:-9])
    with SgnWriter(path) as w:
        assert w.recovered is not None and w.recovered.offset == 0
    assert path.read_bytes() == b""


def test_results_writer(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "results.jsonl"
    with ResultsWriter(path) as w:
        for r in THREE:
            w.append(r)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [result_summary(r) for r in THREE]
    assert json.loads(lines[0]) == {
        "game": 12, "round": "3", "player1": 'Kronos "K" 0.3', "player2": "Hestia\\1.1",
        "gods": "apollo/pan", "start": "startpos", "opening": "cross", "result": "0-1",
        "termination": "time", "detail": "loses on time by 37 ms", "turns": 7,
    }
    data = path.read_bytes()
    # a half line is cut; a whole line missing only its newline is completed
    path.write_bytes(data[:-5])
    with ResultsWriter(path) as w:
        assert w.recovered is not None and w.recovered.offset == data.rindex(b"\n", 0, -1) + 1
    assert path.read_bytes() == data[: data.rindex(b"\n", 0, -1) + 1]
    path.write_bytes(data[:-1])
    with ResultsWriter(path) as w:
        assert w.recovered is None
    assert path.read_bytes() == data


def test_a_failed_append_leaves_no_half_record(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.msgpack"
    with ArchiveWriter(path) as w:
        w.append(THREE[0])
        real_write = os.write

        def short_then_full_disk(fd: int, data: bytes | memoryview) -> int:
            if len(data) > 10:
                return real_write(fd, bytes(data[:10]))  # a short write, then the disk is full
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "write", short_then_full_disk)
        with pytest.raises(OSError, match="No space left"):
            w.append(THREE[1])
        monkeypatch.undo()
        w.append(THREE[2])
    assert path.read_bytes() == FRAMES[0] + FRAMES[2]


def test_recovery_finds_a_long_half_written_tail(tmp_path: pathlib.Path) -> None:
    """The last line is searched for backwards in growing windows: one longer than the first."""
    path = tmp_path / "results.jsonl"
    whole = b'{"game":1}\n'
    path.write_bytes(whole + b'{"detail":"' + b"x" * 300_000)
    with ResultsWriter(path) as w:
        assert w.recovered is not None and w.recovered.offset == len(whole)
    assert path.read_bytes() == whole


def test_fsync_dir_is_best_effort(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fsync_dir(tmp_path / "missing" / "file")  # no such directory: nothing to make durable

    def refuse(fd: int) -> None:
        raise OSError(22, "Invalid argument")  # some file systems refuse a directory fsync

    monkeypatch.setattr(os, "fsync", refuse)
    fsync_dir(tmp_path / "file")


# --- conversion ------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.lists(game_records(), max_size=4))
def test_records_sgn_archive_sgn_identical(games: list[GameRecord]) -> None:
    sgn_text = format_sgn_games(games)
    archive = io.BytesIO()
    assert sgn_to_archive(io.StringIO(sgn_text), archive) == len(games)
    assert archive.getvalue() == b"".join(encode_frame(g) for g in games)
    archive.seek(0)
    out = io.StringIO()
    assert archive_to_sgn(archive, out) == len(games)
    assert out.getvalue() == sgn_text


def test_archive_to_sgn_refuses_damage_unless_told() -> None:
    damaged = ARCHIVE[:-3]
    with pytest.raises(ArchiveError, match="truncated archive region at byte"):
        archive_to_sgn(io.BytesIO(damaged), io.StringIO())
    seen: list[CorruptFrame] = []
    out = io.StringIO()
    assert archive_to_sgn(io.BytesIO(damaged), out, on_corrupt=seen.append) == 2
    assert parse_sgn(out.getvalue()) == THREE[:2] and len(seen) == 1 and seen[0].truncated


def test_record_files_are_told_apart_by_content() -> None:
    assert detect_format(ARCHIVE) == "msgpack"
    assert detect_format(SAMPLE.encode()) == detect_format(b"") == "sgn"
    damaged_first = b"\xff" + ARCHIVE[1:]  # the first frame's magic is gone, the rest is not text
    assert detect_format(damaged_first) == "msgpack"
    text_with_magic = SAMPLE.replace("local", "\u0249SGR").encode()  # UTF-8 c9 89 53 47 52
    assert MAGIC in text_with_magic and detect_format(text_with_magic) == "sgn"
    names = ("a/games.SGN", "x.msgpack", "x.txt")
    assert [format_of_name(name) for name in names] == ["sgn", "msgpack", None]


def test_convert_records_either_way_and_what_it_skipped() -> None:
    out = io.BytesIO()
    done = convert_records(format_sgn_games(THREE).encode(), out, "msgpack")
    assert done == Conversion(3, (), None) and out.getvalue() == ARCHIVE
    seen: list[CorruptFrame] = []
    out = io.BytesIO()
    done = convert_records(ARCHIVE[:-3], out, "sgn", on_corrupt=seen.append)
    assert done.games == 2 and done.error is None and done.damaged == tuple(seen) and seen[0].truncated
    assert out.getvalue().decode() == format_sgn_games(THREE[:2])
    broken = format_sgn_games(THREE[:2]) + "[Event \"x\n"
    out = io.BytesIO()
    done = convert_records(broken.encode(), out, "msgpack")
    assert done.games == 2 and done.damaged == () and isinstance(done.error, SgnError)
    assert out.getvalue() == b"".join(FRAMES[:2])  # the games before the error are kept
    assert record_bytes(THREE[0], "msgpack") == FRAMES[0]
    assert record_bytes(THREE[0], "sgn") == (format_sgn(THREE[0]) + "\n").encode()


def test_atomic_file_replaces_whole_or_not_at_all(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "out.sgn"
    path.write_text("old")
    def interrupted_write() -> None:
        with atomic_file(path) as f:
            f.write(b"half")
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        interrupted_write()
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.sgn"]
    with atomic_file(path) as f:
        f.write(b"new")
        assert path.read_text() == "old"  # nothing visible before the block completes
    assert path.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out.sgn"]


def test_atomic_file_is_as_readable_as_a_file_written_the_ordinary_way(tmp_path: pathlib.Path) -> None:
    """A temporary file is 0600; the replaced file gets open()'s 0666 less the umask, or ``mode``."""
    (tmp_path / "plain").write_bytes(b"x")
    with atomic_file(tmp_path / "report.html") as f:
        f.write(b"<!doctype html>")
    assert (tmp_path / "report.html").stat().st_mode & 0o777 == (tmp_path / "plain").stat().st_mode & 0o777 != 0o600
    with atomic_file(tmp_path / "secret", mode=0o600) as f:
        f.write(b"token")
    assert (tmp_path / "secret").stat().st_mode & 0o777 == 0o600


# --- layering ----------------------------------------------------------------------------------


def test_exports_and_layering() -> None:
    for name in records.__all__:
        assert hasattr(records, name), name
    package = pathlib.Path(records.__file__).parent
    for source in package.glob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                root = name.split(".")[0]
                assert root not in {"trio", "click", "structlog"}, (source.name, name)
                assert not name.startswith("santorini_server."), (source.name, name)
