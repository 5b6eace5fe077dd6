"""A classic daemon behind an instant SEI engine: the engine double-forks a child that calls
``setsid()`` (so it leaves the engine's process group and session, as daemons do), then plays as
``tests.gallery.instant``.

Usage: ``python -m tests.gallery.daemon PIDS_FILE [hold] [instant switches...]``.  Each start
appends ``<daemon pid> <engine pid>`` to ``PIDS_FILE`` before the engine reads its first line.
The daemon ignores SIGHUP, SIGINT and SIGTERM and sleeps; with ``hold`` it keeps the engine's
stdio pipes open (the engine's stdout then reaches EOF only when the daemon dies), otherwise it
points them at ``/dev/null`` like a well-behaved daemon.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from tests.gallery import instant


def daemonise(hold_stdio: bool) -> int:
    """Start the daemon by the classic double fork; return its pid once it is running."""
    read_end, write_end = os.pipe()
    first = os.fork()
    if first == 0:
        os.close(read_end)
        os.setsid()
        if os.fork() == 0:  # the daemon: not a session leader, so it can never get a terminal
            for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_IGN)
            if not hold_stdio:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
            os.write(write_end, str(os.getpid()).encode())
            os.close(write_end)
            while True:
                time.sleep(1)
        os._exit(0)  # the intermediate child: the daemon is orphaned at once
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        pid = int(pipe.read())
    os.waitpid(first, 0)
    return pid


def main() -> None:
    pids_file, *rest = sys.argv[1:]
    hold = "hold" in rest
    daemon = daemonise(hold)
    with open(pids_file, "a") as f:
        f.write(f"{daemon} {os.getpid()}\n")
    sys.argv[1:] = [arg for arg in rest if arg != "hold"]
    instant.main()


if __name__ == "__main__":
    main()
