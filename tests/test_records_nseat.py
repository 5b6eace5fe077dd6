"""Records and replay for three and four seats (SPEC.md sections 13 and 15).

N-seat games are made with the rules core: random legal turns from ``Position.start`` with three
or four gods, a seat with no complete turn eliminated (3p) or losing for its team (4p), and, where
a test asks for it, a fault that eliminates the seat to move.  The placings each game should have
are computed here from the play, independently of ``records.replay``.
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.records import (
    IMPORT_DEFAULTS,
    TAG_ORDER,
    ArchiveError,
    Elimination,
    GameRecord,
    RecordError,
    SeatCycle,
    SgnError,
    TurnRecord,
    archive_to_sgn,
    check_placings,
    decode_record,
    encode_frame,
    encode_record,
    format_sgn,
    format_sgn_games,
    frame_payload,
    parse_sgn,
    placings_result,
    result_placings,
    result_summary,
    sgn_to_archive,
)
from santorini_server.records.replay import check_record, replay_record, turn_labels
from santorini_server.rules import Position

THREE = ("apollo", "minotaur", "pan")
FOUR = ("apollo", "minotaur", "pan", "athena")


# --- games made with the rules core --------------------------------------------------------


@dataclass
class Game:
    record: GameRecord
    positions: list[Position]
    """The position before each turn (after any elimination), then the final position."""


def play_game(gods: tuple[str, ...], seed: int, fault_at: int | None = None, start: Position | None = None) -> Game:
    """A random legal game.  ``fault_at``: after that many turns the seat to move is eliminated
    on time (3p) if it still has a turn.  Placings: winner 1; in 3p the seats still in tie at 2
    after a win, and the seats that left rank by how long they stayed."""
    rng = random.Random(seed)
    pos = start or Position.start(gods)
    n = len(gods)
    turns: list[TurnRecord] = []
    eliminations: list[Elimination] = []
    out: list[int] = [k + 1 for k in range(n) if pos.eliminated >> k & 1]  # first out first
    positions = [pos]
    while True:
        stuck = pos.is_lost()
        if stuck or (fault_at is not None and len(turns) == fault_at and n == 3 and not eliminations):
            loser = pos.player
            term = "no-moves" if stuck else "time"
            if n == 3 and len(pos.live_seats) == 3:
                eliminations.append(Elimination(len(turns), loser, term, None if stuck else "loses on time by 5 ms"))
                out.append(loser)
                nxt = pos.eliminate()
                assert nxt is not None
                pos = nxt
                positions[-1] = pos
                continue
            if n == 3:
                out.append(loser)
                (winner,) = [s + 1 for s in pos.live_seats if s + 1 != loser]
            else:
                winner = loser % n + 1
            break
        t = rng.choice(pos.transitions())
        turns.append(TurnRecord(t.stn, rng.randrange(0, 3000)))
        mover = pos.player
        pos = t.position
        positions.append(pos)
        if t.win:
            winner, term = mover, t.termination or ""
            break
    if n == 4:
        places = tuple(1 if (s - winner) % 2 == 0 else 2 for s in range(1, 5))
    else:
        rank = {winner: 1}
        for k, seat in enumerate(out):
            rank[seat] = n - k
        places = tuple(rank.get(s, 2) for s in range(1, n + 1))
    record = GameRecord.build(
        event="N-seat test", site="here", date="2026.12.01", round=str(seed), gods="/".join(gods),
        ruleset="santorini-simple-gods-v1", start="startpos" if start is None else start.sps(), time_control="10+0.1",
        result=placings_result(places), termination=term, termination_detail="as played",
        turns=turns, eliminations=eliminations,
        **{f"player{k}": f"engine {k}" for k in range(1, n + 1)},  # type: ignore[arg-type]
    )
    return Game(record, positions)


def find_game(gods: tuple[str, ...], want: str, fault_at: int | None = None) -> Game:
    """The first seeded game with a no-moves elimination (``want="no-moves"``) or a fault one."""
    for seed in range(300):
        game = play_game(gods, seed, fault_at)
        if any(e.termination == want for e in game.record.eliminations):
            return game
    raise AssertionError(f"no {want} elimination in 300 seeded games")


def build(**overrides: object) -> GameRecord:
    fields: dict[str, object] = dict(
        event="e", site="s", date="2026.12.01", round="1", player1="a", player2="b", player3="c",
        gods="apollo/minotaur/pan", ruleset="santorini-simple-gods-v1", start="startpos", time_control="1+0",
        result="1-2-2", termination="climb", termination_detail="",
        turns=[TurnRecord(t) for t in ("b3,d3", "c2,c4", "a1,e5", "b3-b4+c5")],
    )
    fields.update(overrides)
    return GameRecord.build(**fields)  # type: ignore[arg-type]


def with_tags(record: GameRecord, **tags: str) -> GameRecord:
    return GameRecord(tuple((n, tags.get(n, v)) for n, v in record.tags), record.turns, record.eliminations)


# --- the record value: tags, placings, eliminations ------------------------------------------


def test_player_tags_follow_player2_and_the_api_names_every_seat() -> None:
    assert TAG_ORDER[TAG_ORDER.index("Player2") + 1 : TAG_ORDER.index("Player2") + 3] == ("Player3", "Player4")
    three = build()
    assert (three.nseats, three.players, three.gods, three.placings) == (3, ("a", "b", "c"), THREE, (1, 2, 2))
    four = build(gods="apollo/minotaur/pan/athena", player4="d", result="2-1-2-1")
    assert [n for n, _ in four.tags][4:9] == ["Player1", "Player2", "Player3", "Player4", "Gods"]
    assert (four.nseats, four.players, four.placings) == (4, ("a", "b", "c", "d"), (2, 1, 2, 1))
    two = build(gods="apollo/pan", player3=None, result="0-1", turns=[])
    assert (two.nseats, two.players, two.placings) == (2, ("a", "b"), (2, 1))
    assert build(result="*", termination="aborted").placings is None


@pytest.mark.parametrize(
    ("places", "text"),
    [((1, 2), "1-0"), ((2, 1), "0-1"), ((1, 3, 2), "1-3-2"), ((1, 2, 2), "1-2-2"), ((2, 2, 1), "2-2-1"),
     ((3, 1, 2), "3-1-2"), ((2, 1, 2, 1), "2-1-2-1"), ((1, 2, 1, 2), "1-2-1-2")],
)
def test_placings_and_result_text_convert_both_ways(places: tuple[int, ...], text: str) -> None:
    assert placings_result(places) == text
    assert result_placings(text, len(places)) == places


@pytest.mark.parametrize(
    ("places", "fragment"),
    [
        ((1, 1, 2), "exactly one seat places first"),
        ((2, 2, 3), "exactly one seat places first"),
        ((1, 3, 3), "other two seats place 2 and 3, or tie at 2"),
        ((1, 2, 4), "other two seats place 2 and 3, or tie at 2"),
        ((1, 2, 2, 1), "teammates (seats 1 and 3, seats 2 and 4) share their placing"),
        ((1, 1, 1, 1), "one team places 1 and the other 2"),
        ((2, 3, 2, 3), "one team places 1 and the other 2"),
        ((1, 1), "exactly one seat places first"),
        ((1, 3), "the seat that does not win places 2"),
        ((1,), "2, 3 or 4 seats"),
    ],
)
def test_impossible_placings_are_one_clear_error_each(places: tuple[int, ...], fragment: str) -> None:
    with pytest.raises(RecordError, match=r"^placings|^a game has") as err:
        check_placings(places)
    assert fragment in str(err.value)


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"player3": None}, "missing required tag Player3: the Gods tag names 3 gods"),
        ({"gods": "apollo/pan", "result": "1-0"}, "tag Player3 in a 2-seat game"),
        ({"player4": "d"}, "tag Player4 in a 3-seat game"),
        ({"gods": "apollo/minotaur/pan/athena"}, "missing required tag Player4"),
        ({"result": "1-0"}, "a 3-seat game's Result is the seats' placings joined by '-' (like 1-3-2) or *: '1-0'"),
        ({"result": "1-2-2-2"}, "Result '1-2-2-2' has 4 placings for a 3-seat game"),
        ({"result": "1-1-2"}, "placings 1-1-2: exactly one seat places first"),
        ({"result": "1-3-3"}, "placings 1-3-3: after the winner"),
        ({"result": "1-0-1"}, "Result must be one of 1-0, 0-1, * or placings like 1-3-2"),
        ({"gods": "apollo/minotaur/pan/athena", "player4": "d", "result": "1-2-2-1"}, "teammates"),
        ({"gods": "apollo/minotaur/pan/athena", "player4": "d", "result": "1-1-1-1"}, "one team places 1"),
        ({"gods": "apollo/pan", "player3": None, "result": "1-2-2"}, "a two-seat game's Result is 1-0, 0-1 or *"),
        ({"gods": "apollo/minotaur/pan/athena/atlas"}, "Gods must be 'god1/god2' (up to four gods"),
        ({"start": "apollo/minotaur;00000/00000/00000/00000/00000;-/-;1;1"}, "Start is a 2-seat SPS but the Gods tag names 3"),
    ],
)
def test_seat_tags_and_results_are_checked(overrides: dict[str, object], fragment: str) -> None:
    with pytest.raises(RecordError) as err:
        build(**overrides)
    assert fragment in str(err.value)


FAULT = Elimination(4, 2, "time", "loses on time by 5 ms")


@pytest.mark.parametrize(
    ("eliminations", "overrides", "fragment"),
    [
        ([Elimination(4, 1, "time")], {}, "elimination after turn 4 names seat 1, but seat 2 is to move"),
        ([Elimination(5, 2, "time")], {}, "elimination after turn 5, but the record has 4 turns"),
        ([FAULT, Elimination(4, 3, "crash")], {}, "would leave one seat: the game's last elimination is its Result"),
        ([Elimination(4, 2, "time"), Elimination(3, 1, "time")], {}, "out of order: after turn 4, then after turn 3"),
        ([FAULT], {"gods": "apollo/minotaur/pan/athena", "player4": "d", "result": "1-2-1-2"},
         "only three-seat games eliminate a seat while the game goes on; this one has 4"),
        ([FAULT], {"gods": "apollo/pan", "player3": None, "result": "1-0"}, "only three-seat games eliminate"),
    ],
)
def test_eliminations_must_fit_the_seat_cycle(
    eliminations: list[Elimination], overrides: dict[str, object], fragment: str
) -> None:
    with pytest.raises(RecordError) as err:
        build(eliminations=eliminations, **overrides)
    assert fragment in str(err.value)


def test_eliminations_out_of_order_are_refused() -> None:
    turns = [TurnRecord(t) for t in ("b3,d3", "c2,c4", "a1,e5", "b3-b4+c5", "c2-c3+d4", "a1-a2+a3", "b4-b5+a5")]
    with pytest.raises(RecordError, match="out of order: after turn 6, then after turn 4"):
        GameRecord(build(turns=turns).tags, tuple(turns), (Elimination(6, 1, "time"), Elimination(4, 2, "time")))


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"after": -1, "seat": 1, "termination": "time"}, "after must be a turn count"),
        ({"after": 0, "seat": 0, "termination": "time"}, "seat must be 1..4"),
        ({"after": 0, "seat": 5, "termination": "time"}, "seat must be 1..4"),
        ({"after": 0, "seat": 1, "termination": "climb"}, "termination must be one of crash, engine-error"),
        ({"after": 0, "seat": 1, "termination": "aborted"}, "termination must be one of"),
        ({"after": 0, "seat": 1, "termination": "time", "detail": "a}b"}, "may not contain braces"),
        ({"after": 0, "seat": 1, "termination": "time", "detail": "a\nb"}, "control character"),
    ],
)
def test_elimination_fields_are_checked(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(RecordError) as err:
        Elimination(**kwargs)  # type: ignore[arg-type]
    assert fragment in str(err.value)


# --- SGN -----------------------------------------------------------------------------------


def movetext(text: str) -> str:
    return " ".join(text.split("\n\n", 1)[1].split())


def test_three_seat_sgn_numbers_rounds_and_puts_the_elimination_in_its_seat_s_place() -> None:
    turns = [TurnRecord(t) for t in ("b3,d3", "c2,c4", "a1,e5", "b3-b4+c5", "c2-c3+d4")]
    record = build(turns=turns, eliminations=[Elimination(5, 3, "crash", "exited with code 1")], result="1-2-3",
                   termination="time")
    text = format_sgn(record)
    assert movetext(text) == "1. b3,d3 c2,c4 a1,e5 2. b3-b4+c5 c2-c3+d4 eliminated:crash {exited with code 1} 1-2-3"
    assert all(len(line) <= 79 for line in text.splitlines())
    assert parse_sgn(text) == [record]
    # the next round starts with seat 1 and skips seat 3
    more = build(turns=[*turns, TurnRecord("b4-b5+a5"), TurnRecord("c3-c4+d5")],
                 eliminations=[Elimination(5, 3, "no-moves")], result="*", termination="aborted")
    assert movetext(format_sgn(more)).endswith("eliminated:no-moves 3. b4-b5+a5 c3-c4+d5 *")
    assert parse_sgn(format_sgn(more)) == [more]


def test_four_seat_sgn_is_one_numbered_round_of_four() -> None:
    turns = [TurnRecord(t) for t in ("b3,d3", "c2,c4", "b3-b4+c5", "c4-c5+b5", "b4-b3+b4")]
    record = build(gods="apollo/minotaur/pan/athena", player4="d", result="*", termination="aborted", turns=turns)
    assert format_sgn(record).endswith("\n1. b3,d3 c2,c4 b3-b4+c5 c4-c5+b5 2. b4-b3+b4 *\n")
    assert parse_sgn(format_sgn(record)) == [record]


def test_an_sps_start_with_an_eliminated_seat_numbers_from_its_seat_and_round() -> None:
    start = "apollo/minotaur/pan;00000/00000/00000/00000/00000;b3,d3/x/a1,e5;3;4"
    record = build(start=start, turns=[TurnRecord("a1-a2+a3"), TurnRecord("b3-b4+c5")], result="*", termination="aborted")
    assert format_sgn(record).endswith("\n4... a1-a2+a3 5. b3-b4+c5 *\n")
    assert turn_labels(record) == [("4...", 3), ("5.", 1)]
    first = build(start=start.replace(";3;4", ";1;4"), turns=[TurnRecord("b3-b4+c5")], result="*", termination="aborted")
    assert format_sgn(first).endswith("\n4. b3-b4+c5 *\n")


def test_a_three_seat_game_lacking_its_roster_reads_player3_as_unknown() -> None:
    text = '[Gods "apollo/minotaur/pan"]\n[Start "startpos"]\n[Termination "aborted"]\n\n1. b3,d3 c2,c4 *\n'
    (record,) = parse_sgn(text)
    assert record.players == ("?", "?", "?")
    assert IMPORT_DEFAULTS["Player3"] == IMPORT_DEFAULTS["Player4"] == "?"
    four = text.replace("apollo/minotaur/pan", "apollo/minotaur/pan/athena")
    assert parse_sgn(four)[0].players == ("?", "?", "?", "?")
    assert parse_sgn(text.replace("apollo/minotaur/pan", "apollo/pan"))[0].players == ("?", "?")


MOVETEXT = '[Player1 "a"]\n[Player2 "b"]\n[Player3 "c"]\n[Gods "apollo/minotaur/pan"]\n[Start "startpos"]\n' \
           '[Termination "aborted"]\n\n'


@pytest.mark.parametrize(
    ("movetext", "column", "fragment"),
    [
        ("1. b3,d3 c2,c4 a1,e5 b3-b4+c5 *", 22, "missing move number before 'b3-b4+c5': expected '2.'"),
        ("1. b3,d3 c2,c4 a1,e5 2... b3-b4+c5 *", 22, "bad move number '2...': expected '2.'"),
        ("1. b3,d3 c2,c4 eliminated:win *", 16, "bad elimination 'eliminated:win': the reason is one of"),
        ("1. b3,d3 c2,c4 eliminated:climb *", 16, "bad elimination"),
        ("1. b3,d3 eliminated:time eliminated:time *", 26, "would leave one seat"),
        ("1. b3,d3 c2,c4 a1,e5 1-0", 22, "a 3-seat game's Result is the seats' placings"),
        ("1. b3,d3 c2,c4 a1,e5 1-2-2-1", 22, "has 4 placings for a 3-seat game"),
        ("1. b3,d3 eliminated:time {a} {b} *", 30, "a second comment"),
    ],
)
def test_malformed_three_seat_movetext_is_located(movetext: str, column: int, fragment: str) -> None:
    with pytest.raises(SgnError) as err:
        parse_sgn(MOVETEXT + movetext + "\n")
    assert (err.value.line, err.value.column) == (8, column)
    assert fragment in err.value.message


def test_an_elimination_token_in_a_four_seat_game_is_refused() -> None:
    text = MOVETEXT.replace('[Gods "apollo/minotaur/pan"]', '[Player4 "d"]\n[Gods "apollo/minotaur/pan/athena"]')
    with pytest.raises(SgnError, match="only three-seat games eliminate a seat"):
        parse_sgn(text + "1. b3,d3 eliminated:time *\n")


def test_an_sgn_elimination_naming_a_termination_writes_back_canonically() -> None:
    (record,) = parse_sgn(MOVETEXT + "1.  b3,d3 eliminated:time   {slow}\n c2,c4 2. b3-b4+c5  *\n")
    assert record.eliminations == (Elimination(1, 2, "time", "slow"),)
    assert format_sgn(record).endswith("\n1. b3,d3 eliminated:time {slow} c2,c4 2. b3-b4+c5 *\n")


# --- round trips (random records, opaque turns) -----------------------------------------------

tokens = st.from_regex(r"[a-e][1-5]-[a-e][1-5]\+[a-e][1-5]", fullmatch=True).map(TurnRecord)
telemetry = st.builds(TurnRecord, st.just("b3,d3"), st.one_of(st.none(), st.integers(0, 10**6)),
                      st.one_of(st.none(), st.just("+3")), st.one_of(st.none(), st.integers(0, 40)))
details = st.one_of(st.none(), st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"),
                                                     blacklist_characters="{}"), max_size=10))


@st.composite
def nseat_records(draw: st.DrawFn) -> GameRecord:
    n = draw(st.sampled_from([3, 4]))
    gods = draw(st.permutations(["apollo", "athena", "atlas", "demeter", "hermes", "pan"]))[:n]
    turns = draw(st.lists(st.one_of(tokens, telemetry), max_size=16))
    eliminations: list[Elimination] = []
    start = "startpos"
    if n == 3 and draw(st.booleans()):
        start = draw(st.sampled_from([
            "apollo/minotaur/pan;00000/00000/00000/00000/00000;b3,d3/x/a1,e5;3;4",
            "apollo/minotaur/pan;00000/00000/00000/00000/00000;b3,d3/c4,c5/a1,e5;2;9",
        ])).replace("apollo/minotaur/pan", "/".join(gods))
    record = GameRecord.build(
        event="e", site="s", date="d", round="r", player1="a", player2="b", player3="c",
        player4="d" if n == 4 else None, gods="/".join(gods), ruleset="santorini-simple-gods-v1", start=start,
        time_control="1+0", result=draw(st.sampled_from(["*", "1-3-2", "2-2-1"] if n == 3 else ["*", "2-1-2-1"])),
        termination="time", termination_detail="", turns=turns,
    )
    if n == 3 and "/x/" not in start and draw(st.booleans()):
        after = draw(st.integers(0, len(turns)))
        cycle = SeatCycle.of(3, start)
        for _ in range(after):
            cycle.advance()
        seat = cycle.seat
        eliminations.append(Elimination(after, seat, draw(st.sampled_from(["time", "no-moves", "crash"])), draw(details)))
    return GameRecord(record.tags, record.turns, tuple(eliminations))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(nseat_records())
def test_nseat_sgn_and_msgpack_round_trip(record: GameRecord) -> None:
    text = format_sgn(record)
    assert parse_sgn(text) == [record]
    assert format_sgn(parse_sgn(text)[0]) == text
    assert decode_record(encode_record(record)) == record


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(nseat_records(), max_size=3))
def test_nseat_files_convert_both_ways_byte_for_byte(games: list[GameRecord]) -> None:
    text = format_sgn_games(games)
    archive = io.BytesIO()
    assert sgn_to_archive(io.StringIO(text), archive) == len(games)
    assert archive.getvalue() == b"".join(encode_frame(g) for g in games)
    archive.seek(0)
    out = io.StringIO()
    assert archive_to_sgn(archive, out) == len(games)
    assert out.getvalue() == text


# --- msgpack -------------------------------------------------------------------------------


def test_the_payload_carries_eliminations_only_when_there_are_some() -> None:
    plain = build()
    assert "elim" not in msgspec.msgpack.decode(encode_record(plain))
    fault = build(eliminations=[FAULT], result="1-3-2", termination="no-moves")
    assert msgspec.msgpack.decode(encode_record(fault))["elim"] == [[4, 2, "time", "loses on time by 5 ms"]]
    assert decode_record(encode_record(fault)) == fault
    bare = build(eliminations=[Elimination(4, 2, "crash")], result="1-3-2", termination="no-moves")
    assert msgspec.msgpack.decode(encode_record(bare))["elim"] == [[4, 2, "crash"]]


@pytest.mark.parametrize(
    ("elim", "fragment"),
    [
        ([[4, "2", "time"]], "Expected `int`, got `str` - at `$.elim[0][1]`"),
        ([[4, 2]], "Expected `array` of at least length 3"),
        ([[4, 1, "time"]], "names seat 1, but seat 2 is to move"),
        ([[4, 2, "climb"]], "termination must be one of"),
    ],
)
def test_a_bad_elimination_in_a_payload_is_an_archive_error(elim: list[object], fragment: str) -> None:
    obj = msgspec.msgpack.decode(encode_record(build(result="1-3-2", termination="no-moves")))
    obj["elim"] = elim
    with pytest.raises(ArchiveError) as err:
        decode_record(msgspec.msgpack.encode(obj))
    assert fragment in str(err.value)


def test_the_results_line_names_every_player_and_the_placings() -> None:
    three = result_summary(build(result="1-3-2", termination="no-moves"))
    assert list(three) == ["game", "round", "player1", "player2", "player3", "gods", "start", "opening", "result",
                           "placings", "termination", "detail", "turns"]
    assert (three["player3"], three["placings"]) == ("c", [1, 3, 2])
    assert result_summary(build(result="*", termination="aborted"))["placings"] is None
    two = result_summary(build(gods="apollo/pan", player3=None, result="1-0"))
    assert "placings" not in two and "player3" not in two


# --- replay: real games --------------------------------------------------------------------


def test_a_three_seat_game_with_a_no_moves_elimination_replays_exactly() -> None:
    game = find_game(THREE, "no-moves")
    (elim,) = game.record.eliminations
    result = replay_record(game.record)
    assert result.ok, result.problems
    assert list(result.positions) == game.positions
    after = result.positions[elim.after]
    assert after.eliminated == 1 << (elim.seat - 1) and after.workers[elim.seat - 1] == 0
    assert after.sps().split(";")[2].split("/")[elim.seat - 1] == "x"
    assert parse_sgn(format_sgn(game.record)) == [game.record]
    assert "eliminated:no-moves" in format_sgn(game.record)


def test_a_three_seat_game_with_a_fault_elimination_replays_exactly() -> None:
    game = find_game(THREE, "time", fault_at=10)
    (elim,) = game.record.eliminations
    assert (elim.after, elim.termination) == (10, "time")
    result = replay_record(game.record)
    assert result.ok, result.problems
    assert list(result.positions) == game.positions
    assert result.positions[10].eliminated == 1 << (elim.seat - 1)
    assert not check_record(game.record)
    # the same game without the elimination does not replay: the eliminated seat's turns are missing
    without = GameRecord(game.record.tags, game.record.turns, ())
    assert check_record(without)


@pytest.mark.parametrize("seed", range(12))
def test_random_three_and_four_seat_games_replay_and_round_trip(seed: int) -> None:
    for gods in (THREE, ("athena", "atlas", "demeter"), FOUR, ("hermes", "artemis", "prometheus", "hephaestus")):
        game = play_game(gods, seed, fault_at=8 if seed % 3 == 0 else None)
        assert check_record(game.record) == [], format_sgn(game.record)
        assert parse_sgn(format_sgn(game.record)) == [game.record]
        assert decode_record(encode_record(game.record)) == game.record
        assert len(turn_labels(game.record)) == len(game.record.turns)


def test_a_four_seat_game_replays_and_its_team_result_is_checked() -> None:
    game = play_game(FOUR, 1)
    assert replay_record(game.record).ok
    places = game.record.placings
    assert places is not None and places[0] == places[2] and places[1] == places[3]
    flipped = with_tags(game.record, Result="-".join(str(3 - p) for p in places))
    (problem,) = check_record(flipped)
    assert f"but the play implies {game.record.result}" in problem.reason


def test_a_three_seat_start_with_an_eliminated_seat_replays() -> None:
    game = find_game(THREE, "no-moves")
    (elim,) = game.record.eliminations
    cut = max(elim.after, len(game.record.turns) - 2)  # start after the elimination, two turns from the end
    start = game.positions[cut]
    rest = game.record.turns[cut:]
    record = GameRecord.build(
        event="e", site="s", date="d", round="r", player1="a", player2="b", player3="c", gods="/".join(THREE),
        ruleset="santorini-simple-gods-v1", start=start.sps(), time_control="1+0", result=game.record.result,
        termination=game.record.termination, termination_detail="", turns=rest,
    )
    assert "x" in start.sps().split(";")[2]
    assert check_record(record) == []
    assert parse_sgn(format_sgn(record)) == [record]


# --- replay: what does not re-validate -----------------------------------------------------


def reasons(record: GameRecord) -> list[str]:
    return [p.reason for p in check_record(record)]


def test_wrong_three_seat_placings_are_a_problem() -> None:
    game = next(g for g in (play_game(THREE, s) for s in range(100))
                if g.record.termination == "climb" and not g.record.eliminations)
    mover = turn_labels(game.record)[-1][1]
    assert game.record.placings == tuple(1 if s == mover else 2 for s in (1, 2, 3))
    others = [s for s in (1, 2, 3) if s != mover]
    wrong = [1 if s == mover else (2 if s == others[0] else 3) for s in (1, 2, 3)]
    (why,) = reasons(with_tags(game.record, Result="-".join(map(str, wrong))))
    assert f"but the play implies {game.record.result} (seat {mover} wins by climb)" in why
    other_winner = [2 if s == mover else (1 if s == others[0] else 2) for s in (1, 2, 3)]
    (why,) = reasons(with_tags(game.record, Result="-".join(map(str, other_winner))))
    assert "but the play implies" in why


def test_the_last_seat_standing_wins_and_the_first_out_is_third() -> None:
    game = next(g for g in (play_game(THREE, s, fault_at=9) for s in range(100))
                if g.record.termination == "no-moves")
    (elim,) = game.record.eliminations
    assert game.record.placings is not None and game.record.placings[elim.seat - 1] == 3
    swapped = tuple(2 if p == 3 else 3 if p == 2 else 1 for p in game.record.placings)
    (why,) = reasons(with_tags(game.record, Result="-".join(map(str, swapped))))
    assert "but the play implies" in why and "loses by no-moves" in why


def test_a_fault_elimination_of_a_seat_without_a_turn_is_no_moves() -> None:
    game = find_game(THREE, "no-moves")
    (elim,) = game.record.eliminations
    relabelled = GameRecord(game.record.tags, game.record.turns, (Elimination(elim.after, elim.seat, "time"),))
    (why,) = reasons(relabelled)
    assert f"elimination of seat {elim.seat} after turn {elim.after}: time, but seat {elim.seat} had no complete turn" in why
    assert "the reason is no-moves" in why


def test_a_no_moves_elimination_of_a_seat_with_a_turn_is_a_problem() -> None:
    game = find_game(THREE, "time", fault_at=10)
    (elim,) = game.record.eliminations
    relabelled = GameRecord(game.record.tags, game.record.turns, (Elimination(elim.after, elim.seat, "no-moves"),))
    (why,) = reasons(relabelled)
    assert f"no-moves, but seat {elim.seat} has a complete turn in" in why


def test_a_stuck_seat_must_be_eliminated_before_the_next_seat_plays() -> None:
    game = find_game(THREE, "no-moves")
    (elim,) = game.record.eliminations
    problems = check_record(GameRecord(game.record.tags, game.record.turns, ()))
    assert problems[0].turn_index == elim.after + 1
    assert f"seat {elim.seat} has no complete turn in" in problems[0].reason
    assert "the record must eliminate it (eliminated:no-moves)" in problems[0].reason


def test_a_loss_with_three_seats_in_must_be_an_elimination() -> None:
    game = next(g for g in (play_game(THREE, s) for s in range(100)) if not g.record.eliminations)
    record = GameRecord(with_tags(game.record, Termination="time", Result="1-2-3").tags, game.record.turns[:-1])
    (why,) = reasons(record)
    assert "three seats are still in" in why and "record it as eliminated:time" in why


def test_four_seat_pregame_failures_may_name_either_team() -> None:
    for result in ("1-2-1-2", "2-1-2-1"):
        record = build(gods="apollo/minotaur/pan/athena", player4="d", result=result, termination="crash", turns=[])
        assert check_record(record) == []
    late = build(gods="apollo/minotaur/pan/athena", player4="d", result="2-1-2-1", termination="crash",
                 turns=[TurnRecord("b3,d3")])
    (why,) = reasons(late)
    assert "but the play implies 1-2-1-2 (seat 2 to move loses by crash)" in why


# --- the CLI -------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "santorini_server.cli", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def nseat_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    games = [find_game(THREE, "no-moves").record, find_game(THREE, "time", fault_at=10).record, play_game(FOUR, 1).record]
    path = tmp_path_factory.mktemp("nseat") / "games.sgn"
    path.write_text(format_sgn_games(games), encoding="utf-8")
    return path


def test_replay_lists_and_checks_nseat_games(nseat_file: Path) -> None:
    listed = run("replay", str(nseat_file))
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "engine 1 vs engine 2 vs engine 3" in lines[1]
    assert "engine 1 & engine 3 vs engine 2 & engine 4" in lines[3]
    checked = run("replay", "--check", str(nseat_file))
    assert (checked.returncode, checked.stdout) == (0, "checked 3 games: all re-validate\n")


def test_replay_shows_all_players_the_elimination_and_the_placings(nseat_file: Path) -> None:
    record = parse_sgn(nseat_file.read_text(encoding="utf-8"))[1]
    (elim,) = record.eliminations
    shown = run("replay", "--game", "2", str(nseat_file))
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("game 2: seat 1 engine 1 (apollo), seat 2 engine 2 (minotaur), seat 3 engine 3 (pan), start startpos\n")
    assert f"seat {elim.seat} engine {elim.seat} eliminated: time (loses on time by 5 ms)" in out
    places = record.placings
    assert places is not None
    ranked = sorted((p, s) for s, p in enumerate(places, 1))
    assert out.rstrip().endswith("placings: " + ", ".join(f"{p} seat {s} engine {s}" for p, s in ranked))
    listed = run("replay", "--game", "2", "--no-board", str(nseat_file)).stdout.splitlines()
    assert listed[elim.after + 1].strip().startswith("eliminated:time {loses on time by 5 ms}")
    four = run("replay", "--game", "3", "--no-board", str(nseat_file)).stdout
    assert four.startswith("game 3: team A seat 1 engine 1 (apollo) & seat 3 engine 3 (pan) vs team B seat 2 engine 2")


def test_convert_round_trips_nseat_games(nseat_file: Path, tmp_path: Path) -> None:
    archive, back = tmp_path / "g.msgpack", tmp_path / "g.sgn"
    assert run("convert", str(nseat_file), str(archive)).returncode == 0
    assert run("convert", str(archive), str(back)).returncode == 0
    assert back.read_bytes() == nseat_file.read_bytes()
    assert run("replay", "--check", str(archive)).returncode == 0


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        (r"eliminated:time", "eliminated:climb", "bad elimination 'eliminated:climb'"),
        (r'\[Result "[^"]*"\]', '[Result "1-1-2"]', "placings 1-1-2: exactly one seat places first"),
        (r"(^| )2\. ", r"\g<1>2... ", "bad move number '2...': expected '2.'"),
    ],
)
def test_a_corrupt_nseat_sgn_is_one_line_and_exit_1(nseat_file: Path, tmp_path: Path, old: str, new: str,
                                                    fragment: str) -> None:
    bad = tmp_path / "bad.sgn"
    bad.write_text(re.sub(old, new, nseat_file.read_text(encoding="utf-8"), count=1, flags=re.M), encoding="utf-8")
    for args in (("replay", str(bad)), ("replay", "--check", str(bad)), ("convert", str(bad), str(tmp_path / "o.msgpack"))):
        done = run(*args)
        assert done.returncode != 0
        assert "Traceback" not in done.stderr
        errors = [line for line in done.stderr.splitlines() if fragment in line]
        assert len(errors) == 1, done.stderr


def test_a_corrupt_nseat_archive_frame_is_one_warning(tmp_path: Path) -> None:
    good = play_game(THREE, 4).record
    obj = msgspec.msgpack.decode(encode_record(good))
    obj["elim"] = [[0, 3, "time"]]  # seat 1 is to move at the start
    path = tmp_path / "bad.msgpack"
    path.write_bytes(encode_frame(good) + frame_payload(msgspec.msgpack.encode(obj)))
    done = run("replay", "--check", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if "names seat 3, but seat 1 is to move" in line]
    assert warning.startswith("warning: damaged region")


def test_replay_check_reports_wrong_placings_and_exits_1(tmp_path: Path) -> None:
    game = play_game(FOUR, 1).record
    places = game.placings
    assert places is not None
    flipped = with_tags(game, Result="-".join(str(3 - p) for p in places))
    path = tmp_path / "flipped.sgn"
    path.write_text(format_sgn_games([game, flipped]), encoding="utf-8")
    done = run("replay", "--check", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (problem,) = [line for line in done.stdout.splitlines() if line.startswith(("✗", "x "))]
    assert f"game 2: result {flipped.result} {game.termination} but the play implies {game.result}" in problem
    assert done.stdout.splitlines()[-1] == "checked 2 games: 1 with problems"


def test_two_seat_records_write_the_bytes_they_always_did() -> None:
    """Archive frames, SGN text and results lines of two-seat games, as the code before N seats
    wrote them (the digest was taken from that code on these games)."""
    import hashlib
    import json

    from .test_records import SAMPLE, make_record

    games = [*parse_sgn(SAMPLE), make_record()]
    blob = (b"".join(encode_frame(g) for g in games) + format_sgn_games(games).encode()
            + json.dumps([result_summary(g) for g in games]).encode())
    assert hashlib.sha256(blob).hexdigest() == "a8032215ed1a70464459db89aa88fcdb335fcb05aa0788979ea8074ef7433777"
