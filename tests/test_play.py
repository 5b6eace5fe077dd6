"""``santorini play`` against a real engine process, driven through stdin."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from santorini_server.cli.play_cmd import format_legal_turns
from santorini_server.records import parse_sgn
from santorini_server.records.replay import check_record
from santorini_server.rules import Position, respell_stn

ROOT = Path(__file__).resolve().parent.parent


def engine_spec(marker: str, *extra: str) -> str:
    """The gallery's instant engine, tagged with ``marker`` so its process can be found."""
    args = " ".join(f"arg={a}" for a in extra)
    return f"cmd={sys.executable} arg=-m arg=tests.gallery.instant arg=marker={marker} {args} name=instant dir={ROOT}"


def engine_processes(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"marker={marker}".encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def play(
    tmp_path: Path, stdin: str, *args: str, engine_args: tuple[str, ...] = ()
) -> tuple[subprocess.CompletedProcess[str], str]:
    marker = uuid.uuid4().hex
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", "play", engine_spec(marker, *engine_args), *args],
        input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert engine_processes(marker) == []  # the engine never outlives the session
    return proc, marker


def saved(path: Path):  # type: ignore[no-untyped-def]
    (record,) = parse_sgn(path.read_text(encoding="utf-8"))
    assert check_record(record) == []  # the saved game re-validates
    return record


def test_a_game_with_bad_input_help_and_resignation(tmp_path: Path) -> None:
    out = tmp_path / "g.sgn"
    lines = [
        "b3,b3",          # illegal placement
        "B3 , D3",        # legal, in a sloppy spelling: normalised
        "zz",             # malformed
        "?",              # the legal turns
        "c4-c5+b5",       # no worker of ours on c4
        "b3-b4",          # the build forgotten
        "b3-b4+c5",       # legal
        "resign",
    ]
    proc, _ = play(tmp_path, "\n".join(lines) + "\n", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "illegal: both workers cannot stand on b3 — type ? for the legal turns" in text
    assert "malformed: 'zz' is not a turn: not STN (e.g. b3,d3 or b3-b4+c5) — type ? for the legal turns" in text
    assert "illegal: c4 has no worker of yours: yours are on b3 and d3" in text
    assert "illegal: after moving, build next to b4 (e.g. b3-b4+b3)" in text
    assert "legal turns (move, then the builds that may follow):" in text
    assert "  b3-b4  +a3 +a4 +a5 +b3 +b5 +c3 +c4 +c5" in text
    assert "instant plays a1,a2" in text
    assert text.count("your turn>") == 6  # re-prompted after each bad line and after ?
    assert "0-1 {Human resigns}" in text and f"game saved to {out}" in text
    record = saved(out)
    assert record.players == ("Human", "instant")
    assert (record.result, record.termination) == ("0-1", "resign")
    assert [t.turn for t in record.turns][:3] == ["b3,d3", "a1,a2", "b3-b4+c5"]
    assert len(record.turns) == 4  # the engine answered b3-b4+c5 before the resignation
    assert record.turns[0].time_ms is not None  # the human's clock is recorded
    assert record.turns[1].score == "+5" and record.turns[1].depth == 1
    assert record.tag("Event") == "santorini play" and record.tag("TimeControl") == "60+1"


def test_playing_second_and_resigning_gives_1_0(tmp_path: Path) -> None:
    proc, _ = play(tmp_path, "c2,c4\nresign\n", "--as", "2", "--gods", "apollo/mortal", "--tc", "10+0.1")
    assert proc.returncode == 0, proc.stderr
    (path,) = tmp_path.glob("santorini-play-*.sgn")  # the default name, in the current directory
    record = saved(path)
    assert record.players == ("instant", "Human")
    assert record.tag("Gods") == "apollo/mortal" and record.tag("Ruleset") == "santorini-simple-gods-v1"
    assert (record.result, record.termination) == ("1-0", "resign")
    assert [t.turn for t in record.turns] == ["a1,a2", "c2,c4", "a2-a3+a4"]


def test_play_warns_of_a_likely_slip_in_a_time_control(tmp_path: Path) -> None:
    """As match and tournament do: ``--tc 2000`` is 2,000 s (meant as 2?), said once, and the game goes on."""
    proc, _ = play(tmp_path, "resign\n", "--tc", "2000")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "warning: time control '2000' gives 2000 s (33 minutes) on the clock: times are in seconds"
    )
    (path,) = tmp_path.glob("santorini-play-*.sgn")
    assert saved(path).termination == "resign"


def test_the_human_can_win_from_an_opening(tmp_path: Path) -> None:
    opening = "mortal/mortal;00000/00000/00000/00000/23000;a1,d3/c2,c4;1;2"
    out = tmp_path / "win.sgn"
    proc, _ = play(tmp_path, "a1-b1+c1\na1-b1\n", "--opening", opening, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "illegal: a1-b1 already wins by moving up to level 3: the turn ends there (e.g. a1-b1)" in proc.stdout
    assert "1-0 {Human wins by climbing to level 3}" in proc.stdout
    record = saved(out)
    assert (record.start, record.result, record.termination) == (opening, "1-0", "climb")
    assert [t.turn for t in record.turns] == ["a1-b1"]


def test_an_illegal_engine_turn_loses(tmp_path: Path) -> None:
    out = tmp_path / "ill.sgn"
    proc, _ = play(tmp_path, "b3,d3\nb3-b4+c5\n", "--out", str(out), engine_args=("illegal",))
    assert proc.returncode == 0, proc.stderr
    reason = "'a1-a1+a1': the worker on a1 must move to another square"
    assert "1-0 {instant makes an illegal turn: " + reason + "}" in proc.stdout
    record = saved(out)
    assert (record.result, record.termination, record.termination_detail) == ("1-0", "illegal", reason)


def test_end_of_input_aborts_cleanly_and_saves_the_game(tmp_path: Path) -> None:
    out = tmp_path / "eof.sgn"
    proc, _ = play(tmp_path, "b3,d3\n", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "end of input: game aborted" in proc.stdout
    record = saved(out)
    assert (record.result, record.termination) == ("*", "aborted")
    assert [t.turn for t in record.turns] == ["b3,d3", "a1,a2"]


def test_quit_and_ctrl_c_close_the_engine(tmp_path: Path) -> None:
    proc, _ = play(tmp_path, "quit\n", "--out", str(tmp_path / "q.sgn"))
    assert proc.returncode == 0 and "game aborted" in proc.stdout
    marker = uuid.uuid4().hex
    child = subprocess.Popen(
        [sys.executable, "-m", "santorini_server.cli", "play", engine_spec(marker), "--as", "2",
         "--out", str(tmp_path / "c.sgn")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 20
        out = b""
        os.set_blocking(child.stdout.fileno(), False)  # type: ignore[union-attr]
        while b"place both workers>" not in out and time.monotonic() < deadline:
            time.sleep(0.05)
            out += child.stdout.read() or b""  # type: ignore[union-attr]
        assert b"place both workers>" in out
        assert engine_processes(marker)  # the engine is running while we wait for the human
        child.send_signal(signal.SIGINT)
        rest, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130
    assert b"Traceback" not in err, err
    assert b"interrupted: game aborted, engine stopped" in rest
    assert engine_processes(marker) == []
    (record,) = parse_sgn((tmp_path / "c.sgn").read_text())
    assert (record.result, record.termination) == ("*", "aborted")


def test_an_engine_that_cannot_start_is_a_one_line_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", "play", f"cmd={tmp_path / 'nope'} name=nope"],
        input="", capture_output=True, text=True, cwd=tmp_path, timeout=30,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("Error: could not start nope")
    assert list(tmp_path.iterdir()) == []  # no empty game file left behind


def test_gods_that_differ_from_the_opening_s_are_a_one_line_error(tmp_path: Path) -> None:
    opening = "mortal/mortal;00000/00000/00000/00000/00000;a1,b2/c3,d4;1;2"
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", "play", "random", "--opening", opening, "--gods", "apollo/pan"],
        input="", capture_output=True, text=True, cwd=tmp_path, timeout=30,
    )
    assert proc.returncode == 1
    assert proc.stderr == "Error: --gods apollo/pan disagrees with the opening's gods mortal/mortal\n"


def test_an_out_file_that_cannot_be_appended_to_is_refused_before_the_game(tmp_path: Path) -> None:
    first = tmp_path / "first.sgn"
    play(tmp_path, "b3,d3\n", "--out", str(first))
    game = first.read_text(encoding="utf-8")
    damaged = tmp_path / "damaged.sgn"  # game 2 of 3 is damaged: appending after it would hide the new game
    damaged.write_text(game + game.replace('[Gods "mortal/mortal"]', '[Gods "zz"]') + game, encoding="utf-8")
    line = game.count("\n") + 1
    notes = tmp_path / "notes.txt"
    notes.write_text("notes\n")
    for out, fragment in ((damaged, f"Error: {damaged}: game 2 (from line {line}) does not parse: "),
                          (notes, f"Error: {notes} is not an SGN file: line 1, column 1: ")):
        before = out.read_bytes()
        proc, _ = play(tmp_path, "b3,d3\n", "--out", str(out))
        assert proc.returncode == 1 and "place both workers" not in proc.stdout
        assert proc.stderr.startswith(fragment) and proc.stderr.count("\n") == 1, proc.stderr
        assert out.read_bytes() == before


@pytest.mark.parametrize("command", [["play", "random"], ["match", "random", "greedy", "--games", "2"]])
def test_an_out_file_named_as_an_archive_is_refused_before_any_game(command: list[str], tmp_path: Path) -> None:
    out = tmp_path / "games.msgpack"  # games are appended as SGN text: never under an archive's name
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", *command, "--out", str(out)],
        input="", capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.endswith(f"Error: Invalid value for '--out': {out} names an archive, and games are appended as "
                                "SGN text: name it .sgn (santorini convert FILE.sgn FILE.msgpack makes the archive)\n")


# --- the pure helpers ----------------------------------------------------------------------


def test_input_normalisation() -> None:
    assert respell_stn(" B3 - B4 + C5D ") == "b3-b4+c5D"
    assert respell_stn("d3,B3") == "d3,b3"
    assert respell_stn("b3-b4+c5d") == "b3-b4+c5D"


def test_legal_turn_listing_is_grouped_by_move() -> None:
    pos = Position.from_sps("mortal/mortal;00000/00000/00000/00000/23000;a1,d3/c2,c4;1;2")
    text = format_legal_turns(pos)
    assert text.splitlines()[0] == f"{len(pos.legal_turns())} legal turns (move, then the builds that may follow):"
    assert "  a1-b1  wins!" in text
    start = format_legal_turns(Position.start())
    assert start.startswith("300 placements: any two empty squares")
