"""The viewer's data, without a browser: the page carries exactly the positions the rules core
produced, each turn's marks say what the god's power did, and bad records are shown, not raised.

The reference positions are the generator's own (``tests/viewer_games.py``: ``Position.play``
turn after turn), not ``records.replay``'s, so the page is compared with an independent walk.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from santorini_server.records import GameRecord, TurnRecord
from santorini_server.rules import Position, parse_square, ruleset_of
from santorini_server.viewer import board_svg, game_data, position_data, render_viewer, write_viewer
from santorini_server.viewer.model import DEFAULT_DOME_BASE, annotation, board_text, decode_board, track_dome_bases
from santorini_server.viewer.packed import decode_blob

from .viewer_games import GOD_GAMES, Game, expected_position, god_game, nseat_games, page_data

ROOT = Path(__file__).resolve().parent.parent


def assert_carries(view: dict, pos: Position, *, over: bool) -> None:
    """One page position equals the rules core's position."""
    levels, domes, groups = expected_position(pos)
    cells = decode_board(view["b"])
    assert [domed for _, domed in cells] == domes
    assert [level for level, domed in cells if not domed] == [lv for lv in levels if lv != 4]
    assert {sq: g for g, squares in enumerate(view["w"]) for sq in squares} == groups
    assert view["m"] == (0 if over else pos.player)
    assert view["x"] == pos.eliminated
    assert view["r"] == pos.turn
    assert view["up"] == (pos.player if pos.no_up and not over else 0)
    assert view["pl"] == int(pos.is_placement and not over)


def assert_page_carries_game(game: Game) -> dict:
    data = page_data(render_viewer([game.record]))
    (shown,) = data["games"]
    assert shown["problem"] is None
    assert len(shown["p"]) == len(game.positions) == len(game.record.turns) + 1
    for k, (view, pos) in enumerate(zip(shown["p"], game.positions, strict=True)):
        assert_carries(view, pos, over=k == len(game.positions) - 1)
    assert [t["s"] for t in shown["t"]] == [t.turn for t in game.record.turns]
    return shown


@pytest.mark.parametrize("god", GOD_GAMES)
def test_the_page_carries_exactly_the_replayed_positions_of_a_game_of_each_god(god: str) -> None:
    game = god_game(god)
    shown = assert_page_carries_game(game)
    assert [t["seat"] for t in shown["t"]] == [pos.player for pos in game.positions[:-1]]
    assert [s["god"] for s in shown["seats"]] == list(game.record.gods)


@pytest.mark.parametrize("god", GOD_GAMES)
def test_a_board_redone_from_the_one_before_equals_the_board_made_whole(god: str) -> None:
    """game_data redoes only the squares a turn changed; every board, domes' bases included
    (Atlas domes low, Hephaestus builds twice), equals the board made from all 25 squares."""
    game = god_game(god)
    base = [DEFAULT_DOME_BASE] * 25
    board = board_text(game.positions[0], base)
    for before, after, turn in zip(game.positions, game.positions[1:], game.record.turns, strict=False):
        track_dome_bases(base, before, before.play(turn.turn))
        board = board_text(after, base, previous=(before, board))
        assert board == board_text(after, base)


@pytest.mark.parametrize("name", ["3p-no-moves", "3p-time", "4p"])
def test_the_page_carries_three_and_four_seat_games_with_their_eliminations(name: str) -> None:
    game = nseat_games()[name]
    shown = assert_page_carries_game(game)
    n = game.record.nseats
    assert [s["letter"] for s in shown["seats"]] == (["X", "O", "V"] if n == 3 else ["A", "B", "A", "B"])
    if n == 4:
        assert [s["team"] for s in shown["seats"]] == ["A", "B", "A", "B"]
        assert [s["group"] for s in shown["seats"]] == [1, 2, 1, 2]
    for e in game.record.eliminations:
        assert shown["p"][e.after]["x"] >> (e.seat - 1) & 1
        assert any(f"seat {e.seat} " in line and e.termination in line for line in shown["t"][e.after - 1]["out"])


# --- each turn's marks ------------------------------------------------------------------------


def sq(*names: str) -> list[int]:
    return [parse_square(n) for n in names]


