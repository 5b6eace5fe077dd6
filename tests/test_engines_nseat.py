"""The bundled engines in three- and four-seat games (SPEC.md section 15).

In-process: each engine's ``choose`` on hand-built positions (an elimination behind it or ahead
of it, a team worker walled in, Athena's restriction, wins to take and climbs to stop).  Real
processes: the engines declare ``feature players 2 3 4`` and answer ``go`` with every seat's clock.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from santorini_engines import greedy, random_engine
from santorini_engines.alphabeta import INF, NSEAT_MOVES_TO_GO, TEAM_MOVES_TO_GO, AlphaBeta, ParanoidSearcher, _next_mover
from santorini_engines.evaluation import evaluate, evaluate_for, immediate_win, power_threats, seat_wins
from santorini_engines.sei_bot import Limits
from santorini_server.referee.engine_spec import bundled_argv
from santorini_server.rules import SIMPLE_GODS, Position, parse_square
from santorini_server.rules.movegen import generate

Choose = Callable[[Position, Limits, threading.Event, Callable[[str], None]], str]
ENGINES: dict[str, Callable[[], Choose]] = {
    "random": lambda: random_engine.choose,
    "greedy": lambda: greedy.choose,
    "alphabeta": lambda: AlphaBeta().choose,
}
#: A small fixed budget (ms): searches here are about choices a ply or two deep.
MOVETIME = 150


def bits(squares: str) -> int:
    return sum(1 << parse_square(sq) for sq in squares.split())


def pos(gods: str, *groups: str, to_move: int, heights: str = "", domes: str = "", turn: int = 4,
        athena_up: bool = False, eliminated: int = 0) -> Position:
    """``groups`` as "a1 b2" per group (seat, or team with four seats); ``to_move`` 1-based; ``heights`` "c3=2"."""
    levels = {parse_square(k): int(v) for k, v in (h.split("=") for h in heights.split())}
    return Position(gods=tuple(gods.split("/")), heights=levels, domes=bits(domes), workers=tuple(bits(g) for g in groups),
                    to_move=to_move - 1, turn=turn, athena_up=athena_up, eliminated=eliminated)


def play(name: str, position: Position, limits: Limits | None = None) -> str:
    """``name``'s turn (checked legal); ``limits`` count from their creation, so make them just before."""
    limits = limits or Limits(movetime=MOVETIME)
    turn = ENGINES[name]()(position, limits, threading.Event(), lambda _line: None)
    assert turn in position.legal_turns(), f"{name} answered {turn!r}"
    return turn


#: Three seats, seat 2 eliminated: seats 1 and 3 play on.
AFTER_ELIMINATION = pos("apollo/pan/atlas", "a1 b1", "", "d4 e5", to_move=3, heights="c3=1 d3=2 b2=1",
                        eliminated=0b010)
#: Three seats: seat 2 (a1, b1) is walled in by domes, so it leaves the game when its turn comes and
#: seat 3 (on c3, level 2, next to d4 at level 3) moves right after seat 1: seat 1 must dome d4.
ELIMINATION_AHEAD = pos("demeter/artemis/atlas", "e4 e2", "a1 b1", "c3 a5", to_move=1,
                        heights="c3=2 d4=3", domes="a2 b2 c2 c1")
#: Four seats: team A's worker on a1 is walled in, so seat 3 can only move d3, the worker seat 1 placed.
TEAM_WORKER = pos("apollo/pan/atlas/demeter", "a1 d3", "e5 c5", to_move=3, domes="a2 b2 b1")
#: Three seats: Athena (seat 1) moved up; seat 2 on b2 (level 2) may not climb onto c3 (level 3).
ATHENA_3 = pos("athena/apollo/atlas", "d4 e4", "b2 a5", "e1 a3", to_move=2, heights="b2=2 c3=3 d4=1",
               athena_up=True)
