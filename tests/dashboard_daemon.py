"""A real ``santorini serve`` with the dashboard, shared by the dashboard's HTTP and browser tests.

The data directory holds two local bundled bots that play (``alpha`` random, ``beta`` greedy), a
local bot whose engine spec carries hostile text (``xss``: the spec is shown on its page), a
remote bot never connected (``remote1``), and one finished match between ``alpha`` and ``beta``
whose run name (``event``) is hostile text too.  Bot names cannot carry markup (the name rule
refuses ``<``), so the untrusted text the pages must escape is the spec and the run name.

:func:`counted_slowly` is the daemon in this process instead, over a finished match written
straight to its data directory (no standings snapshot), with the run's standings held "being
counted" until the test lets them be: its first count (the daemon's warm-up's, or a page's)
waits for an event.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec
import trio
from trio_websocket import WebSocketConnection, wrap_client_stream

from santorini_server.dashboard.app import dashboard_app
from santorini_server.records import ArchiveWriter
from santorini_server.server import run_standings
from santorini_server.server.daemon import ServeOptions, WebContext, serve
from santorini_server.server.runs import RUNS_DIR, index_game
from santorini_server.server.store import Store
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import ARCHIVE

from .test_server_run_standings import a_record
from .test_server_serve import Daemon

__all__ = [
    "HOSTILE", "SlowCount", "counted_slowly", "start_dashboard", "wait_finished", "admin_token", "open_websocket_from",
]

HOSTILE = "<img src=x onerror=alert(1)>"


def start_dashboard(data: Path, *extra: str) -> Daemon:
    """Register the bots, start the daemon (through the CLI, as a user does), play the match."""
    with Store(data, create=True) as store:
        store.add_local_bot("alpha", "random")
        store.add_local_bot("beta", "greedy")
        store.add_local_bot("xss", f'random "option.Note={HOSTILE}"')
        store.add_remote_bot("remote1")
    daemon = Daemon(data, *extra)
    answer = daemon.http.post(
        "/api/runs", json={"engines": ["alpha", "beta"], "rounds": 1, "tc": "5+0.05", "event": HOSTILE},
        headers={"Authorization": f"Bearer {admin_token(data)}"},
    )
    assert answer.status_code == 201, answer.text
    wait_finished(daemon.http, answer.json()["id"])
    return daemon


@asynccontextmanager
async def open_websocket_from(url: str, source: str, message_queue_size: int = 1) -> AsyncIterator[WebSocketConnection]:
    """A WebSocket to ``url`` (ws://127.0.0.1:PORT/...) from the loopback address ``source``: the
    daemon counts WebSockets per address, and a crowd of browsers comes from several."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    sock = trio.socket.socket()
    await sock.bind((source, 0))
    await sock.connect((parts.hostname, parts.port))
    async with trio.open_nursery() as nursery:
        socket = await wrap_client_stream(
            nursery, trio.SocketStream(sock), f"{parts.hostname}:{parts.port}", f"{parts.path}?{parts.query}",
            message_queue_size=message_queue_size,
        )
        try:
            yield socket
        finally:
            await socket.aclose()


def admin_token(data: Path) -> str:
    return (data / "admin.token").read_text().strip()


def wait_finished(http: httpx.Client, run_id: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if http.get(f"/api/runs/{run_id}").json()["state"] == "finished":
            return
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish in {timeout} s")


@dataclass
class SlowCount:
    """The in-process daemon's address and the gate of its run's standings count."""

    url: str
    run_id: int
    games: int
    release: threading.Event


@asynccontextmanager
async def counted_slowly(data: Path, games: int = 4) -> AsyncIterator[SlowCount]:
    """``santorini serve`` in this process (real sockets) over a finished ``games``-game match
    between ``alpha`` and ``beta``, whose standings stay "being counted" until ``release`` is set:
    the first count of the run waits until then, begun before any page is asked for."""
    with Store(data, create=True) as store:
        store.add_local_bot("alpha", "random")
        store.add_local_bot("beta", "greedy")
        run = store.create_run(
            "match", {"engines": ["random name=alpha", "greedy name=beta"], "rounds": games // 2, "event": "counted slowly"}
        )
        store.set_run_state(run.id, "running")
        archive = data / RUNS_DIR / str(run.id) / ARCHIVE
        archive.parent.mkdir(parents=True)
        with ArchiveWriter(archive) as writer:
            for number in range(1, games + 1):
                first, second = ("alpha", "beta") if number % 2 else ("beta", "alpha")
                record = a_record(number, first, second)
                writer.append(record)
                index_game(store, run.id, record)
        store.set_run_state(run.id, "finished")
        config = TournamentConfig.from_settings(msgspec.convert(run.settings, Settings))
    webs: list[WebContext] = []
    ready = trio.Event()
    said: list[str] = []

    def app(web: WebContext) -> object:
        webs.append(web)
        return dashboard_app(web)

    def say(line: str) -> None:
        said.append(line)
        ready.set()

    holding, release = threading.Event(), threading.Event()
    real_count = run_standings.count_run

    def slow(*args: Any, **kwargs: Any) -> Any:  # the first count (whoever makes it) is held
        if not holding.is_set():
            holding.set()
            assert release.wait(60), "the test did not release the count"
        return real_count(*args, **kwargs)

    run_standings.count_run = slow  # type: ignore[assignment]
    try:
        drain = trio.Event()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve, ServeOptions(data=data, http=("127.0.0.1", 0), bots=("127.0.0.1", 0)), say, drain, app)
            with trio.fail_after(30):
                await ready.wait()
            url = re.search(r"API (http://\S+),", said[0])
            assert url is not None, said
            views = webs[0].scheduler.standings
            holder = threading.Thread(
                target=partial(views.view, archive.parent, config, "gate", lambda *_: None, final=True), daemon=True
            )
            holder.start()
            try:
                with trio.fail_after(30):
                    await trio.to_thread.run_sync(holding.wait)
                yield SlowCount(url.group(1), run.id, games, release)
            finally:
                release.set()
                await trio.to_thread.run_sync(holder.join, 30)
                drain.set()
    finally:
        run_standings.count_run = real_count
