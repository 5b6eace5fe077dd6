"""The security headers on every HTTP response of the daemon (SPEC.md section 17.2).

Set always, not only with ``--public``: they cost nothing, and a dashboard that is safe on
loopback stays safe when someone later forwards its port.  The policy allows scripts and
styles only from the daemon itself (no inline script, nothing third-party), inline ``style``
attributes (the viewer's SVG sets some), images from the daemon or ``data:`` URLs, fetches and
WebSockets to the daemon only, forms posting to the daemon only, and no framing at all.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "SecurityHeaders"]

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
