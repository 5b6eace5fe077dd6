"""The dashboard's pages in a real headless Chromium, served by a real ``santorini serve``.

Each page renders under the daemon's Content-Security-Policy with no console error and no
request outside the daemon; hostile stored text (a run named ``<img src=x onerror=alert(1)>``,
an engine spec carrying it) shows as text, no element is made of it and no dialog opens; the
admin signs in, submits a run through the form and sees it listed and finished; a run page sent
while its standings were being counted brings them in by itself.  Screenshots of each page go to
test-artefacts/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import trio

from santorini_server.openings.suites import bundled_suite
from santorini_server.records import read_archive
from santorini_server.server.runs import RUNS_DIR
from santorini_server.tournament.output import ARCHIVE
from tests.browser import INTERNAL, Browser, artefacts_dir

from .dashboard_daemon import HOSTILE, SlowCount, admin_token, counted_slowly, start_dashboard
from .test_server_serve import Daemon

PAGES = {
    "home": "/",
    "run": "/runs/1",
    "bot": "/bots/beta",
    "bot-hostile-spec": "/bots/xss",
    "run-new": "/runs/new",
    "signin": "/signin",
}

#: live.js is the live updates' script (SPEC.md section 17), written beside these pages; until
#: it is in the package its 404 is the one console error allowed.
LIVE_JS_SHIPPED = resources.files("santorini_server.dashboard").joinpath("static", "dashboard", "live.js").is_file()


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Daemon, Path]]:
    data = tmp_path_factory.mktemp("dash-browser") / "data"
    running = start_dashboard(data)
    try:
        yield running, data
    finally:
        assert running.stop() == 0


def visit(chromium: Browser, daemon: Daemon | SlowCount, path: str) -> None:
    """Open ``path`` and wait (bounded) for its load to complete: ``driver.get`` can return at
    "interactive" when the machine is loaded, before the page's deferred scripts have run."""
    chromium.drain_logs()
    chromium.console.clear()
    chromium.requests.clear()
    chromium.driver.get(daemon.url + path)
    deadline = time.monotonic() + 10
    while chromium.js("return document.readyState") != "complete":
        assert time.monotonic() < deadline, f"{path} did not finish loading"
        time.sleep(0.05)


def problems(chromium: Browser, daemon: Daemon | SlowCount) -> tuple[list[str], list[str]]:
    """Console errors (the CSP's refusals among them) and requests to anywhere but the daemon."""
    errors = [e for e in chromium.console_errors() if LIVE_JS_SHIPPED or "live.js" not in e]
    outside = [u for u in chromium.requests if not u.startswith(INTERNAL) and not u.startswith(daemon.url)]
    return errors, outside


def wait_for(chromium: Browser, path: str, ready: str = "body", timeout: float = 30) -> None:
    """Wait (bounded) until a form's POST has landed on a page whose URL's path starts with ``path``
    (its path: ``/signin?next=/runs/new`` is not ``/runs/new`` yet) and which has ``ready``."""
    deadline = time.monotonic() + timeout
    while not (
        urlsplit(chromium.driver.current_url).path.startswith(path)
        and chromium.js("return document.readyState === 'complete' && document.querySelector(arguments[0]) !== null", ready)
    ):
        assert time.monotonic() < deadline, f"no page {path} with {ready}: at {chromium.driver.current_url}"
        time.sleep(0.05)


def no_dialog(chromium: Browser) -> None:
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        chromium.driver.switch_to.alert  # noqa: B018


def test_each_page_renders_clean_and_hostile_text_stays_text(chromium: Browser, daemon: tuple[Daemon, Path]) -> None:
    from selenium.webdriver.common.by import By

    served, _ = daemon
    for name, path in PAGES.items():
        visit(chromium, served, path)
        assert chromium.js("return document.readyState") == "complete"
        assert chromium.js("return document.body.dataset.live")
        errors, outside = problems(chromium, served)
        assert errors == [], (path, errors)
        assert outside == [], (path, outside)
        assert chromium.js("return document.querySelectorAll('img').length") == 0, path
        no_dialog(chromium)
        chromium.screenshot(artefacts_dir() / f"dashboard-{name}.png")
    visit(chromium, served, "/runs/1")
    assert chromium.driver.find_element(By.ID, "run-name").text == HOSTILE
    assert chromium.driver.find_element(By.ID, "run-state").text == "finished"
    assert chromium.js("return document.querySelectorAll('#games tbody a[href^=\"/games/\"]').length") == 2
    visit(chromium, served, "/bots/xss")
    assert HOSTILE in chromium.driver.find_element(By.ID, "bot-spec").text
    visit(chromium, served, "/")
    assert HOSTILE in chromium.driver.find_element(By.ID, "runs").text
    assert chromium.js("return document.querySelector('#live-games') !== null")
    no_dialog(chromium)
    # the rating chart is drawn: a polyline with a point per game
    visit(chromium, served, "/bots/beta")
    assert chromium.js("return document.querySelector('#rating-chart polyline').points.numberOfItems") == 2