#: (position, turn, moves, builds, words in the power text): the rulings of SPEC.md section 1.7.
POWERS = [
    ("apollo/mortal;00040/00044/00000/44000/00400;a1,e5/b1,c4;1;2", "a1xb1+c2",
     [[*sq("a1", "b1"), "move"], [*sq("b1", "a1"), "forced"]], [[*sq("c2"), "block"]], "Apollo swaps"),
    ("artemis/mortal;00000/00000/00000/00000/01200;a1,e5/a5,e3;1;2", "a1-b1-c1+b1",
     [[*sq("a1", "b1"), "move"], [*sq("b1", "c1"), "move"]], [[*sq("b1"), "block"]], "Artemis moves twice"),
    ("atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2", "a1-b1+c1D",
     [[*sq("a1", "b1"), "move"]], [[*sq("c1"), "atlas"]], "Atlas domes c1 at level 0"),
    ("atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2", "a1-b1+a2",
     [[*sq("a1", "b1"), "move"]], [[*sq("a2"), "dome"]], ""),
    ("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2", "a1-b1+a1+c2",
     [[*sq("a1", "b1"), "move"]], [[*sq("a1"), "block"], [*sq("c2"), "dome"]], "Demeter builds twice"),
    ("hephaestus/mortal;00040/00044/00000/34200/00100;a1,e5/a5,c4;1;2", "a1-b1+c1+c1",
     [[*sq("a1", "b1"), "move"]], [[*sq("c1"), "double"]], "Hephaestus builds twice on c1"),
    ("hermes/mortal;00000/00000/00000/44440/00040;a1,b1/a5,c4;1;2", "a1-c1+a1",
     [[*sq("a1", "c1"), "move"]], [[*sq("a1"), "block"]], "Hermes moves along his level"),
    ("hermes/mortal;00222/00012/00000/00000/01000;a1,d5/a5,c3;1;2", "a1-a2,d5-e4+e3",
     [[*sq("a1", "a2"), "move"], [*sq("d5", "e4"), "move"]], [[*sq("e3"), "block"]], "Hermes"),
    ("hermes/mortal;00000/00000/00000/44400/00200;a1,b1/a5,c4;1;2", "+c1", [], [[*sq("c1"), "block"]], "no worker moves"),
    ("minotaur/mortal;40040/00444/04040/04000/00003;c3,e5/b4,d2;1;2", "c3xd2+c3",
     [[*sq("c3", "d2"), "move"], [*sq("d2", "e1"), "forced"]], [[*sq("c3"), "block"]], "Minotaur pushes the worker on d2 to e1"),
    ("pan/athena[up];00002/00041/00044/10400/32400;a1,e5/a5,c4;1;2", "a1-b2", [[*sq("a1", "b2"), "move"]], [], "Pan wins"),
    ("prometheus/mortal;00040/00044/44000/04400/01400;a1,e5/a5,c4;1;2", "+b1a1-a2+b1",
     [[*sq("a1", "a2"), "move"]], [[*sq("b1"), "pre"], [*sq("b1"), "block"]], "Prometheus builds on b1 before moving"),
    ("mortal/athena;00000/01000/00000/00000/00000;a1,e5/a5,c4;2;2", "a5-b4+a5",
     [[*sq("a5", "b4"), "move"]], [[*sq("a5"), "block"]], "Athena moved up"),
    ("apollo/mortal;00000/00000/00320/02100/00000;b2,e5/a5,c3;1;2", "b2xc3",
     [[*sq("b2", "c3"), "move"], [*sq("c3", "b2"), "forced"]], [], "wins by moving up"),
]


@pytest.mark.parametrize(("sps", "stn", "moves", "builds", "words"), POWERS, ids=[p[1] for p in POWERS])
def test_each_power_is_marked_from_the_rules_core_s_turn(sps: str, stn: str, moves: list, builds: list, words: str) -> None:
    before = Position.from_sps(sps)
    got = annotation(before, before.play(stn))
    assert got["mv"] == moves
    assert got["bd"] == builds
    assert words in got["txt"]
    if not words:
        assert got["txt"] == ""


def test_a_placement_marks_its_two_squares() -> None:
    start = Position.start(("mortal", "mortal"))
    assert annotation(start, start.play("b3,d3")) == {"place": sq("b3", "d3"), "txt": ""}


def test_a_dome_keeps_the_level_it_was_built_on() -> None:
    """The rules core keeps only "domed"; the page shows Atlas' dome on level 1 as a dome on level 1."""
    record = two_seat(["a1-b1+a1D", "c4-c3+c4", "b1-c1+c2D"], gods="atlas/mortal",
                      start="atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2")
    shown = game_data(record, 1)
    assert shown["problem"] is None, shown["problem"]
    after = decode_board(shown["p"][-1]["b"])
    assert after[parse_square("a1")] == (1, True)  # domed on level 1
    assert after[parse_square("c2")] == (2, True)
    assert after[parse_square("b2")] == (3, True)  # domed in the Start position: level 3 assumed


def two_seat(turns: list[str], *, start: str = "startpos", gods: str = "mortal/mortal", tc: str = "10+1",
             result: str = "*", termination: str = "aborted", telemetry: dict | None = None) -> GameRecord:
    return GameRecord.build(
        event="e", site="s", date="2026.12.02", round="1", player1="Ann", player2="Bob", gods=gods,
        ruleset=ruleset_of(*gods.split("/")), start=start, time_control=tc, result=result, termination=termination,
        termination_detail="", turns=[TurnRecord(t, **(telemetry or {})) for t in turns],
    )


def test_telemetry_and_the_clock_left_come_from_the_record() -> None:
    record = two_seat(["b3,d3", "a1,e5", "b3-b4+c5"], tc="10+1", telemetry={"time_ms": 1500, "score": "+21", "depth": 7})
    turns = game_data(record, 1)["t"]
    assert [t["ms"] for t in turns] == [1500] * 3
    # player 1: 10 s - 1.5 s + 1 s, then again; player 2 once
    assert [t["clock"] for t in turns] == [9500, 9500, 9000]
    assert {t["score"] for t in turns} == {"+21"} and {t["depth"] for t in turns} == {7}
    untimed = game_data(two_seat(["b3,d3"], tc="depth=6"), 1)["t"]
    assert "clock" not in untimed[0] and "ms" not in untimed[0]


