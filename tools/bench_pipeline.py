#!/usr/bin/env python3
"""Benchmark issue 27's targets for the streaming game pipeline: flat memory, constant cost per game.

Four parts, each runnable alone (``--games`` sets its size, ``--quick`` a tiny one for the smoke
test).  Each prints a table of figures and one verdict line per target ("met" or "NOT met");
nothing is asserted (the machine's load moves the timings).

* ``collector``: ``--games`` games through the tournament's collector and every sink, no engine:
  ``run_tournament`` with a real folder (``TournamentFiles``: archive fsync'd per game, SGN, JSON
  Lines), a ``ReportWriter`` and a backend that answers each scheduled game at once with a real
  record (alphabeta against greedy, played once by ``santorini match``) re-tagged with the game's
  number, round and players.  Pairs of games alternate "A wins both", "B wins both" and two
  splits, so under ``--sprt`` (bounds elo0=-5 elo1=5, symmetric about the even score) the LLR
  is computed after every game and never ends the run.  RSS (/proc/self/status) and wall time
  are sampled at every twentieth of the run through the ``progress`` callback.  Targets: RSS at
  the end within 25 MB of RSS at game 10,000; time per game over the last 5,000 games within
  1.2x of games 5,001-10,000.  Also the folder's bytes per game, file by file.  ``--no-report``
  leaves the ``ReportWriter`` out, to tell its share: the collector awaits each report write,
  which renders the viewer file of every block that gained a game since the last one.
* ``tournament``: a real ``santorini tournament -j 2`` (subprocess) of two canned engines (zero
  thinking, a fixed legal game: ``canned_engine.c``), without and with ``--sprt``; the
  coordinator's RSS (/proc/PID/status) is read as its "Finished game" lines arrive, at game 5,000
  and at the end, and the lines' arrival times give the time per game in the same two windows.
  Targets: RSS within 25 MB, time within 1.2x.
* ``append``: ``santorini match --out big.sgn`` onto an SGN file of ``--games`` records (one
  real record's text repeated with distinct GameNumber and Round): seconds until its first
  "Started game" line, beside the same match writing a new file (target: under 1 s).
* ``resume``: ``santorini tournament --resume DIR`` over a folder whose archive holds all but the
  last two games of a ``--games``-game schedule, as a stopped run leaves it: archive, SGN and JSON
  Lines level with each other, the standings snapshot and the report's state ``--lag`` games
  behind them (they are saved every few seconds), the report's block scripts up to date (its
  viewer files are stand-ins: what they hold is not read by a resume).  Seconds until the first
  new "Started game" line, and the process's peak RSS (``VmHWM``, sampled every 50 ms) until then
  and over the whole run (stopped with SIGTERM after ``--limit`` seconds).  ``--from-scratch``: no
  snapshot and no report state (a folder of an older version, or both deleted): every game is
  read and counted, and every block's viewer file rendered before the first new game.  Targets:
  under 150 MB, under 30 s.

When a run is shorter than 20,000 games the windows shrink to w, a quarter of it (games w+1..2w
against the last w; RSS from game 2w, the tournament's from game w), so a quick run still prints
every figure.

    python tools/bench_pipeline.py collector [--games 1000000] [--sprt] [--no-report] [--quick]
    python tools/bench_pipeline.py tournament [--games 100000] [--engine c|python] [--quick]
    python tools/bench_pipeline.py append [--games 1000000] [--quick]
    python tools/bench_pipeline.py resume [--games 1000000] [--lag 1000] [--from-scratch] [--limit 300] [--quick]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import bench_referee
import bench_streaming
import trio
from canned import canned_argv

from santorini_server.records import GameRecord, parse_sgn
from santorini_server.records.frames import Frame, iter_stream_frames
from santorini_server.tournament.config import Settings, TournamentConfig, load_settings, save_settings
from santorini_server.tournament.output import ARCHIVE, RESULTS, SGN, TournamentFiles
from santorini_server.tournament.report import config_info
from santorini_server.tournament.report_files import GAMES_DIR, REPORT, ReportWriter
from santorini_server.tournament.runner import LostGame, run_tournament
from santorini_server.tournament.schedule import ScheduledGame
from santorini_server.tournament.scoring import count_game, new_standings
from santorini_server.tournament.standings_file import DoneGames, SnapshotKeeper

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
CLI = [PY, "-m", "santorini_server.cli"]
#: Symmetric about the even score: the balanced results below keep the LLR at 0 (no early stop).
SPRT = "elo0=-5 elo1=5 alpha=0.05 beta=0.05"
RSS_TARGET_MB = 25.0
TIME_TARGET = 1.2
FIRST_GAME_TARGET_S = 1.0
RESUME_RSS_TARGET_MB = 150.0
RESUME_TIME_TARGET_S = 30.0
WINDOW = 5000
QUICK = {"collector": 400, "tournament": 200, "append": 1000, "resume": 300}
DEFAULTS = {"collector": 1_000_000, "tournament": 100_000, "append": 1_000_000, "resume": 1_000_000}


def verdict(what: str, figure: str, met: bool, target: str) -> None:
    print(f"verdict: {what}: {figure} (target {target}): {'met' if met else 'NOT met'}")


def window(games: int) -> int:
    """Games per timing window: 5,000, or a quarter of a run shorter than 20,000 games."""
    return max(1, min(WINDOW, games // 4))


def rss_mb(pid: int | str = "self", field: str = "VmRSS") -> float:
    """A process's resident memory (``VmHWM``: its peak) in MB, from /proc; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def even(games: int) -> int:
    """A two-engine schedule's games come in pairs (colours swapped)."""
    return max(2, games + games % 2)


