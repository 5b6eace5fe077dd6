"""Tournaments of three and four seats: the schedule, real games, records, resume, refusals."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.records import ArchiveWriter, parse_sgn, read_archive
from santorini_server.referee.sources import instance_names
from santorini_server.rules import SIMPLE_GODS, check_gods
from santorini_server.stats.standings import Standings
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.schedule import build_schedule, parse_gods_list, parse_teams
from santorini_server.tournament.scoring import standings_block, versus

PY = sys.executable


def nseat(name: str, *args: str) -> str:
    """The referee tests' instant engine for 2-4 seats (first legal turn), with its switches."""
    return f"cmd={PY} arg=-m arg=tests.gallery.nseat name={name} " + " ".join(f"arg={a}" for a in args)


def run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "santorini_server.cli", *args], capture_output=True, text=True, timeout=120)


def numbers(directory: Path) -> list[int]:
    records, _ = read_archive(directory / "games.msgpack")
    return sorted(r.game_number or 0 for r in records)


# --- schedule (pure) -----------------------------------------------------------------------------


def test_three_seats_every_group_of_three_in_all_six_seat_orders() -> None:
    games = build_schedule(4, players=3, matchups=None)
    assert len(games) == 4 * 6  # C(4, 3) groups x 6 seat orders
    assert [g.number for g in games] == list(range(1, 25))
    for k in range(4):
        block = games[6 * k: 6 * k + 6]
        group = set(block[0].seats)
        assert {g.seats for g in block} == set(itertools.permutations(sorted(group)))
        assert len({(g.gods, g.opening) for g in block}) == 1  # one set: the same conditions
    assert {frozenset(g.seats) for g in games} == {frozenset(c) for c in itertools.combinations(range(4), 3)}
    assert len(build_schedule(4, players=3, matchups=None, games=12, rounds=2)) == 4 * 12 * 2
    with pytest.raises(ValueError, match="multiple of 6"):
        build_schedule(4, players=3, matchups=None, games=4)
    with pytest.raises(ValueError, match="at least 3 engines"):
        build_schedule(2, players=3, matchups=None)
    with pytest.raises(ValueError, match="round-robin"):
        build_schedule(4, players=3, matchups=None, fmt="gauntlet")


def test_drawn_gods_are_valid_seeded_and_the_same_for_every_group() -> None:
    games = build_schedule(5, players=3, matchups=None, games=18, seed=3)
    for g in games:
        check_gods(g.gods)
        assert set(g.gods) <= set(SIMPLE_GODS)
    per_group = [tuple(g.gods for g in games[i: i + 18: 6]) for i in range(0, len(games), 18)]
    assert len(set(per_group)) == 1  # every group meets the same draws (fair)
    assert len(set(per_group[0])) == 3  # a new draw per set
    assert list(games) == list(build_schedule(5, players=3, matchups=None, games=18, seed=3))  # resume relies on it
    assert [g.gods for g in games] != [g.gods for g in build_schedule(5, players=3, matchups=None, games=18, seed=4)]
    four = build_schedule(3, players=4, matchups=None)
    assert all(len(set(g.gods)) == 4 and "mortal" not in g.gods for g in four)


