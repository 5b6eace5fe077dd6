"""The dashboard's and the viewer's static files, served by the daemon at ``/static/``."""

from __future__ import annotations

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

__all__ = ["static_mount"]


def static_mount() -> Mount:
    """``/static/dashboard/...`` and ``/static/viewer/...`` from the two packages' data."""
    return Mount(
        "/static",
        app=StaticFiles(packages=[("santorini_server.dashboard", "static"), ("santorini_server.viewer", "static")]),
        name="static",
    )
