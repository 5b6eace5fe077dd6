"""The security headers on every HTTP response of the daemon, and the Host and Origin rules
(SPEC.md section 17.2).

Set always, not only with ``--public``: they cost nothing, and a dashboard that is safe on
loopback stays safe when someone later forwards its port.  The policy allows scripts and
styles only from the daemon itself (no inline script, nothing third-party), inline ``style``
attributes (the viewer's SVG sets some), images from the daemon or ``data:`` URLs, fetches and
WebSockets to the daemon only, forms posting to the daemon only, and no framing at all.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..server.http_guard import ConnectionTable, host_allowed, origin_allowed

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SecurityHeaders", "SiteGuard"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
)
_ENCODED = [(name.encode("ascii"), value.encode("ascii")) for name, value in SECURITY_HEADERS]
_NAMES = {name for name, _ in _ENCODED}


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response (replacing any
    the app set); WebSocket and lifespan traffic pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in _NAMES]
                message = {**message, "headers": headers + _ENCODED}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class SiteGuard:
    """ASGI middleware: only requests for the daemon's own host names (a page elsewhere whose DNS
    name resolves to this machine gets 400), WebSockets only from the daemon's own pages (another
    origin's is refused before its handshake ends: Hypercorn answers 403) and, with ``connections``,
    at most the WebSockets its limits allow (more: accepted, then closed 1013 with the reason)."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str], connections: ConnectionTable | None = None) -> None:
        self.app = app
        self.hosts = hosts
        self.connections = connections

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not host_allowed(host, self.hosts):
            if scope["type"] == "http":
                shown = repr(host[:80]) if host is not None else "no Host header"
                await PlainTextResponse(f"unknown host: {shown} is not a name of this server", 400)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "websocket":
            if not origin_allowed(headers.get("origin"), host, scope.get("scheme") == "wss", self.hosts):
                await send({"type": "websocket.close", "code": 1008})
                return
            client = scope.get("client")
            refused = self.connections.open_websocket((client[0], client[1])) if self.connections and client else None
            if refused is not None:
                await receive()  # websocket.connect
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": 1013, "reason": refused[:120]})
                return
        await self.app(scope, receive, send)
