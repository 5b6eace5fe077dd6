#!/usr/bin/env python3
"""A stopwatch between a referee and an engine: relays SEI lines both ways and logs when each
``go`` arrived and each ``bestmove`` left, so a benchmark can time the referee from outside.

    python tools/timed_relay.py LOG ENGINE-ARGV...

Each logged line is ``PID WORD TIME`` (``time.time()``): ``go`` when the referee's ``go`` line has
been read, ``bestmove`` just before the engine's ``bestmove`` line is written on, and the first word
of every other command but ``position`` (``newgame``, ``result``, ``isready``...), so a reader
can tell a game's turns from what comes between games.  From one engine's ``bestmove`` to the
other engine's ``go`` is the referee's share of a turn: reading and judging the answer, recording
it, telling the observers, and writing the next request (plus two pipe hops, the same whatever
the referee does).  ``tools/bench_live.py`` uses it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time


def main() -> None:
    log_path, argv = sys.argv[1], sys.argv[2:]
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    pid = os.getpid()
    child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None
    assert child.stdout is not None

    def note(word: bytes, at: float) -> None:
        os.write(log, b"%d %s %.6f\n" % (pid, word, at))

    def down() -> None:  # the engine's answers, to the referee
        out = sys.stdout.buffer
        for line in child.stdout:  # type: ignore[union-attr]
            if line.startswith(b"bestmove"):
                note(b"bestmove", time.time())
            out.write(line)
            out.flush()

    threading.Thread(target=down, daemon=True).start()
    for line in sys.stdin.buffer:
        at = time.time()
        word = line.split(maxsplit=1)[0] if line.strip() else b""
        child.stdin.write(line)
        child.stdin.flush()
        if word and word != b"position":
            note(word, at)
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
