"""santorini openings and the opening suites (SPEC.md section 19): reproducible generation, balance,
distinctness under the board's symmetries, the bundled suites and ``--openings bundled``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.cli.openings_cmd import two_seat_pairings
from santorini_server.openings.generate import Recipe, balance_score, generate
from santorini_server.openings.suites import bundled_names, bundled_path, bundled_suite, read_suite, suite_name
from santorini_server.rules import parse_sps
from santorini_server.rules.symmetry import canonical_key


def _santorini(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "santorini_server.cli", *args], capture_output=True, text=True, timeout=600)


def test_the_same_seed_makes_the_same_file_whatever_the_jobs(tmp_path: Path) -> None:
    one, two, other = tmp_path / "one.sps", tmp_path / "two.sps", tmp_path / "other.sps"
    base = ["openings", "--gods", "apollo/pan", "--count", "12", "--seed", "5"]
    assert _santorini(*base, "--jobs", "1", "--out", str(one)).returncode == 0
    done = _santorini(*base, "--jobs", "2", "--out", str(two))
    assert done.returncode == 0, done.stderr
    assert "12 openings" in done.stdout
    assert one.read_bytes() == two.read_bytes()
    assert _santorini("openings", "--gods", "apollo/pan", "--count", "12", "--seed", "6", "--out", str(other)).returncode == 0
    assert read_suite(other) != read_suite(one)
    text = one.read_text()
    assert "--gods apollo/pan --seats 2 --count 12 --seed 5 --plies 0 --depth 2 --bound 30 --margin 20" in text
    suite = read_suite(one)
    assert len(suite) == 12
    assert len({canonical_key(parse_sps(s)) for s in suite}) == 12
    for sps in suite:
        pos = parse_sps(sps)
        assert pos.gods == ("apollo", "pan") and not pos.is_placement
        assert abs(balance_score(pos, 2)) <= 30


def test_an_existing_file_needs_force_and_bad_options_are_one_line(tmp_path: Path) -> None:
    out = tmp_path / "s.sps"
    out.write_text("x")
    done = _santorini("openings", "--gods", "mortal/mortal", "--count", "2", "--out", str(out))
    assert done.returncode == 1 and "exists: pass --force" in done.stderr
    for gods, why in (("zeus/pan", "unknown god 'zeus'"), ("apollo/pan/atlas", "names 3 gods for 2 seats")):
        done = _santorini("openings", "--gods", gods, "--count", "2", "--out", str(tmp_path / "t.sps"))
        assert done.returncode == 1 and why in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_plies_and_three_and_four_seats() -> None:
    deeper = generate(Recipe(("mortal", "mortal"), 2, 4, 1, plies=2))
    assert all(parse_sps(o.sps).turn == 3 for o in deeper)  # two turns after the placements
    for seats in (3, 4):
        suite = generate(Recipe(None, seats, 4, 1))
        assert all(parse_sps(o.sps).nseats == seats and not parse_sps(o.sps).is_placement for o in suite)
        assert len({canonical_key(parse_sps(o.sps)) for o in suite}) == 4


def test_an_impossible_recipe_says_what_to_widen() -> None:
    with pytest.raises(ValueError, match=r"distinct balanced openings .* raise --bound"):
        generate(Recipe(("mortal", "mortal"), 2, 3, 1, margin=0, bound=0, depth=1))


def test_every_pairing_has_a_bundled_suite_of_distinct_openings() -> None:
    names = bundled_names()
    expected = {suite_name(g) for g in two_seat_pairings()} | {"3p.sps", "4p.sps"}
    assert expected <= set(names)
    for name in names:
        suite = read_suite(bundled_path(name))
        keys = [canonical_key(parse_sps(s)) for s in suite]
        assert len(set(keys)) == len(keys), f"{name}: two openings are equal under symmetry"
        if name[0].isalpha():
            gods = tuple(name.removesuffix(".sps").split("-"))
            assert all(parse_sps(s).gods == gods for s in suite)
            assert bundled_suite(gods) == tuple(suite)
    assert {parse_sps(s).nseats for s in bundled_suite(None, 3)} == {3}
    assert {parse_sps(s).nseats for s in bundled_suite(None, 4)} == {4}
    with pytest.raises(ValueError, match="no bundled opening suite"):
        bundled_suite(("apollo", "mortal"))


def test_openings_bundled_gives_each_matchup_its_own_suite() -> None:
    from santorini_server.tournament.config import Settings, TournamentConfig

    config = TournamentConfig.from_settings(
        Settings(engines=["random", "greedy"], gods="apollo/pan,pan/athena", openings=["bundled"])
    )
    games = list(config.schedule)
    apollo_pan, pan_athena = bundled_suite(("apollo", "pan")), bundled_suite(("pan", "athena"))
    assert len(games) == 2 * (len(apollo_pan) + len(pan_athena))  # each opening once as a pair
    for game in games:
        assert game.opening is not None and parse_sps(game.opening).gods == game.gods
    assert [g.opening for g in games[::2]] == [*apollo_pan, *pan_athena]
    assert all(a.opening == b.opening and a.seats == b.seats[::-1] for a, b in zip(games[::2], games[1::2], strict=True))
    drawn = TournamentConfig.from_settings(Settings(engines=["random", "greedy", "alphabeta"], players=3, gods="all",
                                                    openings=["bundled"]))
    three = bundled_suite(None, 3)
    assert {g.opening for g in drawn.schedule} == set(three)
    with pytest.raises(ValueError, match="no bundled opening suite"):
        TournamentConfig.from_settings(Settings(engines=["random", "greedy"], gods="apollo/mortal", openings=["bundled"]))


def test_a_tournament_plays_the_bundled_suite(tmp_path: Path) -> None:
    from santorini_server.records import read_archive

    out = tmp_path / "t"
    done = _santorini("tournament", "-e", "random", "-e", "greedy", "--gods", "atlas/minotaur", "--openings", "bundled",
                      "--games", "4", "--tc", "5+0.05", "--concurrency", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    records, _ = read_archive(out / "games.msgpack")
    suite = bundled_suite(("atlas", "minotaur"))
    assert sorted(r.start for r in records) == sorted(2 * list(suite[:2]))
    assert '"bundled"' in (out / "tournament.json").read_text()


@pytest.mark.parametrize("sps", [
    "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2",
    "apollo/pan;01200/00100/00000/00000/00000;b4,d4/b1,d2;1;3",
    "athena/demeter/minotaur/pan;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2",
])
def test_the_engines_value_is_the_best_of_its_exact_turn_scores(sps: str) -> None:
    from santorini_engines.alphabeta import AlphaBeta

    pos = parse_sps(sps)
    for depth in (1, 2):
        scored = AlphaBeta().score_turns(pos, depth)
        assert sorted(stn for stn, _ in scored) == sorted(pos.legal_turns())
        assert AlphaBeta().value(pos, depth) == max(v for _, v in scored)
