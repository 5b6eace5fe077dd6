#!/usr/bin/env python3
"""Many remote bots in one process, for the server's benchmarks: SEI over TCP, no engine processes.

    python tools/remote_bots.py tcp://HOST:PORT SCRIPT TOKENS_DIR NAME... [--think-ms 0]

Each NAME logs in with the token in ``TOKENS_DIR/NAME.token`` and plays the canned script as
``tools/canned_engine.py`` does (the turn whose index is the number of moves in the last
``position``, so both seats of a game from the start position follow the same legal game),
answering at once or after ``--think-ms``.  One trio process holds every connection, so a
benchmark measures the server, not a thousand engine processes; a bot whose connection ends logs
in again after half a second.  Stops on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

import trio


async def bot(host: str, port: int, name: str, token: str, script: list[str], think: float) -> None:
    """One bot: log in, then answer SEI until the connection ends; again, for ever."""
    while True:
        try:
            stream = await trio.open_tcp_stream(host, port)
        except OSError:
            await trio.sleep(0.5)
            continue
        async with stream:
            await stream.send_all(f"login {name} {token}\n".encode())
            buffer = b""
            moves = 0
            try:
                while True:
                    data = await stream.receive_some(65536)
                    if not data:
                        break
                    buffer += data
                    *lines, buffer = buffer.split(b"\n")
                    out = []
                    for raw in lines:
                        line = raw.decode()
                        if line.startswith("error"):
                            print(f"{name}: {line}", file=sys.stderr)
                        elif line.startswith("sei"):
                            out.append(f"id name {name}\nseiok 1\n")
                        elif line.startswith("isready"):
                            out.append("readyok\n")
                        elif line.startswith("position"):
                            words = line.split()
                            moves = len(words) - 3 if "moves" in words else 0
                        elif line.startswith("go"):
                            if think:
                                await trio.sleep(think)
                            out.append(f"bestmove {script[moves]}\n")
                        elif line.startswith("quit"):
                            break
                    if out:
                        await stream.send_all("".join(out).encode())
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        await trio.sleep(0.5)


async def main_async(args: argparse.Namespace, script: list[str], tokens: dict[str, str]) -> None:
    url = args.server.removeprefix("tcp://")
    host, _, port = url.rpartition(":")
    async with trio.open_nursery() as nursery:
        for name in args.names:
            nursery.start_soon(bot, host, int(port), name, tokens[name], script, args.think_ms / 1000)
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                nursery.cancel_scope.cancel()
                break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server")
    parser.add_argument("script")
    parser.add_argument("tokens")
    parser.add_argument("names", nargs="+")
    parser.add_argument("--think-ms", type=float, default=0.0)
    args = parser.parse_args()
    script = Path(args.script).read_text().split()
    tokens = {name: (Path(args.tokens) / f"{name}.token").read_text().strip() for name in args.names}
    trio.run(main_async, args, script, tokens)


if __name__ == "__main__":
    main()
