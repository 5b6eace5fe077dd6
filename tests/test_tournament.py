"""Tournaments: schedules, records that are never lost or duplicated, resume after kill -9."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.core import ParameterSource
from click.testing import CliRunner

from santorini_server.cli import main
from santorini_server.cli.tournament_cmd import new_settings, resume_conflicts, tournament
from santorini_server.records import parse_sgn, read_archive
from santorini_server.tournament.config import Settings, TournamentConfig, load_toml
from santorini_server.tournament.schedule import ALL_MATCHUPS, MAX_GAMES, build_schedule, parse_gods_list
from tests.test_report import listed_games

PY = sys.executable


def instant(name: str, *args: str) -> str:
    return f"cmd={PY} arg=-m arg=tests.gallery.instant name={name} " + " ".join(f"arg={a}" for a in args)


# --- schedule (pure) -----------------------------------------------------------------------------


def test_round_robin_pairs_swap_seats_and_are_numbered_consecutively() -> None:
    games = build_schedule(3, rounds=2)
    assert len(games) == 3 * 2 * 2
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.pair == second.pair and second.number == first.number + 1
        assert (first.player1, first.player2) == (second.player2, second.player1)
        assert (first.gods, first.opening) == (second.gods, second.opening)
    encounters = {frozenset((g.player1, g.player2)) for g in games}
    assert encounters == {frozenset(p) for p in ((0, 1), (0, 2), (1, 2))}


def test_gauntlet_plays_seeds_against_the_rest_only() -> None:
    games = build_schedule(4, fmt="gauntlet", seeds=1)
    assert {frozenset((g.player1, g.player2)) for g in games} == {frozenset((0, o)) for o in (1, 2, 3)}
    with pytest.raises(ValueError, match="seeds"):
        build_schedule(2, fmt="gauntlet", seeds=2)


def test_gods_all_plays_every_ordered_matchup_from_both_sides() -> None:
    assert len(ALL_MATCHUPS) == 56 and ("apollo", "pan") in ALL_MATCHUPS and ("pan", "apollo") in ALL_MATCHUPS
    assert not any("hermes" in m or "prometheus" in m for m in ALL_MATCHUPS)
    games = build_schedule(2, matchups=ALL_MATCHUPS)
    assert len(games) == 112
    seen = {(g.gods, g.player1) for g in games}
    assert len(seen) == 112  # each matchup with each engine in each seat
    assert parse_gods_list("apollo/pan, athena/mortal") == (("apollo", "pan"), ("athena", "mortal"))
    for bad in ["apollo", "apollo/apollo", "zeus/pan"]:
        with pytest.raises(ValueError):
            parse_gods_list(bad)


def test_openings_twice_with_colours_reversed_and_seeded_order() -> None:
    openings = ("a", "b", "c")
    games = build_schedule(2, openings=openings)  # type: ignore[arg-type]
    assert [g.opening for g in games] == ["a", "a", "b", "b", "c", "c"]
    shuffled = [g.opening for g in build_schedule(2, openings=openings, order="random", seed=7)]  # type: ignore[arg-type]
    assert shuffled == [g.opening for g in build_schedule(2, openings=openings, order="random", seed=7)]  # type: ignore[arg-type]
    assert sorted(shuffled) == ["a", "a", "b", "b", "c", "c"]
    with pytest.raises(ValueError, match="even"):
        build_schedule(2, games=3)


def test_a_schedule_over_max_games_is_refused_before_anything_is_made() -> None:
    assert MAX_GAMES == 1_000_000  # SPEC.md section 10.1 states the number
    cases = [
        (dict(engines=2, rounds=10**12), "2,000,000,000,000 games (1,000,000,000,000 rounds x 1 encounter x 2 games)"),
        (dict(engines=2, games=10**12), "(1 round x 1 encounter x 1,000,000,000,000 games)"),
        (dict(engines=2, rounds=MAX_GAMES // 2 + 1), "1,000,002 games"),
        (dict(engines=3, rounds=MAX_GAMES // 6 + 1), "(166,667 rounds x 3 encounters x 2 games)"),
        (dict(engines=5000, players=3), "(1 round x 20,820,835,000 encounters x 6 games)"),  # never listed
        (dict(engines=2000, players=4), "(1 round x 1,999,000 encounters x 2 games)"),
        (dict(engines=4000, fmt="gauntlet", seeds=200), "(1 round x 760,000 encounters x 2 games)"),
    ]
    started = time.monotonic()
    for kwargs, fragment in cases:
        with pytest.raises(ValueError, match=r"a tournament has at most 1,000,000$") as refused:
            build_schedule(**kwargs)  # type: ignore[arg-type]
        assert fragment in str(refused.value)
    assert time.monotonic() - started < 2
    assert len(build_schedule(3, rounds=2, games=4)) == 2 * 3 * 4  # the count is the schedule's length


def test_the_games_of_an_encounter_repeat_its_seat_orders_every_set_and_round() -> None:
    games = build_schedule(3, rounds=3, games=12, players=3)  # one group of three: 36 games
    first = [g.seats for g in games[:6]]
    assert len(set(first)) == 6 and all(g.seats == first[(g.number - 1) % 6] for g in games)
    pairs = build_schedule(3, rounds=2)
    assert all(g.seats == h.seats for g, h in zip(pairs, pairs[6:], strict=False))


# --- end to end -----------------------------------------------------------------------------------


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [PY, "-m", "santorini_server.cli", *args], capture_output=True, text=True, timeout=120, **kwargs
    )


def numbers(directory: Path) -> list[int]:
    records, _ = read_archive(directory / "games.msgpack")
    return sorted(r.game_number for r in records)  # type: ignore[misc]


def leftovers(marker: str) -> list[str]:
    """Live processes whose command line holds ``marker`` (zombies count as dead)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(f"{pid}: {cmdline}")
    return found


