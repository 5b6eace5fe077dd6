"""The lazy schedule against the eager one it replaced, game for game; its memory; pickling.

The oracle is a copy of ``build_schedule`` as it was when it listed every game (and of its
draw of gods, uncached): whatever :class:`Schedule` computes by arithmetic must be what that
listing held, for every configuration, since ``--resume`` of a tournament started before the
change replays the games by number.
"""

from __future__ import annotations

import gc
import itertools
import math
import pickle
import random
import subprocess
import sys
import tracemalloc
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from santorini_server.rules.gods import SIMPLE_GODS
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.schedule import (
    ALL_MATCHUPS,
    MAX_GAMES,
    Schedule,
    ScheduledGame,
    build_schedule,
    set_size,
)
from santorini_server.tournament.standings_file import DoneGames

# --- the oracle: the eager construction, as it was --------------------------------------------


def _old_draw_gods(seed: int, index: int, players: int) -> tuple[str, ...]:
    return tuple(random.Random(f"santorini-gods/{seed}/{index}/{players}").sample(SIMPLE_GODS, players))


def _old_encounters(
    n: int, fmt: str, seeds: int, players: int, teams: tuple[tuple[int, int], ...] | None
) -> tuple[int, Callable[[], Iterable[tuple[int, ...]]]]:
    if players == 3:
        return math.comb(n, 3), lambda: itertools.combinations(range(n), 3)
    if players == 4:
        sides = teams if teams is not None else tuple((i, i) for i in range(n))
        return math.comb(len(sides), 2), lambda: ((*a, *b) for a, b in itertools.combinations(sides, 2))
    if fmt == "round-robin":
        return math.comb(n, 2), lambda: itertools.combinations(range(n), 2)
    return seeds * (n - seeds), lambda: ((s, o) for s in range(seeds) for o in range(seeds, n))


def _old_seatings(encounter: tuple[int, ...]) -> list[tuple[int, ...]]:
    if len(encounter) == 2:
        a, b = encounter
        return [(a, b), (b, a)]
    if len(encounter) == 3:
        return list(itertools.permutations(encounter))
    a1, a2, b1, b2 = encounter
    return [(a1, b1, a2, b2), (b1, a1, b2, a2)]


def old_build_schedule(
    engines: int,
    *,
    fmt: str = "round-robin",
    seeds: int = 1,
    rounds: int = 1,
    games: int | None = None,
    matchups: tuple[tuple[str, ...], ...] | None = (("mortal", "mortal"),),
    openings: tuple[str | None, ...] = (None,),
    order: str = "sequential",
    seed: int = 0,
    players: int = 2,
    teams: tuple[tuple[int, int], ...] | None = None,
) -> list[ScheduledGame]:
    """The eager schedule (validation left out: the oracle is only asked valid configurations)."""
    gods_list: tuple[tuple[str, ...] | None, ...] = (None,) if matchups is None else matchups
    conditions = [(g, o) for o in openings for g in gods_list]
    if order == "random":
        random.Random(seed).shuffle(conditions)
    size = set_size(players)
    per_encounter = size * len(conditions) if games is None else games
    _count, listing = _old_encounters(engines, fmt, seeds, players, teams)
    seatings = [_old_seatings(encounter) for encounter in listing()]
    schedule: list[ScheduledGame] = []
    sets = per_encounter // size
    for rnd in range(1, rounds + 1):
        for orders in seatings:
            for k in range(sets):
                index = (rnd - 1) * sets + k
                gods, opening = conditions[index % len(conditions)]
                if gods is None:
                    gods = _old_draw_gods(seed, index, players)
                for seats in orders:
                    schedule.append(ScheduledGame(len(schedule) + 1, seats, gods, opening, rnd))
    return schedule


# --- configurations ---------------------------------------------------------------------------

OPENINGS = ("o1", "o2", "o3", "o4", "o5")
LISTS3 = (("apollo", "pan", "atlas"), ("demeter", "minotaur", "athena"), ("artemis", "hephaestus", "pan"))
LISTS4 = (("apollo", "pan", "atlas", "athena"), ("demeter", "minotaur", "artemis", "hephaestus"))