def test_four_seats_default_teams_are_one_engine_each_and_swap_sides() -> None:
    games = build_schedule(3, players=4, matchups=None)
    assert len(games) == 3 * 2  # C(3, 2) pairs of teams x 2 sides
    assert [g.seats for g in games[:2]] == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert {frozenset(g.seats) for g in games} == {frozenset(p) for p in itertools.combinations(range(3), 2)}
    mixed = build_schedule(4, players=4, matchups=None, teams=((0, 1), (2, 3)))
    assert [g.seats for g in mixed] == [(0, 2, 1, 3), (2, 0, 3, 1)]  # team a+b holds seats 1 and 3, then 2 and 4
    assert versus(("a", "c", "b", "d")) == "a+b vs c+d" and versus(("a", "b", "a", "b")) == "a vs b"
    assert instance_names(("a", "b", "a", "b")) == ("a", "b", "a~2", "b~2")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a+b", "at least two teams"),
        ("a+b,c", "bad team 'c'"),
        ("a+b,c+d+a", "bad team 'c+d+a'"),
        ("a+b,c+", "bad team 'c+'"),
        ("a+b,c+x", "no engine named 'x'"),
        ("a+b,a+c", "a is in two teams (a+b and a+c)"),
    ],
)
def test_teams_errors_are_one_line_each(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        parse_teams(text, ["a", "b", "c", "d"])
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_teams_parse_and_may_repeat_an_engine_inside_a_team() -> None:
    assert parse_teams("a+b, c+d", ["a", "b", "c", "d"]) == ((0, 1), (2, 3))
    assert parse_teams("a+a,b+c", ["a", "b", "c"]) == ((0, 0), (1, 2))


@pytest.mark.parametrize(
    ("text", "players", "fragment"),
    [
        ("apollo/pan", 3, "a 3-seat game needs 3 gods"),
        ("apollo/pan/mortal", 3, "not mortal"),
        ("apollo/pan/apollo", 3, "two seats have apollo"),
        ("apollo/pan/zeus/atlas", 4, "unknown god 'zeus'"),
        ("apollo/pan/atlas", 4, "a 4-seat game needs 4 gods"),
    ],
)
def test_nseat_gods_errors_are_one_line_each(text: str, players: int, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_gods_list(text, players)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_nseat_gods_lists_cycle_over_the_sets() -> None:
    assert parse_gods_list("all", 3) is None and parse_gods_list("", 4) is None
    lists = parse_gods_list("apollo/pan/atlas, demeter/minotaur/athena", 3)
    games = build_schedule(3, players=3, matchups=lists)
    assert [g.gods for g in games[::6]] == [("apollo", "pan", "atlas"), ("demeter", "minotaur", "athena")]


TWO = ["cmd=x name=a", "cmd=x name=b"]
THREE = [*TWO, "cmd=x name=c"]


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        (Settings(engines=TWO, players=3, gods="all"), "at least 3 engines"),
        (Settings(engines=THREE, players=3), "a 3-seat game needs 3 gods"),  # mortal/mortal
        (Settings(engines=THREE, teams="a+b,c+c"), "--teams is for four-seat"),
        (Settings(engines=TWO, players=4, gods="all", sprt="elo0=0 elo1=5"), "--sprt is for two-seat"),
        (Settings(engines=THREE, players=3, gods="all",
                  openings=["mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"]), "has 2 seats"),
    ],
)
def test_nseat_settings_errors(settings: Settings, fragment: str) -> None:
    with pytest.raises(ValueError) as caught:
        TournamentConfig.from_settings(settings)
    assert fragment in str(caught.value)


def test_two_seat_tournament_of_three_engines_ends_with_the_joint_rating() -> None:
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy", "alphabeta"]))
    standings = Standings()
    for name in ("random", "greedy", "alphabeta"):
        standings.add_engine(name)
    number = 0
    for a, b in (("alphabeta", "greedy"), ("alphabeta", "random"), ("greedy", "random")):
        for _ in range(2):  # alphabeta wins every game: its per-engine Elo is n/a, its joint rating is not
            number += 1
            standings.record(a, b, 1, "climb", game_number=number)
            number += 1
            standings.record(b, a, 2, "climb", game_number=number)
    live = standings_block(config, standings)
    final = standings_block(config, standings, final=True)
    row = next(line for line in final.splitlines() if "alphabeta" in line)
    assert row.split()[:2] == ["1", "alphabeta"] and row.split()[2] != "n/a"
    assert next(line for line in live.splitlines() if "alphabeta" in line).split()[2] == "n/a"
    assert final.startswith(standings.format_ranking(joint=True))


# --- real tournaments -------------------------------------------------------------------------------


def test_three_seat_tournament_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "--players", "3", "-e", nseat("A"), "-e", nseat("B"), "-e", nseat("C"),
                "-e", nseat("D", "crash=40"), "--tc", "5+0.05", "-j", "2", "--out", str(out), "--rating-interval", "12"])
    assert proc.returncode == 0, proc.stderr
    assert numbers(out) == list(range(1, 25))
    assert proc.stdout.startswith("Tournament: 4 engines, 3 seats a game, 24 games, tc 5+0.05, concurrency 2")
    assert "Started game 1 of 24 (A vs B vs C)" in proc.stdout
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 24
    for line in lines:
        assert sorted(line["placings"]) in ([1, 2, 2], [1, 2, 3]) and line["result"] == "-".join(map(str, line["placings"]))
        assert len({line["player1"], line["player2"], line["player3"]}) == 3
        check_gods(tuple(line["gods"].split("/")))
    games = parse_sgn((out / "games.sgn").read_text())
    assert len(games) == 24 and all(g.tag("Player3") for g in games)
    crashed = [g for g in games if "D" in g.players and g.eliminations]
    assert crashed and crashed[0].eliminations[0].termination == "crash"  # D's crash eliminated it, the game went on
    assert "mu" in proc.stdout and "sigma" in proc.stdout and "3rd" in proc.stdout  # the N-seat ranking
    final = proc.stdout[proc.stdout.rindex("Rank Name"):]
    table = final[final.index("Engine "):].splitlines()
    d_row = next(r for r in table if r.startswith("D "))
    assert int(d_row.split()[5]) >= 1  # D's crash is in its losses, under "crash"
    assert "Elo" not in final and "Score of" not in final


