"""The HTTP port's bounds, as plain data and counting (SPEC.md sections 17.2 and 17.3).

No I/O here: :class:`ConnectionTable` counts the connections open on the HTTP port, per address
and in all, and which of them are WebSockets; the trio shell (:mod:`.http_serve`) asks it
whether a new connection may stay, tells it when bytes move and when a connection ends, and
closes what it names.  Its size is bounded by :attr:`HttpLimits.total`: an address leaves the
table with its last connection.

The Host and Origin rules are plain functions of the header values: a page the operator visits
elsewhere cannot reach the dashboard through a DNS name that resolves to this machine (its Host
is not one of the daemon's), nor open the WebSocket from its own origin.
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit

from .admission import address_key

__all__ = ["HttpLimits", "Connection", "ConnectionTable", "allowed_hosts", "split_authority", "host_allowed", "origin_allowed"]


@dataclass(frozen=True)
class HttpLimits:
    """The HTTP port's bounds.  A browser opens up to six connections to a host, and one
    WebSocket per dashboard page: 32 and 16 leave room for several tabs (or a few people
    behind one address) while one address cannot take more than a sixteenth of the port."""

    per_address: int = 32
    """Connections open at once from one address; more are closed on arrival, unread."""
    total: int = 512
    """Connections open at once; more are closed on arrival, unread."""
    pressure: int = 384
    """From this many connections on, each new one first closes the idle ones: silent for
    :attr:`idle_under_pressure` seconds with no request unanswered (WebSockets excepted)."""
    idle_under_pressure: float = 1.0
    websockets_per_address: int = 16
    """WebSockets open at once from one address (within :attr:`per_address`); more are closed 1013."""
    websockets_total: int = 256
    """WebSockets open at once; more are closed 1013."""
    websocket_message: int = 4096
    """Largest WebSocket message from a client, fragments included (bytes); more: closed 1009.
    The dashboard's pages send nothing."""
    websocket_close_reply: int = 64 * 1024
    """Bytes read from a WebSocket's client once the daemon has sent its close frame (room for the
    client's reply); then the connection is dropped.  Hypercorn waits for that reply, and keeps
    the message that was too big growing meanwhile."""
    head_timeout: float = 5.0
    """Seconds from a connection's start (or its previous answer) to a complete request head;
    then it is closed.  Hypercorn's keep-alive timer, which a trickle of bytes does not reset."""
    head_size: int = 16 * 1024
    """Largest request head (bytes); more is answered 400 and closed."""
    send_timeout: float = 60.0
    """Seconds one write to a client may take (a client that reads nothing); then it is closed."""
    tls_handshake_timeout: float = 10.0


@dataclass
class Connection:
    """One open connection: its peer, when bytes last moved on it (infinity while a write is in
    progress), whether the client sent bytes not answered yet, and whether it is a WebSocket."""

    key: int
    peer: tuple[str, int]
    active: float
    owed: bool = False
    websocket: bool = False
    reply_room: int | None = None
    """Bytes the client may still send after the daemon closed its WebSocket (None: not closed)."""

    def sent(self, data: bytes | bytearray | memoryview, room: int) -> None:
        """The daemon wrote ``data``: on a WebSocket, a close frame (a write is one frame) leaves
        the client ``room`` bytes for its reply."""
        if self.websocket and self.reply_room is None and data[:1] == b"\x88":
            self.reply_room = room

    def received(self, size: int) -> bool:
        """The client sent ``size`` bytes; False: more than its WebSocket's close leaves room for."""
        if self.reply_room is None:
            return True
        self.reply_room -= size
        return self.reply_room >= 0

    def idle(self, since: float) -> bool:
        """Waiting for its client, silent since ``since`` at least: it may be closed under pressure."""
        return not self.websocket and not self.owed and self.active <= since

    @property
    def address(self) -> str:
        """What the connection counts against: its IPv4 address, or its IPv6 /64 (the bot port's rule)."""
        return address_key(self.peer[0])


