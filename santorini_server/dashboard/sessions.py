"""Browser sessions of the dashboard: who signed in as admin, and each session's CSRF token.

Theory of operation (SPEC.md section 17.2).  The admin signs in by typing the admin token into a
form (POST, so the token is never in a URL); the server compares it in constant time and marks
the *session* as admin.  The browser holds only a random session id, in a cookie that is
``HttpOnly`` (no script, not even an injected one, can read it), ``SameSite=Strict`` (another
site's page cannot make the browser send it) and ``Secure`` under TLS.  So the token never
reaches the browser's storage: the alternative, the token in ``sessionStorage`` sent as a header
by a script, would hand it to any script that ever runs in the page.

Every form carries its session's CSRF token (a second random value, kept server-side beside the
session), checked on POST in constant time, and the POST's ``Origin``, when the browser sends
one, must be the dashboard's own.

Sessions live in memory (a restart signs everyone out), at most :data:`MAX_SESSIONS` of them
(beyond, the least recently used visitor's session goes first and an admin's last, so a flood
of anonymous visitors can neither grow the table nor sign the admin out),
each for :data:`SESSION_TTL` seconds after its last use.  Pure: the clock is passed in.
"""

from __future__ import annotations

import hmac
import secrets
from collections import OrderedDict
from dataclasses import dataclass

__all__ = ["COOKIE", "MAX_SESSIONS", "SESSION_TTL", "Session", "Sessions", "same_origin"]

COOKIE = "santorini_session"
MAX_SESSIONS = 1024
"""Sessions kept at once: many more than people watching one daemon; a flood evicts the oldest."""
SESSION_TTL = 12 * 3600.0
"""Seconds a session lives after its last request (a working day)."""


@dataclass
class Session:
    """One browser's session: its CSRF token, whether it signed in as admin, when last used."""

    id: str
    csrf: str
    admin: bool
    used: float

    def csrf_ok(self, given: str | None) -> bool:
        """The form's CSRF field is this session's token (constant-time comparison)."""
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), self.csrf.encode("ascii"))


class Sessions:
    """The live sessions, by id (see the module docstring)."""

    def __init__(self, limit: int = MAX_SESSIONS, ttl: float = SESSION_TTL) -> None:
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self.limit = limit
        self.ttl = ttl

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, session_id: str | None, now: float) -> Session | None:
        """The session of a cookie's id, if it is alive; using it extends its life."""
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            return None
        if now - session.used > self.ttl:
            del self._sessions[session_id]
            return None
        session.used = now
        self._sessions.move_to_end(session_id)
        return session

    def new(self, now: float, *, admin: bool = False) -> Session:
        """A fresh session (fresh id and CSRF token), evicting a visitor's session beyond the limit."""
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), admin, now)
        self._sessions[session.id] = session
        while len(self._sessions) > self.limit:
            # a visitor's session goes before an admin's: a flood of anonymous page views cannot sign the admin out
            oldest = next((key for key, kept in self._sessions.items() if not kept.admin and key != session.id), None)
            if oldest is None:
                self._sessions.popitem(last=False)
            else:
                del self._sessions[oldest]
        return session

    def sign_in(self, old: Session | None, now: float) -> Session:
        """The admin's new session: a new id on sign-in (a session id planted before cannot be
        promoted: session fixation), the old one forgotten."""
        if old is not None:
            self._sessions.pop(old.id, None)
        return self.new(now, admin=True)

    def sign_out(self, session: Session) -> None:
        self._sessions.pop(session.id, None)


def same_origin(origin: str | None, fetch_site: str | None, scheme: str, host: str | None) -> bool:
    """Whether a POST's ``Origin`` and ``Sec-Fetch-Site`` headers allow it.

    A browser that sends ``Sec-Fetch-Site`` says where the request comes from: only
    ``same-origin`` passes.  ``Origin``, when it names a site, must be exactly this dashboard's
    ``scheme://host``.  It is ``null`` for a form posted from a page whose referrer policy is
    ``no-referrer`` (ours: Chromium then hides the origin even from the site itself), so ``null``
    passes only with ``Sec-Fetch-Site: same-origin``.  Neither header (not a browser): the CSRF
    token alone guards."""
    if fetch_site is not None and fetch_site != "same-origin":
        return False
    if origin is None:
        return True
    if origin == "null":
        return fetch_site == "same-origin"
    return host is not None and origin == f"{scheme}://{host}"
