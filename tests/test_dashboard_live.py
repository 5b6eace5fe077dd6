"""The live dashboard end to end: a real daemon, two bundled bots over TCP, WebSocket clients and Chromium.

One daemon for the module (``santorini serve`` on ports the OS picks), with two remote bots each
played by ``santorini connect`` running the bundled ``alphabeta`` (it sends ``info`` lines, so the
telemetry is real).  Each test submits its own run through the job API and watches it: 20
WebSocket clients (trio-websocket: trio-native like the daemon, and already a dependency of
Selenium) on one game, then Chromium on the live pages, under the dashboard's
Content-Security-Policy.  Screenshots go to ``test-artefacts/``.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest
import trio
from trio_websocket import ConnectionClosed, open_websocket_url

from santorini_server.dashboard.live_routes import COALESCE, coalesce
from tests.browser import Browser, artefacts_dir
from tests.dashboard_daemon import open_websocket_from
from tests.test_server_serve import CLI, Daemon, santorini

BOTS = ("alpha", "beta")


class Server:
    def __init__(self, daemon: Daemon, admin: str) -> None:
        self.daemon = daemon
        self.admin = admin
        self.ws = daemon.url.replace("http://", "ws://") + "/ws"

    def wait_bots(self, timeout: float = 30) -> None:
        """Both bots logged in (a bridge reconnects after a lost connection, with back-off)."""
        deadline = time.monotonic() + timeout
        while sum(bot["connected"] for bot in self.daemon.http.get("/api/bots").json()) < len(BOTS):
            assert time.monotonic() < deadline, "the bots did not connect"
            time.sleep(0.1)

    def submit(self, tc: str, rounds: int = 1) -> int:
        self.wait_bots()
        response = self.daemon.http.post(
            "/api/runs", json={"engines": list(BOTS), "rounds": rounds, "tc": tc, "concurrency": 1},
            headers={"Authorization": f"Bearer {self.admin}"},
        )
        assert response.status_code == 201, response.text
        return int(response.json()["id"])

    def wait_run(self, run_id: int, timeout: float = 90) -> None:
        """Wait for the run's end (cancelling it would cut its remote bots off mid-game, and the
        next run would find them reconnecting)."""
        deadline = time.monotonic() + timeout
        while (run := self.daemon.http.get(f"/api/runs/{run_id}").json())["state"] not in ("finished", "cancelled"):
            assert time.monotonic() < deadline, run
            time.sleep(0.1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("live")
    data = root / "data"
    daemon = Daemon(data)
    bridges: list[subprocess.Popen[str]] = []
    try:
        for name in BOTS:
            token = root / f"{name}.token"
            token.write_text(santorini("bot", "add", name, "--remote", data=data).stdout.strip() + "\n")
            bridges.append(subprocess.Popen(
                [*CLI, "connect", f"tcp://127.0.0.1:{daemon.bot_port}", "--bot", name, "--token-file", str(token), "alphabeta"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
            ))
        yield Server(daemon, (data / "admin.token").read_text().strip())
    finally:
        for bridge in bridges:
            bridge.terminate()
        for bridge in bridges:
            bridge.wait(30)
        assert daemon.stop() == 0


class Events:
    """A WebSocket's events one by one (a message holds one event, or several as an array)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.pending: list[dict[str, Any]] = []

    async def next(self, within: float = 30) -> dict[str, Any]:
        while not self.pending:
            with trio.fail_after(within):
                data = json.loads(await self.ws.get_message())
            self.pending.extend(data if isinstance(data, list) else [data])
        return self.pending.pop(0)


async def first_game(server: Server, run_id: int) -> str:
    """The key of the first game of run ``run_id`` to start (read from the home topic)."""
    async with open_websocket_url(server.ws + "?topic=home") as ws:
        home = Events(ws)
        assert (await home.next())["type"] == "snapshot"
        while True:
            event = await home.next(60)
            if event["type"] == "started" and event["run"] == run_id:
                return str(event["game"])


async def test_twenty_viewers_each_receive_every_turn_in_order(server: Server) -> None:
    async with open_websocket_url(server.ws + "?topic=home") as ws:
        home = Events(ws)
        assert (await home.next())["type"] == "snapshot"
        run_id = await trio.to_thread.run_sync(server.submit, "3+0.05")
        while (event := await home.next(60))["type"] != "started" or event["run"] != run_id:
            pass
        key = event["game"]
    seen: list[dict[str, Any]] = []

    async def viewer(source: str) -> None:  # each from its own address, as twenty browsers are
        async with open_websocket_from(f"{server.ws}?topic=game:{key}", source) as ws:
            events = Events(ws)
            snapshot = await events.next()
            assert snapshot["type"] == "snapshot" and snapshot["game"]["game"] == key
            turns = [t["s"] for t in snapshot["game"]["t"]]
            seqs = []
            while (event := await events.next())["type"] != "recorded":
                if event["type"] == "turn":
                    seqs.append(event["seq"])
                    turns.append(event["stn"])
                    assert event["clocks"][0] is not None and event["to_move"] in (0, 1, 2)
            start = snapshot["game"]["seq"]
            seen.append({"start": start, "seqs": seqs, "turns": turns, "id": event["id"]})

    async with trio.open_nursery() as nursery:
        for i in range(20):
            nursery.start_soon(viewer, f"127.0.1.{i + 1}")
    assert len(seen) == 20
    record = (await trio.to_thread.run_sync(server.daemon.http.get, f"/api/games/{seen[0]['id']}")).json()
    played = [t["turn"] for t in record["turns"]]
    assert record["termination"] not in ("crash", "aborted") and len(played) > 5, json.dumps(record)[:500]
    for view in seen:
        assert view["seqs"] == list(range(view["start"] + 1, len(played) + 1))  # every turn, in order, no gap
        assert view["turns"] == played
    assert any(t.get("depth") is not None for t in record["turns"])  # alphabeta's telemetry reached the record
    # bad topics are refused with a reason; unknown games are a 404 page
    async with open_websocket_url(server.ws + "?topic=run:<x>") as ws:
        with pytest.raises(ConnectionClosed) as closed:
            await ws.get_message()
        assert closed.value.reason.code == 1008 and "bad topic" in (closed.value.reason.reason or "")
    for path in ("/games/999-1", "/games/99999", "/games/x"):
        response = await trio.to_thread.run_sync(server.daemon.http.get, path)
        assert response.status_code == 404 and "<h1>Not found</h1>" in response.text
    await trio.to_thread.run_sync(server.wait_run, run_id)