def test_tournament_writes_every_game_once_in_every_file(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "-e", instant("A"), "-e", instant("B"), "-e", instant("C"), "--rounds", "2",
                "--tc", "5+0.05", "--out", str(out), "-j", "2", "--rating-interval", "4"])
    assert proc.returncode == 0, proc.stderr
    assert numbers(out) == list(range(1, 13))
    assert len(parse_sgn((out / "games.sgn").read_text())) == 12
    assert len((out / "results.jsonl").read_text().splitlines()) == 12
    assert proc.stdout.count("Finished game") == 12
    assert "Rank Name" in proc.stdout and " #  Name" in proc.stdout  # ranking and crosstable


def test_resume_refuses_extra_settings_and_a_used_folder(tmp_path: Path) -> None:
    out = tmp_path / "t"
    first = run(["tournament", "-e", instant("A"), "-e", instant("B"), "--out", str(out), "--tc", "5+0.05"])
    assert first.returncode == 0
    again = run(["tournament", "-e", instant("A"), "-e", instant("B"), "--out", str(out)])
    assert again.returncode != 0 and "already holds a tournament" in again.stderr
    mixed = run(["tournament", "--resume", str(out), "--rounds", "3"])
    assert mixed.returncode != 0 and "--rounds" in mixed.stderr and "Traceback" not in mixed.stderr
    missing = run(["tournament", "--resume", str(tmp_path / "nothing")])
    assert missing.returncode != 0 and "no tournament to resume" in missing.stderr


