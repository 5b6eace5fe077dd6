#!/usr/bin/env python3
"""Benchmark the streaming record paths on big files: appending to SGN, resume, ``replay --check``.

The big files are made synthetically and fast: one real game (played by ``santorini match`` of
two instant engines) repeated with new game numbers, written as an SGN file, an archive, or a
whole tournament folder (settings, archive, SGN and JSON Lines level with each other).  Three
figures are printed (no assertions); the targets are in the comments.

* ``match --out`` appending to an SGN file of ``--sgn-games`` games: seconds from the command's
  start to its ``Started game 1`` line, beside the same command writing a new file (target: the
  first game starts in under 1 s on a 1,000,000-game file).
* ``--resume`` of a tournament whose archive holds ``--archive-games`` finished games (every
  scheduled game: nothing is left to play): peak RSS of the process, with the resume alone (the
  archive streamed, the standings counted, the derived files checked), then with the report's
  per-game rows added as the tournament keeps them (target: under 150 MB for 1,000,000 games).
* ``replay --check`` of an archive of ``--check-games`` games: the command's RSS sampled as it
  runs, its peak, and the peak for a tenth of the games (target: flat, the same for both).

    python tools/bench_streaming.py [--sgn-games 1000000] [--archive-games 1000000] [--check-games 100000]
                                    [--code DIR]

``--code DIR`` runs the commands from another checkout (to compare with the code before).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from santorini_server.records import GameRecord, format_sgn, frame_payload, parse_sgn, result_summary
from santorini_server.records.payload import encode_record
from santorini_server.tournament.config import Settings, save_settings

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
MARK = "987654321"  # the game number the templates are cut at


def engine(name: str) -> str:
    return f"cmd={PY} arg=-m arg=tests.gallery.instant name={name}"


def env(code: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(code)}


def real_game(folder: Path, code: Path) -> GameRecord:
    """One game of two instant engines, played by ``santorini match``."""
    out = folder / "one.sgn"
    subprocess.run([PY, "-m", "santorini_server.cli", "match", engine("A"), engine("B"), "--games", "1",
                    "--tc", "5+0.05", "--out", str(out)], check=True, capture_output=True, env=env(code), cwd=code)
    return parse_sgn(out.read_text(encoding="utf-8"))[0]


def numbered(record: GameRecord, number: str) -> GameRecord:
    tags = (*tuple((n, v) for n, v in record.tags if n != "GameNumber"), ("GameNumber", number))
    return GameRecord(tags, record.turns, record.eliminations)


def template(text: bytes) -> tuple[bytes, bytes]:
    head, _, tail = text.partition(MARK.encode())
    return head, tail


def write_sgn(path: Path, record: GameRecord, count: int) -> None:
    head, tail = template((format_sgn(numbered(record, MARK)) + "\n").encode())
    with open(path, "wb") as f:
        for k in range(1, count + 1):
            f.write(head + str(k).encode() + tail)


def write_archive(path: Path, record: GameRecord, count: int) -> None:
    """Frames of ``record`` numbered 1..count (the payload's number is a msgpack string: its
    one-byte header carries the length)."""
    head, tail = template(encode_record(numbered(record, MARK)))
    head = head[:-1]  # the fixstr header of the marker
    with open(path, "wb") as f:
        for k in range(1, count + 1):
            number = str(k).encode()
            f.write(frame_payload(head + bytes([0xA0 | len(number)]) + number + tail))


def write_results(path: Path, record: GameRecord, count: int) -> None:
    line = json.dumps(result_summary(numbered(record, MARK)), ensure_ascii=False, separators=(",", ":")) + "\n"
    head, tail = template(line.replace(f'"game":"{MARK}"', f'"game":{MARK}').encode())
    with open(path, "wb") as f:
        for k in range(1, count + 1):
            f.write(head + str(k).encode() + tail)


def started_after(args: list[str], code: Path) -> float:
    """Seconds from starting the command to its ``Started game 1`` line."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(code), cwd=code)
    assert proc.stdout is not None
    seen = None
    for line in proc.stdout:
        if seen is None and line.startswith("Started game 1 "):
            seen = time.perf_counter() - start
    err = proc.stderr.read() if proc.stderr is not None else ""
    if proc.wait() != 0 or seen is None:
        raise SystemExit(f"match failed: {err.strip()}")
    return seen


