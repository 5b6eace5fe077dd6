"""God statistics (santorini_server.stats.gods, santorini stats --gods; SPEC.md section 19.6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.stats.gods import GodStats, format_god_matrix, god_stats_json, wilson_interval

PY = sys.executable


def test_the_matrix_counts_scores_intervals_and_seat_one() -> None:
    stats = GodStats()
    # apollo/pan: apollo in seat 1 wins twice, loses once; pan in seat 1 (pan/apollo) wins once
    for gods, placings in ((("apollo", "pan"), (1, 2)), (("apollo", "pan"), (1, 2)), (("apollo", "pan"), (2, 1)),
                           (("pan", "apollo"), (1, 2)), (("mortal", "mortal"), (1, 2)), (("apollo", "pan"), None)):
        stats.add(gods, placings)
    cell = stats.cells["apollo", "pan"]
    assert (cell.games, cell.points, cell.score) == (4, 2.0, 0.5)
    assert stats.cells["pan", "apollo"].points == 2.0
    assert cell.seat1_advantage == pytest.approx(0.75 - 0.5)  # seat 1 won 3 of 4
    assert stats.cells["mortal", "mortal"].games == 1 and stats.cells["mortal", "mortal"].seat1_advantage == 0.5
    assert stats.games == 5 and stats.seat1_advantage == pytest.approx(4 / 5 - 0.5)
    assert stats.gods() == ["mortal", "apollo", "pan"]
    ratings = stats.ratings()
    assert ratings is not None
    assert ratings["apollo"].elo == pytest.approx(0.0, abs=1e-6) and ratings["apollo"].games == 4
    text = format_god_matrix(stats)
    assert "apollo vs pan: 4 games, apollo 50% [15-85], seat 1 +25 points of %, Elo +0 +/- " in text
    assert "mortal vs mortal: 1 games, seat 1 +50 points of %" in text
    data = god_stats_json(stats)
    assert {c["row"] + "/" + c["column"] for c in data["two_seat"]["cells"]} == {"apollo/pan", "pan/apollo", "mortal/mortal"}
    assert [(p["first"], p["second"]) for p in data["two_seat"]["pairings"]] == [("apollo", "pan")]
    assert data["two_seat"]["pairings"][0]["elo"] == pytest.approx(0.0, abs=1e-6)


def test_the_worked_example_of_the_spec() -> None:
    """SPEC.md section 19.6: four games of Apollo against Pan, printed as the section shows."""
    stats = GodStats()
    for gods, placings in ((("apollo", "pan"), (1, 2)), (("apollo", "pan"), (1, 2)), (("apollo", "pan"), (2, 1)),
                           (("pan", "apollo"), (1, 2))):
        stats.add(gods, placings)
    spec = (Path(__file__).resolve().parent.parent / "SPEC.md").read_text()
    printed = format_god_matrix(stats)
    assert printed in spec
    assert "seat 1 scores 75%" in printed and "apollo vs pan: 4 games, apollo 50% [15-85], seat 1 +25" in printed


def test_a_stronger_god_rates_higher() -> None:
    stats = GodStats()
    for _ in range(6):
        stats.add(("apollo", "pan"), (1, 2))
        stats.add(("pan", "apollo"), (2, 1))
    stats.add(("pan", "apollo"), (1, 2))
    ratings = stats.ratings()
    assert ratings is not None and ratings["apollo"].elo > 100 > -100 > ratings["pan"].elo
    lo, hi = stats.cells["apollo", "pan"].interval
    assert 0.6 < lo < 12 / 13 < hi <= 1.0


def test_wilson_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0) and wilson_interval(0, 10)[0] == pytest.approx(0.0)


def test_three_and_four_seat_placings() -> None:
    stats = GodStats()
    stats.add(("apollo", "pan", "atlas"), (1, 3, 2))
    stats.add(("pan", "atlas", "apollo"), (1, 2, 2))
    stats.add(("apollo", "pan", "atlas", "minotaur"), (1, 2, 1, 2))
    three = stats.nseat[3]
    assert three["apollo"].placings == {1: 1, 2: 1} and three["apollo"].points == 2.5
    assert three["pan"].placings == {3: 1, 1: 1} and three["pan"].share == pytest.approx(2 / 4)
    four = stats.nseat[4]
    assert four["atlas"].share == 1.0 and four["minotaur"].share == 0.0
    assert "3 seats: placings per god" in format_god_matrix(stats)


def test_santorini_stats_reads_a_real_tournament(tmp_path: Path) -> None:
    out = tmp_path / "t"
    done = subprocess.run([PY, "-m", "santorini_server.cli", "tournament", "-e", "random", "-e", "random",
                           "--gods", "apollo/pan,pan/apollo", "--games", "4", "--tc", "5+0.05", "--concurrency", "1",
                           "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = subprocess.run([PY, "-m", "santorini_server.cli", "stats", str(out), "--gods"], capture_output=True, text=True)
    assert text.returncode == 0 and "apollo vs pan: 4 games" in text.stdout
    data = json.loads(subprocess.run([PY, "-m", "santorini_server.cli", "stats", str(out / "games.sgn"), "--gods", "--json"],
                                     capture_output=True, text=True).stdout)
    cells = {(c["row"], c["column"]): c for c in data["two_seat"]["cells"]}
    assert cells["apollo", "pan"]["games"] == 4
    assert cells["apollo", "pan"]["score"] + cells["pan", "apollo"]["score"] == pytest.approx(1.0)
    from santorini_server.server.run_standings import RunGods

    counter = RunGods()
    first, again = counter.count(out, 4), counter.count(out, 4)  # the second reads only what was added since
    assert first.cells == again.cells and first.games == again.games == 4
    assert first.cells["apollo", "pan"].games == 4
    report = (out / "report.html").read_text()
    assert 'id="h-gods"' in report and "apollo vs pan" in report and "God ratings (Bradley-Terry)" in report
    bad = subprocess.run([PY, "-m", "santorini_server.cli", "stats", str(out)], capture_output=True, text=True)
    assert bad.returncode == 1 and "--gods" in bad.stderr


def test_the_counters_state_round_trips_and_goes_on_counting() -> None:
    from santorini_server.stats.gods import GodStats

    stats = GodStats()
    games = [(("apollo", "pan"), (1, 2)), (("pan", "apollo"), (1, 2)), (("atlas", "atlas"), (2, 1)),
             (("apollo", "pan", "minotaur"), (2, 1, 3)), (("apollo", "pan"), None)]
    for gods, placings in games:
        stats.add(gods, placings)
    again = GodStats.from_state(stats.state())
    assert again.state() == stats.state() and again.cells == stats.cells and again.nseat == stats.nseat
    for s in (stats, again):
        s.add(("pan", "atlas"), (2, 1))
    assert again.state() == stats.state()
    with pytest.raises(ValueError, match="not a god statistics state"):
        GodStats.from_state([1, 2])
