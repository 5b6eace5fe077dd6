"""Fixtures shared by test modules: ``chromium``, a real headless browser (tests/browser.py); and
the ``slow`` mark on the modules that start daemons, browsers, clusters or many engine processes,
so that ``pytest -m "not slow"`` is the inner loop's fast subset (under two minutes on two cores)."""

from __future__ import annotations

import pytest

from tests.browser import chromium

__all__ = ["chromium"]

SLOW_MODULES = frozenset({
    "tests.hostile_clients.test_attacks", "tests.hostile_clients.test_fuzz_daemon", "tests.test_check",
    "tests.test_dashboard_browser", "tests.test_dashboard_live", "tests.test_dask_backend", "tests.test_dask_security",
    "tests.test_hostile", "tests.test_oracle", "tests.test_oracle_cross", "tests.test_pool", "tests.test_server_bot_cli",
    "tests.test_server_dask", "tests.test_server_gateway", "tests.test_server_remote_runs", "tests.test_server_serve",
    "tests.test_tournament", "tests.test_tournament_nseat", "tests.test_viewer_browser", "tests.test_report_browser",
    "tests.test_ladder_pool", "tests.test_ladder_start", "tests.test_bench_pipeline_smoke", "tests.test_analysis_browser",
    "tests.test_server_http", "tests.test_server_http_limits", "tests.test_server_damage", "tests.test_dashboard_http",
    "tests.test_adapter_santorini_ai", "tests.test_adapters", "tests.test_analyse",
})
"""The modules that take longest (real daemons, browsers, Dask clusters, full tournaments)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.module is not None and item.module.__name__ in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