def board_state(browser: Browser) -> dict[str, Any]:
    return browser.js(
        "var r = document.querySelector('#clocks li.running');"
        "return {seq: document.body.dataset.seq, over: document.body.dataset.over, state: document.body.dataset.state,"
        " running: r ? +r.dataset.ms : null, pawns: document.querySelectorAll('#iso-board [data-worker=\"1\"]').length,"
        " board: Array.from(document.querySelectorAll('#iso-board .sq')).map(function (g) {"
        "   return g.dataset.square + g.dataset.height + g.dataset.dome + g.dataset.worker; }).join(',')};"
    )


def test_a_browser_watches_a_game_live_then_sees_its_record(server: Server, chromium: Browser) -> None:
    run_id = server.submit("5+0.05", rounds=2)  # 4 games: the run page below sees some of them end
    key = trio.run(first_game, server, run_id)
    shots = artefacts_dir()
    # the home page and the live list: #live-games gets a small board per game being played
    for page in ("/", "/live"):
        chromium.driver.get(server.daemon.url + page)
        deadline = time.monotonic() + 20
        while not chromium.js(f"return !!document.querySelector('#live-games a[data-game=\"{key}\"] svg .cell');"):
            assert time.monotonic() < deadline, (page, server.daemon.http.get(f"/api/runs/{run_id}").json(),
                                                 server.daemon.lines[-20:])
            time.sleep(0.05)
    href = chromium.js(f"return document.querySelector('#live-games a[data-game=\"{key}\"]').getAttribute('href');")
    assert href == f"/games/{key}"
    chromium.screenshot(shots / "dashboard-live-list.png")
    # the game page: the board changes as turns are played, the mover's clock runs down
    chromium.driver.get(server.daemon.url + href)
    boards: list[str] = []
    seqs: set[str] = set()
    ticks = 0
    last: dict[str, Any] | None = None
    deadline = time.monotonic() + 60
    while True:
        state = board_state(chromium)
        if state["state"] == "finished":
            break
        if state["seq"] is not None and state["over"] is None:
            if not boards or state["board"] != boards[-1]:
                boards.append(state["board"])
            seqs.add(state["seq"])
            if last is not None and last["seq"] == state["seq"] and state["running"] is not None and last["running"] is not None \
                    and state["running"] < last["running"]:
                ticks += 1
            if len(boards) == 6:
                chromium.screenshot(shots / "dashboard-live-game.png")
        last = state
        assert time.monotonic() < deadline, state
        time.sleep(0.03)
    assert len(boards) >= 6, boards  # the start as first seen, then at least five changes
    assert len(seqs) >= 5 and ticks >= 2, (seqs, ticks)
    # once recorded the page is the ordinary viewer: the result, every turn in the list
    result = chromium.js("return document.getElementById('result').textContent;")
    assert result.startswith(("1-0", "0-1")), result
    assert chromium.js("return document.querySelectorAll('#turns button').length;") > 5
    chromium.screenshot(shots / "dashboard-finished-game.png")
    assert chromium.console_errors() == []  # no CSP violation, no script error
    # the run's page follows the run: its progress and games are refreshed in place (no reload)
    # as the games still being played end
    chromium.driver.get(f"{server.daemon.url}/runs/{run_id}")
    chromium.js("window.notReloaded = true;")
    progress = chromium.js("return document.getElementById('progress').textContent;")
    assert "4 of 4" not in progress, progress  # three games were left as the first one ended
    deadline = time.monotonic() + 120
    while "4 of 4" not in chromium.js("return document.getElementById('progress').textContent;"):
        assert time.monotonic() < deadline, chromium.js("return document.getElementById('progress').textContent;")
        time.sleep(0.1)
    assert chromium.js("return window.notReloaded === true;")
    assert chromium.js("return document.querySelectorAll('#games a[href^=\"/games/\"]').length;") == 4
    assert chromium.console_errors() == []
    assert [u for u in chromium.network_requests() if not u.startswith(server.daemon.url)] == []
    server.wait_run(run_id)


def test_the_gap_between_a_viewer_s_messages_grows_with_the_audience_within_its_bounds() -> None:
    """A few viewers get each turn within 10 ms of the last message (the browser's latency), 100
    share the daemon's sends with one message per 100 ms each, and no crowd waits over 200 ms."""
    assert coalesce(1) == coalesce(10) == COALESCE[0] == 0.01
    assert coalesce(100) == pytest.approx(0.1)
    assert coalesce(200) == coalesce(2000) == COALESCE[1] == 0.2
