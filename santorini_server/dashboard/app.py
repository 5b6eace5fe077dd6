"""The daemon's HTTP app with the dashboard: the job API, the pages, the live games (the
WebSocket and the game pages), the static files and the security headers on every response
(SPEC.md section 17).

``santorini serve`` passes :func:`dashboard_app` to the daemon as its app factory (the server
layer cannot import the dashboard, which imports it).

The dashboard's routes are built on their first request (or by the warm-up, in a worker
thread, whichever comes first): its modules bring the templates, the report's tables and the
standings code, a tenth of a second of imports the daemon need not pay before it accepts
connections (SPEC.md section 16.4: under a second).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import trio
from starlette.routing import Mount, Router
from starlette.types import ASGIApp, Receive, Scope, Send

from ..server.api import create_app
from ..server.daemon import WebContext
from .security import SecurityHeaders, SiteGuard

__all__ = ["dashboard_app"]

_MODULES = ("santorini_server.dashboard.pages", "santorini_server.dashboard.live_routes")


class _Deferred:
    """An ASGI app made by ``build`` when first needed (at most once, from any thread)."""

    def __init__(self, build: Callable[[], ASGIApp]) -> None:
        self._build = build
        self._app: ASGIApp | None = None
        self._lock = threading.Lock()

    def app(self) -> ASGIApp:
        with self._lock:
            if self._app is None:
                self._app = self._build()
            return self._app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await (self._app or self.app())(scope, receive, send)


def dashboard_app(web: WebContext) -> ASGIApp:
    """The job API plus the dashboard's routes for the daemon's host names only, every HTTP
    response carrying the security headers (the job API's 500 and the 400 for a foreign host too).

    While the app is served (its lifespan), a task builds the dashboard's routes in a worker
    thread, then counts the listed runs' standings in the background (``warm_standings``),
    cancelled when the server stops."""

    def build() -> ASGIApp:
        from .live_routes import live_routes
        from .pages import page_routes

        pages = page_routes(web.store, web.registry, web.scheduler, web.admin_token, secure=web.secure)
        return Router(routes=[*pages, *live_routes(web.store, web.scheduler, web.hub)])

    dashboard = _Deferred(build)
    app = create_app(web.store, web.registry, web.scheduler, web.admin_token)
    app.router.routes.append(Mount("", app=dashboard))  # after the job API's routes: every other path

    async def warm() -> None:
        for module in _MODULES:
            await trio.to_thread.run_sync(importlib.import_module, module)
        await trio.to_thread.run_sync(dashboard.app)
        from .pages import warm_standings

        await warm_standings(web.store, web.scheduler)

    @asynccontextmanager
    async def lifespan(_: object) -> AsyncIterator[None]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm)
            yield
            nursery.cancel_scope.cancel()

    app.router.lifespan_context = lifespan
    # outside Starlette's own ServerErrorMiddleware, so that a 500 carries the headers too
    return SecurityHeaders(SiteGuard(app, web.hosts, web.connections))
