"""Replay: re-validation of records (good and corrupted), and the replay/convert commands."""

from __future__ import annotations

import dataclasses
import io
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import msgspec
import pytest
from click.testing import CliRunner

from santorini_server.cli import main
from santorini_server.records import (
    GameRecord,
    TurnRecord,
    convert_records,
    encode_frame,
    encode_record,
    format_sgn_games,
    frame_payload,
    parse_sgn,
    read_archive,
)
from santorini_server.records.replay import ReplayProblem, check_record, move_label, replay_record

from .test_records import SAMPLE  # the sample SGN game (SPEC.md section 4.7, example transcript B)

ROOT = Path(__file__).resolve().parent.parent


FINAL = "mortal/mortal;13211/10101/01100/11000/10000;b5,c4/c2,e5;2;10"
# player 2 to move, walled in by domes: no legal turn
STUCK = "mortal/mortal;00400/44400/00000/00000/00000;d1,e1/a5,b5;2;5"
BEFORE_STUCK = "mortal/mortal;00400/44400/00000/00000/00000;d1,e1/a5,b5;1;5"


def sample() -> GameRecord:
    return parse_sgn(SAMPLE)[0]


def edit(record: GameRecord, turns: list[str] | None = None, **tags: str) -> GameRecord:
    """A copy of ``record`` with some tags replaced and/or other turns."""
    new_tags = tuple((n, tags.get(n, v)) for n, v in record.tags) + tuple(
        (n, v) for n, v in tags.items() if record.tag(n) is None
    )
    new_turns = record.turns if turns is None else tuple(TurnRecord(t) for t in turns)
    return GameRecord(new_tags, new_turns)


def reasons(record: GameRecord, number: int | None = 7) -> list[str]:
    problems = replay_record(record, number).problems
    # the fast path must find exactly the same problems, with and without the opening cache
    assert check_record(record, number) == list(problems)
    assert check_record(record, number, {}) == list(problems)
    return [str(p) for p in problems]


def turns_of(record: GameRecord) -> list[str]:
    return [t.turn for t in record.turns]


# --- replay_record -------------------------------------------------------------------------


def test_the_protocol_sample_replays_to_its_stated_final_position() -> None:
    result = replay_record(sample(), 17)
    assert result.ok and result.complete
    assert len(result.positions) == 20 and len(result.transitions) == 19
    assert result.positions[0].sps() == "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1"
    assert result.positions[-1].sps() == FINAL
    assert result.transitions[-1].termination == "climb"
    assert check_record(sample()) == []


def test_move_labels_follow_the_start_tag() -> None:
    assert [move_label("startpos", i) for i in range(4)] == ["1.", "1...", "2.", "2..."]
    assert move_label(STUCK, 0) == "5..." and move_label(STUCK, 1) == "6."


def test_an_illegal_turn_is_reported_with_game_turn_move_number_and_sps() -> None:
    turns = turns_of(sample())
    turns[3] = "c4-c5+b4"  # b4 holds player 1's worker
    result = replay_record(edit(sample(), turns), 17)
    assert not result.ok and not result.complete
    assert len(result.positions) == 4  # start + the three turns before the bad one
    (problem,) = result.problems
    assert problem == ReplayProblem(
        17, 4, "2... c4-c5+b4",
        "illegal turn 'c4-c5+b4' in mortal/mortal;00100/00000/00000/00000/00000;b4,d3/c2,c4;2;2: b4 is occupied",
    )
    assert str(problem).startswith("game 17, turn 4 (2... c4-c5+b4): illegal turn 'c4-c5+b4' in mortal/")


def test_a_malformed_turn_is_reported() -> None:
    turns = turns_of(sample())
    turns[4] = "b4b5a5"
    (reason,) = reasons(edit(sample(), turns))
    assert reason == (
        "game 7, turn 5 (3. b4b5a5): malformed turn 'b4b5a5': squares of a move are joined by '-' (b3-b4), of a placement by ','"
    )