CASES: list[dict[str, Any]] = [
    dict(engines=2),
    dict(engines=3, rounds=2),
    dict(engines=7, rounds=3, games=4),
    dict(engines=5, matchups=ALL_MATCHUPS),
    dict(engines=3, matchups=ALL_MATCHUPS, openings=OPENINGS, order="random", seed=11),
    dict(engines=4, matchups=(("apollo", "pan"), ("athena", "mortal")), openings=OPENINGS, games=6, rounds=3),
    dict(engines=4, openings=OPENINGS, order="random", seed=7, rounds=2),
    dict(engines=4, openings=OPENINGS, order="random", seed=7, games=14, rounds=2),
    dict(engines=6, fmt="gauntlet", seeds=1),
    dict(engines=6, fmt="gauntlet", seeds=2, rounds=2, games=6, openings=OPENINGS),
    dict(engines=9, fmt="gauntlet", seeds=4, matchups=ALL_MATCHUPS[:5], order="random", seed=3),
    dict(engines=3, players=3, matchups=None),
    dict(engines=5, players=3, matchups=None, games=18, seed=3, rounds=2),
    dict(engines=6, players=3, matchups=LISTS3, openings=OPENINGS[:2], rounds=2),
    dict(engines=4, players=3, matchups=LISTS3, order="random", seed=5, games=24),
    dict(engines=3, players=4, matchups=None),
    dict(engines=5, players=4, matchups=None, games=6, rounds=3, seed=9),
    dict(engines=4, players=4, matchups=LISTS4, teams=((0, 1), (2, 3))),
    dict(engines=7, players=4, matchups=None, teams=((0, 0), (1, 2), (3, 4), (6, 5)), games=4, rounds=2),
    dict(engines=8, players=4, matchups=LISTS4, openings=OPENINGS, order="random", seed=2, teams=((7, 1), (2, 3), (4, 5))),
]


def random_cases(count: int, seed: int) -> list[dict[str, Any]]:
    """Configurations drawn at random (seeded): seats, format, engines, rounds, games, gods,
    openings, order, teams."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        players = rng.choice((2, 3, 4))
        engines = rng.randint(3 if players == 3 else 2, 12)
        case: dict[str, Any] = dict(engines=engines, players=players, rounds=rng.randint(1, 3), seed=rng.randint(0, 99))
        if players == 2:
            case["matchups"] = rng.choice((ALL_MATCHUPS, tuple(rng.sample(ALL_MATCHUPS, rng.randint(1, 4)))))
            if engines >= 3 and rng.random() < 0.4:
                case.update(fmt="gauntlet", seeds=rng.randint(1, engines - 1))
        elif players == 3:
            case["matchups"] = rng.choice((None, LISTS3[: rng.randint(1, 3)]))
        else:
            case["matchups"] = rng.choice((None, LISTS4[: rng.randint(1, 2)]))
            if engines >= 4 and rng.random() < 0.5:
                chosen = rng.sample(range(engines), 2 * rng.randint(2, engines // 2))
                case["teams"] = tuple((chosen[i], chosen[i + 1]) for i in range(0, len(chosen), 2))
        if rng.random() < 0.5:
            case["openings"] = OPENINGS[: rng.randint(1, len(OPENINGS))]
        if rng.random() < 0.5:
            case["order"] = "random"
        if rng.random() < 0.5:
            case["games"] = set_size(players) * rng.randint(1, 5)
        if len(old_build_schedule(**case)) <= 5_000:  # the oracle lists them: keep the test quick
            out.append(case)
    return out


ALL_CASES = CASES + random_cases(40, seed=2024)


@pytest.mark.parametrize("case", ALL_CASES, ids=[f"case{i}" for i in range(len(ALL_CASES))])
def test_the_lazy_schedule_is_the_eager_one_game_for_game(case: dict[str, Any]) -> None:
    expected = old_build_schedule(**case)
    schedule = build_schedule(**case)
    assert len(schedule) == len(expected)
    assert list(schedule) == expected
    assert [schedule.game(n) for n in range(1, len(expected) + 1)] == expected
    assert [schedule[i] for i in range(-len(expected), 0)] == expected
    assert schedule[1::3] == expected[1::3] and schedule[::-2] == expected[::-2]


def test_a_schedule_of_many_encounters_unranks_each_like_the_listing() -> None:
    """Hundreds of engines: each encounter found by arithmetic is the listing's, in its place."""
    for case in (dict(engines=200), dict(engines=40, players=3, matchups=None), dict(engines=200, players=4, matchups=None),
                 dict(engines=400, fmt="gauntlet", seeds=7)):
        expected = old_build_schedule(**case)  # type: ignore[arg-type]
        schedule = build_schedule(**case)  # type: ignore[arg-type]
        assert list(schedule) == expected, case
        for n in random.Random(1).sample(range(1, len(expected) + 1), 500):
            assert schedule.game(n) == expected[n - 1]


def test_game_numbers_outside_the_schedule_are_a_value_error() -> None:
    schedule = build_schedule(3, rounds=2)  # 12 games
    assert schedule.numbers == range(1, 13) and 12 in schedule.numbers and 13 not in schedule.numbers
    for bad in (0, -1, 13, 10**9):
        with pytest.raises(ValueError, match=rf"^no game {bad} in a schedule of 12 games$"):
            schedule.game(bad)
    with pytest.raises(IndexError):
        schedule[12]
    with pytest.raises(IndexError):
        schedule[-13]
    assert schedule[-1] == schedule.game(12) and schedule[0] == schedule.game(1)


