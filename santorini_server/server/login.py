"""The bot port's login line and its failure penalty, sans-IO (SPEC.md section 16.3).

``login NAME TOKEN`` is the first line a remote bot sends; :func:`parse_login` checks it and
:class:`LoginFailures` slows down an address that keeps failing: after ``free`` failures its next
login line is held back before it is checked, twice as long after each further failure (capped).
Time is passed in, never read, and the table is bounded against an attacker who spreads failures
over many addresses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .names import NAME_RULE, check_bot_name

__all__ = ["LoginError", "parse_login", "LoginFailures", "MAX_TOKEN_LENGTH", "SERVER_ERROR", "RETRIED_REFUSALS"]

MAX_TOKEN_LENGTH = 128
"""Tokens are 43 characters (32 random bytes, URL-safe base64); longer ones are not ours."""
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_TOKEN_LENGTH}}}")


SERVER_ERROR = "server error, try again later"
"""The refusal when the login could not be checked (the store failed): not the bot's fault."""
RETRIED_REFUSALS = ("already connected", SERVER_ERROR)
"""Beginnings of the ``error`` answers after which a bot should log in again later (the bridge
does); every other refusal is final (a wrong token, a revoked bot)."""


class LoginError(ValueError):
    """A login line that is not ``login NAME TOKEN``; the message is what ``error`` answers."""


def parse_login(line: bytes) -> tuple[str, str]:
    """``(name, token)`` of a login line (without its line end).

    Raises:
        LoginError: anything else (binary garbage, a bad name, a malformed token).
    """
    try:
        text = line.decode("ascii").rstrip("\r")
    except UnicodeDecodeError:
        raise LoginError("expected `login NAME TOKEN`") from None
    words = text.split(" ")
    if len(words) != 3 or words[0] != "login":
        raise LoginError("expected `login NAME TOKEN`")
    name, token = words[1], words[2]
    try:
        check_bot_name(name)
    except ValueError:
        raise LoginError(f"bad bot name ({NAME_RULE})") from None
    if not _TOKEN.fullmatch(token):
        raise LoginError("bad token")
    return name, token


_MAX_DOUBLINGS = 64
"""Doublings counted at most: ``base * 2.0 ** 64`` is far past any cap, and a larger power would
overflow a float (``2.0 ** 1024`` raises ``OverflowError``; an address reaches 1,030 failures in
seconds)."""


@dataclass
class _Record:
    failures: int
    """Failures of the address not forgotten (the delay's count)."""
    last: float
    """When the latest one happened."""
    names: dict[str, int]
    """How many of them named each bot (lower case), latest first; at most ``max_names``."""


class LoginFailures:
    """Failed logins per address, and how long the address's next login is held back.

    An address with ``n`` failures has its next login line held ``delay`` seconds *before* it is
    checked: nothing while ``n < free`` (nor ever at ``n == 0``), then ``base``, twice that after
    one more failure, and so on up to ``cap``.  Holding back before the check (not the ``error``
    after it) is what slows guessing: a right token is not answered sooner than a wrong one.  A
    good login clears only the failures that named the same bot, so owning one bot does not wipe
    an address's failures at guessing the others' tokens.

    Args:
        free: failures that cost nothing.
        base: the first delay, seconds; each failure after doubles it, up to ``cap``.
        forget: seconds without a failure after which an address starts afresh.
        max_addresses: addresses remembered at most (the one whose latest failure is oldest is
            forgotten first).
        max_names: bot names remembered per address at most; failures of a name forgotten this
            way still count for the address but no good login clears them.
    """

    def __init__(
        self,
        *,
        free: int = 5,
        base: float = 1.0,
        cap: float = 20.0,
        forget: float = 3600.0,
        max_addresses: int = 10_000,
        max_names: int = 16,
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = forget
        self.max_addresses = max_addresses
        self.max_names = max_names
        self._table: dict[str, _Record] = {}

    def __len__(self) -> int:
        return len(self._table)

    def failures(self, address: str, now: float) -> int:
        """The failures of ``address`` that count at ``now``."""
        record = self._live(address, now)
        return 0 if record is None else record.failures

    def delay(self, address: str, now: float) -> float:
        """Seconds to hold a login line of ``address`` before checking it."""
        failures = self.failures(address, now)
        free = max(self.free, 1)  # an address without failures never waits
        if failures < free:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(failures - free, _MAX_DOUBLINGS))

    def failed(self, address: str, now: float, name: str | None = None) -> None:
        """Count a failed login of ``address``; ``name``: the bot it named (``None``: a line that
        named none, such as a malformed one)."""
        record = self._live(address, now)
        if record is None:
            record = _Record(0, now, {})
        else:
            del self._table[address]
        record.failures += 1
        record.last = now
        if name is not None:
            name = name.lower()
            record.names[name] = record.names.pop(name, 0) + 1  # re-inserted: latest last
            while len(record.names) > self.max_names:
                del record.names[next(iter(record.names))]
        self._table[address] = record  # re-inserted: the dict's order is the order of last failure
        while len(self._table) > self.max_addresses:
            del self._table[next(iter(self._table))]

    def succeeded(self, address: str, name: str) -> None:
        """A good login of bot ``name`` from ``address`` clears the failures that named it."""
        record = self._table.get(address)
        if record is None:
            return
        record.failures -= record.names.pop(name.lower(), 0)
        if record.failures <= 0:
            del self._table[address]

    def _live(self, address: str, now: float) -> _Record | None:
        record = self._table.get(address)
        if record is not None and now - record.last > self.forget:
            del self._table[address]
            return None
        return record
