"""A bot port in its own process, driven by commands on stdin (for tests that need a separate
process: its memory, ``santorini connect`` against it, a game through it).

Usage: ``python -m tests.gallery.gateway_server [grace=S] [tls=CERT,KEY] NAME=TOKEN ...``.  Prints
``port N`` once listening, then answers one line per command:

* ``rss``: its resident memory in kB; ``stats``: open connections and connected bot names;
* ``wait NAME``: ``ready`` once NAME is connected and idle;
* ``play NAME SEAT [tc=TC]``: one game of NAME (a remote bot, seat 1 or 2) against a local instant
  engine; ``RESULT TERMINATION DETAIL`` (the record re-validated, else ``invalid ...``).
"""

from __future__ import annotations

import hashlib
import hmac
import ssl
import sys

import structlog
import trio

from santorini_server.adjudicator import parse_tc
from santorini_server.records.replay import check_record
from santorini_server.referee import Engine, GameSetup, parse_engine_spec, play_game
from santorini_server.server.gateway import Gateway, serve_bots
from santorini_server.server.remote_engine import RemoteEngine


class MemoryAuthenticator:
    """The store's authentication done in memory: sha256 of each token, compared in constant time;
    names regardless of case."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self.hashes = {name.lower(): hashlib.sha256(token.encode()).digest() for name, token in tokens.items()}

    def authenticate(self, name: str, token: str) -> bool:
        given = hashlib.sha256(token.encode()).digest()
        stored = self.hashes.get(name.lower())
        return hmac.compare_digest(stored or b"\0" * 32, given) and stored is not None


def rss_kb() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def main() -> None:
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))  # stdout answers commands
    args = sys.argv[1:]
    grace = 5.0
    context = None
    tokens = {}
    for arg in args:
        key, _, value = arg.partition("=")
        if key == "grace":
            grace = float(value)
        elif key == "tls":
            cert, key_file = value.split(",")
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(cert, key_file)
        else:
            tokens[key] = value
    gateway = Gateway(MemoryAuthenticator(tokens))
    stdin = trio.lowlevel.FdStream(0)
    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(lambda task_status: serve_bots(gateway, 0, ssl_context=context, task_status=task_status))
        print("port", listeners[0].socket.getsockname()[1], flush=True)
        local_spec = parse_engine_spec(f"cmd={sys.executable} arg=-m arg=tests.gallery.instant name=Local")
        buffer = b""
        while True:
            while b"\n" not in buffer:
                data = await stdin.receive_some(4096)
                if not data:
                    nursery.cancel_scope.cancel()
                    return
                buffer += data
            line, _, buffer = buffer.partition(b"\n")
            words = line.decode().split()
            if words[0] == "rss":
                print(rss_kb(), flush=True)
            elif words[0] == "stats":
                print(gateway.connections, ",".join(gateway.registry.available()) or "-", flush=True)
            elif words[0] == "wait":
                while words[1] not in gateway.registry.available():
                    await trio.sleep(0.02)
                print("ready", flush=True)
            elif words[0] == "play":
                tc = parse_tc(words[3].partition("=")[2] if len(words) > 3 else "10+0.1")
                remote = await RemoteEngine.take(gateway.registry, words[1], grace=grace)
                local = await Engine.start(nursery, local_spec)
                engines = (remote, local) if words[2] == "1" else (local, remote)
                report = await play_game(engines, GameSetup(tcs=(tc, tc)))
                remote.release()
                await local.aclose()
                record = report.record
                problems = check_record(record)
                if problems:
                    print("invalid", problems[0], flush=True)
                else:
                    print(record.result, record.termination, record.termination_detail or "-", flush=True)


if __name__ == "__main__":
    trio.run(main)
