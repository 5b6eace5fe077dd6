"""Games of 3 and 4 seats in the standings: placings, points, tallies, the ranking table."""

from __future__ import annotations

import random

import pytest

from santorini_server.stats import NSeatGame
from santorini_server.stats.standings import Standings
from santorini_server.stats.weng_lin import weng_lin_ratings

# --------------------------------------------------------------------------- one game


@pytest.mark.parametrize(
    ("seats", "placings", "points"),
    [
        (("A", "B"), (1, 2), (1.0, 0.0)),
        (("A", "B"), (1, 1), (0.5, 0.5)),  # a drawn two-seat game
        (("A", "B", "C"), (1, 3, 2), (2.0, 0.0, 1.0)),  # seat 3 outlasted seat 2
        (("A", "B", "C"), (1, 2, 2), (2.0, 0.5, 0.5)),  # both still in when seat 1 won: they share
        (("A", "B", "C"), (3, 1, 2), (0.0, 2.0, 1.0)),
        (("A", "B", "C"), (1, 1, 1), (1.0, 1.0, 1.0)),
        (("A", "B", "C", "D"), (2, 1, 2, 1), (0.0, 1.0, 0.0, 1.0)),  # team B (seats 2, 4) won
        (("A", "B", "A", "B"), (1, 2, 1, 2), (1.0, 0.0, 1.0, 0.0)),  # one engine per team
    ],
)
def test_points_per_seat(seats: tuple[str, ...], placings: tuple[int, ...], points: tuple[float, ...]) -> None:
    game = NSeatGame(1, seats, placings)
    assert tuple(game.points(s) for s in range(len(seats))) == points
    # every pair of sides shares one point, so a game hands out sides * (sides - 1) / 2 per seat of a side
    per_side = {game.side_of(s): game.points(s) for s in range(len(seats))}
    sides = game.side_count
    assert sum(v or 0.0 for v in per_side.values()) == sides * (sides - 1) / 2
    assert game.max_points == sides - 1


def test_sides_are_seats_or_teams() -> None:
    three = NSeatGame(1, ("A", "B", "C"), (1, 2, 3))
    assert (three.side_count, [three.side_of(s) for s in range(3)]) == (3, [0, 1, 2])
    four = NSeatGame(1, ("A", "B", "C", "D"), (1, 2, 1, 2))
    assert (four.side_count, [four.side_of(s) for s in range(4)]) == (2, [0, 1, 0, 1])
    assert four.side_seats(1) == (1, 3) and four.side_members(0) == ("A", "C")


def test_an_unscored_game_has_no_points() -> None:
    game = NSeatGame(4, ("A", "B", "C"), None, "aborted")
    assert not game.scored and game.points(0) is None


@pytest.mark.parametrize(
    ("seats", "placings", "message"),
    [
        (("A",), None, "a game has 2, 3 or 4 seats, not 1"),
        (("A", "B", "C", "D", "E"), None, "a game has 2, 3 or 4 seats, not 5"),
        (("A", "B", "C"), (1, 2), "game 1: 2 placings for 3 seats"),
        (("A", "B", "C"), (1, 2, 4), "game 1: placing 4 is not in 1..3"),
        (("A", "B", "C"), (0, 1, 2), "game 1: placing 0 is not in 1..3"),
        (("A", "B", "C", "D"), (1, 3, 1, 3), "game 1: placing 3 is not in 1..2"),
        (("A", "B", "C", "D"), (1, 2, 2, 1), "game 1: teammates place alike in 4 seats, not (1, 2, 2, 1)"),
        (("A", "B", "A"), (1, 2, 3), "game 1: A plays on two sides"),
        (("A", "B", "C", "A"), (1, 2, 1, 2), "game 1: A plays on two sides"),
        (("A", "A"), (1, 2), "game 1: A plays on two sides"),
    ],
)
def test_invalid_games_are_refused(seats: tuple[str, ...], placings: tuple[int, ...] | None, message: str) -> None:
    with pytest.raises(ValueError) as err:
        NSeatGame(1, seats, placings)
    assert str(err.value) == message


