"""The browser harness's witnesses can fail: a page that throws and fetches is caught by both."""

from __future__ import annotations

import time
from pathlib import Path

from tests.browser import Browser


def test_a_quiet_local_page_has_no_errors_and_no_requests(chromium: Browser, tmp_path: Path) -> None:
    page = tmp_path / "quiet.html"
    page.write_text("<!doctype html><svg id='s' data-h='3'></svg><script>console.log('fine')</script>")
    chromium.open(page)
    assert chromium.js("return document.getElementById('s').dataset.h") == "3"
    assert chromium.console_errors() == []
    assert chromium.network_requests(allowed=tmp_path) == []


def test_an_uncaught_error_and_a_remote_fetch_are_both_seen(chromium: Browser, tmp_path: Path) -> None:
    page = tmp_path / "noisy.html"
    page.write_text("<!doctype html><img src='http://example.invalid/x.png'><script>throw new Error('boom')</script>")
    chromium.open(page)
    deadline = time.monotonic() + 5
    while not chromium.console_errors() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any("boom" in message for message in chromium.console_errors())
    assert chromium.network_requests(allowed=tmp_path) == ["http://example.invalid/x.png"]
