"""``santorini analyse`` and the analysis annotation format, with real engine processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from santorini_server.cli import main
from santorini_server.records import GameRecord, format_sgn, iter_records, parse_sgn
from santorini_server.records.analysis import (
    MARKS,
    Score,
    TurnAnalysis,
    format_annotation,
    mark_of,
    move_accuracy,
    parse_annotation,
    win_probability,
    with_annotation,
)

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "santorini_server.cli", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("games")
    two, three = root / "two.sgn", root / "three.sgn"
    assert cli("match", "greedy", "random", "-n", "4", "--tc", "depth=1", "--out", two).returncode == 0
    assert cli("match", "greedy", "random", "alphabeta", "--players", "3", "-n", "1", "--tc", "depth=1",
               "--out", three).returncode == 0
    return {"two": two, "three": three}


# -- the format -------------------------------------------------------------------------------------


def test_scores_become_win_probabilities_and_losses_marks() -> None:
    assert win_probability(Score(cp=0)) == 0.5
    assert win_probability(Score(cp=300)) == pytest.approx(0.731, abs=1e-3)
    assert win_probability(Score(win=2)) == 1.0 and win_probability(Score(win=-1)) == 0.0
    assert win_probability(Score(cp=-10**9)) == 0.0  # no overflow
    assert [mark_of(x) for x in (9.9, 10.0, 19.9, 20.0, 30.0, 100.0)] == [
        None, "inaccuracy", "inaccuracy", "mistake", "blunder", "blunder"]
    assert [m for m, _ in MARKS] == ["inaccuracy", "mistake", "blunder"]
    assert move_accuracy(0) == pytest.approx(100, abs=0.01) and move_accuracy(100) == 0
    assert Score.parse("-win/3") == Score(win=-3) and Score(cp=-21).negated().text() == "+21"
    assert Score(win=1).rank() > Score(win=3).rank() > Score(cp=900).rank() > Score(win=-5).rank() > Score(win=-1).rank()


def test_annotations_round_trip_and_replace_an_earlier_one() -> None:
    a = TurnAnalysis(Score(cp=35), Score(win=-2), "b3-b4+c5", 51.6, "blunder")
    text = format_annotation(a)
    assert text == "[%an +35 -win/2 b3-b4+c5 51.6 ??]"
    assert parse_annotation(text) == (None, a)
    assert parse_annotation(f"book {text}") == ("book", a)
    b = TurnAnalysis(Score(cp=0), Score(cp=0), None, 0.0)
    assert with_annotation(f"book {text}", b) == "book [%an 0 0 - 0.0]"
    assert parse_annotation("[%an nonsense]") == ("[%an nonsense]", None)
    assert parse_annotation("[%an +1 +1 a1 1.0 !!]")[1] is None


# -- the command ------------------------------------------------------------------------------------


def test_analyse_annotates_every_turn_that_replay_and_convert_keep(games: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "a.sgn"
    code, stdout, stderr = invoke("analyse", games["two"], "--engine", "alphabeta", "--depth", "2", "--out", out)
    assert code == 0, stderr
    assert "analysed 4/4 games" in stderr and "ETA" in stderr
    records = parse_sgn(out.read_text())
    originals = parse_sgn(games["two"].read_text())
    assert len(records) == 4
    for record, original in zip(records, originals, strict=True):
        assert record.tag("Analysis") == "alphabeta depth=2 scale=300"
        assert [t.turn for t in record.turns] == [t.turn for t in original.turns]
        for turn, before in zip(record.turns, original.turns, strict=True):
            rest, a = parse_annotation(turn.comment)
            assert a is not None and rest == before.comment
            assert (turn.score, turn.time_ms) == (before.score, before.time_ms)  # the players' telemetry stays
        accuracies = [float(record.tag(f"Player{s}Accuracy") or "nan") for s in (1, 2)]
        assert all(0 <= x <= 100 for x in accuracies)
        # the winner's last turn: a win, nothing lost
        _, last = parse_annotation(record.turns[-1].comment)
        assert last is not None and last.after == Score(win=1) and last.loss == 0.0
    assert "greedy" in stdout and "accuracy" in stdout
    assert cli("replay", "--check", out).returncode == 0
    archive = tmp_path / "a.msgpack"
    assert cli("convert", out, archive).returncode == 0
    with open(archive, "rb") as f:
        assert list(iter_records(f.read())) == records


def test_a_three_seat_game_has_an_accuracy_per_seat(games: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "three.msgpack"
    code, _, stderr = invoke("analyse", games["three"], "-e", "greedy", "--out", out)
    assert code == 0, stderr
    with open(out, "rb") as f:
        [record] = list(iter_records(f.read()))
    assert all(record.tag(f"Player{s}Accuracy") is not None for s in (1, 2, 3))
    assert all(parse_annotation(t.comment)[1] is not None for t in record.turns)


def test_jobs_give_the_same_annotated_games_as_one_process(games: dict[str, Path], tmp_path: Path) -> None:
    one, two = tmp_path / "one.sgn", tmp_path / "two.sgn"
    assert invoke("analyse", games["two"], "-e", "alphabeta", "--depth", "2", "--out", one)[0] == 0
    code, _, stderr = invoke("analyse", games["two"], "-e", "alphabeta", "--depth", "2", "--jobs", "2",
                             "--game", "2", "--game", "3", "--out", two)
    assert code == 0, stderr
    assert parse_sgn(two.read_text()) == parse_sgn(one.read_text())[1:3]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_keeps_the_finished_games_and_a_rerun_continues(games: dict[str, Path], tmp_path: Path, jobs: str) -> None:
    whole, part = tmp_path / "whole.sgn", tmp_path / "part.sgn"
    # an engine that takes 30 ms a position and always plays the same: the runs are comparable
    slow = f"cmd={PY} arg=-m arg=tests.gallery.instant arg=sleep=30 dir={ROOT} name=slow"
    assert invoke("analyse", games["two"], "-e", slow, "--depth", "1", "--out", whole)[0] == 0
    args = ["analyse", games["two"], "-e", slow, "--depth", "1", "--jobs", jobs, "--out", part]
    proc = subprocess.Popen([PY, "-m", "santorini_server.cli", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    while not (part.exists() and "[Event" in part.read_text()):  # the first game is written
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C: the whole process group
    _, stderr = proc.communicate(timeout=120)
    written = len(parse_sgn(part.read_text()))
    if proc.returncode == 130:  # (a fast machine may have finished first)
        # (a game being written at the signal is cut back off: the file holds only whole games)
        assert "run the same command again to continue" in stderr and written < 4
    again = cli(*args)
    assert again.returncode == 0, again.stderr
    if written:
        assert f"holds {written} of the 4 games analysed already" in again.stderr
    assert parse_sgn(part.read_text()) == parse_sgn(whole.read_text())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.sgn", "-e", "greedy", "--out", "o.sgn"], "cannot read missing.sgn"),
        (["{two}", "-e", "nmae=x", "--out", "o.sgn"], "unknown key"),
        (["{two}", "-e", "greedy", "--depth", "2", "--nodes", "5", "--out", "o.sgn"], "give one limit"),
        (["{two}", "-e", "greedy", "--game", "9", "--out", "o.sgn"], "no game 9"),
        (["{two}", "-e", "greedy", "--out", "{two}"], "is the input file"),
        (["{two}", "-e", "greedy", "--out", "{three}"], "holds games that are not this analysis's"),
        (["{two}", "-e", "cmd=/nonexistent/bot", "--out", "o.sgn"], "could not be started"),
        (["{two}", "-e", "cmd=/nonexistent/bot", "--jobs", "2", "--out", "o.sgn"], "could not be started"),
    ],
)
def test_bad_input_is_one_line_and_a_failing_status(
    games: dict[str, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    resolved = [a.format(two=games["two"], three=games["three"]) for a in args]
    result = cli("analyse", *resolved, cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert message in result.stderr and "Traceback" not in result.stderr
    assert len([line for line in lines if line.startswith("Error")]) == 1


def test_an_engine_that_fails_midway_names_the_game_and_keeps_those_before(games: dict[str, Path], tmp_path: Path) -> None:
    first_game = len(parse_sgn(games["two"].read_text())[0].turns)
    crashing = f"cmd={PY} arg=-m arg=tests.gallery.instant arg=crash={first_game + 3} dir={ROOT} name=crashing"
    out = tmp_path / "a.sgn"
    result = cli("analyse", games["two"], "-e", crashing, "--out", out)
    assert result.returncode == 1
    assert "Error: game 2: crashing failed: crash" in result.stderr and "Traceback" not in result.stderr
    assert len(parse_sgn(out.read_text())) == 1


def test_a_record_that_does_not_replay_is_named(games: dict[str, Path], tmp_path: Path) -> None:
    record = parse_sgn(games["two"].read_text())[0]
    turns = list(record.turns)
    turns[2] = msgspec.structs.replace(turns[2], turn="a1-a2+a3")
    bad = tmp_path / "bad.sgn"
    bad.write_text(format_sgn(GameRecord(record.tags, tuple(turns))))
    result = cli("analyse", bad, "-e", "greedy", "--out", tmp_path / "o.sgn")
    assert result.returncode == 1 and "game 1 cannot be analysed: turn 3 (2. a1-a2+a3): illegal turn" in result.stderr