def test_game_number_and_exits_are_checked() -> None:
    with pytest.raises(ValueError, match="game numbers start at 1"):
        NSeatGame(0, ("A", "B", "C"), (1, 2, 3))
    with pytest.raises(ValueError, match="2 exits for 3 seats"):
        NSeatGame(1, ("A", "B", "C"), (1, 2, 3), exits=("", "time"))


# --------------------------------------------------------------------------- standings


def _three_player_games() -> list[NSeatGame]:
    """Every seat order of A, B, C once; A wins 5 and is tied-for-second once; then an aborted game."""
    games = [
        (("A", "B", "C"), (1, 3, 2)),
        (("B", "C", "A"), (1, 2, 2)),
        (("C", "A", "B"), (2, 1, 3)),
        (("A", "C", "B"), (1, 2, 3)),
        (("B", "A", "C"), (3, 1, 2)),
        (("C", "B", "A"), (2, 3, 1)),
    ]
    played = [
        NSeatGame(number, seats, placings, "normal", tuple("" if p == 1 else "no-moves" for p in placings))
        for number, (seats, placings) in enumerate(games, start=1)
    ]
    return [*played, NSeatGame(7, ("A", "B", "C"), None, "aborted")]


def _three_player_round() -> Standings:
    s = Standings(None)
    for g in _three_player_games():
        s.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
    s.add_engine("D")
    return s


def test_tally_counts_placings_points_and_exits() -> None:
    s = _three_player_round()
    a = s.tally("A")
    assert (a.games, a.seats, a.placings, a.points, a.max_points, a.unscored) == (6, 6, (5, 1, 0), 10.5, 12.0, 1)
    assert a.score == pytest.approx(10.5 / 12)
    assert a.terminations == {"aborted": 1, "normal": 6}
    assert a.losses_by == {"no-moves": 1}
    b = s.tally("B")
    assert (b.placings, b.points, b.losses_by) == ((1, 0, 5), 2.0, {"no-moves": 5})
    c = s.tally("C")
    assert (c.placings, c.points) == ((0, 6, 0), 5.5)
    # the points of all engines add up to 3 per scored game (2 + 1 + 0, or 2 + 1/2 + 1/2)
    assert sum(s.tally(n).points for n in "ABC") == 3 * 6
    d = s.tally("D")
    assert (d.games, d.score, d.placings) == (0, 0.5, (0, 0, 0))


def test_ranking_table_three_seats() -> None:
    s = _three_player_round()
    pad = " " * 24  # names are left-aligned in 25 columns, as in the two-seat table
    assert s.format_ranking() == (
        f"Rank Name{pad[3:]}         mu      sigma    Ordinal      Games     Points      Score        1st        2nd        3rd\n"
        f"   1 A{pad}      34.95       7.40      12.74          6       10.5      87.5%          5          1          0\n"
        f"   2 C{pad}      25.83       6.95       4.99          6        5.5      45.8%          0          6          0\n"
        f"   3 D{pad}      25.00       8.33       0.00          0        0.0        n/a          0          0          0\n"
        f"   4 B{pad}      14.37       7.12      -6.98          6        2.0      16.7%          1          0          5\n"
    )
    rows = s.rating_ranking()
    ratings = weng_lin_ratings(_three_player_games())
    assert rows[0].rating == ratings["A"]
    assert [r.rating.ordinal for r in rows] == sorted((r.rating.ordinal for r in rows), reverse=True)