class Timeline:
    """Wall time and RSS at chosen game counts (each window's ends and every twentieth)."""

    def __init__(self, games: int) -> None:
        self.games = games
        self.w = window(games)
        step = max(1, games // 20)
        self.marks = {*range(step, games + 1, step), self.w, 2 * self.w, games - self.w, games}
        self.time: dict[int, float] = {}
        self.rss: dict[int, float] = {}

    def at(self, done: int, elapsed: float, rss: float) -> None:
        if done in self.marks:
            self.time[done] = elapsed
            self.rss[done] = rss

    def per_game(self, first: int, last: int) -> float:
        """Mean seconds per game over games ``first+1..last``."""
        return (self.time[last] - self.time[first]) / (last - first)

    def report(self, label: str, rss_from: int) -> None:
        """The table and the two verdicts: RSS growth from game ``rss_from`` to the end, and the
        late window's time per game against the early one's."""
        n, w = self.games, self.w
        print(f"{label}: checkpoints (games, seconds, RSS MB):")
        for k in sorted(self.time):
            print(f"  {k:>9,}  {self.time[k]:9.1f} s  {self.rss[k]:7.1f} MB")
        early, late = self.per_game(w, 2 * w), self.per_game(n - w, n)
        growth = self.rss[n] - self.rss[rss_from]
        print(f"{label}: RSS at game {rss_from:,}: {self.rss[rss_from]:.1f} MB; at game {n:,}: {self.rss[n]:.1f} MB; "
              f"difference {growth:+.1f} MB")
        print(f"{label}: time per game, games {w + 1:,}-{2 * w:,}: {early * 1e3:.3f} ms; last {w:,} "
              f"(games {n - w + 1:,}-{n:,}): {late * 1e3:.3f} ms; ratio {late / early:.2f}x")
        verdict(f"{label} RSS growth", f"{growth:+.1f} MB", growth <= RSS_TARGET_MB, f"within {RSS_TARGET_MB:.0f} MB")
        verdict(f"{label} time per game, late/early", f"{late / early:.2f}x", late / early <= TIME_TARGET,
                f"within {TIME_TARGET}x")


# --------------------------------------------------------------------------- collector


def real_games(folder: Path) -> dict[str, GameRecord]:
    """A game won by seat 1 and one won by seat 2 (alphabeta against greedy, colours swapped),
    by their ``Result`` tag."""
    out = folder / "real.sgn"
    subprocess.run([*CLI, "match", "alphabeta", "greedy", "--games", "4", "--tc", "1+0.01", "--out", str(out)],
                   check=True, capture_output=True, env=env(), cwd=ROOT)
    by_result = {record.result: record for record in parse_sgn(out.read_text(encoding="utf-8"))}
    if "1-0" not in by_result or "0-1" not in by_result:
        raise SystemExit(f"alphabeta against greedy did not give a win for each seat: {sorted(by_result)}")
    return by_result


class SyntheticBackend:
    """The ``Backend`` protocol without engines: each game's record made at once from a real one,
    re-tagged (number, round, players, event).  Pair k's results cycle through "the first engine
    wins both", "the second wins both", then two splits (the seat-1 player wins each game)."""

    def __init__(self, config: TournamentConfig, templates: dict[str, GameRecord]) -> None:
        self.names = [spec.name for spec in config.specs]
        self.event = config.event
        self.templates = templates

    def record(self, game: ScheduledGame) -> GameRecord:
        kind = (game.pair - 1) % 4
        winner_seat = game.seats.index(kind) if kind < 2 else 0
        template = self.templates["1-0" if winner_seat == 0 else "0-1"]
        new = {"Event": self.event, "Round": str(game.round), "GameNumber": str(game.number),
               "Player1": self.names[game.seats[0]], "Player2": self.names[game.seats[1]]}
        tags = tuple((name, new.get(name, value)) for name, value in template.tags)
        return GameRecord(tags, template.turns, template.eliminations)

    async def play(
        self,
        games: Collection[ScheduledGame],
        results: trio.MemorySendChannel[GameRecord | LostGame],
        started: Callable[[ScheduledGame], None],
    ) -> None:
        async with results:
            for game in games:
                started(game)
                await results.send(self.record(game))


def collector(games: int, sprt: bool, with_report: bool = True) -> None:
    games = even(games)
    with tempfile.TemporaryDirectory() as tmp:
        templates = real_games(Path(tmp))
        folder = Path(tmp) / "run"
        folder.mkdir()
        settings = Settings(engines=[bench_streaming.engine("A"), bench_streaming.engine("B")], games=games,
                            tc="1+0.01", sprt=SPRT if sprt else "")
        config = TournamentConfig.from_settings(settings)
        save_settings(folder, settings)
        files = TournamentFiles(folder)
        report = ReportWriter(folder, config_info(config, folder.name), archive=folder / ARCHIVE) if with_report else None
        timeline = Timeline(games)

        def progress(done: int, _total: int, elapsed: float) -> None:
            if done in timeline.marks:
                timeline.at(done, elapsed, rss_mb())
            if done == games:  # the figures now, before the final report write (minutes at 1,000,000)
                timeline.report("collector", 2 * timeline.w)
                print(f"collector: last game recorded after {elapsed:.1f} s; the final report write follows", flush=True)

        lengths = sorted(len(t.turns) for t in templates.values())
        print(f"collector: {games:,} synthetic games (real records of {lengths[0]}-{lengths[-1]} turns), "
              f"{'--sprt ' + repr(SPRT) if sprt else 'no --sprt'}, {'a' if with_report else 'no'} ReportWriter; "
              f"RSS before the run {rss_mb():.1f} MB")
        start = time.perf_counter()
        try:
            result = trio.run(lambda: run_tournament(config, files, backend=SyntheticBackend(config, templates),
                                                     emit=lambda line: None, progress=progress, report=report,
                                                     signals=False))
        finally:
            files.close()
        wall = time.perf_counter() - start
        if result.played != games:
            raise SystemExit(f"collector: {result.played} of {games} games recorded (SPRT: {result.sprt})")
        print(f"collector: {games:,} games in {wall:.1f} s ({wall / games * 1e3:.3f} ms a game"
              + (", the final report write included)" if with_report else ")"))
        sizes = {name: (folder / name).stat().st_size for name in (ARCHIVE, SGN, RESULTS, REPORT) if (folder / name).exists()}
        if with_report:
            sizes[GAMES_DIR + "/*"] = sum(p.stat().st_size for p in (folder / GAMES_DIR).iterdir())
        print("collector: folder bytes per game: " + ", ".join(f"{name} {size / games:,.0f}"
                                                               for name, size in sizes.items()))


# --------------------------------------------------------------------------- tournament


def finished_lines(args: list[str], games: int) -> tuple[Timeline, float, int]:
    """Run ``args`` (a tournament), timing its "Finished game" lines and reading its RSS as they
    arrive; returns the timeline, the whole run's seconds and its exit status."""
    timeline = Timeline(games)
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
    assert proc.stdout is not None
    assert proc.stderr is not None
    done = 0
    for line in proc.stdout:
        if line.startswith("Finished game "):
            done += 1
            if done in timeline.marks:
                timeline.at(done, time.perf_counter() - start, rss_mb(proc.pid))
    err = proc.stderr.read()
    status = proc.wait()
    if status != 0 or done != games:
        raise SystemExit(f"tournament: exit {status} after {done} of {games} games: {err.strip()[-500:]}")
    return timeline, time.perf_counter() - start, status


def tournament(games: int, kind: str, sprts: tuple[bool, ...] = (False, True)) -> None:
    games = even(games)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "game.txt"
        turns = bench_referee.make_script(script)
        spec = "cmd=" + " arg=".join(canned_argv(script, kind))
        print(f"tournament: {games:,} games of two {kind} canned engines ({turns} turns a game), -j 2, "
              f"on {os.cpu_count()} cores shared with other work")
        for sprt in sprts:
            out = Path(tmp) / f"run-{'sprt' if sprt else 'plain'}"
            args = [*CLI, "tournament", "-e", spec + " name=A", "-e", spec + " name=B", "--games", str(games),
                    "--tc", "60+1", "-j", "2", "--out", str(out), *(["--sprt", SPRT] if sprt else [])]
            timeline, wall, _ = finished_lines(args, games)
            label = "tournament --sprt" if sprt else "tournament"
            print(f"{label}: {games:,} games in {wall:.1f} s ({wall / games * 1e3:.3f} ms a game)")
            timeline.report(label, timeline.w)


# --------------------------------------------------------------------------- append


def append(games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        record = bench_streaming.real_game(folder, ROOT)
        big = folder / "big.sgn"
        start = time.perf_counter()
        bench_streaming.write_sgn(big, record, games)
        made = time.perf_counter() - start
        match = [*CLI, "match", bench_streaming.engine("A"), bench_streaming.engine("B"), "--games", "2",
                 "--tc", "5+0.05"]
        fresh = bench_streaming.started_after([*match, "--out", str(folder / "new.sgn")], ROOT)
        appended = bench_streaming.started_after([*match, "--out", str(big)], ROOT)
        print(f"append: SGN file of {games:,} games, {big.stat().st_size / 1e6:,.0f} MB (made in {made:.1f} s)")
        print(f"append: first 'Started game' after {appended:.2f} s appending to it; {fresh:.2f} s for a new file "
              f"(the command's start: appending added {appended - fresh:+.2f} s)")
        verdict("append first game", f"{appended:.2f} s", appended < FIRST_GAME_TARGET_S,
                f"under {FIRST_GAME_TARGET_S:.0f} s")


# --------------------------------------------------------------------------- resume


def stopped_state(run: Path, record: GameRecord, kept: int) -> None:
    """The standings snapshot and the report (its state and block scripts) of a run's first
    ``kept`` games, as the run's own writers save them (the viewer files are stand-ins)."""
    config = TournamentConfig.from_settings(load_settings(run))
    standings = new_standings(config)
    done = DoneGames(len(config.schedule))

    def stand_in(records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None:
        out.write_text(f"{len(records)} games")

    report = ReportWriter(run, config_info(config, run.name), archive=run / ARCHIVE, viewer=stand_in)
    report.share_standings(standings)
    with open(run / ARCHIVE, "rb") as f:
        frames = (item for item in iter_stream_frames(f.read) if isinstance(item, Frame))
        for number, frame in zip(range(1, kept + 1), frames, strict=False):
            game = bench_streaming.numbered(record, str(number))
            count_game(standings, game, number)
            done.add(number)
            report.add(game, number, frame.offset, frame.offset + frame.size)
            report.settle()
    report.write_now()
    SnapshotKeeper(run, config, standings, [], report.offset, done=done, last=kept).write()


def resume(games: int, limit: float, lag: int, scratch: bool) -> None:
    games = even(max(games, 4))
    with tempfile.TemporaryDirectory() as tmp:
        record = bench_streaming.real_game(Path(tmp), ROOT)
        run = Path(tmp) / "run"
        run.mkdir()
        save_settings(run, Settings(engines=[bench_streaming.engine("A"), bench_streaming.engine("B")], games=games,
                                    tc="5+0.05"))
        kept = games - 2
        start = time.perf_counter()
        bench_streaming.write_archive(run / ARCHIVE, record, kept)
        bench_streaming.write_sgn(run / SGN, record, kept)
        bench_streaming.write_results(run / RESULTS, record, kept)
        if not scratch:
            stopped_state(run, record, max(0, kept - lag))
        made = time.perf_counter() - start
        state = "no snapshot, no report state" if scratch else f"snapshot and report state {min(lag, kept):,} games behind"
        print(f"resume: folder of {kept:,} finished games of {games:,} ({(run / ARCHIVE).stat().st_size / 1e6:,.0f} MB "
              f"archive, SGN and JSON Lines level with it; {state}; made in {made:.1f} s)")
        start = time.perf_counter()
        proc = subprocess.Popen([*CLI, "tournament", "--resume", str(run)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
        assert proc.stdout is not None
        assert proc.stderr is not None
        watch = Watch(proc, limit)
        watch.start()
        first = None
        resumed, resumed_at = "(no 'Resuming:' line)", 0.0
        for line in proc.stdout:
            if line.startswith("Resuming:"):
                resumed, resumed_at = line.strip(), time.perf_counter() - start
            if first is None and line.startswith("Started game "):
                first = time.perf_counter() - start
                watch.at_first = watch.peak
        err = proc.stderr.read()
        status = proc.wait()
        watch.join()
        wall = time.perf_counter() - start
        if status != 0 and not watch.stopped:
            raise SystemExit(f"resume: exit {status}: {err.strip()[-500:]}")
        how = ("the two games played and the report written" if not watch.stopped else
               f"still running after --limit {limit:.0f} s: SIGTERM" + (", then SIGKILL 10 s later" if watch.killed else ""))
        if resumed_at:
            print(f"resume: {resumed!r} printed after {resumed_at:.2f} s (the archive streamed)")
        if first is not None:
            print(f"resume: first new 'Started game' after {first:.2f} s, peak RSS until then {watch.at_first:.1f} MB")
        else:
            print(f"resume: no new 'Started game' within --limit {limit:.0f} s")
        print(f"resume: whole run {wall:.1f} s ({how}): peak RSS {watch.peak:.1f} MB")
        verdict("resume peak RSS", f"{watch.peak:.1f} MB", watch.peak < RESUME_RSS_TARGET_MB,
                f"under {RESUME_RSS_TARGET_MB:.0f} MB")
        figure = f"{first:.2f} s" if first is not None else f"none within {limit:.0f} s"
        verdict("resume first new game", figure, first is not None and first < RESUME_TIME_TARGET_S,
                f"under {RESUME_TIME_TARGET_S:.0f} s")


class Watch(threading.Thread):
    """Samples a process's peak RSS (``VmHWM``) every 50 ms until it exits; after ``limit``
    seconds sends it SIGTERM, then SIGKILL 10 s later (a resume's first report write renders the
    viewer file of every block, hours for a million games)."""

    def __init__(self, proc: subprocess.Popen[str], limit: float) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.limit = limit
        self.peak = 0.0
        self.at_first = 0.0
        self.stopped = False
        self.killed = False

    def run(self) -> None:
        start = time.monotonic()
        while self.proc.poll() is None:
            self.peak = max(self.peak, rss_mb(self.proc.pid, "VmHWM"))
            elapsed = time.monotonic() - start
            if elapsed > self.limit and not self.stopped:
                self.stopped = True
                self.proc.terminate()
            elif self.stopped and not self.killed and elapsed > self.limit + 10:
                self.killed = True
                self.proc.kill()
            time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts = parser.add_subparsers(dest="part", required=True)
    for name, text in (("collector", "synthetic records through the collector and every sink"),
                       ("tournament", "a real santorini tournament -j 2 of canned engines"),
                       ("append", "match --out onto a big SGN file"),
                       ("resume", "tournament --resume over a big folder")):
        part = parts.add_parser(name, help=text)
        part.add_argument("--games", type=int, default=DEFAULTS[name], help=f"default {DEFAULTS[name]:,}")
        part.add_argument("--quick", action="store_true", help=f"{QUICK[name]} games (the smoke test)")
        if name == "collector":
            part.add_argument("--sprt", action="store_true", help=f"the runner computes the LLR after every game ({SPRT})")
            part.add_argument("--no-report", action="store_true",
                              help="no ReportWriter: the collector and its three files alone (to tell the report's share)")
        if name == "resume":
            part.add_argument("--limit", type=float, default=300.0,
                              help="seconds the resumed run may take before it is stopped (default 300)")
            part.add_argument("--lag", type=int, default=1000,
                              help="games the snapshot and the report's state are behind the archive (default 1,000)")
            part.add_argument("--from-scratch", action="store_true", help="no snapshot and no report state")
        if name == "tournament":
            part.add_argument("--engine", choices=["c", "python"], default="c", help="the canned engine's language")
            part.add_argument("--sprt", choices=["both", "off", "on"], default="both",
                              help="runs without and with --sprt (default both, one after the other)")
    args = parser.parse_args()
    games = QUICK[args.part] if args.quick else args.games
    if games < 4:
        parser.error("--games must be at least 4")
    if args.part == "collector":
        collector(games, args.sprt, not args.no_report)
    elif args.part == "tournament":
        tournament(games, args.engine, {"both": (False, True), "off": (False,), "on": (True,)}[args.sprt])
    elif args.part == "append":
        append(games)
    else:
        resume(games, args.limit, args.lag, args.from_scratch)


if __name__ == "__main__":
    main()