def test_the_result_and_termination_are_in_words() -> None:
    game = god_game("mortal")
    shown = game_data(game.record, 1)
    winner = game.record.players[game.record.placings.index(1)]  # type: ignore[union-attr]
    assert shown["words"].startswith(winner) and "climbing" in shown["words"]
    assert game_data(two_seat(["b3,d3"]), 1)["words"].startswith("game aborted")


def test_a_record_with_an_illegal_turn_is_shown_up_to_its_last_valid_turn(tmp_path: Path) -> None:
    record = two_seat(["b3,d3", "a1,e5", "b3-b4+c5", "e5-e3+e4", "b4-b5+b4"])
    out = tmp_path / "bad.html"
    write_viewer([record], out)
    (shown,) = page_data(out.read_text())["games"]
    assert len(shown["t"]) == 3 and len(shown["p"]) == 4
    assert "turn 4" in shown["problem"] and "e5-e3+e4" in shown["problem"] and "not next to e5" in shown["problem"]
    assert shown["p"][-1]["m"] == 2  # not over: the game stops at the bad turn, seat 2 to move


def test_a_record_whose_start_is_not_a_position_is_shown_with_the_problem() -> None:
    record = two_seat([], start="mortal/mortal;00000/00000/00000/00000/00000;a1,a1/-;1;1")
    shown = game_data(record, 1)
    assert shown["p"] == [] and "two workers on a1" in shown["problem"]


def test_record_text_cannot_break_out_of_the_page() -> None:
    record = GameRecord.build(
        event="<b>x</b>", site="s", date="2026.12.02", round="1",
        player1="</script><script>alert(1)</script>", player2="O'Brien & co",
        gods="mortal/mortal", ruleset="santorini-base-v1", start="startpos", time_control="1+0", result="*",
        termination="aborted", termination_detail="", turns=[TurnRecord("b3,d3")],
    )
    html = render_viewer([record], title="<i>t</i>")
    assert "<script>alert(1)" not in html and "<b>x</b>" not in html and "<i>t</i>" not in html
    (packed_page,) = re.findall(r'<script type="text/plain" id="viewer-page">(.*?)</script>', html)
    body = decode_blob(packed_page)["body"]  # the markup inflate.js puts in place: escaped as rendered
    assert '<h1 id="title">&lt;i&gt;t&lt;/i&gt;</h1>' in body and "<i>" not in body
    assert page_data(html)["games"][0]["seats"][0]["player"] == "</script><script>alert(1)</script>"


def test_a_sixty_turn_game_is_under_150_kb() -> None:
    game = next(g for g in (god_game("hermes", s) for s in range(0, 400, 7)) if len(g.record.turns) >= 60)
    record = GameRecord(game.record.tags, game.record.turns[:60])
    html = render_viewer([record])
    assert len(html.encode()) < 150_000, len(html.encode())


def test_several_games_share_the_script_once() -> None:
    games = [god_game(g).record for g in ("apollo", "pan", "atlas")]
    html = render_viewer(games)
    assert html.count("<script>") == 1 and len(page_data(html)["games"]) == 3


# --- the static SVG (show --svg) -----------------------------------------------------------


@pytest.mark.parametrize("top_down", [False, True])
def test_the_svg_of_a_position_carries_its_squares(top_down: bool) -> None:
    pos = god_game("atlas").positions[20]
    svg = board_svg(position_data(pos), pos.nseats, top_down=top_down)
    root = ET.fromstring(svg)
    squares = [e for e in root.iter() if e.get("data-square")]
    assert len(squares) == 25
    levels, domes, groups = expected_position(pos)
    for e in squares:
        s = parse_square(e.get("data-square", ""))
        assert e.get("data-dome") == str(int(domes[s]))
        if not domes[s]:
            assert e.get("data-height") == str(levels[s])
        assert e.get("data-worker") == str(int(s in groups))
        if s in groups:
            assert e.get("data-group") == str(groups[s] + 1) and e.get("data-letter") == "XO"[groups[s]]
    assert not re.search(r"(?:href|src)=\"(?!#)", svg)  # nothing outside the file


def test_package_data_lists_the_viewer_s_template_script_and_stylesheet() -> None:
    """They ship inside the package: every non-Python file under viewer/ matches a package-data glob."""
    text = (ROOT / "pyproject.toml").read_text()
    globs = re.search(r'"santorini_server\.viewer" = \[(.*?)\]', text)
    assert globs is not None
    patterns = re.findall(r'"([^"]+)"', globs.group(1))
    base = ROOT / "santorini_server" / "viewer"
    files = [p for p in base.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert files
    for f in files:
        assert any(f.relative_to(base).match(p) for p in patterns), f"add {f.relative_to(base)} to package-data"