def test_ranking_table_four_seats_shows_seats_when_an_engine_fills_a_team() -> None:
    s = Standings(None)
    s.record_game(("X", "Y", "X", "Y"), (1, 2, 1, 2), "normal", 1)
    s.record_game(("Y", "X", "Y", "X"), (2, 1, 2, 1), "normal", 2)
    lines = s.format_ranking().splitlines()
    assert lines[0].split() == ["Rank", "Name", "mu", "sigma", "Ordinal", "Games", "Seats", "Points", "Score", "1st", "2nd"]
    assert lines[1].split()[1:] == ["X", "28.46", "8.03", "4.36", "2", "4", "4.0", "100.0%", "4", "0"]
    assert lines[2].split()[1:] == ["Y", "21.54", "8.03", "-2.56", "2", "4", "0.0", "0.0%", "0", "4"]
    # mixed teams only: one seat per engine and game, no Seats column
    mixed = Standings(None)
    mixed.record_game(("P", "Q", "R", "S"), (2, 1, 2, 1), "normal", 1)
    head = mixed.format_ranking().splitlines()[0].split()
    assert "Seats" not in head and head[-2:] == ["1st", "2nd"]


def test_the_table_does_not_depend_on_the_order_games_finish_in() -> None:
    games = _three_player_games()
    reference = _three_player_round().format_ranking()
    rng = random.Random(13)
    for _ in range(5):
        rng.shuffle(games)
        s = Standings(None)
        for name in "ABCD":
            s.add_engine(name)
        for g in games:
            s.record_game(g.seats, g.placings, g.termination, g.number, g.exits)
        assert s.format_ranking() == reference


def test_record_refuses_a_game_number_twice_and_numbers_by_default() -> None:
    s = Standings(None)
    assert s.record_game(("A", "B", "C"), (1, 2, 3)).number == 1
    assert s.record_game(("A", "B", "C"), (1, 2, 3)).number == 2
    with pytest.raises(ValueError, match="game 2 is already recorded"):
        s.record_game(("A", "B", "C"), (1, 2, 3), game_number=2)
    assert s.engines == ("A", "B", "C")


def test_the_seat_count_sets_the_columns_before_any_game() -> None:
    assert Standings(3).format_ranking().split()[-3:] == ["1st", "2nd", "3rd"]
    assert Standings(4).format_ranking().split()[-3:] == ["Score", "1st", "2nd"]
    assert Standings(None).format_ranking().split()[-1] == "1st"
    with pytest.raises(ValueError, match="not 5"):
        Standings(5)


def test_ties_in_the_ranking_break_by_score_then_name() -> None:
    s = Standings(None)
    for name in ("Zed", "Amy", "Bob"):
        s.add_engine(name)
    assert [r.name for r in s.rating_ranking()] == ["Amy", "Bob", "Zed"]  # equal prior, no games


def test_spec_examples_match_the_code() -> None:
    """SPEC.md section 12.7 prints these tables: they must be what the code gives."""
    from pathlib import Path

    spec = (Path(__file__).resolve().parents[1] / "SPEC.md").read_text(encoding="utf-8")
    three = Standings(None)
    games = [
        (("alphabeta", "greedy", "random"), (1, 3, 2)),
        (("alphabeta", "random", "greedy"), (1, 2, 2)),
        (("greedy", "alphabeta", "random"), (3, 1, 2)),
        (("greedy", "random", "alphabeta"), (2, 3, 1)),
        (("random", "alphabeta", "greedy"), (2, 1, 3)),
        (("random", "greedy", "alphabeta"), (1, 2, 2)),
    ]
    for number, (seats, placings) in enumerate(games, start=1):
        three.record_game(seats, placings, "normal", number)
    assert "```\n" + three.format_ranking() + "```\n" in spec
    four = Standings(None)
    four.record_game(("alphabeta", "greedy", "alphabeta", "greedy"), (1, 2, 1, 2), "normal", 1)
    four.record_game(("greedy", "alphabeta", "greedy", "alphabeta"), (2, 1, 2, 1), "normal", 2)
    assert "```\n" + four.format_ranking() + "```\n" in spec
