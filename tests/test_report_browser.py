"""The tournament report in a real Chromium, opened from a file URL: its tables and chart as the
data says, its game list paged, filtered and linked to the viewer on the right game, no console
error and no network request (both witnessed by Chromium's own logs).  A real tournament's block
file costs no more disk per game than its archive, and shows a game as the Python model has it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from santorini_server.records import GameRecord, read_archive
from santorini_server.rules import SQUARE_NAMES
from santorini_server.tournament.report import ReportData, block_of, build_report, game_summary
from santorini_server.tournament.report_files import REPORT, ReportWriter
from santorini_server.viewer import game_data
from santorini_server.viewer.model import decode_board
from tests.browser import Browser, artefacts_dir
from tests.test_report import info, tournament_games

#: Everything the checks need from the page, read in one round trip.
READ_PAGE = """
const cells = sel => Array.from(document.querySelectorAll(sel + " tbody tr"))
  .map(tr => Array.from(tr.children).map(c => c.textContent.trim()));
const lines = Array.from(document.querySelectorAll("#chart polyline")).map(p => {
  const box = p.getBBox();
  return {engine: p.dataset.engine, points: p.points.numberOfItems, width: box.width, height: box.height};
});
return {
  ready: window.reportReady, ends: document.querySelectorAll("#chart circle.end").length,
  standings: cells("#standings"), crosstable: cells("#crosstable"),
  losses: cells("#losses"), games: cells("#games"), lines: lines, page: document.getElementById("page").textContent,
  counts: Array.from(document.querySelectorAll("#termination-counts .count")).map(c => c.textContent),
  links: Array.from(document.querySelectorAll("#games tbody a")).map(a => a.getAttribute("href")),
};
"""


class Row(NamedTuple):
    number: int
    players: str
    result: str
    href: str


def make_report(
    folder: Path, seats: int, engines: tuple[str, ...], count: int, block_size: int
) -> tuple[ReportData, list[Row]]:
    """A report of ``count`` random legal games, written with the real viewer; returns its data
    and the rows its list should show, in order."""
    games = tournament_games(seats, engines, count)
    writer = ReportWriter(folder, info(seats, engines), block_size=block_size)
    for number, record in games:
        writer.add(record, number)
    writer.write_now()
    return build_report(info(seats, engines), games, block_size=block_size), rows_of(games, block_size)


def rows_of(games: list[tuple[int, GameRecord]], block_size: int) -> list[Row]:
    rows, index = [], {}
    for number, record in sorted(games, key=lambda g: g[0]):
        block = block_of(number, block_size)
        index[block] = index.get(block, 0) + 1
        g = game_summary(record)
        rows.append(Row(number, g.players, g.result, f"{block.path}#game={index[block]}"))
    return rows


def shown(browser: Browser, label: str) -> Any:
    """The page once its list shows ``label``."""
    assert wait_for(browser, f"return document.getElementById('page').textContent === {label!r}"), \
        browser.js("return document.getElementById('page').textContent")
    return browser.js(READ_PAGE)


def wait_for(browser: Browser, script: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = browser.js(script)
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_the_report_shows_its_tables_and_chart_and_opens_the_viewer_on_the_clicked_game(
    chromium: Browser, tmp_path: Path
) -> None:
    engines = ("alpha", "beta", "gamma")
    data, rows = make_report(tmp_path, 2, engines, 12, block_size=5)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [
        "0001-0005.html", "0001-0005.js", "0006-0010.html", "0006-0010.js", "0011-0015.html", "0011-0015.js"]
    chromium.open(tmp_path / REPORT)
    page = shown(chromium, "games 1-5 · page 1 of 3 · 12 games")
    assert page["ready"] > 0
    assert page["standings"] == [list(row) for row in data.standings.rows]
    assert data.crosstable is not None and page["crosstable"] == [list(row) for row in data.crosstable.rows]
    assert page["losses"] == [list(row) for row in data.losses.rows]
    assert page["counts"] == [f"{tag} {count}" for tag, count in data.terminations]
    assert [line["engine"] for line in page["lines"]] == list(engines)
    assert page["ends"] == len(engines)  # each line's last point marked
    for line, expected in zip(page["lines"], data.chart, strict=True):
        assert line["points"] == len(expected.points) > 0 and line["width"] > 0  # drawn across the chart
    assert [row[0] for row in page["games"]] == [str(r.number) for r in rows[:5]]
    assert page["links"] == [r.href for r in rows[:5]]
    chromium.screenshot(artefacts_dir() / "report-page.png")
    chromium.driver.find_element(By.ID, "next").click()
    page = shown(chromium, "games 6-10 · page 2 of 3 · 12 games")  # the next block's script, loaded now
    assert page["links"] == [r.href for r in rows[5:10]]

    # keyboard: type a filter (it searches every block); then follow a game's link into its viewer file
    box = chromium.driver.find_element(By.ID, "filter")
    box.send_keys("Gamma 1-0")  # every word, in any field, any case
    expected = [r for r in rows if "gamma" in r.players and r.result.startswith("1-0")]
    assert 0 < len(expected) < 12
    filtered = shown(chromium, f"page 1 of 1 · {len(expected)} matching games")["games"]
    assert [row[0] for row in filtered] == [str(r.number) for r in expected]
    box.send_keys(Keys.CONTROL, "a", Keys.DELETE)
    shown(chromium, "games 1-5 · page 1 of 3 · 12 games")
    chromium.driver.find_element(By.ID, "next").click()
    shown(chromium, "games 6-10 · page 2 of 3 · 12 games")
    game = rows[6]  # game 7: the second of games/0006-0010.html
    assert game.href == "games/0006-0010.html#game=2"
    link = chromium.driver.find_element(By.CSS_SELECTOR, f'#games a[href="{game.href}"]')
    link.send_keys(Keys.ENTER)
    assert wait_for(chromium, "return document.body.dataset.ready === '1' && location.hash === '#game=2'")
    assert chromium.driver.current_url == (tmp_path / "games" / "0006-0010.html").resolve().as_uri() + "#game=2"
    summary = chromium.js("return document.getElementById('summary').textContent")
    assert summary.startswith("Game 2 of 5: ")
    assert all(name in summary for name in game.players.split(" vs "))
    assert "games 6-10" in chromium.js("return document.title")
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=tmp_path) == []


def test_a_three_seat_report_pages_its_games_and_fits_a_phone_in_the_dark(chromium: Browser, tmp_path: Path) -> None:
    engines = ("alpha", "beta", "gamma", "delta")
    data, rows = make_report(tmp_path, 3, engines, 60, block_size=40)
    assert data.crosstable is None
    chromium.open(tmp_path / REPORT)
    page = shown(chromium, "games 1-40 · page 1 of 2 · 60 games")
    assert page["standings"] == [list(row) for row in data.standings.rows]
    assert page["crosstable"] == []  # no such table for placings
    assert len(page["games"]) == 40
    chromium.driver.find_element(By.ID, "next").click()
    page = shown(chromium, "games 41-80 · page 2 of 2 · 60 games")
    assert [row[0] for row in page["games"]] == [str(r.number) for r in rows[40:]]
    driver = chromium.driver
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    driver.set_window_size(390, 844)
    try:
        background = chromium.js("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(22, 25, 28)"  # the dark palette
        widths = chromium.js("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1]  # wide tables scroll inside their box, the page does not
        chromium.screenshot(artefacts_dir() / "report-page-phone-dark.png")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        driver.set_window_size(1280, 900)
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=tmp_path) == []


# --- a real tournament's block file ---------------------------------------------------------


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """112 games of two seeded greedy engines (the same moves every run) over every god pairing,
    played by ``santorini tournament``: its folder."""
    out = tmp_path_factory.mktemp("cup") / "t"
    engine = f"cmd={sys.executable} arg=-m arg=engines.greedy name=greedy2"
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", "tournament", "-e", "greedy", "-e", engine, "--each",
         "option.Seed=7", "--gods", "all", "--tc", "5+0.05", "-j", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_a_block_file_costs_no_more_disk_per_game_than_the_archive(cup: Path) -> None:
    """The first block file's 100 games against the archive's bytes per game (issue: "Report and
    viewer files: at most the archive's bytes per game, on disk"); about 640 against 770."""
    records, corrupt = read_archive(cup / "games.msgpack")
    assert len(records) == 112 and not corrupt
    assert sum(len(r.turns) for r in records) / len(records) > 15  # whole games, not a few turns each
    archive_per_game = os.path.getsize(cup / "games.msgpack") / len(records)
    block_per_game = os.path.getsize(cup / "games" / "0001-0100.html") / 100
    assert block_per_game <= archive_per_game, (block_per_game, archive_per_game)


#: Game K as the page unpacked it, and its board as drawn (both views), once the page is ready.
READ_GAME = """
function read(selector) {
  return Array.from(document.querySelectorAll(selector)).map(function (e) {
    return [e.dataset.square, +e.dataset.height, +e.dataset.dome, e.dataset.group ? +e.dataset.group : 0];
  });
}
return {game: SantoriniViewer.games()[arguments[0] - 1], turn: +document.body.dataset.turn,
        iso: read('#iso-board g.sq'), top: read('#top-board g.cell'),
        status: document.getElementById('status').textContent};
"""


def test_a_packed_block_page_shows_a_game_as_the_python_model_has_it(chromium: Browser, cup: Path) -> None:
    k = 37
    (record,) = [r for r in read_archive(cup / "games.msgpack")[0] if r.tag("GameNumber") == str(k)]
    model = game_data(record, k)  # the viewer numbers a block's games from 1: game 37 of block 1-100
    page = cup / "games" / "0001-0100.html"
    chromium.open(page, f"#game={k}&turn=999")
    assert wait_for(chromium, "return document.body.dataset.ready === '1'"), chromium.console_errors()
    shown = chromium.js(READ_GAME, k)
    assert shown["game"] == model  # every position, turn, mark, clock and note, unpacked by the page
    last = model["p"][-1]
    assert shown["turn"] == len(model["p"]) - 1
    groups = {sq: g + 1 for g, squares in enumerate(last["w"]) for sq in squares}
    expected = sorted([square, level, int(dome), groups.get(sq, 0)]
                      for sq, (square, (level, dome)) in enumerate(zip(SQUARE_NAMES, decode_board(last["b"]), strict=True)))
    assert sorted(shown["iso"]) == expected and sorted(shown["top"]) == expected
    assert shown["status"] == "Game over: " + model["words"]
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=cup) == []
