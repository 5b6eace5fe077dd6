"""Which connections the bot port admits, and which it closes to make room (SPEC.md section 16.3), sans-IO.

A connection is *pending* from its accept to its ``loginok`` (its TLS handshake, its login line on
the way, a login held back after failures), then *logged in*.  Pending connections are the
anonymous ones, so a flood is made of them; logged-in ones hold a token, and there is one per bot
(the registry's rule).  The table applies three rules:

* **Per address** (an IPv4 address; an IPv6 /64, see :func:`address_key`): at most
  ``per_address`` pending connections at once; one more is refused (closed on arrival).  Logged-in
  connections do not count: one machine, or one NAT, may run any number of bots.
* **Overall**: at most ``max_connections`` connections, pending or logged in.  A newcomer that
  finds them all open takes the place of the oldest pending connection of the address that has
  the most pending, if its own address has fewer than that one; otherwise it is refused (closed on
  arrival).  So when the port is full, slots go to the addresses that hold fewest: a flood pushes
  out only its own connections, and a real bot (one pending connection) gets in unless a flood
  holds a single pending connection on each of ``max_connections`` addresses.
* **Pressure**: a connection admitted while the pending connections take more than ``pressure``
  of the room the logged-in ones leave (``pending > pressure * (max_connections - logged_in)``)
  is *pressed*: the gateway gives it the short login deadline.  Logged-in bots are no flood, so
  a server with many of them is not under pressure for that; but the less room they leave, the
  fewer pending connections it takes.

Entries exist only for pending connections and for addresses with one, and a set of logged-in
tickets, so the table never holds more than ``max_connections`` of each, whatever the number of
addresses that connect.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

__all__ = ["Admission", "Arrival", "address_key"]


def address_key(host: str) -> str:
    """The address a connection counts against: an IPv4 address as it is, an IPv6 address by its
    /64 (``2001:db8:1:2::/64``: one site or one host gets a whole /64, so counting single IPv6
    addresses would give one attacker 2^64 of them), an IPv4-mapped IPv6 address as its IPv4
    address; anything else (not an IP address) as given."""
    try:
        ip = ipaddress.ip_address(host.partition("%")[0])  # a link-local address's zone dropped
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(frozen=True)
class Arrival:
    """What :meth:`Admission.arrive` decided for a new connection."""

    ticket: int | None
    """The connection's ticket; ``None``: refused, close it at once."""
    refused: str | None = None
    """Why it was refused: ``"address"`` (its address has ``per_address`` pending) or ``"full"``."""
    evicted: int | None = None
    """The pending connection to close to make room for this one (the oldest), if any."""
    pressed: bool = False
    """Admitted under pressure: the short login deadline applies."""


class Admission:
    """The bot port's connections, pending and logged in (see the module docstring)."""

    def __init__(self, *, max_connections: int = 2048, per_address: int = 16, pressure: float = 0.5) -> None:
        self.max_connections = max_connections
        self.per_address = per_address
        self.pressure = pressure
        self._pending: dict[int, str] = {}
        """Pending tickets and their address keys."""
        self._of: dict[str, dict[int, None]] = {}
        """Each address key's pending tickets, oldest first (keys with none are dropped)."""
        self._holding: dict[int, dict[str, None]] = {}
        """The address keys holding exactly N pending connections, by N (empty N dropped)."""
        self._logged_in: set[int] = set()
        self._next = 0

    @property
    def total(self) -> int:
        """Connections open (pending and logged in)."""
        return len(self._pending) + len(self._logged_in)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def pending_from(self, key: str) -> int:
        """Pending connections of one address key."""
        return len(self._of.get(key, ()))

    def addresses(self) -> int:
        """Address keys with a pending connection (the per-address table's size)."""
        return len(self._of)

    def arrive(self, key: str) -> Arrival:
        """A connection from ``key`` (an :func:`address_key`) was accepted: admit it or not."""
        own = self.pending_from(key)
        if own >= self.per_address:
            return Arrival(None, refused="address")
        evicted = None
        if self.total >= self.max_connections:
            most = max(self._holding, default=0)
            if own >= most:  # nobody holds more than this address (or nothing is pending)
                return Arrival(None, refused="full")
            evicted = next(iter(self._of[next(iter(self._holding[most]))]))
            self.leave(evicted)
        ticket = self._next
        self._next += 1
        self._pending[ticket] = key
        self._of.setdefault(key, {})[ticket] = None
        self._move(key, own, own + 1)
        room = self.max_connections - len(self._logged_in)
        return Arrival(ticket, evicted=evicted, pressed=len(self._pending) > self.pressure * room)

    def logged_in(self, ticket: int) -> bool:
        """The connection logged in: no longer pending (nor counted against its address).  False
        if it was not pending (it was closed to make room meanwhile)."""
        if not self._forget_pending(ticket):
            return False
        self._logged_in.add(ticket)
        return True

    def leave(self, ticket: int) -> None:
        """The connection is closed (any number of times)."""
        if not self._forget_pending(ticket):
            self._logged_in.discard(ticket)

    def _forget_pending(self, ticket: int) -> bool:
        key = self._pending.pop(ticket, None)
        if key is None:
            return False
        tickets = self._of[key]
        del tickets[ticket]
        if not tickets:
            del self._of[key]
        self._move(key, len(tickets) + 1, len(tickets))
        return True

    def _move(self, key: str, before: int, after: int) -> None:
        if before:
            keys = self._holding[before]
            del keys[key]
            if not keys:
                del self._holding[before]
        if after:
            self._holding.setdefault(after, {})[key] = None