def test_a_non_canonical_spelling_is_a_problem() -> None:
    turns = turns_of(sample())
    turns[0] = "d3,b3"
    (reason,) = reasons(edit(sample(), turns))
    assert reason == "game 7, turn 1 (1. d3,b3): turn 'd3,b3' is legal but not canonical (records hold 'b3,d3')"


def test_the_wrong_winner_is_a_problem() -> None:
    record = edit(sample(), Result="0-1")
    assert reasons(record) == ["game 7: result 0-1 climb but the winning turn (c5-b5) was played by player 1"]


def test_a_climb_result_needs_a_winning_last_turn() -> None:
    record = edit(sample(), turns_of(sample())[:-1])
    assert reasons(record, 3) == ["game 3: result 1-0 climb but the last turn does not win"]


def test_a_win_by_climbing_cannot_be_recorded_as_something_else() -> None:
    assert reasons(edit(sample(), Termination="pan-drop")) == [
        "game 7: result 1-0 pan-drop but the last turn (c5-b5) wins by climb"
    ]
    assert reasons(edit(sample(), Termination="time")) == [
        "game 7: result 1-0 time but the last turn (c5-b5) already wins by climb for player 1"
    ]


def test_no_turn_may_follow_a_win() -> None:
    record = edit(sample(), [*turns_of(sample()), "c2-d2+c2"])
    assert reasons(record) == [
        "game 7, turn 20 (10... c2-d2+c2): the game was already won by turn 19 (c5-b5, climb); no turn may follow"
    ]


def test_wrong_gods_tag_for_an_sps_start_is_a_problem() -> None:
    record = edit(sample(), turns_of(sample())[2:], Start="mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2")
    assert reasons(record) == []
    bad = edit(record, Gods="apollo/mortal")
    assert reasons(bad) == ["game 7: Gods tag 'apollo/mortal' disagrees with the Start SPS (gods mortal/mortal)"]
    assert replay_record(bad).positions == ()


def test_unknown_gods_bad_start_and_wrong_ruleset_are_problems() -> None:
    assert reasons(edit(sample(), Gods="zeus/mortal"))[0].startswith("game 7: bad Gods tag 'zeus/mortal': unknown god 'zeus'")
    bad_start = edit(sample(), Start="mortal/mortal;00000/00000/00000/00000/00000;b3,b3/c2,c4;1;2")
    assert reasons(bad_start)[0].startswith("game 7: bad Start tag:")
    assert reasons(edit(sample(), Ruleset="santorini-simple-gods-v1")) == [
        "game 7: Ruleset tag 'santorini-simple-gods-v1' is not the ruleset of mortal/mortal (santorini-base-v1)"
    ]


def test_no_moves_needs_the_side_to_move_stuck_and_losing() -> None:
    good = edit(sample(), ["d1-d2+d1"], Start=BEFORE_STUCK, Result="1-0", Termination="no-moves")
    assert reasons(good) == []
    assert reasons(edit(good, Result="0-1")) == ["game 7: result 0-1 no-moves but player 2 is the one without a legal turn"]
    not_stuck = edit(sample(), turns_of(sample())[:-1], Termination="no-moves")
    assert reasons(not_stuck)[0].startswith("game 7: result 1-0 no-moves but player 1 to move has a legal turn in mortal/")
    # a resignation where the side to move had no legal turn was really no-moves
    assert reasons(edit(good, Termination="resign")) == [
        "game 7: result 1-0 resign but player 2 had no legal turn: the termination is no-moves"
    ]


def test_engine_terminations_name_the_side_to_move_as_loser() -> None:
    cut = turns_of(sample())[:-1]  # player 1 to move after these
    for term in ("time", "illegal", "crash", "resign", "stall", "engine-error"):
        assert reasons(edit(sample(), cut, Result="0-1", Termination=term)) == []
        assert reasons(edit(sample(), cut, Result="1-0", Termination=term)) == [
            f"game 7: result 1-0 {term} but player 1 was to move (the loser must be the side to move)"
        ]