#: Four seats: Athena (seat 2) moved up, so seat 3 (team A) may not climb b2 -> c3; her teammate could.
ATHENA_4 = pos("apollo/athena/atlas/demeter", "b2 a5", "d4 e4", to_move=3, heights="b2=2 c3=3 d4=1",
               athena_up=True)


@pytest.mark.parametrize("name", sorted(ENGINES))
@pytest.mark.parametrize(
    "position",
    [
        Position.start(("apollo", "minotaur", "pan")),
        Position.start(("apollo", "minotaur", "pan", "athena")),
        AFTER_ELIMINATION,
        ELIMINATION_AHEAD,
        TEAM_WORKER,
        ATHENA_3,
        ATHENA_4,
    ],
    ids=["3p-start", "4p-start", "3p-after-elimination", "3p-elimination-ahead", "4p-team-worker", "3p-athena",
         "4p-athena"],
)
def test_every_engine_answers_a_legal_turn(name: str, position: Position) -> None:
    play(name, position)


def test_the_positions_say_what_their_comments_say() -> None:
    assert ELIMINATION_AHEAD.play("e4-d5+e4").position.is_lost()  # seat 2 has no turn after seat 1's
    assert {t[:2] for t in TEAM_WORKER.legal_turns()} == {"d3"}
    assert not any(t.win for t in ATHENA_3.transitions()) and not any(t.win for t in ATHENA_4.transitions())
    unbound = pos("apollo/athena/atlas/demeter", "d4 e4", "b2 a5", to_move=4, heights="b2=2 c3=3 d4=1",
                  athena_up=True)
    assert any(t.win for t in unbound.transitions())  # Athena's teammate may climb


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_four_seats_move_the_team_worker_that_can_move(name: str) -> None:
    assert play(name, TEAM_WORKER).startswith("d3")


@pytest.mark.parametrize("name", ["greedy", "alphabeta"])
@pytest.mark.parametrize(
    "position",
    [
        pos("apollo/pan/atlas", "a1 e1", "a5 e5", "c3 b3", to_move=3, heights="c3=2 d4=3"),
        pos("apollo/pan/atlas/demeter", "a1 e1", "c3 a5", to_move=4, heights="c3=2 d4=3"),
    ],
    ids=["3p", "4p"],
)
def test_a_one_turn_win_is_played(name: str, position: Position) -> None:
    assert position.play(play(name, position)).win


def _stops_the_climb(position: Position, turn: str, seat: int) -> bool:
    """Whether after ``turn`` seat ``seat`` (1-based) cannot climb to level 3 on the board left."""
    return not seat_wins(position.play(turn).position, seat - 1)


@pytest.mark.parametrize("name", ["greedy", "alphabeta"])
def test_four_seats_the_other_team_s_climb_is_blocked(name: str) -> None:
    """Team B's worker on c3 (level 2) threatens d4 (level 3); seat 1's worker on e4 must dome it."""
    position = pos("atlas/apollo/hephaestus/demeter", "e4 a1", "c3 a5", to_move=1, heights="c3=2 d4=3 b4=1")
    assert seat_wins(position, 1)
    turn = play(name, position)
    assert _stops_the_climb(position, turn, 2) and _stops_the_climb(position, turn, 4)


@pytest.mark.parametrize("name", ["greedy", "alphabeta"])
def test_three_seats_the_climb_of_the_seat_after_next_is_blocked(name: str) -> None:
    """Seat 3 (c3, level 2, next to d4 at level 3) moves after seat 2: seat 1 must stop it now."""
    position = pos("atlas/apollo/hephaestus", "e4 a1", "a5 b5", "c3 e1", to_move=1, heights="c3=2 d4=3")
    assert _stops_the_climb(position, play(name, position), 3)


@pytest.mark.parametrize("name", ["greedy", "alphabeta"])
def test_three_seats_an_elimination_is_not_a_turn(name: str) -> None:
    """Seat 2 leaves the game before it could block seat 3, so seat 1 domes d4 itself."""
    turn = play(name, ELIMINATION_AHEAD)
    after = ELIMINATION_AHEAD.play(turn).position.eliminate()
    assert after is not None and after.player == 3 and not any(t.win for t in after.transitions())


