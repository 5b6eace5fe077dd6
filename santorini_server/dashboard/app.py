"""The daemon's HTTP app with the dashboard: the job API, the pages, the live games (the
WebSocket and the game pages), the static files and the security headers on every response
(SPEC.md section 17).

``santorini serve`` passes :func:`dashboard_app` to the daemon as its app factory (the server
layer cannot import the dashboard, which imports it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
from starlette.applications import Starlette

from ..server.api import create_app
from ..server.daemon import WebContext
from .live_routes import live_routes
from .pages import page_routes, warm_standings
from .security import SecurityHeaders

__all__ = ["dashboard_app"]


def dashboard_app(web: WebContext) -> Starlette:
    """The job API plus the dashboard's routes, every HTTP response carrying the security headers.

    While the app is served (its lifespan), a task counts the listed runs' standings in the
    background (:func:`warm_standings`), cancelled when the server stops."""
    app = create_app(web.store, web.registry, web.scheduler, web.admin_token)
    app.router.routes.extend(
        page_routes(web.store, web.registry, web.scheduler, web.admin_token, secure=web.secure)
    )
    app.router.routes.extend(live_routes(web.store, web.scheduler, web.hub))
    app.add_middleware(SecurityHeaders)

    @asynccontextmanager
    async def lifespan(_: object) -> AsyncIterator[None]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(warm_standings, web.store, web.scheduler)
            yield
            nursery.cancel_scope.cancel()

    app.router.lifespan_context = lifespan
    return app
