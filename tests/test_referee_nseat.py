"""The referee with three and four real engine processes (SPEC.md section 15): eliminations that
let the game go on, the eliminated engine told its ``result`` and asked nothing more, the
four-seat team loss, the refusal of an engine that did not declare the seat count, and no engine
process outliving its game."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import trio
import trio.testing
from click.testing import CliRunner

from santorini_server.adjudicator import GameSetup, parse_tc
from santorini_server.cli import main
from santorini_server.records import GameRecord, parse_sgn
from santorini_server.records.replay import check_record
from santorini_server.referee import Engine, parse_engine_spec, play_game
from santorini_server.referee.game import GameReport
from santorini_server.tournament.match import MatchConfig, run_match

PY = sys.executable
THREE = ("apollo", "minotaur", "pan")
FOUR = ("apollo", "minotaur", "pan", "athena")


def nseat(name: str, *args: str, module: str = "nseat") -> str:
    """A spec of the gallery's N-seat engine, tagged ``marker=<pid>-<name>`` for the process check."""
    spec = f"cmd={PY} arg=-m arg=tests.gallery.{module} " + " ".join(f"arg={a}" for a in args)
    return spec + f" arg=marker={os.getpid()}-{name} name={name}"


def engine_processes(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


async def play(
    specs: list[str], gods: tuple[str, ...], tc: str = "10+0.1", *, clock: trio.testing.MockClock | None = None, **setup: object
) -> GameReport:
    """Start one engine per seat, play one game, close them; no engine process may outlive it.

    With ``clock``, time jumps once the engines have started (a start under load is slow, in real time).
    """
    async with trio.open_nursery() as nursery:
        engines = [await Engine.start(nursery, parse_engine_spec(spec)) for spec in specs]
        if clock is not None:
            clock.autojump_threshold = 0.5  # real replies arrive in ms; only a true hang jumps
        try:
            t = parse_tc(tc)
            return await play_game(engines, GameSetup(gods=gods, tcs=(t,), margins=(0,), **setup))  # type: ignore[arg-type]
        finally:
            for engine in engines:
                await engine.aclose()
            assert engine_processes(f"marker={os.getpid()}-") == []


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def asked_after_result(log: list[str]) -> list[str]:
    """What the engine was sent after its ``result`` and before the next ``newgame`` (should be nothing
    but ``quit``/``isready``)."""
    after, told = [], False
    for line in log:
        if line.startswith("result"):
            told = True
        elif line.startswith("newgame"):
            told = False
        elif told and line.split()[0] not in ("quit", "isready"):
            after.append(line)
    return after


async def test_three_engines_play_a_game_that_replays_and_each_is_told_the_placings(tmp_path: Path) -> None:
    logs = [tmp_path / f"{n}.log" for n in "ABC"]
    report = await play([nseat(n, f"log={log}") for n, log in zip("ABC", logs, strict=True)], THREE)
    outcome = report.outcome
    assert outcome.termination in ("climb", "pan-drop", "no-moves") and len(outcome.placings) == 3
    assert report.record.players == ("A", "B", "C") and report.record.result == outcome.result
    assert check_record(report.record) == []
    for log in map(lines, logs):
        assert log[0] == "sei 1" and "newgame gods apollo/minotaur/pan" in log
        assert [line for line in log if line.startswith("result")][-1:] != []
        assert asked_after_result(log) == []
    first_go = next(line for line in lines(logs[0]) if line.startswith("go"))
    assert first_go == "go p1time 10000 p2time 10000 p3time 10000 p1inc 100 p2inc 100 p3inc 100"


async def test_a_seat_out_of_time_is_eliminated_told_and_the_others_play_on(tmp_path: Path) -> None:
    log = tmp_path / "slow.log"
    report = await play([nseat("A"), nseat("Slow", "sleep=400", f"log={log}"), nseat("C")], THREE, tc="0.3+0.1")
    outcome = report.outcome
    assert outcome.placings[1] == 3 and outcome.winner in (1, 3)
    [out] = outcome.eliminated if outcome.decider != 2 else (None,)
    assert out is not None and (out.seat, out.termination) == (1, "time")
    told = [line for line in lines(log) if line.startswith("result")]
    assert told == ["result *-3-* time"]
    assert asked_after_result(lines(log)) == []
    assert report.record.eliminations[0].seat == 2 and check_record(report.record) == []
    assert len(report.record.turns) > 3  # the game went on after seat 2 left


async def test_a_crash_eliminates_the_seat_and_the_process_is_gone(tmp_path: Path) -> None:
    report = await play([nseat("A"), nseat("B"), nseat("Crashy", "crash=2")], THREE)
    out = report.record.eliminations
    assert [(e.seat, e.termination) for e in out] == [(3, "crash")]
    assert "exit code 3" in (out[0].detail or "")
    assert report.outcome.placings[2] == 3 and check_record(report.record) == []


async def test_an_engine_that_fails_to_get_ready_leaves_at_its_first_turn() -> None:
    report = await play([nseat("A"), nseat("Broken", "crash=0"), nseat("C")], THREE)
    [out] = report.record.eliminations
    assert (out.after, out.seat, out.termination) == (1, 2, "crash")  # seat 1 placed first
    assert report.record.turns[0].turn and check_record(report.record) == []


async def test_a_hanging_seat_loses_on_time_at_its_deadline_and_the_game_goes_on(mock_clock: trio.testing.MockClock) -> None:
    start = trio.current_time()
    report = await play([nseat("A"), nseat("B"), nseat("Hang", "hang")], THREE, tc="3+0", clock=mock_clock)
    assert trio.current_time() - start >= 3.0  # the hang was waited out in (mock) time
    assert [(e.seat, e.termination) for e in report.record.eliminations] == [(3, "time")]
    assert report.outcome.placings[2] == 3 and check_record(report.record) == []


async def test_four_engines_play_as_two_teams(tmp_path: Path) -> None:
    log = tmp_path / "d.log"
    report = await play([nseat("A"), nseat("B"), nseat("C"), nseat("D", f"log={log}")], FOUR)
    assert report.outcome.result in ("1-2-1-2", "2-1-2-1")
    assert report.record.players == ("A", "B", "C", "D") and check_record(report.record) == []
    assert [line for line in lines(log) if line.startswith("result")] == [f"result {report.outcome.result} "
                                                                           f"{report.outcome.termination}"]
    go = next(line for line in lines(log) if line.startswith("go"))
    assert go.startswith("go p1time ") and " p4time " in go and go.endswith(" p4inc 100")


async def test_four_seats_an_illegal_turn_loses_for_the_team() -> None:
    report = await play([nseat("A"), nseat("B"), nseat("C", "illegal"), nseat("D")], FOUR)
    assert (report.outcome.result, report.outcome.termination, report.outcome.decider) == ("2-1-2-1", "illegal", 3)
    assert report.outcome.reason(("A", "B", "C", "D")).endswith(": B and D win")


async def test_a_three_engine_match_plays_every_seat_order() -> None:
    said: list[str] = []
    specs = tuple(parse_engine_spec(nseat(n)) for n in "ABC")
    records: list[GameRecord] = []
    summary = await run_match(MatchConfig(specs, 6, parse_tc("10+0.1"), gods=THREE), emit=said.append, writer=records)
    started = [line for line in said if line.startswith("Started")]
    assert started[0] == "Started game 1 of 6 (A vs B vs C)" and len(set(started)) == 6
    assert [sum(p) for p in summary.placings] == [6, 6, 6] and sum(summary.wins) == 6
    assert said[-1].startswith("Placings of A, B, C: firsts ")
    assert all(check_record(r) == [] for r in records)


def test_match_refuses_an_engine_that_did_not_declare_the_seat_count(tmp_path: Path) -> None:
    out = tmp_path / "games.sgn"
    two = nseat("Two", "players=2")
    result = CliRunner().invoke(main, ["match", nseat("A"), two, nseat("C"), "--players", "3", "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        "Error: Two does not play 3-seat games (its handshake declared `feature players 2`)"
    ]
    assert not out.exists()
    silent = nseat("Old", "players=")
    result = CliRunner().invoke(main, ["match", nseat("A"), silent, "--gods", "apollo/minotaur/pan/athena"])
    assert result.output.strip() == (
        "Error: Old does not play 4-seat games (its handshake has no `feature players` line, which means 2 only)"
    )
    assert engine_processes(f"marker={os.getpid()}-") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "3"], "a 3-seat match takes 3 engines, got 2 engines"),
        (["--players", "3", "--gods", "apollo/pan"], "--players 3 means 3 seats but --gods apollo/pan means 2"),
        (["--gods", "apollo/mortal/pan"], "a 3-seat game is played with god powers"),
    ],
)
def test_match_seat_count_errors_are_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["match", "random", "greedy", *args])
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_match_with_two_teams_writes_records_that_replay(tmp_path: Path) -> None:
    out = tmp_path / "games.sgn"
    result = CliRunner().invoke(main, ["match", nseat("A"), nseat("B"), "--players", "4", "--games", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "Started game 1 of 2 (A vs B vs A vs B)" in result.output
    assert "Started game 2 of 2 (B vs A vs B vs A)" in result.output
    assert result.output.strip().splitlines()[-1].startswith("Score of A vs B: ")
    records = parse_sgn(out.read_text())
    assert [r.players for r in records] == [("A", "B", "A", "B"), ("B", "A", "B", "A")]
    assert all(check_record(r) == [] for r in records)
    assert engine_processes(f"marker={os.getpid()}-") == []


async def test_an_engine_s_own_time_control_follows_it_to_every_seat() -> None:
    specs = (parse_engine_spec(nseat("A")), parse_engine_spec(nseat("B")),
             parse_engine_spec(nseat("Slow", "sleep=250") + " tc=0.2+0"))
    records: list[GameRecord] = []
    summary = await run_match(MatchConfig(specs, 3, parse_tc("10+0.1"), gods=THREE), emit=lambda _: None, writer=records)
    assert summary.placings[2] == [0, 0, 3]  # out on time in each game, whatever its seat
    for record in records:
        seat = record.players.index("Slow")
        assert [(e.seat, e.termination) for e in record.eliminations] == [(seat + 1, "time")]
        assert record.tag("TimeControl") == " | ".join("0.2" if s == seat else "10+0.1" for s in range(3))


async def test_an_engine_that_cannot_be_started_forfeits_its_seat_and_the_others_play() -> None:
    from santorini_server.referee.engine import EngineFailure
    from santorini_server.referee.slots import play_or_forfeit

    async def broken() -> Engine:
        raise EngineFailure("crash", "could not be started: no such file")

    async with trio.open_nursery() as nursery:
        a, c = [await Engine.start(nursery, parse_engine_spec(nseat(n))) for n in "AC"]

        async def get_a() -> Engine:
            return a

        async def get_c() -> Engine:
            return c

        try:
            report = await play_or_forfeit([get_a, broken, get_c], GameSetup(gods=THREE), ["A", "B", "C"])
        finally:
            await a.aclose()
            await c.aclose()
    [out] = report.record.eliminations
    assert (out.after, out.seat, out.termination, out.detail) == (1, 2, "crash", "could not be started: no such file")
    assert report.outcome.placings[1] == 3 and check_record(report.record) == []
    assert engine_processes(f"marker={os.getpid()}-") == []
