"""The daemon's HTTP app with the dashboard: the job API, the pages, the static files and the
security headers on every response (SPEC.md section 17).

``santorini serve`` passes :func:`dashboard_app` to the daemon as its app factory (the server
layer cannot import the dashboard, which imports it).
"""

from __future__ import annotations

from starlette.applications import Starlette

from ..server.api import create_app
from ..server.daemon import WebContext
from .pages import page_routes
from .security import SecurityHeaders

__all__ = ["dashboard_app"]


def dashboard_app(web: WebContext) -> Starlette:
    """The job API plus the dashboard's routes, every HTTP response carrying the security headers."""
    app = create_app(web.store, web.registry, web.scheduler, web.admin_token)
    app.router.routes.extend(page_routes(web.store, web.registry, web.scheduler, web.admin_token, secure=web.secure))
    app.add_middleware(SecurityHeaders)
    return app
