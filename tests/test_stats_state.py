"""Standings saved as plain values and read back (``Standings.state`` / ``from_state``) count on
and render exactly as the standings they were taken from: two seats with pairs left waiting,
three and four seats with games held back for the Weng-Lin order, through msgpack as the
standings snapshot stores them."""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec
import pytest

import santorini_server.stats.standings as standings_module
from santorini_server.stats.placings import NSeatGame
from santorini_server.stats.sprt import SprtConfig, format_llr_line, llr_pentanomial
from santorini_server.stats.standings import ScoredGame, Standings
from santorini_server.tournament.scoring import termination_table

from .test_stats_stream import arrival, nseat_games, two_seat_games

SPRT = SprtConfig(0, 5)


def through_msgpack(standings: Standings) -> Standings:
    return Standings.from_state(msgspec.msgpack.decode(msgspec.msgpack.encode(standings.state())))


def rendered(standings: Standings) -> list[object]:
    """Every table the standings render, and what the queries answer."""
    names = list(standings.engines)
    out: list[object] = [names, standings.played, standings.waiting, standings.place_count,
                         [standings.tally(name) for name in names], termination_table(standings, names) if names else ""]
    if standings.seats == 2:
        for penta in (True, False):
            for joint in (True, False):
                out += [standings.format_ranking(penta, joint), standings.crosstable(penta, joint)]
        out.append(standings.joint_ratings())
        for a in names:
            out.append(standings.pairs(a))
            for b in names:
                if a != b:
                    out += [standings.head_to_head(a, b), standings.pairs(a, b), standings.score_line(a, b),
                            standings.results_block(a, b, "10+0.1, mortal", SPRT),
                            format_llr_line(llr_pentanomial(standings.pairs(a, b).ptnml, SPRT), SPRT)]
    else:
        out += [standings.format_ranking(), standings.ratings(), standings.rating_ranking(), standings.crosstable()]
    return out


def most_waiting(seats: int | None, games: Sequence[ScoredGame] | Sequence[NSeatGame]) -> int:
    """Where to cut the games so that the most are held back at the cut."""
    probe, best = Standings(seats), (0, 0)
    for i, g in enumerate(games, 1):
        if isinstance(g, ScoredGame):
            record_two(probe, [g])
        else:
            record_n(probe, [g])
        best = max(best, (probe.waiting, i))
    return best[1]


def record_two(standings: Standings, games: Sequence[ScoredGame]) -> None:
    for g in games:
        standings.record(g.player1, g.player2, g.winner, g.termination, g.number)


def record_n(standings: Standings, games: Sequence[NSeatGame]) -> None:
    for g in games:
        standings.record_game(g.seats, g.placings, g.termination, g.number, g.exits)


@pytest.mark.parametrize("seed", range(6))
def test_two_seats_round_trip_and_count_on_alike(seed: int) -> None:
    rng = random.Random(seed)
    engines = ["alpha", "beta", "gamma", "delta", "an engine with a long name"][: 2 + seed % 4]
    games = arrival(rng, two_seat_games(rng, 40 + 10 * seed, engines), 6)
    half = most_waiting(2, games)
    counted = Standings(2)
    counted.add_engine("idle")  # listed, never plays
    record_two(counted, games[:half])
    assert counted.waiting  # pairs wait for their partner across the snapshot
    restored = through_msgpack(counted)
    assert restored.state() == counted.state()
    assert rendered(restored) == rendered(counted)
    record_two(counted, games[half:])
    record_two(restored, games[half:])
    assert restored.state() == counted.state()
    assert rendered(restored) == rendered(counted)


@pytest.mark.parametrize("seats", [3, 4, None])
@pytest.mark.parametrize("seed", range(4))
def test_three_and_four_seats_round_trip_and_count_on_alike(
    seats: int | None, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings_module, "REORDER_WINDOW", 7)  # games rated past the window too
    rng = random.Random(100 + seed)
    games = arrival(rng, nseat_games(rng, 60, ["a", "b", "c", "d", "e"], [seats] if seats else [2, 3, 4]), 10)
    half = most_waiting(seats, games)
    counted = Standings(seats)
    record_n(counted, games[:half])
    assert counted.waiting  # games held back for a lower number
    restored = through_msgpack(counted)
    assert restored.state() == counted.state()
    assert rendered(restored) == rendered(counted)
    record_n(counted, games[half:])
    record_n(restored, games[half:])
    assert restored.state() == counted.state()
    assert rendered(restored) == rendered(counted)


def test_a_recorded_number_is_known_after_a_round_trip() -> None:
    standings = Standings(2)
    standings.record("a", "b", 1, "climb", 3)
    standings.record("b", "a", 2, "time", 4)
    restored = Standings.from_state(standings.state())
    assert restored.recorded(3) and restored.recorded(4) and not restored.recorded(5)
    with pytest.raises(ValueError, match="already recorded"):
        restored.record("a", "b", 1, "climb", 4)


def test_empty_standings_round_trip() -> None:
    for seats in (2, 3, 4, None):
        standings = Standings(seats)
        assert Standings.from_state(standings.state()).state() == standings.state()


def _broken(change: str) -> object:
    standings = Standings(2)
    standings.record("a", "b", 1, "climb", 1)
    state = standings.state()
    if change == "not a table":
        return [state]
    if change == "missing key":
        del state["versus"]
    elif change == "negative count":
        state["count"] = -1
    elif change == "bool count":
        state["tallies"][0][0] = True  # type: ignore[index]
    elif change == "text for a number":
        state["tallies"][0][9] = "1.0"  # type: ignore[index]
    elif change == "tallies short":
        state["tallies"] = []
    elif change == "bad winner":
        state["waiting_pairs"][0][3] = 7  # type: ignore[index]
    elif change == "unsorted numbers":
        state["numbers"] = [[5, 1], [6, 2]]
    elif change == "bad tags":
        state["tallies"][0][6] = ["climb"]  # type: ignore[index]
    elif change == "name not text":
        state["engines"] = [1, 2]
    elif change == "bad seats":
        state["seats"] = 5
    return state


@pytest.mark.parametrize("change", [
    "not a table", "missing key", "negative count", "bool count", "text for a number", "tallies short", "bad winner",
    "unsorted numbers", "bad tags", "name not text", "bad seats",
])
def test_a_state_that_is_not_one_is_one_line(change: str) -> None:
    with pytest.raises(ValueError, match=r"^not a state of standings: ") as caught:
        Standings.from_state(_broken(change))
    assert "\n" not in str(caught.value)


def test_a_bad_waiting_game_is_refused() -> None:
    standings = Standings(3)
    standings.record_game(("a", "b", "c"), (1, 2, 3), "climb", 2)  # waits for game 1
    state = standings.state()
    state["waiting"][0][1] = ["a", "a", "b"]  # type: ignore[index]  # an engine on two sides
    with pytest.raises(ValueError, match="not a state of standings"):
        Standings.from_state(state)
    state["waiting"] = [[7]]  # an unscored game waiting: its number alone
    assert Standings.from_state(state).waiting == 1
