"""The bot port's login line and its failure penalty, sans-IO (SPEC.md section 16.3).

``login NAME TOKEN`` is the first line a remote bot sends; :func:`parse_login` checks it and
:class:`LoginFailures` slows down an address that keeps failing: the first ``free`` failures
cost nothing, each one after waits twice as long as the last (capped) before its ``error`` is
answered.  Time is passed in, never read, and the table is bounded against an attacker who
spreads failures over many addresses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .names import NAME_RULE, check_bot_name

__all__ = ["LoginError", "parse_login", "LoginFailures", "MAX_TOKEN_LENGTH"]

MAX_TOKEN_LENGTH = 128
"""Tokens are 43 characters (32 random bytes, URL-safe base64); longer ones are not ours."""
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_TOKEN_LENGTH}}}")


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


@dataclass
class _Record:
    failures: int
    last: float


class LoginFailures:
    """Failed logins per address, and the delay each address's next failure is answered with.

    Args:
        free: failures answered at once; the next waits ``base`` seconds, then twice as long
            each time, up to ``cap``.
        forget: seconds without a failure after which an address starts afresh.
        max_addresses: addresses remembered at most (the oldest is forgotten first).
    """

    def __init__(
        self, *, free: int = 5, base: float = 1.0, cap: float = 60.0, forget: float = 3600.0, max_addresses: int = 10_000
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = forget
        self.max_addresses = max_addresses
        self._table: dict[str, _Record] = {}

    def __len__(self) -> int:
        return len(self._table)

    def failed(self, address: str, now: float) -> float:
        """Count a failure of ``address``; the seconds to wait before answering it."""
        record = self._table.pop(address, None)
        if record is None or now - record.last > self.forget:
            record = _Record(0, now)
        record.failures += 1
        record.last = now
        self._table[address] = record  # re-inserted: the dict's order is the order of last failure
        while len(self._table) > self.max_addresses:
            del self._table[next(iter(self._table))]
        over = record.failures - self.free
        return 0.0 if over <= 0 else min(self.cap, self.base * 2 ** (over - 1))

    def succeeded(self, address: str) -> None:
        """A good login from ``address`` clears its count."""
        self._table.pop(address, None)
