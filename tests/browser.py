"""A real headless Chromium for the browser tests, driven by Selenium through Debian's chromedriver.

Why Selenium with ``/usr/bin/chromedriver``: Debian ships chromium and chromium-driver from one
source package at one version, so the driver can never drift from the browser, and
``SE_OFFLINE=true`` stops Selenium Manager from trying to download either. Playwright's Python
package would pin its own browser build, which this machine cannot download.

The browser's own logs are the witnesses: console messages come from the ``browser`` log and every
request the page makes from the ``performance`` (DevTools Network) log, so "no console errors" and
"no network request" are checked by Chromium itself, not by our JavaScript.

On a machine without Chromium the tests that use :func:`chromium` are skipped with one line saying
how to install it; CI (``.ci/run``) installs it, so there they always run.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
INSTALL_HINT = "needs Chromium: apt-get install chromium chromium-driver (Debian), then pip install -e '.[test]'"

# The flags a sandboxed, offline root machine needs: no sandbox as root, no GPU, and nothing that
# phones home (without these, Chromium's background connections are refused many at a time).
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--metrics-recording-only",
    "--window-size=1280,900",
)


INTERNAL = ("data:", "blob:", "chrome:", "chrome-untrusted:", "chrome-search:", "chrome-extension:", "devtools:", "about:")


def available() -> bool:
    """True when both Debian packages and the selenium package are present."""
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        return False
    try:
        import selenium  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Browser:
    """One Chromium session: the Selenium driver plus the log entries it has drained so far."""

    driver: Any
    profile: Path
    console: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def open(self, path: Path, fragment: str = "") -> None:
        """Open a local file by its file URL (as a user double-clicking it would); logs start afresh."""
        self.drain_logs()
        self.console.clear()
        self.requests.clear()
        self.driver.get(path.resolve().as_uri() + fragment)

    def drain_logs(self) -> None:
        """Move the browser's console and network logs into :attr:`console` and :attr:`requests`."""
        self.console.extend(self.driver.get_log("browser"))
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])

    def console_errors(self) -> list[str]:
        """Console messages at SEVERE level (uncaught exceptions, failed loads, console.error)."""
        self.drain_logs()
        return [e["message"] for e in self.console if e.get("level") == "SEVERE"]

    def network_requests(self, allowed: Path | None = None) -> list[str]:
        """Every URL requested that is not a local file under ``allowed``, an inline ``data:`` URL or
        one of Chromium's own pages (``chrome:``, ``about:``)."""
        self.drain_logs()
        prefix = allowed.resolve().as_uri() if allowed is not None else None
        return [
            url
            for url in self.requests
            if not url.startswith(INTERNAL) and not (prefix is not None and url.startswith(prefix))
        ]

    def js(self, script: str, *args: Any) -> Any:
        """Run ``script`` in the page (``return`` gives the value back)."""
        return self.driver.execute_script(script, *args)

    def screenshot(self, path: Path) -> Path:
        """Save a PNG of the viewport, kept as a test artefact."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(path))
        return path


def launch() -> Browser:
    """Start headless Chromium with console and network logging on."""
    os.environ["SE_OFFLINE"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = Path(tempfile.mkdtemp(prefix="santorini-chromium-"))
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return Browser(driver, profile)


def artefacts_dir() -> Path:
    """Where screenshots are kept: ``$SANTORINI_ARTEFACTS`` or ``test-artefacts/`` in the checkout."""
    return Path(os.environ.get("SANTORINI_ARTEFACTS", Path(__file__).resolve().parent.parent / "test-artefacts"))


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One browser per test module (starting Chromium costs about a second)."""
    if not available():
        pytest.skip(INSTALL_HINT)
    browser = launch()
    try:
        yield browser
    finally:
        browser.driver.quit()
        shutil.rmtree(browser.profile, ignore_errors=True)
