"""Analysed games in the viewer, in a real Chromium: the score graph under the board (a line per
seat with three and four seats), clicking a point goes to its turn, the marks in the turn list,
the best turn as a faint arrow; the same in a report's viewer files.  Screenshots go to
test-artefacts/."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from santorini_server.records import GameRecord, parse_sgn
from santorini_server.viewer import game_data, write_viewer
from tests.browser import Browser, artefacts_dir

PY = sys.executable


def cli(*args: str | Path) -> None:
    result = subprocess.run([PY, "-m", "santorini_server.cli", *map(str, args)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("analysed")
    files = {}
    for name, players in (("two", ["greedy", "random"]), ("three", ["greedy", "random", "alphabeta", "--players", "3"]),
                          ("four", ["greedy", "random", "--players", "4"])):
        played, out = root / f"{name}.sgn", root / f"{name}-analysed.sgn"
        cli("match", *players, "-n", "2", "--tc", "depth=1", "--out", played)
        cli("analyse", played, "--engine", "alphabeta", "--depth", "2", "--out", out)
        files[name] = out
    records = {name: parse_sgn(path.read_text()) for name, path in files.items()}
    plain = parse_sgn((root / "two.sgn").read_text())[0]
    page = root / "viewer.html"
    order: list[GameRecord] = [records["two"][0], records["three"][0], records["four"][0], plain]
    write_viewer(order, page)
    return {"root": root, "files": files, "page": page, "order": order}


def wait_for(browser: Browser, script: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := browser.js(script)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return value


READ = """
return {
  hidden: document.getElementById('graphbox').hidden,
  lines: Array.from(document.querySelectorAll('#graph polyline')).map(function (p) { return +p.dataset.seat; }),
  points: Array.from(document.querySelectorAll('#graph circle.pt')).map(function (c) { return +c.dataset.k; }),
  marked: Array.from(document.querySelectorAll('#turns button[data-mark]')).map(function (b) {
    return [+b.dataset.k, b.dataset.mark];
  }),
  key: document.getElementById('graphkey').textContent
};
"""


def open_game(browser: Browser, page: Path, number: int, turn: int = 0) -> None:
    browser.open(page, f"#game={number}&turn={turn}")
    assert wait_for(browser, "return document.body.dataset.ready === '1'"), browser.console_errors()


@pytest.mark.parametrize(("number", "seats"), [(1, 2), (2, 3), (3, 4)])
def test_the_graph_has_a_line_per_seat_a_point_per_turn_and_the_marks(
    chromium: Browser, analysed: dict[str, Any], number: int, seats: int
) -> None:
    record = analysed["order"][number - 1]
    model = game_data(record, number)
    open_game(chromium, analysed["page"], number)
    seen = chromium.js(READ)
    assert not seen["hidden"]
    assert seen["lines"] == ([1] if seats == 2 else list(range(1, seats + 1)))
    assert sorted(seen["points"]) == list(range(1, len(record.turns) + 1))
    assert seen["marked"] == [[k, t["mk"]] for k, t in enumerate(model["t"], 1) if "mk" in t]
    assert all(record.players[s] in seen["key"] for s in range(1 if seats == 2 else seats))
    chromium.screenshot(artefacts_dir() / f"analysis-{seats}-seats.png")
    assert chromium.console_errors() == []


def test_clicking_a_point_goes_to_its_turn_and_shows_the_best_turn_faintly(
    chromium: Browser, analysed: dict[str, Any]
) -> None:
    record = analysed["order"][0]
    model = game_data(record, 1)
    open_game(chromium, analysed["page"], 1)
    k = next(k for k, t in enumerate(model["t"], 1) if t.get("bm", {}).get("mv"))  # a moving turn that was not best
    chromium.js(f"document.querySelector('#graph circle.pt[data-k=\"{k}\"]').dispatchEvent(new MouseEvent('click'))")
    assert wait_for(chromium, f"return document.body.dataset.turn === '{k}'")
    turn = model["t"][k - 1]
    best = chromium.js("return Array.from(document.querySelectorAll('#iso-marks line.best')).map(l => l.dataset.best)")
    squares = "abcde"
    assert best == [f"{squares[m[0] % 5]}{5 - m[0] // 5}-{squares[m[1] % 5]}{5 - m[1] // 5}" for m in turn["bm"]["mv"]]
    telemetry = chromium.js("return document.getElementById('telemetry').textContent")
    assert turn["best"] in telemetry and turn["ea"] in telemetry
    now = chromium.js("return +document.getElementById('graph-now').getAttribute('x1')")
    point = chromium.js(f"return +document.querySelector('#graph circle.pt[data-k=\"{k}\"]').getAttribute('cx')")
    assert now == pytest.approx(point)
    chromium.screenshot(artefacts_dir() / "analysis-best-turn.png")


def test_a_game_without_analysis_has_no_graph(chromium: Browser, analysed: dict[str, Any]) -> None:
    open_game(chromium, analysed["page"], 4)
    seen = chromium.js(READ)
    assert seen["hidden"] and seen["points"] == [] and seen["marked"] == []


def test_the_report_viewer_shows_the_analysis(chromium: Browser, analysed: dict[str, Any], tmp_path: Path) -> None:
    cli("report", analysed["files"]["two"], "--out", tmp_path)
    [block] = sorted(p for p in (tmp_path / "games").iterdir() if p.suffix == ".html")
    open_game(chromium, block, 2)
    seen = chromium.js(READ)
    record = parse_sgn(analysed["files"]["two"].read_text())[1]
    assert not seen["hidden"] and sorted(seen["points"]) == list(range(1, len(record.turns) + 1))
    assert chromium.console_errors() == []
