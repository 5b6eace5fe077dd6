"""A referee worker process of :mod:`santorini_server.tournament.pool` (protocol there).

Reads its settings and assignments on stdin, plays games with the ordinary local workers and
writes ``started``/``record`` messages on stdout (and, when asked to, each game's ``progress``).
EOF on stdin ends it after the games it holds; SIGTERM/SIGINT end it at once (its engines die
with it through their guards).
"""

from __future__ import annotations

import json
import os
import sys

import trio

from ..records import GameRecord, encode_record
from ..referee import progress
from .config import Settings, TournamentConfig
from .pool import WireReader, pin_to
from .runner import LocalBackend, LostGame
from .schedule import ScheduledGame


class Outbox:
    """What the worker says, in order, written by one task.

    :meth:`put` never blocks, so a game's observer can call it between two turns; the writer
    sends everything put since its last write in one write, when the games are waiting for
    their engines.
    """

    def __init__(self, stream: trio.lowlevel.FdStream) -> None:
        self.stream = stream
        self._parts: list[bytes] = []
        self._wake = trio.Event()
        self._closed = False

    def put(self, data: bytes) -> None:
        self._parts.append(data)
        self._wake.set()

    def frame(self, word: str, payload: bytes) -> None:
        """``word LEN`` and the payload's bytes."""
        self.put(b"%s %d\n%s" % (word.encode(), len(payload), payload))

    def close(self) -> None:
        """Nothing more will be put: :meth:`run` returns once it has written the rest."""
        self._closed = True
        self._wake.set()

    async def run(self) -> None:
        while self._parts or not self._closed:
            if not self._parts:
                await self._wake.wait()
                self._wake = trio.Event()
                continue
            data = b"".join(self._parts)
            self._parts.clear()
            await self.stream.send_all(data)


class WireSink:
    """A game's progress sent to the coordinator (``progress LEN`` frames)."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def begin(self, event: progress.Begin) -> None:
        self.outbox.frame("progress", progress.encode(event))

    def turn(self, event: progress.Turn) -> None:
        self.outbox.frame("progress", progress.encode(event))

    def end(self, event: progress.Ending) -> None:
        self.outbox.frame("progress", progress.encode(event))


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
    outbox = Outbox(stdout)
    sink = WireSink(outbox) if message.get("observe") else None

    games_send, games_recv = trio.open_memory_channel[ScheduledGame](0)
    results_send, results_recv = trio.open_memory_channel[GameRecord | LostGame](0)

    async def reader() -> None:
        async with games_send:
            while (text := await line()) is not None:
                word, _, arg = text.partition(" ")
                if word == "play" and arg.isdigit() and int(arg) in config.schedule.numbers:
                    await games_send.send(config.schedule.game(int(arg)))

    async def writer() -> None:
        async with results_recv:
            async for item in results_recv:
                if isinstance(item, GameRecord):
                    outbox.frame("record", encode_record(item))

    def started(game: ScheduledGame) -> None:
        outbox.put(b"started %d\n" % game.number)

    def observe(game: ScheduledGame) -> WireSink:
        assert sink is not None
        return sink

    backend = LocalBackend(config, observe=observe if sink is not None else None)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(outbox.run)
        async with trio.open_nursery() as games:
            games.start_soon(reader)
            games.start_soon(writer)
            await backend.serve(games_recv, results_send, started, int(message["workers"]))
        outbox.close()  # everything said reaches the coordinator before this process ends


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
