"""Fixtures shared by test modules: ``chromium``, a real headless browser (tests/browser.py)."""

from tests.browser import chromium

__all__ = ["chromium"]
