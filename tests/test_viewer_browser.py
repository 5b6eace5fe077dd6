"""The viewer in a real browser (headless Chromium through tests/browser.py), opened from a file URL.

One page holds a whole game of each god against a mortal, a mortal game, a three-seat game with an
elimination and a four-seat game.  For each, one script steps through every turn with the page's
own Next button and reads the board back from the SVG's data attributes; Python compares every
position with the rules core's.  Also: rotation, the top-down helper, the keyboard, the game list's
filter, phone width and dark mode; Chromium's own logs show no console error and no request.
Screenshots go to test-artefacts/.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from santorini_server.records import GameRecord
from santorini_server.rules import SQUARE_NAMES, parse_square
from santorini_server.viewer import board_svg, game_data, write_viewer
from santorini_server.viewer.model import annotation
from tests.browser import Browser, artefacts_dir

from .viewer_games import GOD_GAMES, Game, expected_position, god_game, nseat_games

NAMES = [*GOD_GAMES, "3p-no-moves", "4p"]


@pytest.fixture(scope="module")
def games() -> dict[str, Game]:
    found = {god: god_game(god) for god in GOD_GAMES}
    nseat = nseat_games()
    found["3p-no-moves"], found["4p"] = nseat["3p-no-moves"], nseat["4p"]
    return found


@pytest.fixture(scope="module")
def page(games: dict[str, Game], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("viewer") / "games.html"
    write_viewer([games[name].record for name in NAMES], path)
    return path


def wait_for(browser: Browser, script: str, timeout: float = 5.0) -> Any:
    """The first truthy value of ``script`` (events such as ``hashchange`` arrive asynchronously)."""
    deadline = time.monotonic() + timeout
    while not (value := browser.js(script)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return value


def open_viewer(browser: Browser, page: Path, fragment: str = "") -> None:
    """Open a viewer file and wait until it has drawn (it decodes its packed games first)."""
    browser.open(page, fragment)
    assert wait_for(browser, "return document.body.dataset.ready === '1'"), browser.console_errors()


def open_game(browser: Browser, page: Path, name: str, turn: int | None = None) -> None:
    open_viewer(browser, page, f"#game={NAMES.index(name) + 1}" + (f"&turn={turn}" if turn is not None else ""))


READ_BOARD = """
function read(selector) {
  return Array.from(document.querySelectorAll(selector)).map(function (e) {
    return [e.dataset.square, +e.dataset.height, +e.dataset.dome, +e.dataset.worker, e.dataset.group ? +e.dataset.group : 0];
  });
}
"""

#: Steps through the whole game with the page's own buttons, reading each position as drawn.
STEP_THROUGH = READ_BOARD + """
var out = [];
document.getElementById('first').click();
for (;;) {
  var k = +document.body.dataset.turn;
  out.push({k: k, iso: read('#iso-board g.sq'), top: read('#top-board g.cell'),
            status: document.getElementById('status').textContent,
            seats: document.getElementById('seats').textContent,
            arrows: document.querySelectorAll('#iso-marks line').length,
            rings: document.querySelectorAll('#iso-marks ellipse').length,
            current: (document.querySelector('#turns [aria-current="step"]') || {dataset: {}}).dataset.k || null});
  document.getElementById('next').click();
  if (+document.body.dataset.turn === k) { break; }
}
return out;
"""


def assert_drawn(cells: list[list[Any]], game: Game, k: int) -> None:
    levels, domes, groups = expected_position(game.positions[k])
    assert sorted(c[0] for c in cells) == sorted(SQUARE_NAMES)
    for name, height, dome, worker, group in cells:
        sq = parse_square(name)
        assert dome == int(domes[sq]), (k, name)
        if not domes[sq]:
            assert height == levels[sq], (k, name)
        assert worker == int(sq in groups), (k, name)
        assert group == (groups[sq] + 1 if sq in groups else 0), (k, name)


@pytest.mark.parametrize("name", NAMES)
def test_every_position_of_a_game_is_drawn_as_the_rules_core_has_it(chromium: Browser, page: Path, games: dict[str, Game],
                                                                    name: str) -> None:
    game = games[name]
    open_game(chromium, page, name)
    frames = chromium.js(STEP_THROUGH)
    assert [f["k"] for f in frames] == list(range(len(game.positions)))
    for f in frames:
        k = f["k"]
        assert_drawn(f["iso"], game, k)
        assert_drawn(f["top"], game, k)
        pos = game.positions[k]
        if k == len(game.positions) - 1:
            assert f["status"].startswith("Game over: ")
        else:
            assert f"seat {pos.player} (" in f["status"]
            assert ("Athena's power" in f["status"]) == pos.no_up
            assert ("may not move up" in f["seats"]) == pos.no_up
        if k:
            before = game.positions[k - 1]
            marks = annotation(before, before.play(game.record.turns[k - 1].turn))
            assert f["arrows"] == len(marks.get("mv", [])), k
            assert f["rings"] == len(marks.get("bd", [])) + len(marks.get("place", [])), k
            assert f["current"] == str(k)
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=page.parent) == []


ELEMENTS = """
return Array.from(document.querySelectorAll(arguments[0])).map(function (g) {
  var attrs = {};
  Array.from(g.attributes).forEach(function (a) { attrs[a.name] = a.value; });
  return [attrs, Array.from(g.children).map(function (c) {
    return [c.tagName, c.getAttribute('href') || '', c.getAttribute('class') || '', c.getAttribute('y') || '', c.textContent];
  })];
});
"""


def python_elements(svg: str, cls: str) -> list[list[Any]]:
    root = ET.fromstring(svg)
    out = []
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") != cls:
            continue
        children = [[c.tag.split("}")[1], c.get("href", ""), c.get("class", ""), c.get("y", ""), c.text or ""] for c in g]
        out.append([dict(g.attrib), children])
    return out


def test_python_and_the_browser_place_the_same_pieces_on_the_same_squares(chromium: Browser, page: Path,
                                                                         games: dict[str, Game]) -> None:
    """``show --svg`` (Python) and the page (JavaScript) draw a position with the same elements."""
    for name, k in (("atlas", 30), ("4p", 20), ("3p-no-moves", 25)):
        game = games[name]
        k = min(k, len(game.positions) - 1)
        open_game(chromium, page, name, k)
        view = game_data(game.record)["p"][k]
        for rotation in range(4):
            expected = python_elements(board_svg(view, game.record.nseats, rotation=rotation), "sq")
            assert chromium.js(ELEMENTS, "#iso-board g.sq") == expected, (name, k, rotation)
            chromium.js("document.getElementById('rotate').click()")
        top = python_elements(board_svg(view, game.record.nseats, top_down=True), "cell")
        assert chromium.js(ELEMENTS, "#top-board g.cell") == top, (name, k)


def test_rotating_four_times_shows_the_same_squares_and_one_rotation_moves_them(chromium: Browser, page: Path) -> None:
    open_game(chromium, page, "minotaur", 20)
    read = READ_BOARD + """
      return [read('#iso-board g.sq').sort(), Array.from(document.querySelectorAll('#iso-board g.sq')).map(
        function (g) { return [g.dataset.square, g.getAttribute('transform')]; }).sort()];"""
    squares, placed = chromium.js(read)
    turn = chromium.js("return document.body.dataset.turn")
    seen = []
    for _ in range(4):
        chromium.js("document.getElementById('rotate').click()")
        seen.append(chromium.js(read))
        assert chromium.js("return document.body.dataset.turn") == turn  # the game shown never changes
    assert all(s == squares for s, _ in seen)
    assert seen[0][1] != placed and dict(seen[0][1])["a1"] != dict(placed)["a1"]  # the drawing really moved
    assert seen[3][1] == placed
    chromium.screenshot(artefacts_dir() / "viewer-2.5d.png")


def test_the_top_down_helper_toggles_by_button_and_key(chromium: Browser, page: Path) -> None:
    from selenium.webdriver.common.by import By

    open_game(chromium, page, "atlas", 25)
    visible = ("return !document.getElementById('topbox').hidden"
               " && document.getElementById('top').getBoundingClientRect().width > 0")
    assert chromium.js(visible) is False
    chromium.driver.find_element(By.ID, "toggle-top").click()
    assert chromium.js(visible) is True
    assert chromium.js("return document.getElementById('toggle-top').getAttribute('aria-pressed')") == "true"
    chromium.screenshot(artefacts_dir() / "viewer-top-down.png")
    chromium.driver.find_element(By.TAG_NAME, "body").send_keys("t")
    assert chromium.js(visible) is False


def test_the_keyboard_steps_plays_and_reaches_every_control(chromium: Browser, page: Path, games: dict[str, Game]) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    open_game(chromium, page, "pan")
    last = len(games["pan"].positions) - 1
    turn = lambda: int(chromium.js("return document.body.dataset.turn"))  # noqa: E731
    keys = ActionChains(chromium.driver)
    keys.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT).perform()
    assert turn() == 2
    keys.send_keys(Keys.END).perform()
    assert turn() == last
    keys.send_keys(Keys.HOME).perform()
    assert turn() == 0
    chromium.js("document.getElementById('speed').value = '200'")
    keys.send_keys(Keys.SPACE).perform()
    assert chromium.js("return document.getElementById('play').getAttribute('aria-pressed')") == "true"
    chromium.js("return new Promise(function (done) { setTimeout(done, 700); })")
    keys.send_keys(Keys.SPACE).perform()
    played = turn()
    assert played >= 2 and chromium.js("return document.getElementById('play').getAttribute('aria-pressed')") == "false"
    # every control is reached by Tab, and focus is visible
    chromium.js("document.getElementById('filter').focus()")
    reached = set()
    for _ in range(len(NAMES) + 12):
        ActionChains(chromium.driver).send_keys(Keys.TAB).perform()
        reached.add(chromium.js("var e = document.activeElement; return e.id || e.tagName"))
    assert {"first", "prev", "play", "next", "last", "speed", "toggle-top", "rotate", "slider"} <= reached
    outline = chromium.js("document.getElementById('next').focus(); return getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"


def test_the_game_list_filters_and_opens_a_game(chromium: Browser, page: Path) -> None:
    from selenium.webdriver.common.by import By

    open_viewer(chromium, page)
    rows = "return Array.from(document.querySelectorAll('#games tbody tr')).filter(function (r) { return !r.hidden; }).length"
    assert chromium.js(rows) == len(NAMES)
    box = chromium.driver.find_element(By.ID, "filter")
    box.send_keys("demeter")
    assert chromium.js(rows) == 1
    box.clear()
    box.send_keys("hermes artemis")  # every word must match: the four-seat game
    assert chromium.js(rows) == 1
    chromium.driver.find_element(By.CSS_SELECTOR, "#games tbody tr:not([hidden])").click()
    assert chromium.js("return location.hash") == f"#game={NAMES.index('4p') + 1}"
    assert wait_for(chromium, "return document.getElementById('summary').textContent.indexOf('hermes/artemis') >= 0")
    assert chromium.js("return document.querySelectorAll('#seats li').length") == 4
    assert chromium.console_errors() == []


def test_a_phone_s_width_stacks_the_layout_and_dark_mode_darkens_it(chromium: Browser, page: Path) -> None:
    driver = chromium.driver
    size = driver.get_window_size()
    try:
        driver.set_window_size(390, 844)
        open_game(chromium, page, "apollo", 12)
        layout = chromium.js("""
          var board = document.getElementById('boardcol').getBoundingClientRect();
          var side = document.getElementById('side').getBoundingClientRect();
          return [side.top >= board.bottom - 1, document.documentElement.scrollWidth <= window.innerWidth + 1,
                  board.width > 300];""")
        assert layout == [True, True, True]
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        background = chromium.js("return getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(22, 24, 28)"
        chromium.screenshot(artefacts_dir() / "viewer-phone-dark.png")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        driver.set_window_size(size["width"], size["height"])


def test_a_record_with_a_problem_says_so_in_the_page(chromium: Browser, tmp_path: Path, games: dict[str, Game]) -> None:
    record = games["mortal"].record
    broken = GameRecord(record.tags, (*record.turns[:6], record.turns[3], *record.turns[7:]))
    bad_start = GameRecord(tuple((n, "mortal/mortal;00000/00000/00000/00000/00000;a1,a1/-;1;1" if n == "Start" else v)
                                 for n, v in record.tags), ())
    path = tmp_path / "bad.html"
    write_viewer([broken, bad_start], path)
    open_viewer(chromium, path)
    problem = "return document.getElementById('problem').hidden ? null : document.getElementById('problem').textContent"
    assert "turn 7" in chromium.js(problem)
    assert chromium.js("return +document.getElementById('slider').max") == 6
    assert chromium.js("return document.querySelectorAll('#iso-board g.sq').length") == 25
    chromium.js("location.hash = 'game=2'")
    assert wait_for(chromium, "return document.getElementById('problem').textContent.indexOf('two workers on a1') >= 0")
    assert chromium.js(problem) is not None
    assert chromium.js("return document.querySelectorAll('#iso-board g.sq, #top-board g.cell').length") == 0
    assert chromium.js("return document.getElementById('status').textContent").startswith("This record cannot be shown")
    assert chromium.console_errors() == []


MINI_BOARDS = """
var data = {geometry: SantoriniViewer.geometry(), games: SantoriniViewer.games()}, game = data.games[arguments[0]];
var live = null, last = null, out = [];
function squares(svg) { return Array.from(svg.firstChild.childNodes); }
game.p.forEach(function (p, k) {
  var before = live ? squares(live) : [];
  live = SantoriniViewer.miniBoard(data.geometry, game.letters, p, live);
  var fresh = SantoriniViewer.miniBoard(data.geometry, game.letters, p);
  out.push({same: live.outerHTML === fresh.outerHTML,
            redrawn: squares(live).filter(function (n, i) { return n !== before[i]; }).length,
            changed: squares(fresh).filter(function (n, i) {
              return !last || n.outerHTML !== squares(last)[i].outerHTML;
            }).length});
  last = fresh;
});
return out;
"""


def test_a_small_board_brought_up_to_date_redraws_only_the_squares_that_changed(chromium: Browser, page: Path,
                                                                                games: dict[str, Game]) -> None:
    """The dashboard's live boards are updated in place every turn: the result is the fresh drawing,
    and only the squares a turn changed (a move's two, a build's one; Apollo's swap, Atlas's dome,
    a four-seat game's placements) are new elements."""
    for name in ("apollo", "atlas", "4p"):
        open_game(chromium, page, name)
        frames = chromium.js(MINI_BOARDS, NAMES.index(name))
        game = games[name]
        assert len(frames) == len(game.positions)
        assert all(f["same"] for f in frames), name
        assert frames[0]["redrawn"] == frames[0]["changed"] == 25
        assert [f["redrawn"] for f in frames] == [f["changed"] for f in frames], name
        assert max(f["changed"] for f in frames[1:]) <= 5, name
    assert chromium.console_errors() == []