def test_pregame_failures_may_name_either_side() -> None:
    for result in ("1-0", "0-1"):
        assert reasons(edit(sample(), [], Result=result, Termination="crash")) == []
    assert reasons(edit(sample(), [], Result="1-0", Termination="resign")) == [
        "game 7: result 1-0 resign but player 1 was to move (the loser must be the side to move)"
    ]


def test_aborted_games_have_no_winner() -> None:
    cut = turns_of(sample())[:-1]
    assert reasons(edit(sample(), cut, Result="*", Termination="aborted")) == []
    assert reasons(edit(sample(), cut, Result="*", Termination="time")) == [
        "game 7: result * time: an aborted game has result * and termination aborted"
    ]
    assert reasons(edit(sample(), Result="*", Termination="aborted")) == [
        "game 7: result * aborted but the last turn (c5-b5) wins by climb"
    ]


def test_god_games_replay() -> None:
    record = edit(sample(), ["b3,d3", "c2,c4", "b3xc4+b4"], Gods="apollo/mortal", Result="*", Termination="aborted")
    result = replay_record(record)
    assert result.ok, result.problems
    assert result.positions[-1].sps().startswith("apollo/mortal;")
    # the same swap is illegal for a mortal
    assert "illegal turn 'b3xc4+b4'" in reasons(edit(record, Gods="mortal/mortal"))[0]


# --- the commands --------------------------------------------------------------------------


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def three_games() -> list[GameRecord]:
    """A good game, one with an illegal turn, one with a wrong result."""
    turns = turns_of(sample())
    turns[3] = "c4-c5+b4"
    return [sample(), edit(sample(), turns, Round="18"), edit(sample(), Result="0-1", Round="19")]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good.sgn"
    good.write_text(format_sgn_games([sample(), edit(sample(), Round="2")]), encoding="utf-8")
    mixed = tmp_path / "mixed.sgn"
    mixed.write_text(format_sgn_games(three_games()), encoding="utf-8")
    frames = [encode_frame(r) for r in three_games()]
    damaged = bytearray(frames[1])
    damaged[30] ^= 0xFF  # payload checksum fails
    archive = tmp_path / "damaged.msgpack"
    archive.write_bytes(frames[0] + bytes(damaged) + frames[2] + frames[0][:40])  # + a cut-off frame
    return {"good": good, "mixed": mixed, "damaged": archive}


def test_list_shows_every_game_and_marks_the_bad_ones(files: dict[str, Path]) -> None:
    code, out, _ = invoke("replay", str(files["mixed"]))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["#", "result", "termination", "turns"]
    assert lines[1].split() == ["1", "1-0", "climb", "19", "mortal/mortal", "Kronos", "0.3", "vs", "Hestia", "1.1"]
    assert lines[2].split()[:2] == ["2", "✗"]
    assert lines[3].strip().startswith("game 2, turn 4 (2... c4-c5+b4): illegal turn 'c4-c5+b4'")
    assert lines[4].split()[:3] == ["3", "✗", "0-1"]
    assert lines[5].strip() == "game 3: result 0-1 climb but the winning turn (c5-b5) was played by player 1"
    assert lines[-1] == "3 games, 2 with problems"


def test_check_exit_status(files: dict[str, Path]) -> None:
    code, out, _ = invoke("replay", "--check", str(files["good"]))
    assert (code, out) == (0, "checked 2 games: all re-validate\n")
    code, out, _ = invoke("replay", "--check", str(files["mixed"]))
    assert code == 1
    assert out.splitlines() == [
        "✗ game 2, turn 4 (2... c4-c5+b4): illegal turn 'c4-c5+b4' in "
        "mortal/mortal;00100/00000/00000/00000/00000;b4,d3/c2,c4;2;2: b4 is occupied",
        "✗ game 3: result 0-1 climb but the winning turn (c5-b5) was played by player 1",
        "checked 3 games: 2 with problems",
    ]


