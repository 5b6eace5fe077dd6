"""A referee worker process of :mod:`santorini_server.tournament.pool` (protocol there).

Reads its settings and assignments on stdin, plays games with the ordinary local workers and
writes ``started``/``record`` messages on stdout.  EOF on stdin ends it after the games it
holds; SIGTERM/SIGINT end it at once (its engines die with it through their guards).
"""

from __future__ import annotations

import json
import os
import sys

import trio

from ..records import GameRecord, encode_record
from .config import Settings, TournamentConfig
from .pool import WireReader, pin_to
from .runner import LocalBackend, LostGame
from .schedule import ScheduledGame


async def _main() -> None:
    stdin = trio.lowlevel.FdStream(os.dup(0))
    stdout = trio.lowlevel.FdStream(os.dup(1))
    wire = WireReader(stdin.receive_some)  # the settings line has no fixed bound

    async def line() -> str | None:
        raw = await wire.line()
        return None if raw is None else raw.decode()

    hello = await line()
    if hello is None:
        return
    message = json.loads(hello)
    if message.get("cpu") is not None:  # --affinity: before any engine starts, so they inherit it
        pin_to(int(message["cpu"]))
    config = TournamentConfig.from_settings(Settings.from_json(message["settings"]))
    by_number = {g.number: g for g in config.schedule}
    out_lock = trio.Lock()

    async def write(data: bytes) -> None:
        async with out_lock:
            await stdout.send_all(data)

    games_send, games_recv = trio.open_memory_channel[ScheduledGame](0)
    results_send, results_recv = trio.open_memory_channel[GameRecord | LostGame](0)

    async def reader() -> None:
        async with games_send:
            while (text := await line()) is not None:
                word, _, arg = text.partition(" ")
                if word == "play" and arg.isdigit() and int(arg) in by_number:
                    await games_send.send(by_number[int(arg)])

    async def writer() -> None:
        async with results_recv:
            async for item in results_recv:
                if isinstance(item, GameRecord):
                    payload = encode_record(item)
                    await write(f"record {len(payload)}\n".encode() + payload)

    def started(game: ScheduledGame) -> None:
        nursery.start_soon(write, f"started {game.number}\n".encode())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader)
        nursery.start_soon(writer)
        await LocalBackend(config).serve(games_recv, results_send, started, int(message["workers"]))


def main() -> None:
    import structlog

    # stdout is the wire to the coordinator: logs go to stderr
    structlog.configure(logger_factory=structlog.PrintLoggerFactory(file=sys.stderr))
    try:
        trio.run(_main)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
