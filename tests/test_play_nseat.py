"""``santorini play`` with three and four seats: a person's scripted stdin against real engine
processes (tests/gallery/nseat.py) through to the end, the record saved as N-seat SGN and
re-validated, and the one-line refusals before any game starts.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from santorini_server.cli.play_cmd import parse_gods, seat_engines
from santorini_server.records import parse_sgn
from santorini_server.records.replay import check_record
from santorini_server.referee.engine_spec import parse_engine_spec

from .test_play import engine_processes

ROOT = Path(__file__).resolve().parent.parent


def nseat(marker: str, *extra: str) -> str:
    """The gallery's instant engine for 2-4 seats, tagged with ``marker`` so its processes can be found."""
    args = " ".join(f"arg={a}" for a in extra)
    return f"cmd={sys.executable} arg=-m arg=tests.gallery.nseat arg=marker={marker} {args} name=nseat dir={ROOT}"


def play(
    tmp_path: Path, stdin: str, *args: str, engines: int = 1, extra: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    marker = uuid.uuid4().hex
    specs = [nseat(marker, *extra) for _ in range(engines)]
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", "play", *specs, "--no-colour", *args],
        input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=60,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert engine_processes(marker) == []  # no engine outlives the session
    return proc


def saved(path: Path):  # type: ignore[no-untyped-def]
    (record,) = parse_sgn(path.read_text(encoding="utf-8"))
    assert check_record(record) == []  # the saved game re-validates, eliminations included
    return record


def test_three_seats_the_person_resigns_is_eliminated_and_the_engines_play_to_the_end(tmp_path: Path) -> None:
    out = tmp_path / "g.sgn"
    lines = ["b3,d3", "b3,d3", "?", "b3-b4+b5", "resign"]  # the second b3,d3 is illegal: taken
    proc = play(tmp_path, "\n".join(lines) + "\n", "--gods", "apollo/pan/atlas", "--as", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith(
        "You are player 1 of 3 (apollo) against nseat (player 2, pan), nseat (player 3, atlas)."
    )
    assert "  S3 V atlas" in text  # the three-seat board
    assert "illegal: " in text
    assert "player 1 is eliminated (resign: the human resigned): you are out, place 3\nthe engines play on" in text
    record = saved(out)
    assert record.players == ("Human", "nseat", "nseat")
    assert record.gods == ("apollo", "pan", "atlas")
    assert record.placings is not None and record.placings[0] == 3 and sorted(record.placings) == [1, 2, 3]
    assert [(e.seat, e.termination) for e in record.eliminations] == [(1, "resign")]
    assert f"{record.result} {{" in text and f"game saved to {out}" in text


def test_three_seats_the_person_in_seat_2_against_two_engines_listed(tmp_path: Path) -> None:
    out = tmp_path / "g.sgn"
    proc = play(tmp_path, "c3,e5\nquit\n", "--gods", "pan/atlas/demeter", "--as", "2", "--out", str(out), engines=2)
    assert proc.returncode == 0, proc.stderr
    assert "You are player 2 of 3 (atlas) against nseat (player 1, pan), nseat (player 3, demeter)." in proc.stdout
    assert "game aborted" in proc.stdout
    record = saved(out)
    assert record.result == "*" and record.players == ("nseat", "Human", "nseat")
    turns = [t.turn for t in record.turns]
    assert turns[:2] == ["a1,a2", "c3,e5"] and len(turns) == 4  # seats 3 and 1 played before the quit


def test_four_seats_a_team_with_an_engine_to_the_end(tmp_path: Path) -> None:
    out = tmp_path / "g.sgn"
    proc = play(tmp_path, "b3,d3\nresign\n", "--gods", "apollo/pan/atlas/minotaur", "--as", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "You are player 1 of 4 (apollo, team A with player 3) against nseat (player 2, pan)" in proc.stdout
    record = saved(out)
    assert record.players == ("Human", "nseat", "nseat", "nseat")
    assert record.placings == (2, 1, 2, 1)  # a resignation loses for the team
    assert record.termination == "resign"


@pytest.mark.parametrize(
    ("args", "engines", "extra", "message"),
    [
        (["--gods", "apollo/pan/atlas", "--as", "4"], 1, (), "Error: --as 4: a 3-seat game has players 1 to 3"),
        (["--gods", "apollo/pan/atlas/minotaur"], 2, (), (
            "Error: 2 engines for the 3 other seats of a 4-seat game (give one, or one per seat)"
        )),
        (["--gods", "apollo/pan/atlas"], 1, ("players=2",), (
            "Error: nseat does not play 3-seat games (its handshake declared `feature players 2`)"
        )),
    ],
)
def test_refused_before_the_game_in_one_line(
    tmp_path: Path, args: list[str], engines: int, extra: tuple[str, ...], message: str
) -> None:
    proc = play(tmp_path, "", *args, engines=engines, extra=extra)
    assert proc.returncode != 0
    assert proc.stderr.strip().splitlines()[-1] == message, proc.stderr
    assert not list(tmp_path.glob("*.sgn"))  # no game, no record


def test_gods_for_two_to_four_seats() -> None:
    assert parse_gods("apollo/mortal") == ("apollo", "mortal")
    assert parse_gods("apollo/pan/atlas/minotaur") == ("apollo", "pan", "atlas", "minotaur")
    for bad in ("apollo", "apollo/pan/mortal", "apollo/pan/apollo", "a/b/c/d/e"):
        with pytest.raises(ValueError):
            parse_gods(bad)


def test_the_engine_list_fills_the_other_seats_in_order() -> None:
    a, b = parse_engine_spec("random"), parse_engine_spec("greedy")
    assert seat_engines((a, b), 3, 1) == {0: a, 2: b}
    assert seat_engines((a,), 4, 2) == {0: a, 1: a, 3: a}
    assert seat_engines((b,), 2, 0) == {1: b}
    with pytest.raises(ValueError, match="2 engines for the 1 other seats"):
        seat_engines((a, b), 2, 0)