def test_a_damaged_archive_lists_the_good_games_with_warnings(files: dict[str, Path]) -> None:
    code, out, err = invoke("replay", str(files["damaged"]))
    assert code == 0
    rows = [line.split()[0] for line in out.splitlines()[1:-1] if line[:5].strip().isdigit()]
    assert rows == ["1", "2"]  # the damaged second frame is skipped, the third game is game 2
    assert "2 games, 1 with problems, 2 damaged regions skipped" in out
    warnings = err.splitlines()
    assert len(warnings) == 2
    assert warnings[0].startswith("warning: damaged region at byte ") and "checksum mismatch" in warnings[0]
    assert warnings[1].startswith("warning: truncated frame at byte ")
    code, out, err = invoke("replay", "--check", str(files["damaged"]))
    assert code == 1 and "checked 2 games: 1 with problems; 2 damaged regions skipped" in out


def test_game_prints_every_board_when_not_a_terminal(files: dict[str, Path]) -> None:
    code, out, _ = invoke("replay", "--game", "1", str(files["good"]))
    assert code == 0
    assert out.count("      a   b   c   d   e") == 20  # the start + 19 turns
    assert "turn 3: 2. b3-b4+c5 {+21/6 0.87s}" in out
    assert "turn 19: 10. c5-b5 {win/1}  (wins: climb)" in out
    assert out.rstrip().endswith("result 1-0 climb")
    assert "\x1b[" not in out  # no colour when stdout is not a terminal
    code, out, _ = invoke("replay", "--game", "1", "--turn", "2", str(files["good"]))
    assert code == 0 and out.count("      a   b   c   d   e") == 3 and "result" not in out
    code, out, _ = invoke("replay", "--game", "2", "--no-board", str(files["mixed"]))
    assert code == 1
    assert out.splitlines()[-1].startswith("✗ game 2, turn 4 (2... c4-c5+b4): illegal turn")
    assert "   3  2.     b3-b4+c5\n" in out and "a   b   c" not in out  # edited turns carry no telemetry


def test_the_board_after_the_last_turn_says_who_won_and_how(files: dict[str, Path]) -> None:
    code, out, _ = invoke("replay", "--game", "1", str(files["good"]))
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("P1 X mortal")]
    assert headers[-2].endswith("turn 10, player 1 (X) to move")
    assert headers[-1] == "P1 X mortal  vs  P2 O mortal    game over, 1-0: Kronos 0.3 wins by climbing to level 3"
    # a game that ends on time: the loser is named, with the detail
    timed = files["good"].with_name("time.sgn")
    record = edit(sample(), turns_of(sample())[:-1], Result="0-1", Termination="time", TerminationDetail="by 37 ms")
    timed.write_text(format_sgn_games([record]), encoding="utf-8")
    code, out, _ = invoke("replay", "--game", "1", str(timed))
    assert code == 0, out
    assert [line for line in out.splitlines() if line.startswith("P1 X")][-1].endswith(
        "game over, 0-1: Kronos 0.3 loses on time by 37 ms"
    )


def test_replay_shows_each_turn_s_time_as_the_record_holds_it(tmp_path: Path) -> None:
    turns = [msgspec.structs.replace(t, time_ms=ms) for t, ms in zip(sample().turns, (1, 870, 1234, 5, 1000), strict=False)]
    path = tmp_path / "times.sgn"
    path.write_text(format_sgn_games([GameRecord(sample().tags, (*turns, *sample().turns[5:]))]), encoding="utf-8")
    code, out, _ = invoke("replay", "--game", "1", "--no-board", str(path))
    assert code == 0
    shown = [line.split(None, 2)[2] for line in out.splitlines()[1:6]]
    assert shown == ["b3,d3 {0.001s}", "c2,c4 {0.87s}", "b3-b4+c5 {+21/6 1.234s}", "c4-c5+b5 {0.005s}", "b4-b5+a5 {1.00s}"]
    assert all(text.split(" ", 1)[1] in path.read_text() for text in shown)  # the file's own spelling


