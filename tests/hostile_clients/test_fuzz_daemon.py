"""Property-based fuzzing of a running daemon (hypothesis): login lines and SEI lines on the bot
port, request bodies on the job API.  Whatever a client sends, the daemon answers within its
bounds (an ``error`` line or a close; a 2xx or a 4xx, never a 5xx), makes no run it should not,
and stays healthy (:meth:`Siege.health`) with its match in flight going on.

Bounded for CI (``SANTORINI_FUZZ_EXAMPLES`` examples a property, 120 by default); longer as a
benchmark: ``python tools/bench_hostile.py --fuzz 5000``.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from itertools import count

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import Siege

EXAMPLES = int(os.environ.get("SANTORINI_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
ERRORS = (b"error ", b"")
_address = count(1)


def _source() -> str:
    """A fresh loopback address per example (127.1.x.y), so no back-off carries over between examples."""
    n = next(_address)
    return f"127.1.{n // 250 % 250}.{n % 250 + 1}"


@pytest.fixture(scope="module")
def siege(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Siege]:
    siege = Siege.start(tmp_path_factory.mktemp("fuzz"))
    try:
        yield siege
    except BaseException:
        siege.kill()
        raise
    siege.close()


def _exchange(address: tuple[str, int], data: bytes, source: str, timeout: float = 8.0) -> bytes:
    """Send ``data`` from ``source`` and end the sending side, then read until the daemon's first
    line end or its close."""
    with socket.create_connection(address, timeout=timeout, source_address=(source, 0)) as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        answer = b""
        try:
            while b"\n" not in answer:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except ConnectionResetError:
            pass
        return answer


_words = st.one_of(
    st.sampled_from(["login", "LOGIN", "login\t", "", " ", "legit", "h1", "..", "a" * 40]),
    st.text(max_size=50),
    st.binary(max_size=50).map(lambda b: b.decode("latin-1")),
)
_login_lines = st.one_of(
    st.lists(_words, max_size=5).map(lambda words: " ".join(words).encode("utf-8", "surrogatepass")),
    st.binary(max_size=400),
)


@given(line=_login_lines, end=st.sampled_from([b"\n", b"\r\n", b"", b"\n\n", b"\x00\n"]))
@FUZZ
def test_any_login_line_gets_an_error_or_a_close(siege: Siege, line: bytes, end: bytes) -> None:
    answer = _exchange(siege.bot_address, line + end, _source())
    assert answer == b"" or (answer.startswith(b"error ") and answer.endswith(b"\n") and answer.count(b"\n") == 1), answer


_sei_lines = st.lists(
    st.one_of(
        st.sampled_from(["seiok 1", "seiok 2", "id name x", "id author y", "readyok", "bestmove a1", "info depth 1",
                         "option name Hash type spin", "quit", "", "sei 1", "id gods mortal"]),
        st.text(max_size=80).filter(lambda t: "\n" not in t),
        st.binary(max_size=80).filter(lambda b: b"\n" not in b).map(lambda b: b.decode("latin-1")),
    ),
    max_size=8,
)


@given(lines=_sei_lines)
@FUZZ
def test_any_sei_lines_before_the_handshake_end_in_a_session_or_a_close(siege: Siege, lines: list[str]) -> None:
    """A logged-in bot's chatter before its ``seiok``: the daemon completes the handshake or closes."""
    with socket.create_connection(siege.bot_address, timeout=15, source_address=("127.0.0.1", 0)) as sock:
        sock.sendall(f"login legit {siege.tokens['legit']}\n".encode())
        payload = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
        sock.sendall(payload + b"id name legit\nseiok 1\n")
        received = b""
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break  # closed: a protocol violation, ruled as such
            received += chunk
            pings = chunk.count(b"isready")
            if pings:
                try:
                    sock.sendall(b"readyok\n" * pings)
                except (ConnectionResetError, BrokenPipeError):
                    break  # closed while the answer was on its way: still a close
            if received.count(b"isready") >= 3:
                break  # the round trip is measured: the session is up
        else:
            raise AssertionError(f"neither a session nor a close within 15 s: {received[-200:]!r}")
        assert received.startswith(b"loginok\n"), received[:100]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=20,
)
_setting = st.sampled_from([
    "engines", "each", "format", "seeds", "rounds", "games", "gods", "players", "teams", "openings", "order", "seed", "tc",
    "concurrency", "sprt", "rating_interval", "ping", "event",
])
_value = st.one_of(
    _json, st.sampled_from([["h1", "h2"], ["h1", "H1"], ["nobody"], [], 10**30, -1, 0, "", "all", "1+0.01", "depth=1", "\u202e"]),
)
_bodies = st.one_of(
    st.dictionaries(_setting, _value, max_size=6).map(lambda d: json.dumps(d).encode()),
    _json.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
)


@given(body=_bodies, with_token=st.booleans())
@FUZZ
def test_any_body_to_the_job_api_is_answered_never_with_a_5xx(siege: Siege, body: bytes, with_token: bool) -> None:
    headers = {"content-type": "application/json"}
    if with_token:
        headers["authorization"] = f"Bearer {siege.admin}"
    transport = httpx.HTTPTransport(local_address=_source())
    with httpx.Client(base_url=siege.daemon.url, transport=transport, timeout=15) as client:
        answer = client.post("/api/runs", content=body, headers=headers)
        assert answer.status_code in (201, 400, 401, 403, 409, 413, 429, 503), (answer.status_code, answer.text[:300])
        assert "content-security-policy" in answer.headers
        if answer.status_code == 201:  # a valid run after all: it must not play
            assert with_token
            run = answer.json()["id"]
            cancelled = client.post(f"/api/runs/{run}/cancel", headers={"authorization": f"Bearer {siege.admin}"})
            assert cancelled.status_code in (200, 409), cancelled.text


def test_the_daemon_is_healthy_after_the_fuzzing(siege: Siege) -> None:
    siege.health("fuzzing", siege.rss_start, rss_slack=20.0)
