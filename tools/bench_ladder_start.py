#!/usr/bin/env python3
"""The daemon's start with a long ladder: what ``santorini serve --ladder`` reads before it is ready.

    python tools/bench_ladder_start.py [--games 100000] [--runs 3] [--keep DIR]

Builds a data directory whose ladder run has ``--games`` games: one real game (``santorini match
random greedy``) repeated with new game numbers and alternating seats, framed into the run's
archive and indexed in the store (its rows written in one transaction, as the daemon would have
indexed them one by one).  Then starts ``santorini serve --ladder --drain-timeout 0`` on a copy of
it ``--runs`` times, prints the ``ready in`` of each start (the ladder's start is inside it: the
daemon is ready once the ladder has started) and stops it with SIGTERM.  Run it with
``PYTHONPATH`` set to another revision's tree to compare revisions on the same data (``--keep``
keeps the data directory for that).
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "santorini_server.cli"]
READY = re.compile(r"ready in ([0-9.]+) s")


def build(data: Path, games: int) -> int:
    """The data directory with a ladder run of ``games`` games; returns the archive's size."""
    from santorini_server.records import GameRecord, encode_frame, iter_sgn
    from santorini_server.server.store import Store

    sgn = data.parent / "one.sgn"
    subprocess.run([*CLI, "match", "random", "greedy", "--games", "1", "--tc", "5+0.05", "--out", str(sgn)],
                   check=True, capture_output=True)
    with sgn.open(encoding="utf-8") as file:
        game = next(iter(iter_sgn(file)))
    with Store(data, create=True) as store:
        a, b = store.add_local_bot("a", "random"), store.add_local_bot("b", "greedy")
        run = store.create_run("ladder", {"tc": "5+0.05", "gods": "mortal/mortal", "concurrency": 1})
        store.set_run_state(run.id, "running")
    directory = data / "runs" / str(run.id)
    directory.mkdir(parents=True)
    renamed = {"Player1": "a", "Player2": "b", "Event": "santorini ladder"}
    rows, seats = [], []
    with (directory / "games.msgpack").open("wb") as archive:
        for number in range(1, games + 1):
            swap = number % 2 == 0
            names = {"Player1": "b", "Player2": "a"} if swap else {}
            tags = [(k, names.get(k, renamed.get(k, v))) for k, v in game.tags if k not in ("GameNumber", "Round")]
            record = GameRecord((*tags, ("Round", str(number)), ("GameNumber", str(number))), game.turns, game.eliminations)
            offset = archive.tell()
            archive.write(encode_frame(record))
            rows.append((number, run.id, number, "mortal/mortal", record.result, record.termination, len(record.turns),
                         offset, "2026-01-01T00:00:00+00:00"))
            first, second = (b.id, a.id) if swap else (a.id, b.id)
            places = record.placings or (1, 1)
            seats += [(number, 1, first, places[0]), (number, 2, second, places[1])]
        size = archive.tell()
    with sqlite3.connect(data / "santorini.db") as conn:
        conn.executemany(
            "INSERT INTO games (id, run_id, number, gods, result, termination, turns, archive_offset, finished)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO game_seats (game_id, seat, bot_id, place) VALUES (?, ?, ?, ?)", seats)
    return size


def start(data: Path) -> float:
    """Seconds the daemon took to be ready on ``data`` (stopped again at once)."""
    process = subprocess.Popen(
        [*CLI, "serve", "--data", str(data), "--http", "127.0.0.1:0", "--bots", "127.0.0.1:0", "--ladder",
         "--drain-timeout", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    deadline = time.monotonic() + 600
    try:
        for line in process.stderr:
            if found := READY.search(line):
                return float(found.group(1))
            if time.monotonic() > deadline:
                break
        raise SystemExit("the daemon stopped before its ready line")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the data here (or reuse it if it exists)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp) / "data"
        if not data.exists():
            began = time.monotonic()
            size = build(data, args.games)
            print(f"built {args.games} games, archive {size / 1e6:.1f} MB, in {time.monotonic() - began:.1f} s")
        for k in range(args.runs):
            copy = Path(tmp) / f"copy{k}"
            shutil.copytree(data, copy)  # each start on the data as built (a start may rewrite files)
            print(f"start {k + 1}: ready in {start(copy):.3f} s")
            shutil.rmtree(copy)


if __name__ == "__main__":
    main()