def test_game_stops_at_the_first_bad_turn(files: dict[str, Path]) -> None:
    code, out, _ = invoke("replay", "-g", "2", str(files["mixed"]))
    assert code == 1
    assert out.count("      a   b   c   d   e") == 4
    assert out.splitlines()[-1].startswith("✗ game 2, turn 4 (2... c4-c5+b4)")


def test_interactive_stepping_on_a_terminal(files: dict[str, Path]) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(ROOT)
        os.execv(sys.executable, [sys.executable, "-m", "santorini_server.cli", "replay", "-g", "1", str(files["good"])])
    out = b""

    def until(text: bytes, times: int = 1, timeout: float = 20.0) -> bytes:
        nonlocal out
        end = time.monotonic() + timeout
        while out.count(text) < times:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                raise AssertionError(f"timed out waiting for {text!r}; got {out[-500:]!r}")
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
        return out

    try:
        until(b"[0/19]")
        os.write(fd, b"\n")
        until(b"[1/19]")
        os.write(fd, b"n\n")
        until(b"[2/19]")
        os.write(fd, b"p\n")
        until(b"[1/19]", times=2)
        os.write(fd, b"19\n")
        until(b"[19/19]")
        assert b"wins: climb" in out and b"result 1-0 climb" in out
        assert b"\x1b[48;5;" in out  # colour on a terminal
        os.write(fd, b"q\n")
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        os.close(fd)
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def test_convert_round_trip_is_lossless(files: dict[str, Path], tmp_path: Path) -> None:
    src = files["mixed"]
    archive = tmp_path / "games.msgpack"
    back = tmp_path / "back.sgn"
    code, out, _ = invoke("convert", str(src), str(archive))
    assert code == 0 and out == f"converted 3 games to {archive} (msgpack)\n"
    assert read_archive(archive) == (three_games(), [])
    code, out, _ = invoke("convert", str(archive), str(back))
    assert code == 0
    assert back.read_bytes() == src.read_bytes()
    # --to overrides the extension; msgpack -> msgpack repacks frame for frame
    other = tmp_path / "copy.bin"
    assert invoke("convert", str(archive), str(other), "--to", "msgpack")[0] == 0
    assert other.read_bytes() == archive.read_bytes()


def test_convert_refuses_to_overwrite_without_force(files: dict[str, Path], tmp_path: Path) -> None:
    dest = tmp_path / "out.sgn"
    dest.write_text("keep me")
    code, _out, err = invoke("convert", str(files["good"]), str(dest))
    assert code == 1 and err == f"Error: {dest} exists: pass --force to replace it\n"
    assert dest.read_text() == "keep me"
    assert invoke("convert", str(files["good"]), str(dest), "--force")[0] == 0
    assert dest.read_bytes() == files["good"].read_bytes()
    code, _, err = invoke("convert", str(files["good"]), str(tmp_path / "out.txt"))
    assert code == 1 and "cannot tell the output format from 'out.txt'" in err


def test_convert_skips_damage_with_a_warning_and_exit_1(files: dict[str, Path], tmp_path: Path) -> None:
    dest = tmp_path / "rescued.sgn"
    code, out, err = invoke("convert", str(files["damaged"]), str(dest))
    assert code == 1
    assert out == f"converted 2 games to {dest} (sgn), 2 damaged regions skipped\n"
    assert err.count("warning: ") == 2
    assert parse_sgn(dest.read_text()) == [three_games()[0], three_games()[2]]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_convert_writes_what_the_library_conversion_writes(files: dict[str, Path], tmp_path: Path) -> None:
    for source, dest in [(files["mixed"], tmp_path / "a.msgpack"), (files["damaged"], tmp_path / "b.sgn")]:
        invoke("convert", str(source), str(dest))
        library = io.BytesIO()
        convert_records(source.read_bytes(), library, "msgpack" if dest.suffix == ".msgpack" else "sgn")
        assert dest.read_bytes() == library.getvalue()