def test_alphabeta_wins_by_leaving_the_last_opponent_without_a_turn() -> None:
    """Three seats, seat 2 out: seat 3 (d5, e5) can only step onto d4; seat 1 takes or domes it and is last standing."""
    position = pos("atlas/pan/demeter", "c3 a1", "", "d5 e5", to_move=1, heights="d4=1", domes="c4 c5 e4",
                   eliminated=0b010)
    turn = play("alphabeta", position)
    after = position.play(turn).position
    assert after.is_lost() and after.eliminate() is None


def test_alphabeta_budgets_from_its_own_seat_s_clock() -> None:
    """Seat 3 to move with 200 ms of its own (and a minute on the others' clocks): it answers in time."""
    limits = Limits(p1time=60_000, p2time=60_000, p3time=200, p1inc=10, p2inc=10, p3inc=10)
    budget = dataclasses.replace(limits, movestogo=NSEAT_MOVES_TO_GO).budget_for(3)  # what the engine spends
    assert budget is not None and budget < 0.05
    started = time.monotonic()
    play("alphabeta", pos("apollo/pan/atlas", "b2 d2", "b4 d4", "c3 e3", to_move=3, heights="c2=1 c4=1"), limits)
    assert time.monotonic() - started < budget + 0.25  # the slack is for a loaded machine, not the engine


def test_evaluate_for_is_the_two_seat_evaluation_with_two_seats() -> None:
    two = pos("mortal/mortal", "b2 d2", "c3 e3", to_move=2, heights="c3=2 b2=1 d4=3")
    args = (two.h1, two.h2, two.h3, two.domes)
    assert evaluate_for(two, 1) == evaluate(*args, two.workers[1], two.workers[0])
    assert evaluate_for(two, 0) == -evaluate(*args, two.workers[1], two.workers[0])


def test_four_seats_score_teams_and_three_seats_both_opponents() -> None:
    four = pos("apollo/pan/atlas/demeter", "b2 d2", "c3 e3", to_move=1, heights="c3=2 d4=3")
    assert evaluate_for(four, 0) == evaluate_for(four, 2) == -evaluate_for(four, 1) == -evaluate_for(four, 3)
    three = pos("apollo/pan/atlas", "b2 d2", "c3 e3", "a5 e5", to_move=1, heights="c3=2 d4=3")
    assert seat_wins(three, 1) and not seat_wins(three, 0) and not seat_wins(three, 2)


# --- real processes ---------------------------------------------------------------------------------