def test_four_seat_tournament_with_mixed_teams(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "--players", "4", "-e", nseat("A"), "-e", nseat("B"), "-e", nseat("C"),
                "-e", nseat("D"), "--teams", "A+B,C+D", "--gods", "apollo/atlas/pan/demeter", "--games", "4",
                "--tc", "5+0.05", "-j", "2", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "Started game 1 of 4 (A+B vs C+D)" in proc.stdout and "Started game 2 of 4 (C+D vs A+B)" in proc.stdout
    records, _ = read_archive(out / "games.msgpack")
    assert {r.players for r in records} == {("A", "C", "B", "D"), ("C", "A", "D", "B")}
    assert all(r.gods == ("apollo", "atlas", "pan", "demeter") and r.placings in ((1, 2, 1, 2), (2, 1, 2, 1)) for r in records)
    assert "Seats" not in proc.stdout.split("Rank Name")[-1].splitlines()[0]  # every engine one seat a game


def test_four_seat_team_of_one_engine_runs_a_process_per_seat_and_charges_the_fault(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "--players", "4", "-e", nseat("A"), "-e", nseat("B", "illegal"),
                "--tc", "5+0.05", "-j", "1", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    records, _ = read_archive(out / "games.msgpack")
    assert len(records) == 2 and all(r.termination == "illegal" for r in records)
    for r in records:  # B's team loses by B's illegal turn
        assert r.placings == tuple(2 if name == "B" else 1 for name in r.players)
    assert "B makes an illegal turn" in proc.stdout
    b_row = next(r for r in proc.stdout.split("Engine ")[-1].splitlines() if r.startswith("B "))
    assert b_row.split()[1:4] == ["0", "4", "0"]  # W 0, L 4 seats; its illegal turns charged to B
    assert int(b_row.split()[4]) == 2


def test_an_engine_that_did_not_declare_the_seat_count_is_refused_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "--players", "3", "-e", nseat("A"), "-e", nseat("B"), "-e", nseat("C", "players=2"),
                "--out", str(out)])
    assert proc.returncode == 1
    assert proc.stderr.strip() == "Error: C does not play 3-seat games (its handshake declared `feature players 2`)"
    assert "Started game" not in proc.stdout and not out.exists()
    silent = run(["tournament", "--players", "4", "-e", nseat("A"), "-e", nseat("B", "players="), "--out", str(out)])
    assert silent.returncode == 1 and "B does not play 4-seat games" in silent.stderr and "no `feature players`" in silent.stderr


def test_resume_of_a_three_seat_tournament_plays_exactly_the_missing_games(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "--players", "3", "-e", nseat("A"), "-e", nseat("B"), "-e", nseat("C"), "--games", "12",
            "--tc", "5+0.05", "-j", "2"]
    first = run([*args, "--out", str(out)])
    assert first.returncode == 0, first.stderr
    records, _ = read_archive(out / "games.msgpack")
    # as if killed after 5 games: a folder with the settings and the archive's first frames only
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "tournament.json").write_text((out / "tournament.json").read_text())
    kept = sorted(records, key=lambda r: r.game_number or 0)[:5]
    with ArchiveWriter(cut / "games.msgpack") as writer:
        for record in kept:
            writer.append(record)
    again = run(["tournament", "--resume", str(cut), "-j", "1"])
    assert again.returncode == 0, again.stderr
    assert "Resuming: 5 of 12 games already played" in again.stdout
    assert again.stdout.count("Finished game") == 7
    assert numbers(cut) == list(range(1, 13))
    assert len((cut / "results.jsonl").read_text().splitlines()) == 12
    assert len(parse_sgn((cut / "games.sgn").read_text())) == 12
    resumed = {r.game_number: (r.players, r.gods, r.result) for r in read_archive(cut / "games.msgpack")[0]}
    assert resumed == {r.game_number: (r.players, r.gods, r.result) for r in records}  # the same schedule
    def table(stdout: str) -> str:
        return stdout.split("Rank Name")[-1].split("Records:")[0]

    assert table(first.stdout) == table(again.stdout)  # the same standings


def test_the_bundled_engines_play_three_and_four_seat_tournaments_that_replay(tmp_path: Path) -> None:
    three, four = tmp_path / "three", tmp_path / "four"
    proc = run(["tournament", "--players", "3", "-e", "alphabeta", "-e", "greedy", "-e", "random", "--tc", "depth=1",
                "-j", "2", "--out", str(three)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Finished game") == 6 and "Ordinal" in proc.stdout and "3rd" in proc.stdout
    proc = run(["tournament", "--players", "4", "-e", "alphabeta", "-e", "greedy", "--tc", "depth=1", "-j", "2",
                "--out", str(four)])
    assert proc.returncode == 0, proc.stderr
    assert "Started game 1 of 2 (alphabeta vs greedy)" in proc.stdout and " Seats " in proc.stdout
    for folder in (three, four):
        check = run(["replay", str(folder / "games.msgpack"), "--check"])
        assert check.returncode == 0 and "all re-validate" in check.stdout, check.stdout + check.stderr