def test_convert_keeps_the_games_before_malformed_sgn(tmp_path: Path) -> None:
    broken = tmp_path / "broken.sgn"
    broken.write_text(SAMPLE + "\n" + SAMPLE.replace("2. b3-b4+c5", "2. b3-b4+c5 {oops"))
    dest = tmp_path / "kept.msgpack"
    code, out, err = invoke("convert", str(broken), str(dest))
    assert code == 1 and out == f"converted 1 game to {dest} (msgpack)\n"
    assert err.startswith(f"error: {broken}: line 30, column 28: '{{' inside a comment") and err.count("\n") == 1
    assert read_archive(dest) == ([sample()], [])


def test_convert_in_place_with_force(files: dict[str, Path], tmp_path: Path) -> None:
    archive = tmp_path / "games.msgpack"
    assert invoke("convert", str(files["mixed"]), str(archive))[0] == 0
    before = archive.read_bytes()
    code, _, _ = invoke("convert", str(archive), str(archive), "--force")
    assert code == 0 and archive.read_bytes() == before  # read through its map, then replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["games.msgpack", "good.sgn", "mixed.sgn",
                                                                 "damaged.msgpack"])


def test_an_ill_typed_payload_is_one_warning_naming_the_field(tmp_path: Path) -> None:
    """A frame whose checksums pass but whose payload breaks the schema (a writer's bug)."""
    obj = msgpack.unpackb(encode_record(sample()))
    obj["turns"][2] = ["b3-b4+c5", "870"]  # time_ms as text
    bad = frame_payload(msgpack.packb(obj))
    path = tmp_path / "games.msgpack"
    path.write_bytes(encode_frame(sample()) + bad + encode_frame(sample()))
    expected = (f"warning: damaged region at byte {len(encode_frame(sample()))} ({len(bad)} bytes) skipped: "
                "unreadable payload: payload is not a version-1 game record: "
                "Expected `int | null`, got `str` - at `$.turns[2][1]`\n")
    for args in (("replay", "--check", str(path)), ("convert", str(path), str(tmp_path / "out.sgn"))):
        proc = run(*args, cwd=ROOT)
        assert proc.returncode == 1 and proc.stderr == expected, (args, proc.stderr)
    assert len(parse_sgn((tmp_path / "out.sgn").read_text())) == 2


