"""Bot login: does this token belong to this bot? (SPEC.md section 16.2)

The bot gateway asks :meth:`StoreAuthenticator.authenticate` for every ``login NAME TOKEN``. It
answers from an in-memory copy of the token hashes of the remote bots that may log in, so a
flood of logins costs a hash and a dict look-up each, not a database query. The copy is
refreshed when SQLite's ``data_version`` says another connection committed: the daemon's writer,
or ``santorini bot revoke`` run in another terminal while the daemon runs. So a revoked token stops
working at the next login attempt, with no signal between the processes.

Every answer costs the same: an unknown name, a local or revoked bot, and a wrong token all run
one SHA-256 and one :func:`hmac.compare_digest` (:func:`~.tokens.token_matches`), so the time
taken does not tell whether a name exists.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from .store import Store

if TYPE_CHECKING:
    from .async_store import AsyncStore
from .tokens import token_matches

__all__ = ["BotAuthenticator", "StoreAuthenticator"]


class BotAuthenticator(Protocol):
    """What the bot gateway needs to check a login."""

    def authenticate(self, name: str, token: str) -> bool:
        """True only for a registered, unrevoked remote bot and its current token; constant-time."""
        ...


class StoreAuthenticator:
    """:class:`BotAuthenticator` over the store of a data directory.

    Opens its own read-only connection; safe to call from several threads (the gateway calls it
    through ``trio.to_thread.run_sync``: it may touch SQLite to check ``data_version``).
    """

    def __init__(self, store: Store | AsyncStore) -> None:
        self._reader = Store(store.data_dir, readonly=True)
        self._lock = threading.Lock()
        self._version = -1
        self._hashes: dict[str, str] = {}

    def _refresh(self) -> None:
        version = self._reader.data_version()
        if version != self._version:
            self._hashes = self._reader.token_hashes()
            self._version = version

    def authenticate(self, name: str, token: str) -> bool:
        with self._lock:
            self._refresh()
            stored = self._hashes.get(name.lower())
        return token_matches(token, stored)

    def close(self) -> None:
        self._reader.close()
