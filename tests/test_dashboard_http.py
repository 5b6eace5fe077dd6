"""The dashboard's pages over real sockets: a ``santorini serve`` subprocess, httpx as the browser.

Every page answers, with the security headers; hostile stored text comes back escaped; every
mutation is refused without the session's CSRF token (403), from a foreign origin (403) or
without the admin sign-in (401); the sign-in takes the token in a POST body only, answers with a
fresh HttpOnly, SameSite=Strict session cookie, and the token appears in no response.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import trio

from santorini_server.dashboard.pages import within
from santorini_server.dashboard.security import SECURITY_HEADERS
from santorini_server.openings.suites import bundled_suite
from santorini_server.records import read_archive
from santorini_server.server.names import check_bot_name
from santorini_server.server.run_standings import Counting
from santorini_server.server.runs import RUNS_DIR
from santorini_server.server.store import Store
from santorini_server.tournament.output import ARCHIVE

from .dashboard_daemon import HOSTILE, admin_token, counted_slowly, start_dashboard, wait_finished
from .test_server_serve import CLI, Daemon

ESCAPED = "&lt;img src=x onerror=alert(1)&gt;"


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    data = tmp_path_factory.mktemp("dash") / "data"
    running = start_dashboard(data)
    running.data = data  # type: ignore[attr-defined]
    try:
        yield running
    finally:
        assert running.stop() == 0


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "no CSRF field in the page"
    return found.group(1)


def browser(daemon: Daemon) -> httpx.Client:
    """A fresh client with its own cookie jar (a new visitor)."""
    return httpx.Client(base_url=daemon.url, timeout=30)


def sign_in(client: httpx.Client, token: str) -> httpx.Response:
    csrf = csrf_of(client.get("/signin").text)
    return client.post("/signin", data={"csrf": csrf, "token": token, "next": "/runs/new"})


def test_every_page_answers_with_the_security_headers(daemon: Daemon) -> None:
    http = daemon.http
    pages = {"/": "home", "/runs/1": "run:1", "/bots/alpha": "bot:alpha", "/bots/remote1": "bot:remote1",
             "/runs/new": "home", "/signin": "home", "/runs/1?page=2": "run:1", "/bots/beta?page=x": "bot:beta"}
    for path, topic in pages.items():
        answer = http.get(path)
        assert answer.status_code == 200, path
        assert f'<body data-live="{topic}">' in answer.text, path
        assert '<script src="/static/dashboard/live.js" defer></script>' in answer.text
        assert "<script>" not in answer.text and "onclick" not in answer.text  # no inline script: the CSP allows none
    for path in ("/", "/runs/1", "/static/dashboard/dashboard.css", "/api/runs", "/runs/99", "/bots/nobody", "/nowhere"):
        answer = http.get(path)
        for name, value in SECURITY_HEADERS:
            assert answer.headers.get(name) == value, (path, name)
    assert http.get("/runs/99").status_code == 404 and "no run 99" in http.get("/runs/99").text
    assert http.get("/runs/x").status_code == 404
    assert http.get("/runs/99999999999999999999999").status_code == 404  # beyond SQLite's ids
    assert http.get("/bots/nobody").status_code == 404
    assert http.get("/static/dashboard/dashboard.css").headers["content-type"].startswith("text/css")


def test_run_page_shows_progress_standings_terminations_and_games(daemon: Daemon) -> None:
    page = daemon.http.get("/runs/1").text
    assert 'id="run-state">finished' in page
    assert 'id="games-done">2 of 2 (100.0%)' in page
    assert 'id="match-line"' in page and "LOS" in page and "Elo" in page
    assert 'id="losses"' in page and 'id="terminations"' in page
    assert 'id="crosstable"' not in page  # a match: its headline instead
    game_ids = daemon.http.get("/api/runs/1").json()["game_ids"]
    for game_id in game_ids:
        assert f'href="/games/{game_id}"' in page
    home = daemon.http.get("/").text
    assert 'id="runs"' in home and '<section id="live-games"' in home and 'href="/runs/1"' in home
    assert 'id="ladder"' in home and 'href="/bots/beta"' in home
    bot = daemon.http.get("/bots/beta").text
    assert 'id="rating-chart"' in bot and "<polyline" in bot
    assert re.search(r'id="by-opponent".*href="/bots/alpha">alpha</a></td><td>2</td>', bot, re.S)
    assert re.search(r'id="by-gods".*<td>mortal/mortal</td><td>1</td><td>mortal</td><td>1</td>', bot, re.S)
    assert "not connected" in daemon.http.get("/bots/remote1").text


async def test_a_run_page_does_not_wait_for_standings_being_counted(tmp_path: Path) -> None:
    """Asked for while its run's standings are being counted (held here until released), the run
    page answers without them, marked as being counted, with the rest real: state, progress,
    terminations and games come from the index.  Once counted, the page has them."""
    async with counted_slowly(tmp_path / "data") as slow, httpx.AsyncClient(base_url=slow.url, timeout=20) as http:
        page = (await http.get(f"/runs/{slow.run_id}")).text  # before the count is let go: it was not waited for
        assert 'id="standings-counting" data-pending="standings"' in page
        assert 'id="match-line"' not in page and 'id="standings-table"' not in page
        assert 'id="run-state">finished' in page
        assert f'id="games-done">{slow.games} of {slow.games} (100.0%)' in page
        assert re.search(r'id="terminations">.*<td>time</td><td>4</td>', page, re.S)
        assert len(re.findall(r'<a href="/games/\d+"', page)) == slow.games
        slow.release.set()
        for _ in range(20):  # each request waits for the count up to STANDINGS_WAIT
            page = (await http.get(f"/runs/{slow.run_id}")).text
            if "data-pending" not in page:
                break
        assert 'id="match-line"' in page and 'id="standings-table"' in page and "data-pending" not in page


def test_a_run_whose_stored_settings_no_longer_read_has_a_page_saying_why(tmp_path: Path) -> None:
    """A run stored by an earlier version with settings this one refuses (more games than a run
    may now have) gets its page, saying why it has no standings, not a 500."""
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        store.add_local_bot("alpha", "random")
        store.add_local_bot("beta", "greedy")
        run = store.create_run("match", {"engines": ["random name=alpha", "greedy name=beta"], "rounds": 2_000_000})
        store.set_run_state(run.id, "cancelled")
    daemon = Daemon(data)
    try:
        page = daemon.http.get(f"/runs/{run.id}")
        assert page.status_code == 200, page.text[:300]
        found = re.search(r'id="settings-unreadable">(.*?)</p>', page.text, re.S)
        assert found and "1000000" in found[1] and "rounds" in found[1], page.text
        assert 'id="run-state">cancelled' in page.text
    finally:
        assert daemon.stop() == 0


async def test_a_view_not_done_within_its_wait_goes_on_in_its_thread() -> None:
    """``within`` gives None for a view slower than its wait, and the view's thread goes on to
    its end (it saves the run's snapshot); a run counted by another view (Counting) gives None too."""
    release, done = threading.Event(), threading.Event()

    def slow(*, block: bool) -> str:
        assert release.wait(30)
        done.set()
        return "tables"

    def held(*, block: bool) -> str:
        raise Counting("another view counts the run")

    assert await within(slow, 0.05) is None
    release.set()
    assert await trio.to_thread.run_sync(done.wait, 30)
    assert await within(held, 5) is None
    assert await within(lambda *, block: f"ready, blocking: {block}", 5) == "ready, blocking: False"


def test_hostile_text_is_escaped_on_every_page(daemon: Daemon) -> None:
    for path in ("/", "/runs/1", "/bots/xss"):
        page = daemon.http.get(path).text
        assert ESCAPED in page, path
        assert HOSTILE not in page, path
    with pytest.raises(ValueError, match="bad bot name"):  # why the hostile text is not a bot name
        check_bot_name(HOSTILE)


def test_mutations_need_csrf_same_origin_and_the_admin(daemon: Daemon) -> None:
    data: Path = daemon.data  # type: ignore[attr-defined]
    token = admin_token(data)
    body = {"engines": ["alpha", "beta"], "rounds": "1"}
    with browser(daemon) as visitor:
        # no session at all: the CSRF check refuses first
        for path in ("/runs/new", "/bots/alpha/revoke", "/bots/alpha/remove", "/runs/1/cancel", "/signout"):
            answer = visitor.post(path, data=body)
            assert answer.status_code == 403 and "CSRF" in answer.text, path
        assert 'id="need-admin"' in visitor.get("/runs/new").text  # no form before the sign-in
        csrf = csrf_of(visitor.get("/signin").text)
        # a session with its CSRF token but not signed in: 401
        for path in ("/runs/new", "/bots/alpha/revoke", "/runs/1/cancel"):
            answer = visitor.post(path, data={**body, "csrf": csrf})
            assert answer.status_code == 401 and "sign in" in answer.text, path
        assert visitor.post("/runs/new", data={**body, "csrf": "x" * len(csrf)}).status_code == 403
        # the wrong token
        wrong = visitor.post("/signin", data={"csrf": csrf, "token": "nope" * 10})
        assert wrong.status_code == 403 and "wrong admin token" in wrong.text
        # a foreign origin is refused even with the right token and CSRF field
        foreign = visitor.post("/signin", data={"csrf": csrf, "token": token}, headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403 and "another site" in foreign.text
        assert visitor.post("/signin", data={"csrf": csrf, "token": token}, headers={"Origin": "null"}).status_code == 403
        before = visitor.cookies.get("santorini_session")
        signed = visitor.post("/signin", data={"csrf": csrf, "token": token, "next": "//evil.example/x"},
                              headers={"Origin": daemon.url})
        assert signed.status_code == 303 and signed.headers["location"] == "/"  # never off-site
        cookie = signed.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict") and "Path=/" in cookie
        assert visitor.cookies.get("santorini_session") != before  # a new session id on sign-in (no fixation)
        assert token not in signed.text and token not in cookie and token not in signed.headers["location"]
        # signed in: a JSON body or a form with the old CSRF token is still refused
        assert visitor.post("/runs/new", json=body).status_code == 415
        assert visitor.post("/runs/new", data={**body, "csrf": csrf}).status_code == 403
    assert daemon.http.get("/api/runs").json()[-1]["id"] == 1  # nothing was created


def test_admin_submits_revokes_and_is_told_why_a_bot_that_played_stays(daemon: Daemon) -> None:
    data: Path = daemon.data  # type: ignore[attr-defined]
    with browser(daemon) as admin:
        assert sign_in(admin, admin_token(data)).headers["location"] == "/runs/new"
        form = admin.get("/runs/new").text
        assert 'id="run-form"' in form and 'id="signout"' in form
        csrf = csrf_of(form)
        bad = admin.post("/runs/new", data={"csrf": csrf, "engines": ["alpha", "beta"], "rounds": "two", "tc": "3+0.05"})
        assert bad.status_code == 400 and "rounds: &#39;two&#39; is not a whole number" in bad.text
        assert 'value="3+0.05"' in bad.text and 'value="alpha" checked' in bad.text  # values kept
        refused = admin.post("/runs/new", data={"csrf": csrf, "engines": ["alpha", "nobody"]})
        assert refused.status_code == 400 and "nobody" in refused.text
        made = admin.post("/runs/new", data={"csrf": csrf, "engines": ["alpha", "beta"], "rounds": "1", "tc": "5+0.05",
                                             "event": "from the form"})
        assert made.status_code == 303
        run_id = int(made.headers["location"].rsplit("/", 1)[1])
        wait_finished(daemon.http, run_id)
        assert "from the form" in admin.get("/").text
        page = admin.get("/bots/alpha").text
        assert 'id="revoke"' in page and 'id="remove"' in page
        kept = admin.post("/bots/alpha/remove", data={"csrf": csrf})
        assert kept.status_code == 409 and "alpha has played" in kept.text and "revoke" in kept.text
        assert admin.post("/bots/remote1/remove", data={"csrf": csrf}).status_code == 303
        assert admin.get("/bots/remote1").status_code == 404
        assert admin.post("/bots/xss/revoke", data={"csrf": csrf}).status_code == 303
        assert "revoked" in admin.get("/bots/xss").text
        assert admin.post("/bots/xss/explode", data={"csrf": csrf}).status_code == 404
        out = admin.post("/signout", data={"csrf": csrf})
        assert out.status_code == 303
        assert admin.post("/runs/new", data={"csrf": csrf, "engines": ["alpha", "beta"]}).status_code == 403
    readonly = daemon.http.get("/bots/alpha").text
    assert 'id="revoke"' not in readonly and 'id="remove"' not in readonly  # admin-only buttons


def test_the_form_starts_a_run_from_the_bundled_opening_suite(daemon: Daemon) -> None:
    data: Path = daemon.data  # type: ignore[attr-defined]
    with browser(daemon) as admin:
        sign_in(admin, admin_token(data))
        form = admin.get("/runs/new").text
        assert 'id="f-openings"' in form and 'value="bundled"' in form
        csrf = csrf_of(form)
        base = {"csrf": csrf, "engines": ["alpha", "beta"], "openings": "bundled", "tc": "5+0.05"}
        refused = admin.post("/runs/new", data={**base, "gods": "apollo/mortal", "rounds": "1"})
        shown = re.findall(r'id="error">[^<]*', refused.text)
        assert refused.status_code == 400 and "no bundled opening suite" in refused.text, shown
        assert 'id="f-openings" name="openings" value="bundled" checked' in refused.text  # the box stays ticked
        made = admin.post("/runs/new", data={**base, "games": "4"})
        assert made.status_code == 303
        run_id = int(made.headers["location"].rsplit("/", 1)[1])
        wait_finished(daemon.http, run_id)
    records = sorted(read_archive(data / RUNS_DIR / str(run_id) / ARCHIVE)[0], key=lambda r: r.game_number or 0)
    starts = [record.start for record in records]
    suite = set(bundled_suite(("mortal", "mortal")))
    assert len(starts) == 4 and all(start in suite for start in starts), starts
    assert starts[0] == starts[1] != starts[2] == starts[3]  # each opening twice, seats swapped


def test_http_beyond_loopback_needs_public(tmp_path: Path) -> None:
    refused = subprocess.run(
        [*CLI, "serve", "--data", str(tmp_path / "d"), "--http", "0.0.0.0:0", "--bots", "127.0.0.1:0"],
        capture_output=True, text=True, timeout=60,
    )
    assert refused.returncode == 2 and "pass --public" in refused.stderr and "Traceback" not in refused.stderr
    public = Daemon(tmp_path / "d", "--http", "0.0.0.0:0", "--public")
    try:
        assert public.http.get("/").status_code == 200
    finally:
        assert public.stop() == 0