def test_bad_input_gives_one_line_errors_without_tracebacks(files: dict[str, Path], tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a game record\n")
    broken = tmp_path / "broken.sgn"
    broken.write_text(SAMPLE + "\n" + SAMPLE.replace("2. b3-b4+c5", "2. b3-b4+c5 {oops"))
    cases = [
        (("replay", str(tmp_path / "missing.sgn")), "cannot read"),
        (("replay", str(tmp_path)), "is a directory"),
        (("replay", str(text)), "notes.txt: line 1, column 1: expected a tag pair"),
        (("replay", "--game", "0", str(files["good"])), "bad --game 0"),
        (("replay", "--game", "9", str(files["good"])), "no game 9: "),
        (("replay", "--check", str(broken)), "line 30, column 28: '{' inside a comment"),
        (("convert", str(tmp_path / "missing.msgpack"), str(tmp_path / "x.sgn")), "cannot read"),
        (("convert", str(text), str(tmp_path / "x.msgpack")), "nothing converted"),
    ]
    for args, message in cases:
        proc = run(*args, cwd=ROOT)
        assert proc.returncode != 0, args
        assert "Traceback" not in proc.stderr, proc.stderr
        errors = [line for line in proc.stderr.splitlines() if not line.startswith("warning:")]
        assert len(errors) == 1 and message in errors[0], (args, proc.stderr)
    assert not (tmp_path / "x.msgpack").exists()
    # a broken second game: the first is still checked, then the error
    proc = run("replay", "--check", str(broken), cwd=ROOT)
    assert proc.stdout == "checked 1 game: all re-validate\n"


def test_replay_with_no_readable_game_prints_the_error_alone(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgn"
    bad.write_text('[Event "x"]\n\n1. b3,d3 *\n')
    for args in (("replay", str(bad)), ("replay", "--check", str(bad))):
        proc = run(*args)
        assert proc.returncode == 1 and proc.stdout == "", (args, proc.stdout)
        assert proc.stderr == (
            f"Error: {bad}: line 3, column 1: movetext begins but missing required tag(s): Gods, Start, Termination\n"
        )


def test_an_archive_with_no_readable_game_is_one_error_line(tmp_path: Path) -> None:
    """Every frame damaged, or only garbage after a frame header: the damage is warned of, then
    one Error: line and exit 1 (SPEC.md section 14.2), as for SGN; convert leaves no OUT."""
    frames = [bytearray(encode_frame(r)) for r in three_games()]
    for frame in frames:
        frame[30] ^= 0xFF  # each payload's checksum fails
    every = tmp_path / "every.msgpack"
    every.write_bytes(b"".join(frames))
    garbage = tmp_path / "garbage.msgpack"
    garbage.write_bytes(encode_frame(sample())[:16] + b"garbage" * 20)
    for path in (every, garbage):
        for args in (("replay", str(path)), ("replay", "--check", str(path))):
            code, out, err = invoke(*args)
            assert code == 1 and out == "", (args, out)
            *warnings, error = err.splitlines()
            assert len(warnings) == 1 and warnings[0].startswith("warning: ")
            assert error == f"Error: {path} holds no readable game (1 damaged region skipped)"
    dest = tmp_path / "rescued.sgn"
    code, out, err = invoke("convert", str(every), str(dest))
    assert code == 1 and out == ""
    assert err.splitlines()[-1] == f"Error: {every} holds no readable game (1 damaged region skipped; nothing converted)"
    assert not dest.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_replay_and_convert_read_a_game_without_its_roster_tags_and_convert_writes_them(tmp_path: Path) -> None:
    lacking = tmp_path / "lacking.sgn"
    lacking.write_text(SAMPLE.replace('[Site "local"]\n', "").replace('[Date "2025.06.01"]\n', ""))
    listed = run("replay", str(lacking))
    assert listed.returncode == 0, listed.stderr
    assert "1-0    climb           19  mortal/mortal            Kronos 0.3 vs Hestia 1.1" in listed.stdout
    assert run("replay", "--check", str(lacking)).stdout == "checked 1 game: all re-validate\n"
    dest = tmp_path / "canonical.sgn"
    code, out, err = invoke("convert", str(lacking), str(dest))
    assert (code, out, err) == (0, f"converted 1 game to {dest} (sgn)\n", ""), err
    assert dest.read_text() == SAMPLE.replace("2025.06.01", "????.??.??").replace('"local"', '"?"') + "\n"


def test_many_games_are_checked_in_worker_processes_in_file_order(tmp_path: Path) -> None:
    games = [edit(sample(), Round=str(i)) for i in range(600)]
    turns = turns_of(sample())
    turns[4] = "b4-b5+c3"  # c3 is not next to b5: illegal
    games[420] = edit(games[420], turns)
    frames = [encode_frame(g) for g in games]
    frames[300] = frames[300][:20] + b"\x00" + frames[300][21:]  # damaged header
    path = tmp_path / "many.msgpack"
    path.write_bytes(b"".join(frames))
    one = run("replay", "--jobs", "1", str(path), cwd=ROOT)
    two = run("replay", "--jobs", "2", str(path), cwd=ROOT)
    assert (one.returncode, two.returncode) == (0, 0)
    assert one.stdout == two.stdout and one.stderr == two.stderr
    # the 421st frame; the damaged 301st is not a game, so it is game 420
    assert "game 420, turn 5 (3. b4-b5+c3): illegal turn 'b4-b5+c3'" in one.stdout
    assert one.stdout.splitlines()[-1] == "599 games, 1 with problems, 1 damaged region skipped"
    checked = run("replay", "--check", "--jobs", "2", str(path), cwd=ROOT)
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[-1] == "checked 599 games: 1 with problems; 1 damaged region skipped"


def test_problems_are_plain_values() -> None:
    p = ReplayProblem(3, None, None, "x")
    assert str(p) == "game 3: x" and str(dataclasses.replace(p, game_number=None)) == "game: x"
