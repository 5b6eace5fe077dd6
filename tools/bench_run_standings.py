#!/usr/bin/env python3
"""A run's standings as the daemon shows them (``GET /api/runs/ID``, the run page) over a big archive.

    python tools/bench_run_standings.py [--games 1000000] [--since 2000] [--keep DIR]

Builds a run folder (``tournament.json`` and ``games.msgpack``) of a two-engine match of
``--games`` games, ``--games`` less ``--since`` of them finished: one synthetic record (tags
and 60 turns) repeated with new game numbers and the seats swapped every other game, framed
without encoding each record (a template cut at the game number, as ``tools/bench_streaming.py``
does).  Then, each in a fresh process (so its peak
RSS is its own), the daemon's view of the run's standings (:class:`RunViews`, the API's text
tables) is timed:

* the first view without a snapshot: the archive counted from its start, streamed, and the
  snapshot saved (a run played before snapshots existed);
* the first view with the snapshot: what a view of a finished run costs after a daemon start;
* a view with the snapshot and the last ``--since`` games appended after it (the games a
  collector counted since its last save, while the run plays).

Target: peak RSS under 150 MB for each, with a million games.  Figures are printed, nothing asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from santorini_server.records import GameRecord, TurnRecord, frame_payload
from santorini_server.records.payload import encode_record
from santorini_server.tournament.config import Settings, save_settings

MARK = "987654321"  # the game number the templates are cut at
SETTINGS = Settings(engines=["cmd=x name=alpha", "cmd=x name=beta"], tc="10+0.1")

VIEW = """
import resource, sys, time
from pathlib import Path
from santorini_server.server.run_standings import RunViews, text_tables
from santorini_server.tournament.config import TournamentConfig, load_settings

folder = Path(sys.argv[1])
start = time.perf_counter()
config = TournamentConfig.from_settings(load_settings(folder))
tables, damage = RunViews().view(folder, config, "api", text_tables, final=True)
took = time.perf_counter() - start
print(tables["games"], damage.count, f"{took:.3f}", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def record(number: str, first: str, second: str, result: str) -> GameRecord:
    turns = tuple(TurnRecord("b3,d3" if k % 2 else "c2,c4", 5 + k) for k in range(60))
    return GameRecord.build(
        event="bench", site="local", date="2026.01.01", round="1", player1=first, player2=second,
        gods="mortal/mortal", ruleset="santorini-simple-gods-v1", start="startpos", time_control="10+0.1",
        result=result, termination="climb", termination_detail="", game_number=int(number), turns=turns,
    )


def templates() -> list[tuple[bytes, bytes]]:
    """The payload cut at the game number, for odd and even games (seats swapped; the first
    engine wins two games of three, by the game's number)."""
    out = []
    for first, second in (("alpha", "beta"), ("beta", "alpha")):
        for result in ("1-0", "0-1"):
            head, _, tail = encode_record(record(MARK, first, second, result)).partition(MARK.encode())
            out.append((head[:-1], tail))  # without the fixstr header of the marker
    return out


def write_frames(path: Path, first: int, last: int, mode: str = "wb") -> None:
    cut = templates()
    with open(path, mode) as f:
        for k in range(first, last + 1):
            number = str(k).encode()
            alpha_first = k % 2 == 1
            alpha_wins = k % 3 != 0
            head, tail = cut[(0 if alpha_first else 2) + (0 if alpha_first == alpha_wins else 1)]
            f.write(frame_payload(head + bytes([0xA0 | len(number)]) + number + tail))


def view(folder: Path) -> str:
    proc = subprocess.run([sys.executable, "-c", VIEW, str(folder)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return f"failed: {proc.stderr.strip().splitlines()[-1:]}"
    games, damaged, took, peak = proc.stdout.split()
    return f"{int(games):,} games counted, {damaged} damaged regions: {float(took):.2f} s, peak RSS {peak} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--since", type=int, default=2000, help="games appended after the snapshot for the last view")
    parser.add_argument("--keep", type=Path, help="build the run folder here and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch) / "run"
        folder.mkdir(parents=True, exist_ok=True)
        total = args.games + args.games % 2  # the schedule: games come in pairs
        first = total - args.since  # counted before the snapshot; the rest after it
        save_settings(folder, Settings(**{**SETTINGS.to_json()["settings"], "games": total}))
        t0 = time.perf_counter()
        write_frames(folder / "games.msgpack", 1, first)
        size = (folder / "games.msgpack").stat().st_size / 1e6
        print(f"archive: {first:,} games, {size:,.0f} MB, made in {time.perf_counter() - t0:.1f} s")
        (folder / "standings.msgpack").unlink(missing_ok=True)
        print(f"first view without a snapshot (counted from the start, snapshot saved): {view(folder)}")
        if not (folder / "standings.msgpack").exists():
            sys.exit("no snapshot was saved")
        snapshot = (folder / "standings.msgpack").stat().st_size
        print(f"first view with the snapshot ({snapshot:,} bytes): {view(folder)}")
        write_frames(folder / "games.msgpack", first + 1, total, "ab")
        print(f"a view with the snapshot and {args.since:,} games after it: {view(folder)}")

if __name__ == "__main__":
    main()
