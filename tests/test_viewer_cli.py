"""``santorini replay FILE --html OUT`` and ``santorini show SPS --svg OUT`` (click's runner).

Bad input is one line and a non-zero exit, and never leaves a partial OUT file behind.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from santorini_server.cli import main
from santorini_server.records import GameRecord, TurnRecord, encode_frame, format_sgn_games, sgn_to_archive

from .viewer_games import god_game, nseat_games, page_data

SPS = "atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2"


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    return [god_game("apollo").record, god_game("demeter").record, nseat_games()["3p-no-moves"].record]


def sgn_file(tmp_path: Path, records: list[GameRecord]) -> Path:
    path = tmp_path / "games.sgn"
    path.write_text(format_sgn_games(records))
    return path


def archive_file(tmp_path: Path, records: list[GameRecord]) -> Path:
    path = tmp_path / "games.msgpack"
    buffer = io.BytesIO()
    sgn_to_archive(format_sgn_games(records).splitlines(keepends=True), buffer)
    path.write_bytes(buffer.getvalue())
    return path


def one_line_error(result, fragment: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    assert fragment in result.output


@pytest.mark.parametrize("kind", ["sgn", "msgpack"])
def test_replay_html_writes_every_game_of_a_file(tmp_path: Path, records: list[GameRecord], kind: str) -> None:
    source = sgn_file(tmp_path, records) if kind == "sgn" else archive_file(tmp_path, records)
    out = tmp_path / "all.html"
    result = run("replay", str(source), "--html", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out} (3 games)" in result.output
    games = page_data(out.read_text())["games"]
    assert [len(g["t"]) for g in games] == [len(r.turns) for r in records]
    assert [[s["player"] for s in g["seats"]] for g in games] == [list(r.players) for r in records]


def test_replay_html_with_several_game_numbers_keeps_their_order(tmp_path: Path, records: list[GameRecord]) -> None:
    out = tmp_path / "two.html"
    result = run("replay", str(sgn_file(tmp_path, records)), "--html", str(out), "--game", "3", "--game", "1")
    assert result.exit_code == 0, result.output
    games = page_data(out.read_text())["games"]
    assert [g["nseats"] for g in games] == [3, 2] and [g["number"] for g in games] == [3, 1]


def test_replay_html_of_a_record_that_does_not_revalidate_is_written_and_exits_1(tmp_path: Path) -> None:
    bad = GameRecord.build(
        event="e", site="s", date="2026.12.02", round="1", player1="a", player2="b", gods="mortal/mortal",
        ruleset="santorini-base-v1", start="startpos", time_control="1+0", result="1-0", termination="climb",
        termination_detail="", turns=[TurnRecord(t) for t in ("b3,d3", "a1,e5", "b3-b5+c5")],
    )
    out = tmp_path / "bad.html"
    result = run("replay", str(sgn_file(tmp_path, [bad])), "--html", str(out))
    assert result.exit_code == 1
    assert "turn 3" in result.output and "with problems" in result.output
    assert len(page_data(out.read_text())["games"][0]["t"]) == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--game", "4"], "no game 4: "),
        (["--game", "0"], "bad --game 0"),
        (["--check"], "does not combine"),
        (["--turn", "3"], "does not combine"),
        (["--html", "."], "is a directory"),
    ],
)
def test_replay_html_refuses_bad_options_without_writing(
    tmp_path: Path, records: list[GameRecord], args: list[str], fragment: str
) -> None:
    out = tmp_path / "out.html"
    one_line_error(run("replay", str(sgn_file(tmp_path, records)), "--html", str(out), *args), fragment)
    assert list(tmp_path.iterdir()) == [tmp_path / "games.sgn"]


def test_replay_html_refuses_unreadable_and_corrupt_files_without_writing(tmp_path: Path, records: list[GameRecord]) -> None:
    out = tmp_path / "out.html"
    one_line_error(run("replay", str(tmp_path / "missing.sgn"), "--html", str(out)), "cannot read")
    broken = tmp_path / "broken.sgn"
    broken.write_text(format_sgn_games(records[:1]) + '\n[Event "x"]\n[Gods "mortal/mortal"]\n\n1. b3,d3 zz9 *\n')
    one_line_error(run("replay", str(broken), "--html", str(out)), "broken.sgn")
    damaged = archive_file(tmp_path, records)
    data = bytearray(damaged.read_bytes())
    data[len(data) - 40] ^= 0xFF  # a flipped byte in the last frame
    damaged.write_bytes(bytes(data))
    one_line_error(run("replay", str(damaged), "--html", str(out)), "games.msgpack")
    assert not out.exists() and not list(tmp_path.glob(".out.html.*"))


def test_replay_html_and_show_svg_replace_an_existing_file_only_with_force(tmp_path: Path, records: list[GameRecord]) -> None:
    """As convert: an existing OUT is refused without --force; the input itself never."""
    source = sgn_file(tmp_path, records)
    kept = source.read_bytes()
    out = tmp_path / "out.html"
    out.write_text("keep me")
    one_line_error(run("replay", str(source), "--html", str(out)), f"{out} exists: pass --force to replace it")
    assert out.read_text() == "keep me"
    assert run("replay", str(source), "--html", str(out), "--force").exit_code == 0
    assert out.read_text().startswith("<!doctype html>")
    link = tmp_path / "link.sgn"
    link.symlink_to(source)
    for target in (source, link):
        for force in ([], ["--force"]):
            one_line_error(run("replay", str(source), "--html", str(target), *force), "is the input file")
    assert source.read_bytes() == kept
    one_line_error(run("replay", str(source), "--force"), "--force goes with --html OUT")
    picture = tmp_path / "pos.svg"
    picture.write_text("keep me")
    one_line_error(run("show", SPS, "--svg", str(picture)), f"{picture} exists: pass --force to replace it")
    assert picture.read_text() == "keep me"
    assert run("show", SPS, "--svg", str(picture), "-f").exit_code == 0
    assert picture.read_text().startswith("<svg")
    one_line_error(run("show", SPS, "--force"), "go with --svg")
    assert not list(tmp_path.glob(".*.tmp"))


def test_replay_without_html_still_takes_one_game(tmp_path: Path, records: list[GameRecord]) -> None:
    source = sgn_file(tmp_path, records)
    result = run("replay", str(source), "--game", "2", "--no-board")
    assert result.exit_code == 0 and result.output.startswith("game 2: demeter bot vs mortal bot")
    one_line_error(run("replay", str(source), "--game", "1", "--game", "2"), "give one --game N")


def test_show_svg_writes_the_2_5d_view_and_the_top_down_helper(tmp_path: Path) -> None:
    iso, top = tmp_path / "pos.svg", tmp_path / "top.svg"
    assert run("show", SPS, "--svg", str(iso)).exit_code == 0
    assert run("show", SPS, "--svg", str(top), "--top-down").exit_code == 0
    for path, cls in ((iso, "sq"), (top, "cell")):
        root = ET.fromstring(path.read_text())
        cells = {e.get("data-square"): e for e in root.iter() if e.get("class") == cls}
        assert len(cells) == 25
        assert cells["a2"].get("data-height") == "3" and cells["b2"].get("data-dome") == "1"
        assert cells["a1"].get("data-letter") == "X" and cells["c4"].get("data-letter") == "O"


def test_show_svg_errors_are_one_line(tmp_path: Path) -> None:
    one_line_error(run("show", "nonsense", "--svg", str(tmp_path / "x.svg")), "malformed SPS")
    one_line_error(run("show", SPS, "--svg", str(tmp_path)), "is a directory")
    one_line_error(run("show", SPS, "--top-down"), "go with --svg")
    assert list(tmp_path.iterdir()) == []


def test_encode_frame_is_what_archives_hold(records: list[GameRecord]) -> None:
    """(The archive helper above writes real archives: the frames are the records' own.)"""
    buffer = io.BytesIO()
    sgn_to_archive(format_sgn_games(records[:1]).splitlines(keepends=True), buffer)
    assert encode_frame(records[0]) in buffer.getvalue()


def test_a_time_control_tag_beyond_any_clock_is_text_to_replay_html_and_report(tmp_path: Path, records: list[GameRecord]) -> None:
    huge = "9" * 400 + "+0"
    text = re.sub(r'\[TimeControl "[^"]*"\]', f'[TimeControl "{huge}"]', format_sgn_games(records[:1]))
    source = tmp_path / "huge.sgn"
    source.write_text(text)
    out = tmp_path / "huge.html"
    result = run("replay", str(source), "--html", str(out))
    assert result.exit_code == 0, result.output
    assert ["TimeControl", huge] in page_data(out.read_text())["games"][0]["tags"]
    result = run("report", str(source), "--out", str(tmp_path / "report"))  # its viewer files read the tag too
    assert result.exit_code == 0, result.output