def test_admin_signs_in_and_submits_a_run_through_the_form(chromium: Browser, daemon: tuple[Daemon, Path]) -> None:
    from selenium.webdriver.common.by import By

    served, data = daemon
    driver = chromium.driver
    visit(chromium, served, "/runs/new")
    driver.find_element(By.CSS_SELECTOR, "#need-admin a").click()
    driver.find_element(By.ID, "token").send_keys(admin_token(data))
    driver.find_element(By.ID, "signin").click()
    wait_for(chromium, "/runs/new")
    assert driver.current_url == served.url + "/runs/new"  # back where the sign-in was asked for
    assert admin_token(data) not in driver.current_url
    assert driver.get_cookie("santorini_session")["httpOnly"] is True
    assert chromium.js("return document.cookie") == ""  # no script can read the session
    for name in ("alpha", "beta"):
        driver.find_element(By.CSS_SELECTOR, f'input[name="engines"][value="{name}"]').click()
    driver.find_element(By.ID, "f-event").send_keys("browser run")
    driver.find_element(By.ID, "f-rounds").send_keys("x")
    driver.find_element(By.ID, "submit").click()
    wait_for(chromium, "/runs/new", ready="#error")
    assert "is not a whole number" in driver.find_element(By.ID, "error").text  # shown next to the form
    assert driver.find_element(By.ID, "f-event").get_attribute("value") == "browser run"  # values kept
    errors, _ = problems(chromium, served)
    assert errors and all("/runs/new" in e and "400" in e for e in errors)  # the refusal's status, and nothing else
    chromium.console.clear()
    rounds = driver.find_element(By.ID, "f-rounds")
    rounds.clear()
    rounds.send_keys("1")
    driver.find_element(By.ID, "f-tc").send_keys("5+0.05")
    driver.find_element(By.ID, "f-openings").click()  # from the bundled suite
    driver.find_element(By.ID, "submit").click()
    wait_for(chromium, "/runs/", ready="#run-state")
    run_path = driver.current_url.removeprefix(served.url)
    deadline = time.monotonic() + 60
    while driver.find_element(By.ID, "run-state").text != "finished":
        assert time.monotonic() < deadline, "the submitted run did not finish"
        time.sleep(0.3)
        driver.get(served.url + run_path)
    errors, outside = problems(chromium, served)
    assert errors == [] and outside == []
    starts = [r.start for r in read_archive(data / RUNS_DIR / run_path.rsplit("/", 1)[1] / ARCHIVE)[0]]
    assert starts and set(starts) <= set(bundled_suite(("mortal", "mortal"))), starts
    chromium.screenshot(artefacts_dir() / "dashboard-run-submitted.png")
    visit(chromium, served, "/")
    assert "browser run" in driver.find_element(By.ID, "runs").text
    chromium.screenshot(artefacts_dir() / "dashboard-home-admin.png")
    no_dialog(chromium)


async def test_a_run_page_sent_while_its_standings_are_counted_fills_them_in_by_itself(
    chromium: Browser, tmp_path: Path
) -> None:
    """The page shows the standings as being counted; once the count is let go, they appear
    without a reload (the page fetched itself again and swapped its parts), with no console error."""

    def first_look(slow: SlowCount) -> None:
        visit(chromium, slow, f"/runs/{slow.run_id}")
        assert chromium.js("return document.querySelector('#standings [data-pending]') !== null")
        assert chromium.js("return document.querySelector('#match-line') === null")
        chromium.screenshot(artefacts_dir() / "dashboard-run-counting.png")
        chromium.js("window.sameDocument = true")

    def filled_in(slow: SlowCount) -> None:
        deadline = time.monotonic() + 30
        while not chromium.js("return document.querySelector('#match-line') !== null"):
            assert time.monotonic() < deadline, "the standings did not come in"
            time.sleep(0.05)
        assert chromium.js("return window.sameDocument === true")  # no reload
        assert chromium.js("return document.querySelector('[data-pending]') === null")
        assert chromium.js("return document.querySelectorAll('#standings-table tbody tr').length") == 2
        errors, outside = problems(chromium, slow)
        assert errors == [] and outside == []
        chromium.screenshot(artefacts_dir() / "dashboard-run-counted.png")

    async with counted_slowly(tmp_path / "data") as slow:
        await trio.to_thread.run_sync(first_look, slow)
        slow.release.set()
        await trio.to_thread.run_sync(filled_in, slow)


def test_the_run_page_shows_the_god_statistics(chromium: Browser, daemon: tuple[Daemon, Path]) -> None:
    """SPEC.md section 19.6: the run page's god tables, counted from the run's archive."""
    from selenium.webdriver.common.by import By

    served, _ = daemon
    visit(chromium, served, "/runs/1")
    section = chromium.driver.find_element(By.ID, "gods")
    assert section.is_displayed()
    matchups = chromium.driver.find_element(By.ID, "gods-2").text
    assert "mortal vs mortal" in matchups and "Seat-1 advantage" in matchups
    assert chromium.js("return document.querySelectorAll('#gods-2 tbody tr').length") == 1
    assert chromium.js("return document.querySelector('#gods-2 tbody tr td:nth-child(2)').textContent") == "2"
    errors, outside = problems(chromium, served)
    assert errors == [] and outside == []
    chromium.screenshot(artefacts_dir() / "dashboard-run-gods.png")