class ConnectionTable:
    """The open connections of the HTTP port, counted per address and in all."""

    def __init__(self, limits: HttpLimits | None = None) -> None:
        self.limits = limits or HttpLimits()
        self._open: dict[int, Connection] = {}
        self._peers: dict[tuple[str, int], int] = {}
        self._per_address: Counter[str] = Counter()
        self._websockets: Counter[str] = Counter()
        self._next = 0

    def __len__(self) -> int:
        return len(self._open)

    def count(self, address: str) -> int:
        """Connections open from ``address``."""
        return self._per_address[address]

    def admit(self, peer: tuple[str, int], now: float) -> tuple[Connection | None, list[Connection]]:
        """Take a new connection from ``peer`` (address, port) at time ``now``.

        Returns:
            The connection (None: refused, over a cap), and the connections to close first
            (under pressure: those silent for ``idle_under_pressure`` seconds, oldest first,
            already out of the table).
        """
        address = address_key(peer[0])
        if self._per_address[address] >= self.limits.per_address:
            return None, []
        evicted: list[Connection] = []
        if len(self._open) >= self.limits.pressure:
            quiet = now - self.limits.idle_under_pressure
            evicted = sorted((c for c in self._open.values() if c.idle(quiet)), key=lambda c: c.active)
            for connection in evicted:
                self.release(connection)
        if len(self._open) >= self.limits.total:
            return None, evicted
        self._next += 1
        connection = Connection(self._next, peer, now)
        self._open[connection.key] = connection
        self._peers[peer] = connection.key
        self._per_address[address] += 1
        return connection, evicted

    def release(self, connection: Connection) -> None:
        """``connection`` has ended (again: nothing happens)."""
        if self._open.pop(connection.key, None) is None:
            return
        if self._peers.get(connection.peer) == connection.key:
            del self._peers[connection.peer]
        _decrement(self._per_address, connection.address)
        if connection.websocket:
            _decrement(self._websockets, connection.address)

    def open_websocket(self, peer: tuple[str, int]) -> str | None:
        """The connection from ``peer`` becomes a WebSocket; the reason it may not (over a cap), or None."""
        key = self._peers.get(peer)
        connection = self._open.get(key) if key is not None else None
        if connection is None or connection.websocket:
            return None  # not one of this port's connections (an app served without the guard)
        if self._websockets[connection.address] >= self.limits.websockets_per_address:
            return f"too many WebSockets from this address (at most {self.limits.websockets_per_address})"
        if sum(self._websockets.values()) >= self.limits.websockets_total:
            return f"too many WebSockets (at most {self.limits.websockets_total})"
        connection.websocket = True
        self._websockets[connection.address] += 1
        return None


def _decrement(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]


def split_authority(text: str) -> tuple[str, int | None] | None:
    """``HOST[:PORT]`` (IPv6 as ``[ADDR][:PORT]``) as the lower-case host, without brackets or a
    final dot, and the port (None when absent); None when malformed."""
    text = text.strip().lower()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else None
    else:
        host, colon, port_text_ = text.partition(":")
        port_text = port_text_ if colon else None
    if port_text is not None and not (
        port_text.isascii() and port_text.isdigit() and len(port_text) <= 5 and int(port_text) <= 65535
    ):
        return None
    host = host.rstrip(".")
    if not host or any(c in host for c in "/\\@ ?#"):
        return None
    return host, int(port_text) if port_text is not None else None


def allowed_hosts(http_host: str, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The host names the daemon answers to: ``--http``'s host, ``localhost``, 127.0.0.1, ::1 and
    each ``--allowed-host``.  (A wildcard ``--http`` such as 0.0.0.0 names no host other machines
    use: they need ``--allowed-host``.)

    Raises:
        ValueError: an ``--allowed-host`` that is not a host name (a port, a path, a space...).
    """
    names = {"localhost", "127.0.0.1", "::1"}
    for name in extra:
        parts = split_authority(f"[{name}]" if _is_ipv6(name) else name)
        if parts is None or parts[1] is not None:
            raise ValueError(f"--allowed-host {name!r}: not a host name (a name or an address, without a port)")
        names.add(parts[0])
    names.add(http_host.strip("[]").lower().rstrip("."))
    return frozenset(names)


def _is_ipv6(text: str) -> bool:
    try:
        return ipaddress.ip_address(text).version == 6
    except ValueError:
        return False


def host_allowed(header: str | None, allowed: frozenset[str]) -> bool:
    """A ``Host`` header naming one of ``allowed`` (any port)."""
    parts = split_authority(header) if header is not None else None
    return parts is not None and parts[0] in allowed


def origin_allowed(origin: str | None, host_header: str | None, secure: bool, allowed: frozenset[str]) -> bool:
    """A WebSocket's ``Origin`` is the daemon's own: the host and port the request was sent to
    (its ``Host``), the host one of ``allowed``.  No ``Origin`` at all (not a browser) is allowed."""
    if origin is None:
        return True
    parsed = urlsplit(origin.strip().lower())
    origin_parts = split_authority(parsed.netloc) if parsed.scheme in ("http", "https") else None
    host_parts = split_authority(host_header) if host_header is not None else None
    if origin_parts is None or host_parts is None or origin_parts[0] not in allowed:
        return False
    origin_port = origin_parts[1] or (443 if parsed.scheme == "https" else 80)
    host_port = host_parts[1] or (443 if secure else 80)
    return origin_parts[0] == host_parts[0] and origin_port == host_port