def test_membership_equality_and_repr() -> None:
    schedule = build_schedule(4, openings=OPENINGS, order="random", seed=3)
    assert schedule.game(5) in schedule
    other = build_schedule(4, openings=OPENINGS, order="random", seed=4)
    assert any(g not in schedule for g in other)  # another shuffle: some games differ
    assert schedule == build_schedule(4, openings=OPENINGS, order="random", seed=3) and schedule != other
    assert hash(schedule) == hash(build_schedule(4, openings=OPENINGS, order="random", seed=3))
    # settings that do not change the games do not tell schedules apart
    assert build_schedule(3, seed=1) == build_schedule(3, seed=2)
    assert build_schedule(3, order="random", seed=5) == build_schedule(3)  # one condition: nothing to shuffle
    assert repr(build_schedule(3, rounds=2)) == "<Schedule of 12 games: 2 rounds x 3 encounters x 2 games, 2 seats>"


@pytest.mark.parametrize("container", ["bitset", "set"])
def test_games_from_skips_the_done_lazily_and_counts_the_rest(container: str) -> None:
    schedule = build_schedule(4, players=3, matchups=None, games=12, rounds=2)  # 96 games
    rng = random.Random(5)
    finished = set(rng.sample(range(1, 97), 40)) | set(range(1, 7)) | {96}  # a whole set too
    done: Any
    if container == "bitset":
        done = DoneGames(len(schedule))
        for n in finished:
            done.add(n)
    else:
        done = finished
    pending = schedule.games_from(done)
    assert len(pending) == 96 - len(finished)
    assert list(pending) == [g for g in schedule if g.number not in finished]
    assert len(schedule.games_from(DoneGames(len(schedule)))) == 96  # nothing done: nothing counted
    # the iteration reads ``done`` as it goes (the runner adds each game as its record comes back)
    growing: Any = DoneGames(len(schedule)) if container == "bitset" else set()
    growing.add(96)  # something done: the bitset lists the numbers missing
    seen = []
    for game in schedule.games_from(growing):
        seen.append(game.number)
        growing.add(game.number + 1)  # the next one is declared done before it is reached
    assert seen == list(range(1, 96, 2))


def _peak_while(run: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow  # 400,000 games made under tracemalloc: ten seconds
def test_a_big_schedule_is_built_and_iterated_in_constant_memory() -> None:
    """A million games are built in a few hundred bytes (the eager list took ~130 MB here, 200
    MB with many encounters); iterating holds a game at a time (and the bounded cache of drawn
    gods): shown on 200,000 games, whose list would take over 25 MB."""
    holder: list[Schedule] = []
    assert _peak_while(lambda: holder.append(build_schedule(2, rounds=MAX_GAMES // 2))) < 100_000
    assert len(holder[0]) == MAX_GAMES
    schedule = build_schedule(2, rounds=100_000)
    last: deque[ScheduledGame] = deque(maxlen=1)
    peak = _peak_while(lambda: last.extend(schedule))
    assert last[0] == schedule.game(200_000) and peak < 2_000_000, peak
    # many encounters (each listed as reached), two thirds of them done (a resume)
    schedule = build_schedule(450)  # 101,025 encounters, 202,050 games
    done = DoneGames(len(schedule))
    for n in range(1, len(schedule) + 1):
        if n % 3:
            done.add(n)
    last.clear()
    peak = _peak_while(lambda: last.extend(schedule.games_from(done)))
    assert last[0] == schedule.game(202_050) and peak < 2_000_000, peak


def test_a_schedule_pickles_and_keeps_its_games_in_another_process() -> None:
    """Dask and the process pool may ship a config: the schedule crosses as its settings."""
    schedule = build_schedule(5, players=3, matchups=None, games=12, openings=OPENINGS, order="random", seed=4)
    data = pickle.dumps(schedule)
    assert len(data) < 1_000 and pickle.loads(data) == schedule
    assert list(pickle.loads(data)) == list(schedule)
    code = (
        "import pickle, sys; s = pickle.loads(sys.stdin.buffer.read()); "
        "print(len(s), [(g.number, g.seats, g.gods, g.opening, g.round) for g in s][-1])"
    )
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True).stdout.decode()
    g = schedule[-1]
    assert out.strip() == f"{len(schedule)} {(g.number, g.seats, g.gods, g.opening, g.round)}"
    config = TournamentConfig.from_settings(Settings(engines=["random", "greedy", "alphabeta"], rounds=100_000, games=2))
    assert len(config.schedule) == 600_000 and len(pickle.dumps(config)) < 10_000
    assert pickle.loads(pickle.dumps(config)) == config