class Engine:
    """A bundled engine over pipes, with a reader thread so every wait has a timeout."""

    def __init__(self, name: str) -> None:
        self.proc = subprocess.Popen(bundled_argv(name), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines: list[str] = []
        self.ready = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.ready:
                self.lines.append(line.rstrip("\n"))
                self.ready.notify_all()

    def until(self, word: str, *send: str, timeout: float = 10.0) -> list[str]:
        """Send lines, then every line up to the first starting with ``word``."""
        assert self.proc.stdin is not None
        start = len(self.lines)
        self.proc.stdin.write("".join(line + "\n" for line in send))
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        with self.ready:
            while True:
                for k in range(start, len(self.lines)):
                    if self.lines[k].split(" ", 1)[0] == word:
                        got = self.lines[start : k + 1]
                        del self.lines[: k + 1]
                        return got
                left = deadline - time.monotonic()
                assert left > 0, f"no {word!r} within {timeout} s: {self.lines[start:]}"
                self.ready.wait(left)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> Iterator[tuple[str, Engine]]:
    eng = Engine(request.param)
    yield request.param, eng
    eng.close()


def test_engines_declare_three_and_four_seats_and_play_them_over_sei(engine: tuple[str, Engine]) -> None:
    _, eng = engine
    assert "feature players 2 3 4" in eng.until("seiok", "sei 1")
    for position in (AFTER_ELIMINATION, ELIMINATION_AHEAD, TEAM_WORKER):
        n = position.nseats
        clocks = " ".join(f"p{k}time 1000" for k in range(1, n + 1)) + " " + " ".join(f"p{k}inc 10" for k in range(1, n + 1))
        started = time.monotonic()
        replies = eng.until("bestmove", f"newgame gods {'/'.join(position.gods)}", f"position sps {position.sps()}",
                            f"go {clocks}")
        assert time.monotonic() - started < 2.0
        assert not [r for r in replies if r.startswith("error")]
        assert replies[-1].split()[1] in position.legal_turns()


def test_a_four_seat_game_over_sei_from_the_start() -> None:
    """Placement by seats 1 and 2, then seat 3 plays first; alphabeta answers every seat's ``go``."""
    eng = Engine("alphabeta")
    try:
        eng.until("seiok", "sei 1")
        gods = ("apollo", "pan", "atlas", "demeter")
        position, moves = Position.start(gods), []
        for _ in range(6):
            line = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            replies = eng.until("bestmove", f"newgame gods {'/'.join(gods)}", line,
                                "go p1time 800 p2time 800 p3time 800 p4time 800 p1inc 10 p2inc 10 p3inc 10 p4inc 10")
            assert not [r for r in replies if r.startswith("error")]
            turn = replies[-1].split()[1]
            step = position.play(turn)
            moves.append(turn)
            position = step.position
            if step.win:
                break
        assert moves[2][2] in "-x" and position.nseats == 4  # seat 3 moved a worker on the first play turn
    finally:
        eng.close()


def test_paranoid_raw_leaves_score_as_positions_do() -> None:
    """The paranoid search scores frontier children from raw states; on random three-seat games
    (every god, eliminations included) that agrees with scoring the built ``Position``."""
    rng = random.Random(5)
    gods = sorted(SIMPLE_GODS)
    checked = 0
    for _ in range(12):
        position: Position | None = Position.start(tuple(rng.sample(gods, 3)))
        for _ in range(40):
            assert position is not None
            if position.is_lost():
                position = position.eliminate()
                if position is None:
                    break
                continue
            for root in position.live_seats:
                for turn in list(generate(position))[:6]:
                    if turn.win:
                        continue
                    raw, built = ParanoidSearcher(), ParanoidSearcher()
                    raw.root = built.root = root
                    assert raw._leaf3(position, turn.state, 3) == built._search(position.successor(turn.state), 0, -INF, INF, 3)
                    checked += 1
            step = rng.choice(position.transitions())
            if step.win:
                break
            position = step.position
    assert checked > 1000


# --- four seats: Athena's tag across a teammate's turn, power threats -------------------------------


def _random_positions(nseats: int, seed: int, games: int = 15, plies: int = 40) -> Iterator[Position]:
    """Positions of random games with random distinct gods (placement over, before a win)."""
    rng = random.Random(seed)
    gods = sorted(SIMPLE_GODS)
    for _ in range(games):
        position = Position.start(tuple(rng.sample(gods, nseats)))
        for _ in range(plies):
            if position.is_lost():
                break
            if not position.is_placement:
                yield position
            step = rng.choice(position.transitions())
            if step.win:
                break
            position = step.position


def test_power_threats_are_the_wins_beyond_ordinary_climbs() -> None:
    """For Pan and Artemis, a win now is an ordinary climb or a power threat; other gods have none."""
    checked = 0
    for position in _random_positions(2, 11, games=40):
        mine, theirs = position.sides()
        args = (position.h1, position.h2, position.h3, position.domes)
        free = ~(mine | theirs | position.domes)
        climbs = any(bits_nb & position.h3 & free for bits_nb in _climb_targets(position, mine))
        for god in sorted(SIMPLE_GODS):
            squares = power_threats(*args, mine, theirs, god)
            if god in ("pan", "artemis"):
                assert immediate_win(*args, mine, theirs, god, False) == (climbs or bool(squares))
                checked += bool(squares)
            else:
                assert squares == 0
    assert checked > 20
    pan = pos("pan/mortal", "b2 e5", "a5 e1", to_move=1, heights="b2=2 a1=1 a2=1 a3=1 b1=1 b3=1 c1=1 c2=1")
    assert power_threats(pan.h1, pan.h2, pan.h3, pan.domes, *pan.sides(), "pan") == bits("c3")


def _climb_targets(position: Position, mine: int) -> Iterator[int]:
    """Per worker of ``mine`` on level 2, its neighbours (an ordinary climb goes to a free level-3 one)."""
    for sq in range(25):
        if mine >> sq & 1 and position.level(sq) == 2:
            yield sum(1 << n for n in range(25) if n != sq and max(abs(n // 5 - sq // 5), abs(n % 5 - sq % 5)) == 1)


def test_evaluate_drops_the_climbs_of_an_opponent_athena_binds() -> None:
    """Team B's worker on c3 (level 2) beside d4 (level 3) is a threat, unless Athena's tag binds B."""
    four = pos("athena/apollo/atlas/demeter", "a1 e1", "c3 a5", to_move=3, heights="c3=2 d4=3 b4=1")
    args = (four.h1, four.h2, four.h3, four.domes, four.workers[0], four.workers[1])
    free = evaluate(*args, their_no_up=True)
    assert evaluate(*args) == evaluate(*args, False, "", False)  # the defaults are the two-seat score
    assert free - evaluate(*args) >= 160


def test_next_mover_knows_when_athena_s_tag_surely_binds_the_seat_after_next() -> None:
    """Athena (seat 2, team B) moved up.  After a turn of seat 3 (A), her teammate (seat 4) moves and
    then seat 1 (A), still bound as Athena has not moved; after seat 1's turn Athena herself moves
    next, so whether seat 3 will be bound is not known yet; after seat 4's it is Athena's turn after next."""
    gods = "apollo/athena/atlas/demeter"
    at = {seat: pos(gods, "b2 a5", "d4 e4", to_move=seat, athena_up=True) for seat in (1, 3, 4)}
    assert _next_mover(at[3]) == ("demeter", False, "apollo", True)
    assert _next_mover(at[1]) == ("athena", False, "atlas", False)
    assert _next_mover(at[4]) == ("apollo", True, "athena", False)
    assert _next_mover(pos("mortal/mortal", "b2 a5", "d4 e4", to_move=1)) == ("mortal", False, "", False)


@pytest.mark.parametrize("nseats", [3, 4])
def test_alphabeta_budgets_for_the_turns_a_seat_has_left_without_movestogo(nseats: int) -> None:
    """A Fischer clock comes without ``movestogo``: the budget still assumes the few turns a seat of
    a three- or four-seat game has left (not the helper's default of 20, which left most of the clock unspent)."""
    limits = Limits(p1time=1000, p2time=1000, p3time=1000, p4time=1000 if nseats == 4 else None,
                    p1inc=10, p2inc=10, p3inc=10, p4inc=10 if nseats == 4 else None)
    engine = AlphaBeta()
    position = (pos("apollo/pan/atlas", "b2 d2", "b4 d4", "c3 e3", to_move=1, heights="c2=1 c4=1") if nseats == 3
                else pos("apollo/pan/atlas/demeter", "b2 d2", "b4 d4", to_move=1, heights="c2=1 c4=1"))
    engine.choose(position, limits, threading.Event(), lambda _line: None)
    searcher = engine.paranoid if nseats == 3 else engine.teams
    moves = NSEAT_MOVES_TO_GO if nseats == 3 else TEAM_MOVES_TO_GO
    expected = dataclasses.replace(limits, movestogo=moves).budget_for(1)
    assert expected is not None and searcher.deadline is not None
    assert searcher.deadline - limits.started == pytest.approx(expected)
    assert expected > 1.5 * (limits.budget_for(1) or 0)
