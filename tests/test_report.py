"""The tournament report: its data equals what the tournament prints, its page is safe and
self-contained, and its files are rewritten only as needed and never stop a tournament."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner, Result

from santorini_server.cli import main
from santorini_server.records import ArchiveWriter, GameRecord, read_archive
from santorini_server.stats.placings import NSeatGame
from santorini_server.stats.standings import Standings
from santorini_server.tournament import report_files, runner
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.report import (
    Block,
    BlockEntry,
    RecordsHead,
    ReportInfo,
    ScoreChart,
    block_of,
    block_script,
    build_report,
    config_info,
    read_block_script,
    score_history,
)
from santorini_server.tournament.report_files import REPORT, STATE, ReportWriter
from santorini_server.tournament.report_page import chart_geometry, render_report
from santorini_server.tournament.runner import Interrupted, run_tournament
from santorini_server.tournament.schedule import Games
from santorini_server.tournament.scoring import count_game, empty_standings, termination_table
from tests.test_records_nseat import play_game

GODS = {2: ("apollo", "pan"), 3: ("apollo", "minotaur", "pan"), 4: ("apollo", "minotaur", "pan", "athena")}


def renamed(record: GameRecord, players: Sequence[str], number: int) -> GameRecord:
    """``record`` played by ``players`` (seat order) as game ``number`` of a tournament."""
    names = {f"Player{k}": name for k, name in enumerate(players, 1)}
    tags = [(n, names.get(n, v)) for n, v in record.tags if n != "GameNumber"] + [("GameNumber", str(number))]
    return GameRecord(tuple(tags), record.turns, record.eliminations)


def tournament_games(seats: int, engines: Sequence[str], count: int, seed: int = 0) -> list[tuple[int, GameRecord]]:
    """``count`` random legal games between rotating seatings of ``engines`` (four seats: two
    teams of two engines), numbered 1..count."""
    games = []
    for number in range(1, count + 1):
        k = number % len(engines)
        if seats == 4:
            a, b = engines[k], engines[(k + 1) % len(engines)]
            players: tuple[str, ...] = (a, b, a, b)
        else:
            players = tuple(engines[(k + i) % len(engines)] for i in range(seats))
        record = play_game(GODS[seats], seed * 1000 + number, fault_at=6 if seats == 3 and number % 4 == 0 else None)
        games.append((number, renamed(record.record, players, number)))
    return games


def info(seats: int, engines: Sequence[str], title: str = "cup") -> ReportInfo:
    return ReportInfo(title, tuple(engines), seats, "10+0.1", "/".join(GODS[seats]), 40)


def counted(seats: int, engines: Sequence[str], games: list[tuple[int, GameRecord]]) -> Standings:
    standings = empty_standings(seats, engines)
    for number, record in games:
        count_game(standings, record, number)
    return standings  # type: ignore[return-value]


# --- the data -----------------------------------------------------------------------------------


@pytest.mark.parametrize("engines", [("alpha", "beta"), ("alpha", "beta", "gamma")])
def test_two_seat_standings_and_crosstable_are_the_tables_the_tournament_prints(engines: tuple[str, ...]) -> None:
    games = tournament_games(2, engines, 24)
    data = build_report(info(2, engines), games)
    standings = counted(2, engines, games)
    printed = standings.format_ranking(joint=len(engines) > 2).splitlines()[1:]
    assert len(data.standings.rows) == len(printed) == len(engines)
    for row, line in zip(data.standings.rows, printed, strict=True):
        rank, name, elo, pm, nelo, npm, played, score, *_ = line.split()
        assert (row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[9]) == (
            rank, name, elo, pm, nelo, npm, played, score)
    assert data.crosstable is not None
    cross = standings.crosstable(joint=len(engines) > 2).splitlines()[1:]
    for row, line in zip(data.crosstable.rows, cross, strict=True):
        assert list(row) == line.split()[1:]  # name, score, then one cell per engine
    assert data.played == 24


@pytest.mark.parametrize("seats", [3, 4])
def test_nseat_standings_are_the_placings_ranking_the_tournament_prints(seats: int) -> None:
    engines = ("alpha", "beta", "gamma")
    games = tournament_games(seats, engines, 18)
    data = build_report(info(seats, engines), games)
    standings = counted(seats, engines, games)
    printed = standings.format_ranking().splitlines()
    assert tuple(data.standings.head[2:]) == tuple(printed[0].split()[2:])
    for row, line in zip(data.standings.rows, printed[1:], strict=True):
        assert list(row) == line.split()
    assert data.crosstable is None  # ranked by placings: no pairwise table, as printed


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_each_chart_line_follows_the_score_game_by_game_and_ends_at_the_tables_score(seats: int) -> None:
    engines = ("alpha", "beta", "gamma")
    games = tournament_games(seats, engines, 30)
    standings = counted(seats, engines, games)
    scored = [NSeatGame(number, record.players, record.placings) for number, record in games]
    lines = score_history(engines, scored)
    assert [line.name for line in lines] == list(engines)
    for line in lines:
        tally = standings.tally(line.name)
        assert len(line.points) == tally.games  # one point per scored game it played
        assert [g for g, _ in line.points] == sorted(g for g, _ in line.points)
        assert line.points[-1][1] == pytest.approx(tally.score)
        assert all(0.0 <= s <= 1.0 for _, s in line.points)
    # thinned: at most the limit, first and last kept
    thin = score_history(engines, scored, limit=5)
    for full, short in zip(lines, thin, strict=True):
        assert len(short.points) == min(5, len(full.points))
        assert short.points[0] == full.points[0] and short.points[-1] == full.points[-1]


def test_the_chart_of_a_known_history() -> None:
    games = [NSeatGame(number, ("a", "b"), (1, 2) if winner == 1 else (2, 1)) for number, winner in enumerate([1, 1, 2, 1], 1)]
    (a, b) = score_history(("a", "b"), games)
    assert a.points == ((1, 1.0), (2, 1.0), (3, 2 / 3), (4, 0.75))
    assert b.points == ((1, 0.0), (2, 0.0), (3, 1 / 3), (4, 0.25))
    geometry = chart_geometry((a, b), 4, width=140, height=122)  # box: x 44..128, y 10..100
    assert geometry.lines[0].points.split()[0] == "65.0,10.0" and geometry.lines[0].points.split()[-1] == "128.0,32.5"
    assert geometry.lines[1].last == "25.0%" and geometry.lines[1].end == (128.0, 77.5)


def test_termination_counts_and_the_losses_table() -> None:
    engines = ("alpha", "beta", "gamma")
    games = tournament_games(3, engines, 20)
    data = build_report(info(3, engines), games)
    assert dict(data.terminations) == Counter(r.termination for _, r in games)
    standings = counted(3, engines, games)
    printed = termination_table(standings, list(engines)).splitlines()
    assert list(data.losses.head) == ["Engine", "W", "L", *printed[0].split()[4:]]
    for row, line in zip(data.losses.rows, printed[1:], strict=True):
        assert list(row) == line.split()
    assert sum(int(c) for row in data.losses.rows for c in row[3:]) > 0  # eliminations were counted


def test_games_go_into_blocks_of_a_hundred_numbers_and_each_block_lists_its_games() -> None:
    assert block_of(1) == block_of(100) == Block(1, 100) and block_of(101) == Block(101, 200)
    assert block_of(10_000).path == "games/9901-10000.html"
    with pytest.raises(ValueError):
        block_of(0)
    assert block_of(5, size=3) == block_of(6, size=3) == Block(4, 6) and block_of(7, size=3) == Block(7, 9)
    numbers = [250, 3, 1, 101, 7, 199]
    base = tournament_games(2, ("alpha", "beta"), 6)
    games = [(n, renamed(r, r.players, n)) for n, (_, r) in zip(numbers, base, strict=True)]
    data = build_report(info(2, ("alpha", "beta")), games)
    assert data.blocks == ((Block(1, 100), 3), (Block(101, 200), 2), (Block(201, 300), 1))
    assert data.played == 6
    entries = [BlockEntry(n, "a vs b", "apollo/pan", "1-0 a won", "normal", n % 7, 1000 * n) for n in (7, 1, 3)]
    script = block_script(Block(1, 100), entries)
    assert script.startswith("reportBlock(") and script.endswith(");\n")
    listed = read_block_script(script, Block(1, 100))
    assert [e.number for e in listed] == [1, 3, 7]  # number order: the K-th is #game=K in the viewer file
    assert listed == sorted(entries, key=lambda e: e.number)
    with pytest.raises(ValueError, match="games 1-100"):
        read_block_script(script, Block(101, 200))
    for damaged in ("", script[:-5], script.replace('"games"', '"gamez"'), "alert(1);\n"):
        with pytest.raises(ValueError):
            read_block_script(damaged, Block(1, 100))


def test_the_chart_stays_bounded_over_a_long_run_and_its_state_round_trips() -> None:
    chart = ScoreChart(("a", "b"), limit=50)
    reference = []
    for k in range(1, 20_001):
        placings = (1, 2) if k % 3 else (2, 1)
        chart.add(("a", "b") if k % 2 else ("b", "a"), placings if k % 1000 else None)
        if k % 1000:
            reference.append(NSeatGame(k, ("a", "b") if k % 2 else ("b", "a"), placings))
    lines = chart.lines()
    assert [len(line.points) for line in lines] == [50, 50]
    assert all(len(line[4]) <= 100 for line in chart._lines.values())  # what it keeps, not what it shows
    a = lines[0].points
    assert a[0][0] == 1 and a[-1][0] == 19_999  # the first point and the last game of a (20,000 was unscored)
    assert [x for x, _ in a] == sorted(x for x, _ in a)
    # the last point is the score of all its games, as the unthinned history has it
    full = {line.name: line.points for line in score_history(("a", "b"), reference, limit=10**6)}
    assert a[-1][1] == pytest.approx(full["a"][-1][1])
    again = ScoreChart.from_state(chart.state())
    assert again.lines() == lines and again.played == 20_000
    again.add(("a", "b"), (1, 2))
    chart.add(("a", "b"), (1, 2))
    assert again.lines() == chart.lines()
    with pytest.raises(ValueError, match="not a chart state"):
        ScoreChart.from_state([1, 2])


def head_of(records: list[GameRecord]) -> RecordsHead:
    head = RecordsHead()
    for record in records:
        head.add(record)
    return head


def test_records_without_distinct_game_numbers_are_numbered_by_their_place() -> None:
    games = tournament_games(2, ("alpha", "beta"), 3)
    records = [r for _, r in reversed(games)]
    head = head_of(records)
    assert [head.number(r, k) for k, r in enumerate(records, 1)] == [3, 2, 1]  # their GameNumber
    plain = [GameRecord(tuple(t for t in r.tags if t[0] != "GameNumber"), r.turns) for r in records]
    head = head_of(plain)
    assert [head.number(r, k) for k, r in enumerate(plain, 1)] == [1, 2, 3]
    twice = head_of([*records, records[0]])
    assert [twice.number(r, k) for k, r in enumerate(records, 1)] == [1, 2, 3]  # a number met twice: places
    info = head.info("file")
    assert info.engines == ("beta", "alpha") and info.seats == 2 and info.time_control == "10+0.1"
    assert info.title == "N-seat test"  # the games' Event tag
    with pytest.raises(ValueError, match="2 and 3 seats"):
        head_of([*plain, tournament_games(3, ("a", "b", "c"), 1)[0][1]]).info("mixed")
    with pytest.raises(ValueError, match="no games to report"):
        RecordsHead().info("empty")


# --- the page -----------------------------------------------------------------------------------


def game_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert match is not None
    return json.loads(match.group(1))


def test_untrusted_names_are_escaped_in_the_tables_and_cannot_end_a_script() -> None:
    evil = ("<img src=x onerror=alert(1)>", "</script><script>alert(2)</script>")
    games = tournament_games(2, evil, 4)
    html = render_report(build_report(info(2, evil, title="<b>cup</b> & co"), games))
    assert "<img src=x" not in html and "<script>alert" not in html and "<b>cup" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;b&gt;cup&lt;/b&gt; &amp; co" in html
    entry = BlockEntry(1, f"{evil[0]} vs {evil[1]}", "apollo/pan", "1-0 & so", "normal", 3, 0)
    script = block_script(Block(1, 100), [entry])
    assert "<" not in script and ">" not in script and "&" not in script
    assert read_block_script(script, Block(1, 100)) == [entry]


def test_the_page_carries_one_entry_per_block_and_requests_nothing() -> None:
    engines = ("alpha", "beta", "gamma")
    games = tournament_games(2, engines, 30)
    report = build_report(info(2, engines), games, block_size=8)
    html = render_report(report)
    data = game_data(html)
    assert data == {"played": 30, "blocks": [[1, 8, 8], [9, 16, 8], [17, 24, 8], [25, 32, 6]]}
    assert not any(record.turns[0].turn in html for _, record in games[:3])  # no movetext in the report
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html


# --- the files ----------------------------------------------------------------------------------


class FakeViewer:
    """Records each call and writes a page naming the games (the real viewer is tested on its own)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[int]]] = []

    def __call__(self, records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None:
        numbers = [r.game_number or 0 for r in records]
        self.calls.append((out.name, numbers))
        out.write_text(f"<title>{title}</title>" + ",".join(map(str, numbers)))


def test_a_block_file_is_rewritten_only_when_its_block_gained_a_game(tmp_path: Path) -> None:
    engines = ("alpha", "beta")
    games = tournament_games(2, engines, 6)
    viewer = FakeViewer()
    writer = ReportWriter(tmp_path, info(2, engines), viewer=viewer, block_size=2)
    for number, record in games[:3]:
        writer.add(record, number)
    assert writer.write()
    assert viewer.calls == [("0001-0002.html", [1, 2]), ("0003-0004.html", [3])]
    assert (tmp_path / "games" / "0003-0004.html").read_text().endswith("3")
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [
        "0001-0002.html", "0001-0002.js", "0003-0004.html", "0003-0004.js"]  # no archive: no state either
    viewer.calls.clear()
    writer.add(games[3][1], 4)
    writer.add(games[5][1], 6)
    assert writer.write()
    assert viewer.calls == [("0003-0004.html", [3, 4]), ("0005-0006.html", [6])]
    viewer.calls.clear()
    assert writer.write() and viewer.calls == []  # nothing new: the report only
    assert "5 of 40 games played" in " ".join((tmp_path / REPORT).read_text().split())
    assert [n for n, _, _ in listed_games(tmp_path)] == [1, 2, 3, 4, 6]
    writer.add(games[4][1], 5)
    with pytest.raises(ValueError, match="already"):
        writer.add(games[4][1], 5)


def test_writes_are_due_after_the_interval_and_only_when_something_changed(tmp_path: Path) -> None:
    games = tournament_games(2, ("alpha", "beta"), 3)
    writer = ReportWriter(tmp_path, info(2, ("alpha", "beta")), viewer=FakeViewer(), interval=5.0)
    assert not writer.due(0.0)
    writer.add(games[0][1], 1)
    assert writer.due(0.0)  # the first game: at once
    writer.write(100.0)
    writer.add(games[1][1], 2)
    assert not writer.due(104.9) and writer.due(105.0)
    writer.write(105.0)
    assert not writer.due(500.0)
    writer.add(games[2][1], 3)
    writer.cost = 2.0  # a slow write (a huge tournament): the next waits ten times as long
    assert not writer.due(124.9) and writer.due(125.0)


def test_a_failing_write_warns_once_and_never_raises(tmp_path: Path) -> None:
    games = tournament_games(2, ("alpha", "beta"), 2)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    warnings: list[str] = []
    writer = ReportWriter(blocker / "sub", info(2, ("alpha", "beta")), viewer=FakeViewer(), warn=warnings.append)
    writer.add(games[0][1], 1)
    assert writer.write() is False
    writer.add(games[1][1], 2)
    assert writer.write() is False
    assert len(warnings) == 1 and "cannot write the report" in warnings[0] and "recorded" in warnings[0]
    with pytest.raises(OSError):
        writer.write_now()


# --- the tournament's collector keeps the report ------------------------------------------------


class RecordsBackend:
    """Plays nothing: sends a ready random legal game for each scheduled game (the seats' names
    as scheduled), so the collector's bookkeeping is tested without engines; ``limit``: stops
    after so many (the run is then incomplete, as if interrupted)."""

    def __init__(self, config: TournamentConfig, limit: int | None = None) -> None:
        self.config = config
        self.limit = limit

    async def play(self, games: Games, results: Any, started: Any) -> None:
        names = [spec.name for spec in self.config.specs]
        async with results:
            for sent, game in enumerate(games):
                if sent == self.limit:
                    return
                started(game)
                record = play_game(GODS[2], game.number).record
                await results.send(renamed(record, [names[i] for i in game.seats], game.number))


async def test_the_tournament_rewrites_its_report_as_games_finish_and_a_failing_report_stops_nothing(
    tmp_path: Path,
) -> None:
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy"], rounds=3, tc="1+0.01"))
    viewer = FakeViewer()
    report = ReportWriter(tmp_path, config_info(config), viewer=viewer, interval=0.0, slowdown=0.0)
    files = TournamentFiles(tmp_path)
    try:
        result = await run_tournament(config, files, backend=RecordsBackend(config), emit=lambda _: None, report=report)
    finally:
        files.close()
    assert result.complete and result.played == 6
    assert report._standings is result.standings  # one copy of each game's scoring
    # written off the collector as games finish (how many at a time is the writer's pace), each
    # block once more only when it gained games: the last write has every game, nothing twice
    written = [numbers for _, numbers in viewer.calls]
    assert written and written[-1] == [1, 2, 3, 4, 5, 6]
    assert all(a == list(range(1, len(a) + 1)) and len(a) < len(b) for a, b in itertools.pairwise(written))
    assert [n for n, _, _ in listed_games(tmp_path)] == [1, 2, 3, 4, 5, 6]
    assert "6 of 6 games played (complete)" in " ".join((tmp_path / REPORT).read_text().split())

    def broken(records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None:
        raise OSError(28, "No space left on device")

    warnings: list[str] = []
    folder = tmp_path / "again"
    report = ReportWriter(folder, config_info(config), viewer=broken, interval=0.0, warn=warnings.append)
    files = TournamentFiles(folder)
    try:
        result = await run_tournament(config, files, backend=RecordsBackend(config), emit=lambda _: None, report=report)
    finally:
        files.close()
    assert result.complete and result.played == 6 and len(read_archive(folder / "games.msgpack")[0]) == 6
    assert warnings == [f"Warning: cannot write the report in {folder}: [Errno 28] No space left on device "
                        "(the games are recorded)"]


async def _run(folder: Path, config: TournamentConfig, viewer: FakeViewer, limit: int | None = None,
               emitted: list[str] | None = None) -> Any:
    report = ReportWriter(folder, config_info(config), viewer=viewer, interval=0.0, slowdown=0.0, block_size=2,
                          archive=folder / "games.msgpack")
    files = TournamentFiles(folder)
    try:
        return await run_tournament(config, files, backend=RecordsBackend(config, limit),
                                    emit=(emitted.append if emitted is not None else lambda _: None), report=report)
    finally:
        files.close()


class SignalledBackend(RecordsBackend):
    """Sends its ``limit`` games, then SIGINT to this process (a user's Ctrl-C), and waits."""

    async def play(self, games: Games, results: Any, started: Any) -> None:
        async with results:
            await super().play(games, results.clone(), started)
            os.kill(os.getpid(), signal.SIGINT)
            await trio.sleep_forever()


async def test_the_viewer_backlog_is_written_at_the_end_of_a_run_and_left_to_the_next_write_on_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Games that come faster than their viewer files leave a backlog: a run that completes
    writes it before it returns, one bounded write after another; a run stopped by Ctrl-C
    leaves it in the report's state, and the next write (``santorini report``) makes it."""
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy"], rounds=12, tc="1+0.01"))
    monkeypatch.setattr(report_files, "VIEWER_BUDGET", 1e-9)  # a write renders one block
    monkeypatch.setattr(runner, "ANNOUNCED_BACKLOG", 1)
    blocks = {f"{k:04d}-{k + 1:04d}.html" for k in range(1, 25, 2)}
    for name, backend in (("complete", RecordsBackend), ("interrupted", SignalledBackend)):
        folder = tmp_path / name
        viewer = FakeViewer()
        emitted: list[str] = []
        report = ReportWriter(folder, config_info(config), viewer=viewer, interval=3600.0, block_size=2,
                              archive=folder / "games.msgpack")
        files = TournamentFiles(folder)
        try:
            if backend is RecordsBackend:
                result = await run_tournament(config, files, backend=backend(config), emit=emitted.append, report=report)
                assert result.complete
            else:
                with pytest.raises(Interrupted):
                    await run_tournament(config, files, backend=backend(config, 20), emit=emitted.append,
                                         report=report)
        finally:
            files.close()
        rendered = {out for out, _ in viewer.calls}
        if name == "complete":
            assert rendered == blocks and report.backlog() == 0
            assert any(line.startswith("Writing the viewer files of 11 blocks of up to 2 games") for line in emitted)
        else:
            assert report.backlog() == 9  # ten blocks played; the one write made once the run stopped rendered one
            assert len(rendered) == 1 and not any(line.startswith("Writing") for line in emitted)
            assert f"The viewer files of 9 blocks of up to 2 games are left to write: `santorini report {folder}`" \
                in " ".join(emitted)
            viewer.calls.clear()  # --resume: the backlog comes back from the report's state
            report = ReportWriter(folder, config_info(config), viewer=viewer, interval=3600.0, block_size=2,
                                  archive=folder / "games.msgpack")
            files = TournamentFiles(folder)
            try:
                result = await run_tournament(config, files, backend=RecordsBackend(config), emit=emitted.append,
                                              report=report)
            finally:
                files.close()
            assert result.complete and result.resumed == 20 and report.backlog() == 0
            assert {out for out, _ in viewer.calls} | rendered == blocks


async def test_a_resume_reads_only_the_games_after_the_snapshot_and_the_reports_state(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy"], rounds=5, tc="1+0.01"))
    viewer = FakeViewer()
    first = await _run(tmp_path, config, viewer, limit=6)
    assert first.played == 6 and not first.complete
    archive = tmp_path / "games.msgpack"
    data = bytearray(archive.read_bytes())
    data[40] ^= 0xFF  # inside game 1's frame, far before what the snapshot counted to: a full read would see it
    archive.write_bytes(bytes(data))
    viewer.calls.clear()
    emitted: list[str] = []
    second = await _run(tmp_path, config, viewer, emitted=emitted)
    assert second.complete and second.resumed == 6 and second.played == 4
    assert not any("damaged" in line for line in emitted)  # the games before the snapshot were not read
    assert {name for name, _ in viewer.calls} == {"0007-0008.html", "0009-0010.html"}  # the new games' blocks only
    assert [n for n, _, _ in listed_games(tmp_path)] == list(range(1, 11))
    assert "10 of 10 games played (complete)" in " ".join((tmp_path / REPORT).read_text().split())
    # the standings are what a count of every game from the start says (of the archive repaired)
    data = bytearray(archive.read_bytes())
    data[40] ^= 0xFF
    archive.write_bytes(bytes(data))
    records, damage = read_archive(archive)
    assert not damage and [r.game_number for r in records] == list(range(1, 11))
    assert second.standings.state() == counted(2, ("random", "greedy"), [(r.game_number or 0, r) for r in records]).state()


async def test_games_a_report_listed_after_its_last_state_are_counted_once(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy"], rounds=5, tc="1+0.01"))
    viewer = FakeViewer()
    await _run(tmp_path, config, viewer, limit=4)
    state = (tmp_path / "games" / STATE).read_bytes()
    await _run(tmp_path, config, viewer, limit=2)  # games 5 and 6, listed in their block's script
    (tmp_path / "games" / STATE).write_bytes(state)  # as if the run had stopped before its state was saved
    viewer.calls.clear()
    result = await _run(tmp_path, config, viewer)
    assert result.complete and result.resumed == 6
    assert {name for name, _ in viewer.calls} == {"0007-0008.html", "0009-0010.html"}  # 5 and 6 were listed
    assert [n for n, _, _ in listed_games(tmp_path)] == list(range(1, 11))
    page = " ".join((tmp_path / REPORT).read_text().split())
    assert "10 of 10 games played (complete)" in page
    # without its state the report is made afresh from every game, each listed once
    (tmp_path / "games" / STATE).unlink()
    (tmp_path / REPORT).unlink()
    viewer.calls.clear()
    again = await _run(tmp_path, config, viewer)
    assert again.resumed == 10 and again.played == 0
    assert [name for name, _ in viewer.calls] == [f"{k:04d}-{k + 1:04d}.html" for k in range(1, 11, 2)]
    assert [n for n, _, _ in listed_games(tmp_path)] == list(range(1, 11))
    assert " ".join((tmp_path / REPORT).read_text().split()) == page


def test_a_block_whose_script_was_lost_is_read_again_from_the_archive(tmp_path: Path) -> None:
    games = dict(tournament_games(2, ("alpha", "beta"), 3))
    archive = tmp_path / "games.msgpack"
    offsets = {}
    with ArchiveWriter(archive) as w:
        for n in (1, 3):
            offsets[n] = w.append(games[n])
    writer = ReportWriter(tmp_path, info(2, ("alpha", "beta")), viewer=FakeViewer(), block_size=2, archive=archive)
    for n in (1, 3):
        writer.add(games[n], n, offsets[n], archive.stat().st_size)
    writer.write_now()
    (tmp_path / "games" / "0001-0002.js").unlink()
    with ArchiveWriter(archive) as w:
        offsets[2] = w.append(games[2])
    viewer = FakeViewer()
    again = ReportWriter(tmp_path, info(2, ("alpha", "beta")), viewer=viewer, block_size=2, archive=archive)
    assert again.restore() == offsets[2]  # its state counted up to game 2's frame
    assert not again.known(2, offsets[2])
    again.add(games[2], 2, offsets[2], archive.stat().st_size)
    again.write_now()
    assert viewer.calls == [("0001-0002.html", [1, 2])]  # game 1 found again in the archive
    assert [n for n, _, _ in listed_games(tmp_path)] == [1, 2, 3]
    assert again.restore() == archive.stat().st_size and again.known(2, offsets[2])


# --- end to end: a real tournament, santorini report ----------------------------------------


def santorini(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "santorini_server.cli", *args], capture_output=True, text=True,
                          timeout=120)


def listed_games(folder: Path) -> list[tuple[int, str, str]]:
    """The report's game list: (number, players, link), read from each block's script."""
    games = []
    for first, last, count in game_data((folder / REPORT).read_text())["blocks"]:
        block = Block(first, last)
        entries = read_block_script((folder / block.path).with_suffix(".js").read_text(), block)
        assert len(entries) == count
        games += [(e.number, e.players, f"{block.path}#game={k}") for k, e in enumerate(entries, 1)]
    return games


def test_a_tournament_leaves_its_report_which_santorini_report_makes_again(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = santorini("tournament", "-e", "random", "-e", "greedy", "--rounds", "2", "--tc", "1+0.01", "-j", "2",
                     "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"Report: {out / REPORT}" in proc.stdout
    games = listed_games(out)
    assert [n for n, _, _ in games] == [1, 2, 3, 4]
    assert {link for _, _, link in games} == {f"games/0001-0100.html#game={k}" for k in (1, 2, 3, 4)}
    assert sorted(p.name for p in (out / "games").iterdir()) == ["0001-0100.html", "0001-0100.js", STATE]
    page = (out / REPORT).read_text()
    assert "4 of 4 games played (complete)" in " ".join(page.split())
    assert 'data-engine="random"' in page and 'data-engine="greedy"' in page
    viewer = (out / "games" / "0001-0100.html").read_text()
    assert "santorini tournament (t): games 1-100" in viewer
    assert "<h1>santorini tournament (t)</h1>" in page

    first = page
    (out / REPORT).unlink()
    shutil.rmtree(out / "games")
    proc = santorini("report", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"Wrote {out / REPORT}: 4 games, 1 viewer files in {out / 'games'}"
    assert (out / REPORT).read_text() == first  # the same page: settings from tournament.json
    assert (out / "games" / "0001-0100.html").read_text() == viewer

    other = tmp_path / "other"
    proc = santorini("report", str(out / "games.sgn"), "--out", str(other))
    assert proc.returncode == 0, proc.stderr
    assert listed_games(other) == games


def test_a_resumed_tournament_reports_every_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = santorini("tournament", "-e", "random", "-e", "greedy", "--tc", "1+0.01", "-j", "1", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    (out / REPORT).unlink()
    shutil.rmtree(out / "games")
    proc = santorini("tournament", "--resume", str(out))  # nothing left to play: the report is rebuilt
    assert proc.returncode == 0, proc.stderr
    assert [n for n, _, _ in listed_games(out)] == [1, 2]
    assert (out / "games" / "0001-0100.html").exists()


def test_bad_input_to_santorini_report_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sgn"

    def report(path: Path) -> Result:
        result = CliRunner().invoke(main, ["report", str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result

    for content, fragment in ((b'[Event "x"]\n1. zz9\n', f"{bad}: line 2"), (b"", "no games to report")):
        bad.write_bytes(content)
        result = report(bad)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")
        assert fragment in result.stderr
    result = report(tmp_path / "missing")
    assert result.exit_code == 2 and "does not exist" in result.stderr
    bad.unlink()
    result = report(tmp_path)
    assert result.exit_code == 1 and "holds no games.msgpack or games.sgn" in result.stderr


def test_santorini_report_never_writes_over_its_records(tmp_path: Path) -> None:
    from tests.test_records import SAMPLE

    (tmp_path / "games").mkdir()
    for name, out in ((REPORT, []), (REPORT, ["--out", str(tmp_path)]), ("games/0001-0100.html", ["--out", str(tmp_path)])):
        records = tmp_path / name  # a record file named as a file the report writes
        records.write_text(SAMPLE, encoding="utf-8")
        result = CliRunner().invoke(main, ["report", str(records), *out])
        assert result.exit_code == 1, result.output
        assert result.stderr == f"Error: {records} is where the report writes: choose another folder with --out DIR\n"
        assert records.read_text(encoding="utf-8") == SAMPLE