def test_a_folder_with_another_runs_records_is_refused_and_left_untouched(tmp_path: Path) -> None:
    """An archive converted into a folder was adopted as the tournament's own games ("Resuming:
    2 of 2 games already played", nothing played), and a lone games.sgn was written over."""
    for name in ("games.msgpack", "games.sgn", "results.jsonl", "report.html", "games/"):
        out = tmp_path / name.strip("/").replace(".", "_")
        out.mkdir()
        if name.endswith("/"):
            (out / name).mkdir()
            (out / name / "0001-0100.html").write_text("theirs")
        else:
            (out / name).write_bytes(b"someone else's records\n")
        before = sorted((path.relative_to(out), path.read_bytes() if path.is_file() else None) for path in out.rglob("*"))
        result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", "--out", str(out)])
        assert result.exit_code == 1, result.output
        assert result.stderr == (
            f"Error: {out} already holds {name} but no tournament.json (records of another run): "
            "give another --out, or move them away\n"
        )
        after = sorted((path.relative_to(out), path.read_bytes() if path.is_file() else None) for path in out.rglob("*"))
        assert after == before
    both = tmp_path / "both"
    both.mkdir()
    (both / "games.sgn").write_text("x")
    (both / "games.msgpack").write_bytes(b"x")
    result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", "--out", str(both)])
    assert result.exit_code == 1 and "already holds games.msgpack, games.sgn but no tournament.json" in result.stderr
    empty = tmp_path / "empty"  # an empty folder is a new tournament's
    empty.mkdir()
    proc = run(["tournament", "-e", instant("A"), "-e", instant("B"), "--tc", "5+0.05", "-j", "1", "--out", str(empty)])
    assert proc.returncode == 0, proc.stderr
    assert numbers(empty) == [1, 2] and "Resuming" not in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "1000000000000"], "Error: Invalid value for '--rounds': 1000000000000 is not in the range 1<=x<=1000000."),
        (["--games", "1000000000000"], "Error: Invalid value for '--games': 1000000000000 is not in the range 2<=x<=1000000."),
        (["--event", "a\nb"], "Error: Invalid value for '--event': tag Event holds a control character '\\n' at index 1: "
                               "'a\\nb'"),
        (["--event", "a\u2028b"], "Error: Invalid value for '--event': tag Event holds a control character '\\u2028' at index 1"),
    ],
)
def test_flags_beyond_the_limits_are_refused_by_click(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x"
    result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.stderr and not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rounds", "500001"], "Error: the schedule would have 1,000,002 games (500,001 rounds x 1 encounter x 2 games); "
                                 "a tournament has at most 1,000,000\n"),
        (["-e", "alphabeta", "--rounds", "200000", "--games", "2"], "Error: the schedule would have 1,200,000 games "
         "(200,000 rounds x 3 encounters x 2 games); a tournament has at most 1,000,000\n"),
        (["-e", "bundled=random name=a\x01b"], "Error: engine name holds a control character '\\x01' at index 1: 'a\\x01b'\n"),
        (["-e", "cmd='/bin/a\u2028b'"], "Error: engine name holds a control character '\\u2028' at index 1: 'a\\u2028b'\n"),
    ],
)
def test_too_many_games_or_a_bad_name_is_one_line_before_anything_starts(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "x"
    result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", *args, "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert result.stderr == message and not out.exists()


def test_saved_or_submitted_settings_are_held_to_the_same_limits(tmp_path: Path) -> None:
    """tournament.json and the job API reach TournamentConfig without the flags' checks."""
    for settings, fragment in [
        (Settings(engines=["random", "greedy"], rounds=MAX_GAMES), "2,000,000 games"),
        (Settings(engines=["random", "greedy"], event="a\x00b"), "tag Event holds a control character '\\x00'"),
        (Settings(engines=["random", "cmd=x name=\x1b[31m"]), "engine name holds a control character '\\x1b'"),
    ]:
        with pytest.raises(ValueError) as refused:
            TournamentConfig.from_settings(settings)
        assert fragment in str(refused.value) and "\n" not in str(refused.value)
    toml = tmp_path / "t.toml"
    toml.write_text("rounds = 1000000000000\n")
    with pytest.raises(ValueError, match=re.escape("Expected `int` <= 1000000 - at `$.rounds`")):
        load_toml(toml)
    folder = tmp_path / "t"  # santorini report DIR reads the settings the same way
    folder.mkdir()
    (folder / "games.sgn").write_text("")
    (folder / "tournament.json").write_text(json.dumps(Settings(engines=["random", "greedy"], rounds=600_000).to_json()))
    result = CliRunner().invoke(main, ["report", str(folder)])
    assert result.exit_code == 1 and result.stderr.startswith("Error: the schedule would have 1,200,000 games")
    resumed = CliRunner().invoke(main, ["tournament", "--resume", str(folder)])
    assert resumed.exit_code == 1 and resumed.stderr.startswith("Error: the schedule would have 1,200,000 games")
    assert sorted(p.name for p in folder.iterdir()) == ["games.sgn", "tournament.json"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["-e", "random"], "at least 2 engines"),
        (["-e", "random", "-e", "cmd=x frob=1"], "unknown key"),
        (["-e", "random", "-e", "greedy", "--tc", "fast"], "bad time control"),
        (["-e", "random", "-e", "greedy", "--gods", "zeus/pan"], "unknown god"),
        (["-e", "random", "-e", "greedy", "-e", "alphabeta", "--sprt", "elo0=0 elo1=5"], "exactly two engines"),
        (["-e", "random", "-e", "greedy", "--sprt", "elo0=0"], "elo1"),
        (["-e", "random", "-e", "greedy", "-j", "64"], "cores"),
    ],
)
def test_bad_settings_are_one_line_errors(tmp_path: Path, args: list[str], fragment: str) -> None:
    proc = run(["tournament", *args, "--out", str(tmp_path / "x")])
    assert proc.returncode != 0
    assert fragment in proc.stderr and "Traceback" not in proc.stderr


