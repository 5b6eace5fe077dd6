"""The tournament report in a real Chromium, opened from a file URL: its tables and chart as the
data says, its game list paged, filtered and linked to the viewer on the right game, no console
error and no network request (both witnessed by Chromium's own logs)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from santorini_server.tournament.report import ReportData, build_report
from santorini_server.tournament.report_files import REPORT, ReportWriter
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


def make_report(folder: Path, seats: int, engines: tuple[str, ...], count: int, block_size: int) -> ReportData:
    """A report of ``count`` random legal games, written with the real viewer; returns its data."""
    games = tournament_games(seats, engines, count)
    writer = ReportWriter(folder, info(seats, engines), block_size=block_size)
    for number, record in games:
        writer.add(record, number)
    writer.write_now()
    return build_report(info(seats, engines), games, block_size=block_size)


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
    data = make_report(tmp_path, 2, engines, 12, block_size=5)
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["0001-0005.html", "0006-0010.html",
                                                                      "0011-0015.html"]
    chromium.open(tmp_path / REPORT)
    page = chromium.js(READ_PAGE)
    assert page["ready"] > 0
    assert page["standings"] == [list(row) for row in data.standings.rows]
    assert data.crosstable is not None and page["crosstable"] == [list(row) for row in data.crosstable.rows]
    assert page["losses"] == [list(row) for row in data.losses.rows]
    assert page["counts"] == [f"{tag} {count}" for tag, count in data.terminations]
    assert [line["engine"] for line in page["lines"]] == list(engines)
    assert page["ends"] == len(engines)  # each line's last point marked
    for line, expected in zip(page["lines"], data.chart, strict=True):
        assert line["points"] == len(expected.points) > 0 and line["width"] > 0  # drawn across the chart
    assert [row[0] for row in page["games"]] == [str(g.number) for g in data.games]
    assert page["links"] == [g.href for g in data.games]
    assert page["page"] == "page 1 of 1 · 12 games"
    chromium.screenshot(artefacts_dir() / "report-page.png")

    # keyboard: type a filter; then follow a game's link into its block's viewer file
    box = chromium.driver.find_element(By.ID, "filter")
    box.send_keys("Gamma 1-0")  # every word, in any field, any case
    filtered = chromium.js(READ_PAGE)["games"]
    expected = [g for g in data.games if "gamma" in g.players and g.result.startswith("1-0")]
    assert [row[0] for row in filtered] == [str(g.number) for g in expected] and 0 < len(expected) < 12
    box.send_keys(Keys.CONTROL, "a", Keys.DELETE)
    game = data.games[6]  # game 7: the second of games/0006-0010.html
    assert game.href == "games/0006-0010.html#game=2"
    link = chromium.driver.find_element(By.CSS_SELECTOR, f'#games a[href="{game.href}"]')
    link.send_keys(Keys.ENTER)
    assert wait_for(chromium, "return document.body.dataset.ready === '1' && location.hash === '#game=2'")
    assert chromium.driver.current_url == (tmp_path / game.block.path).resolve().as_uri() + "#game=2"
    summary = chromium.js("return document.getElementById('summary').textContent")
    assert summary.startswith("Game 2 of 5: ")
    assert all(name in summary for name in game.players.split(" vs "))
    assert "games 6-10" in chromium.js("return document.title")
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=tmp_path) == []


def test_a_three_seat_report_pages_its_games_and_fits_a_phone_in_the_dark(chromium: Browser, tmp_path: Path) -> None:
    engines = ("alpha", "beta", "gamma", "delta")
    data = make_report(tmp_path, 3, engines, 60, block_size=100)
    assert data.crosstable is None
    chromium.open(tmp_path / REPORT)
    page = chromium.js(READ_PAGE)
    assert page["standings"] == [list(row) for row in data.standings.rows]
    assert page["crosstable"] == []  # no such table for placings
    assert page["page"] == "page 1 of 2 · 60 games" and len(page["games"]) == 50
    chromium.driver.find_element(By.ID, "next").click()
    page = chromium.js(READ_PAGE)
    assert page["page"] == "page 2 of 2 · 60 games"
    assert [row[0] for row in page["games"]] == [str(g.number) for g in data.games[50:]]
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
