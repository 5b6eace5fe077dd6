"""A real ``santorini serve`` with the dashboard, shared by the dashboard's HTTP and browser tests.

The data directory holds two local bundled bots that play (``alpha`` random, ``beta`` greedy), a
local bot whose engine spec carries hostile text (``xss``: the spec is shown on its page), a
remote bot never connected (``remote1``), and one finished match between ``alpha`` and ``beta``
whose run name (``event``) is hostile text too.  Bot names cannot carry markup (the name rule
refuses ``<``), so the untrusted text the pages must escape is the spec and the run name.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from santorini_server.server.store import Store

from .test_server_serve import Daemon

__all__ = ["HOSTILE", "start_dashboard", "wait_finished", "admin_token"]

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


def admin_token(data: Path) -> str:
    return (data / "admin.token").read_text().strip()


def wait_finished(http: httpx.Client, run_id: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if http.get(f"/api/runs/{run_id}").json()["state"] == "finished":
            return
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish in {timeout} s")