def bench_append(folder: Path, record: GameRecord, games: int, code: Path) -> None:
    big = folder / "big.sgn"
    t0 = time.perf_counter()
    write_sgn(big, record, games)
    made = time.perf_counter() - t0
    match = [PY, "-m", "santorini_server.cli", "match", engine("A"), engine("B"), "--games", "2", "--tc", "5+0.05"]
    fresh = started_after([*match, "--out", str(folder / "new.sgn")], code)
    appended = started_after([*match, "--out", str(big)], code)
    print(f"match --out onto {games:,} games ({big.stat().st_size / 1e6:,.0f} MB, made in {made:.1f} s): first game "
          f"started after {appended:.2f} s (a new file: {fresh:.2f} s)")


RESUME = """
import resource, sys, trio
from pathlib import Path
from santorini_server.tournament.config import TournamentConfig, load_settings
from santorini_server.tournament.output import ARCHIVE, TournamentFiles
from santorini_server.tournament.runner import run_tournament
folder, with_report = Path(sys.argv[1]), sys.argv[2] == "report"
config = TournamentConfig.from_settings(load_settings(folder))
report = None
if with_report:
    from santorini_server.tournament.report import config_info
    from santorini_server.tournament.report_files import ReportWriter
    report = ReportWriter(folder, config_info(config), archive=folder / ARCHIVE)
    report.write = lambda now=None: True  # the rows are kept; writing 10,000 viewer files is another benchmark
files = TournamentFiles(folder)
result = trio.run(lambda: run_tournament(config, files, emit=lambda line: None, report=report, signals=False))
files.close()
print(result.resumed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def bench_resume(folder: Path, record: GameRecord, games: int, code: Path) -> None:
    run = folder / "run"
    run.mkdir()
    save_settings(run, Settings(engines=[engine("A"), engine("B")], games=games, tc="5+0.05"))
    t0 = time.perf_counter()
    write_archive(run / "games.msgpack", record, games)
    write_sgn(run / "games.sgn", record, games)
    write_results(run / "results.jsonl", record, games)
    made = time.perf_counter() - t0
    size = (run / "games.msgpack").stat().st_size / 1e6
    for variant in ("files", "report"):
        t0 = time.perf_counter()
        proc = subprocess.run([PY, "-c", RESUME, str(run), variant], capture_output=True, text=True, env=env(code),
                              cwd=code)
        if proc.returncode != 0:
            print(f"resume ({variant}) failed: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        resumed, peak = proc.stdout.split()
        what = "resume (archive, standings, derived files)" if variant == "files" else "resume + the report's rows"
        print(f"{what} over {int(resumed):,} games ({size:,.0f} MB archive, made in {made:.1f} s): "
              f"peak RSS {int(peak)} MB in {time.perf_counter() - t0:.1f} s")


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def check_peak(path: Path, code: Path) -> tuple[float, list[float], float]:
    """Peak RSS of ``replay --check`` (its own process), its RSS at each tenth of the run, and
    the wall time."""
    start = time.perf_counter()
    proc = subprocess.Popen([PY, "-m", "santorini_server.cli", "replay", "--check", str(path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(code), cwd=code)
    samples: list[float] = []
    while proc.poll() is None:
        samples.append(rss_mb(proc.pid))
        time.sleep(0.1)
    wall = time.perf_counter() - start
    tenths = [max(samples[int(len(samples) * k / 10): int(len(samples) * (k + 1) / 10) + 1] or [0.0]) for k in range(10)]
    return max(samples or [0.0]), tenths, wall


def bench_check(folder: Path, record: GameRecord, games: int, code: Path) -> None:
    for count in (games // 10, games):
        path = folder / f"check{count}.msgpack"
        write_archive(path, record, count)
        peak, tenths, wall = check_peak(path, code)
        print(f"replay --check of {count:,} games ({path.stat().st_size / 1e6:,.0f} MB) in {wall:.0f} s: peak RSS "
              f"{peak:.0f} MB; by tenths of the run: {' '.join(f'{t:.0f}' for t in tenths)} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sgn-games", type=int, default=1_000_000)
    parser.add_argument("--archive-games", type=int, default=1_000_000)
    parser.add_argument("--check-games", type=int, default=100_000)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose commands run (default: this one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        record = real_game(folder, args.code)
        if args.sgn_games:
            bench_append(folder, record, args.sgn_games, args.code)
        if args.archive_games:
            bench_resume(folder, record, args.archive_games, args.code)
        if args.check_games:
            bench_check(folder, record, args.check_games, args.code)


if __name__ == "__main__":
    main()