def test_a_likely_slip_in_a_time_control_is_a_warning_and_the_tournament_runs(tmp_path: Path) -> None:
    proc = run(["tournament", "-e", instant("A"), "-e", instant("B") + " tc=1+2", "--tc", "3601+1",
                "--out", str(tmp_path / "t"), "-j", "1"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "warning: time control '3601+1' gives 3601 s (60 minutes) on the clock: times are in seconds",
        "warning: time control '1+2' adds 2 s a turn, more than its 1 s base",
    ]
    assert proc.stdout.count("Finished game") == 2


def test_toml_config_and_openings_file(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# two placed starts\nmortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2\n\n"
                        "mortal/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2\n")
    config = tmp_path / "t.toml"
    config.write_text(f'engines = ["{instant("A")}", "{instant("B")}"]\ntc = "5+0.05"\nrating-interval = 100\n')
    out = tmp_path / "t"
    proc = run(["tournament", "--config", str(config), "--openings", str(openings), "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    records, _ = read_archive(out / "games.msgpack")
    starts = [line for line in openings.read_text().splitlines() if line and not line.startswith("#")]
    assert sorted(r.start for r in records) == sorted(2 * starts)
    bad = tmp_path / "bad.toml"
    bad.write_text("engines = [\n")
    proc = run(["tournament", "--config", str(bad), "--out", str(tmp_path / "y")])
    assert proc.returncode != 0 and "invalid TOML" in proc.stderr
    bad_openings = tmp_path / "bad.txt"
    bad_openings.write_text("mortal/mortal;bad\n")
    proc = run(["tournament", "-e", "random", "-e", "greedy", "--openings", str(bad_openings),
                "--out", str(tmp_path / "z")])
    assert proc.returncode != 0 and "bad.txt:1" in proc.stderr


def test_an_openings_file_that_is_not_text_is_one_line_naming_it(tmp_path: Path) -> None:
    binary = tmp_path / "openings.bin"
    binary.write_bytes(b"mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2\n\x89SGR\xff\n")
    result = CliRunner().invoke(main, ["tournament", "-e", "random", "-e", "greedy", "--openings", str(binary),
                                       "--out", str(tmp_path / "t")])
    assert result.exit_code == 1 and not (tmp_path / "t").exists()
    assert result.stderr == (f"Error: {binary}:2: not UTF-8 text (invalid start byte at byte 60); an openings file "
                             "holds one SPS a line\n")


# --- settings: flags, the --config file, defaults, the saved form -------------------------------


def _context(*args: str) -> click.Context:
    """The command's parsed parameters (callbacks run, nothing played)."""
    return tournament.make_context("tournament", list(args))


def test_flags_beat_the_config_file_which_beats_the_defaults(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text('engines = ["random", "greedy"]\ntc = "5+0.05"\nrounds = 3\nrating-interval = 7\n'
                      'format = "gauntlet"\n'
                      'openings = ["mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"]\n')
    ctx = _context("--config", str(config), "--rounds", "2", "-e", "alphabeta", "-e", "random")
    source = ctx.get_parameter_source
    assert (source("rounds"), source("tc"), source("fmt"), source("games")) == (
        ParameterSource.COMMANDLINE, ParameterSource.DEFAULT_MAP, ParameterSource.DEFAULT_MAP, ParameterSource.DEFAULT
    )
    settings = new_settings(ctx)
    assert settings.engines == ["alphabeta", "random"] and settings.rounds == 2  # flags
    assert (settings.tc, settings.format, settings.rating_interval) == ("5+0.05", "gauntlet", 7)  # the file
    assert settings.openings == ["mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"]  # the file
    assert (settings.games, settings.gods, settings.seed) == (None, "mortal/mortal", 0)  # defaults
    openings = tmp_path / "o.txt"
    openings.write_text("mortal/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2\n")
    assert new_settings(_context("--config", str(config), "--openings", str(openings))).openings == [
        "mortal/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2"
    ]  # --openings FILE beats the file's list


def test_the_bundled_demo_defaults_apply_only_where_nothing_was_set(tmp_path: Path) -> None:
    bare = new_settings(_context())
    assert (bare.engines, bare.tc, bare.rounds) == (["random", "greedy", "alphabeta"], "1+0.01", 4)
    assert new_settings(_context("--tc", "3+0.03")).tc == "3+0.03"
    config = tmp_path / "t.toml"
    config.write_text("rounds = 6\n")
    demo = new_settings(_context("--config", str(config)))
    assert (demo.engines, demo.tc, demo.rounds) == (["random", "greedy", "alphabeta"], "1+0.01", 6)
    named = new_settings(_context("-e", "random", "-e", "greedy"))
    assert (named.tc, named.rounds) == ("10+0.1", 1)  # Settings' own defaults


def test_resume_accepts_only_how_to_run_flags(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text("rounds = 2\n")
    allowed = _context("--resume", "d", "-j", "1", "--backend", "local", "--debug", "--force-concurrency",
                       "--processes", "1")
    assert resume_conflicts(allowed) == []
    # --seed 0 was let through when "given" meant "not None, (), False" (0 == False)
    refused = _context("--resume", "d", "--seed", "0", "--config", str(config), "--format", "gauntlet", "-e", "x",
                       "--ping")
    assert resume_conflicts(refused) == ["--engine", "--config", "--format", "--seed", "--ping"]


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ('rounds = "2"\n', "Expected `int`, got `str` - at `$.rounds`"),
        ('engines = ["random", 3]\n', "Expected `str`, got `int` - at `$.engines[1]`"),
        ("ping = 1\n", "Expected `bool`, got `int` - at `$.ping`"),
        ("bogus = 1\n", "unknown setting(s) bogus (known: "),
        ("rounds = 0\n", "rounds: 0 is not in the range 1<=x<=1000000."),  # the flag's own check
        ("rounds = 1000000000000\n", "Expected `int` <= 1000000 - at `$.rounds`"),  # the schema's MAX_GAMES
        ("games = 1000001\n", "Expected `int` <= 1000000 - at `$.games`"),
        ('event = "a\\nb"\n', "event: tag Event holds a control character '\\n' at index 1: 'a\\nb'"),
        ('event = "a\\u2028b"\n', "event: tag Event holds a control character '\\u2028' at index 1"),
        ('format = "swiss"\n', "format: 'swiss' is not one of 'round-robin', 'gauntlet'."),
    ],
)
def test_an_ill_typed_config_file_is_one_line_naming_the_field(tmp_path: Path, toml: str, fragment: str) -> None:
    config = tmp_path / "t.toml"
    config.write_text(toml)
    result = CliRunner().invoke(main, ["tournament", "--config", str(config), "--out", str(tmp_path / "x")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {config}: {fragment}")
    assert result.stderr.count("\n") == 1 and not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda d: d["settings"].update(rounds="2"), "Expected `int`, got `str` - at `$.settings.rounds`"),
        (lambda d: d["settings"].update(engines="random"), "Expected `array`, got `str` - at `$.settings.engines`"),
        (lambda d: d["settings"].update(bogus=1), "Object contains unknown field `bogus` - at `$.settings`"),
        (lambda d: d["settings"].update(rounds=10**12), "Expected `int` <= 1000000 - at `$.settings.rounds`"),
        (lambda d: d["settings"].update(games=10**12), "Expected `int` <= 1000000 - at `$.settings.games`"),
        (lambda d: d.update(version=2), "Invalid enum value 2 - at `$.version`"),
        (lambda d: d.pop("settings"), "Object missing required field `settings`"),
    ],
)
def test_an_ill_typed_saved_settings_file_is_one_line_naming_the_field(
    tmp_path: Path, edit: Callable[[dict[str, Any]], object], fragment: str
) -> None:
    out = tmp_path / "t"
    out.mkdir()
    saved = Settings(engines=["random", "greedy"], rounds=2).to_json()
    assert Settings.from_json(json.loads(json.dumps(saved))) == Settings(engines=["random", "greedy"], rounds=2)
    edit(saved)
    (out / "tournament.json").write_text(json.dumps(saved))
    result = CliRunner().invoke(main, ["tournament", "--resume", str(out)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {out / 'tournament.json'}: not version-1 tournament settings: ")
    assert fragment in result.stderr and result.stderr.count("\n") == 1
    assert not (out / "games.msgpack").exists()


def test_sprt_stops_when_a_bound_is_crossed(tmp_path: Path) -> None:
    out = tmp_path / "t"
    proc = run(["tournament", "-e", instant("Strong"), "-e", instant("Weak", "resign"), "--rounds", "100",
                "--tc", "5+0.05",
                "--sprt", "elo0=0 elo1=50", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert "H1 was accepted" in proc.stdout
    assert len(numbers(out)) < 200


def _start(out: Path, marker: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PY, "-m", "santorini_server.cli", "tournament",
         "-e", instant("A", "sleep=3", marker), "-e", instant("B", "sleep=3", marker),
         "--rounds", "4", "--tc", "10+0.1", "--out", str(out), "-j", "2", "--rating-interval", "100"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _wait_gone(marker: str, seconds: float = 5.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = leftovers(marker)
        if not left:
            return []
        time.sleep(0.05)
    return leftovers(marker)


def test_kill_9_at_random_moments_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t"
    marker = f"marker={uuid.uuid4().hex}"
    rng = random.Random(2026)
    for _ in range(3):
        proc = _start(out, marker) if not (out / "tournament.json").exists() else subprocess.Popen(
            [PY, "-m", "santorini_server.cli", "tournament", "--resume", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        # random moments of the run itself: start-up alone can take over a second on a loaded machine
        deadline = time.monotonic() + 60
        while not (out / "games.msgpack").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.1, 1.5))
        proc.kill()
        proc.wait()
        assert _wait_gone(marker) == []  # the guards took the engines down with the referee
        got = numbers(out)
        assert len(got) == len(set(got))  # never a duplicate, even mid-write
    final = run(["tournament", "--resume", str(out)])
    assert final.returncode == 0, final.stderr
    assert numbers(out) == list(range(1, 9))
    assert len(parse_sgn((out / "games.sgn").read_text())) == 8
    assert len((out / "results.jsonl").read_text().splitlines()) == 8
    assert leftovers(marker) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_and_sigterm_stop_promptly_save_and_print_the_resume_command(
    tmp_path: Path, sig: signal.Signals
) -> None:
    out = tmp_path / "t"
    marker = f"marker={uuid.uuid4().hex}"
    proc = _start(out, marker)
    assert proc.stdout is not None
    lines = []
    while not any(line.startswith("Finished game") for line in lines):  # well into the run
        lines.append(proc.stdout.readline())
        assert lines[-1], "the tournament ended before it was interrupted"
    sent = time.monotonic()
    proc.send_signal(sig)
    rest, stderr = proc.communicate(timeout=30)
    stdout = "".join(lines) + rest
    assert time.monotonic() - sent < 8
    assert proc.returncode == (130 if sig == signal.SIGINT else 143), stderr
    assert f"santorini tournament --resume {out}" in stderr and "Traceback" not in stderr
    assert leftovers(marker) == []
    finished = stdout.count("Finished game")
    assert len(numbers(out)) == finished
    listed = [n for n, _, _ in listed_games(out)]
    assert sorted(listed) == numbers(out)  # the report, written on the way out, lists them all


def test_progress_bar_with_eta_on_a_terminal(tmp_path: Path) -> None:
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [PY, "-m", "santorini_server.cli", "tournament", "-e", instant("A"), "-e", instant("B"), "--tc", "5+0.05",
         "--rounds", "2", "--out", str(tmp_path / "t"), "--rating-interval", "100"],
        stdout=slave, stderr=slave, stdin=subprocess.DEVNULL,
    )
    os.close(slave)
    output = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    proc.wait(timeout=60)
    os.close(master)
    text = output.decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "ETA" in text and "4/4 games" in text  # the bar, redrawn up to the last game
    assert "Finished game 4" in text
