"""The bundled engines and the bot helper, tested as the referee sees them: real subprocesses.

Every engine is started through the referee's ``bundled_argv`` and spoken to over pipes;
a reader thread queues its lines so each wait has a timeout and a hung engine fails a test
instead of hanging it.
"""

from __future__ import annotations

import queue
import random
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from santorini_engines.evaluation import immediate_win
from santorini_engines.sei_bot import SAFETY_MARGIN, Limits
from santorini_server.referee.engine_spec import BUNDLED_NAMES, bundled_argv
from santorini_server.rules import GODS, Position
from santorini_server.rules.movegen import generate

ENGINES = sorted(BUNDLED_NAMES)
CROSS = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
#: SPEC.md section 1.6, worked case 3: P1 (a1, b1) is walled in by domes on a2, b2, c2, c1.
NO_MOVES = "mortal/mortal;00000/00000/00000/44400/00400;a1,b1/e4,e5;1;5"
#: SPEC.md section 1.6, worked case 2: b2 (level 2) -> c3 (level 3) wins; 24 legal turns.
WIN_IN_ONE = "mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;9"
GODS_LINE = "gods apollo artemis athena atlas demeter hephaestus hermes minotaur pan prometheus"


class Engine:
    """A bundled engine under test: send lines, read replies with timeouts."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            bundled_argv(name),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 5.0) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "engine closed stdout"
        return line

    def until(self, word: str, timeout: float = 5.0) -> list[str]:
        """Every line up to and including the first that starts with ``word``."""
        deadline = time.monotonic() + timeout
        out = []
        while True:
            out.append(self.read(max(0.01, deadline - time.monotonic())))
            if out[-1].split(" ", 1)[0] == word:
                return out

    def ask(self, *lines: str, timeout: float = 5.0) -> list[str]:
        """Send lines then ``isready``; the replies before ``readyok``."""
        self.send(*lines, "isready")
        return self.until("readyok", timeout)[:-1]

    def go(self, *lines: str, timeout: float = 5.0) -> list[str]:
        """Send lines ending in a ``go``; every reply up to and including its ``bestmove``."""
        self.send(*lines)
        return self.until("bestmove", timeout)

    def bestmove(self, *lines: str, timeout: float = 5.0) -> str:
        return self.go(*lines, timeout=timeout)[-1].split()[1]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    eng = Engine(request.param)
    yield eng
    eng.close()


HANDSHAKE = {
    "random": ["id name Random", "option name Seed type spin default 0 min 0 max 2147483647"],
    "greedy": ["id name Greedy", "option name Seed type spin default 0 min 0 max 2147483647"],
    "alphabeta": ["id name AlphaBeta", "option name Hash type spin default 1000 min 10 max 100000"],
}


def test_handshake_lines_exactly(engine: Engine) -> None:
    engine.send("sei 1")
    name_line, option_line = HANDSHAKE[engine.name]
    assert engine.until("seiok") == [
        name_line, "id author santorini-server", option_line, GODS_LINE, "feature legalmoves perft",
        "feature players 2 3 4", "seiok 1",
    ]


def test_isready_during_infinite_search_and_one_bestmove_after_stop(engine: Engine) -> None:
    engine.send("sei 1", "newgame gods mortal/mortal", f"position sps {CROSS}", "go infinite")
    time.sleep(0.3)
    before = engine.ask(timeout=1.0)  # readyok while the search runs
    assert not any(line.startswith("bestmove") for line in before)
    engine.send("stop")
    best = engine.until("bestmove", timeout=2.0)[-1].split()[1]
    assert best in Position.from_sps(CROSS).legal_turns()
    after = engine.ask()
    assert not any(line.startswith("bestmove") for line in after), "a second bestmove after stop"


def test_legalmoves_and_perft_on_the_cross_position(engine: Engine) -> None:
    replies = engine.ask(f"position sps {CROSS}", "legalmoves", "perft 2")
    assert len(replies) == 2
    words = replies[0].split()
    assert words[:2] == ["legalmoves", "68"]
    assert words[2:] == sorted(Position.from_sps(CROSS).legal_turns())
    assert replies[1] == "perft 2 5156"


def _pairings() -> list[tuple[str, str]]:
    """Every god once as player 1 and once as player 2 (and mortal/mortal)."""
    gods = [g for g in GODS if g != "mortal"]
    pairs = [("mortal", "mortal"), *zip(gods, [*gods[1:], gods[0]], strict=True)]
    return [*pairs, ("mortal", gods[0]), (gods[-1], "mortal")]


def test_legal_bestmove_in_every_phase_for_every_god_pairing(engine: Engine) -> None:
    engine.ask("sei 1")
    for gods in _pairings():
        assert engine.ask(f"newgame gods {gods[0]}/{gods[1]}") == []
        pos = Position.start(gods)
        moves: list[str] = []
        for _ in range(4):  # placement P1, placement P2, play P1, play P2
            line = "position startpos" + (" moves " + " ".join(moves) if moves else "")
            best = engine.bestmove(line, "go movetime 40 p1time 10000 p2time 10000")
            assert best in pos.legal_turns(), (gods, moves, best)
            moves.append(best)
            pos = pos.play(best).position


def test_play_phase_from_sps_with_athena_state(engine: Engine) -> None:
    sps = "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4"
    engine.ask("newgame gods prometheus/athena")
    best = engine.bestmove(f"position sps {sps}", "go movetime 50")
    assert best in Position.from_sps(sps).legal_turns()


def test_unsupported_god_is_an_error(engine: Engine) -> None:
    assert engine.ask("newgame gods zeus/mortal") == ["error unsupported god zeus"]


def test_bad_input_is_answered_and_the_engine_keeps_going(engine: Engine) -> None:
    replies = engine.ask(
        "frobnicate now", "position sps not-an-sps", "position startpos moves b3,d3 a1-a2",
        "setoption name NoSuchOption value 3", "perft x",
    )
    assert replies[0] == "info string unknown command frobnicate now"
    assert [r.split()[0] for r in replies[1:]] == ["error"] * 4
    # after a failed position there is no position: still exactly one bestmove
    assert engine.bestmove("go movetime 10") == "resign"
    assert engine.bestmove("position startpos moves b3,d3", "go movetime 20") in Position.from_sps(
        "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/-;2;1"
    ).legal_turns()


def test_bestmove_resign_without_a_legal_turn(engine: Engine) -> None:
    assert Position.from_sps(NO_MOVES).is_lost()
    assert engine.bestmove(f"position sps {NO_MOVES}", "go movetime 100") == "resign"


def test_a_winning_turn_is_played(engine: Engine) -> None:
    if engine.name == "random":
        return  # random plays anything; its legality is covered above
    lines = engine.go(f"position sps {WIN_IN_ONE}", "go depth 3")
    assert lines[-1] == "bestmove b2-c3"
    assert any("score win 1" in line for line in lines)


def test_position_go_right_after_bestmove_never_sees_a_busy_engine(engine: Engine) -> None:
    """Regression: ``bestmove`` was flushed before the helper marked the search finished."""
    pos = Position.from_sps(CROSS)
    for _ in range(15):
        lines = engine.go(f"position sps {pos.sps()}", "go movetime 5")
        assert not any(line.startswith("error") for line in lines), lines
        if lines[-1].split()[1] == "resign":
            break
        transition = pos.play(lines[-1].split()[1])
        if transition.win:
            break
        pos = transition.position


def test_eof_exits_promptly_mid_search(engine: Engine) -> None:
    engine.send(f"position sps {CROSS}", "go infinite")
    time.sleep(0.2)
    started = time.monotonic()
    assert engine.proc.stdin is not None
    engine.proc.stdin.close()
    engine.proc.wait(timeout=2)
    assert time.monotonic() - started < 2


def test_quit_exits_zero(engine: Engine) -> None:
    engine.ask("sei 1")
    engine.send("quit")
    assert engine.proc.wait(timeout=2) == 0


def test_random_engine_seed_makes_games_reproducible() -> None:
    answers = []
    for _ in range(2):
        eng = Engine("random")
        try:
            eng.send("setoption name Seed value 42", "newgame gods mortal/mortal")
            answers.append([eng.bestmove(f"position sps {CROSS}", "go") for _ in range(3)])
        finally:
            eng.close()
    assert answers[0] == answers[1]


def test_setoption_out_of_range_is_an_error() -> None:
    eng = Engine("random")
    try:
        assert eng.ask("setoption name Seed value -5")[0].startswith("error option Seed must be in")
    finally:
        eng.close()


# --- in-process units -----------------------------------------------------------------------


def test_budget_for_fischer_movetime_and_none() -> None:
    limits = Limits(p1time=60_000, p2time=30_000, p1inc=1_000, p2inc=0)
    assert limits.budget_for(1) == pytest.approx(60 / 20 + 0.8)
    assert limits.budget_for(2) == pytest.approx(30 / 20)
    # capped at a third of what is left, minus the safety margin
    assert Limits(p1time=300, p1inc=2_000).budget_for(1) == pytest.approx(0.1 - SAFETY_MARGIN)
    assert Limits(p1time=0).budget_for(1) == 0.0
    assert Limits(movetime=1_000).budget_for(1) == pytest.approx(1 - SAFETY_MARGIN)
    assert Limits(movetime=1_000, p1time=2_000).budget_for(1) == pytest.approx(2 / 20)
    assert Limits(movestogo=2, p2time=10_000).budget_for(2) == pytest.approx(10 / 3 - SAFETY_MARGIN)
    assert Limits(movestogo=1, p2time=10_000).budget_for(2) == pytest.approx(8 - SAFETY_MARGIN)
    assert Limits(p1time=10_000).budget_for(2) is None  # only the other clock is known
    assert Limits().budget_for(1) is None
    assert Limits(movetime=1_000, infinite=True).budget_for(1) is None


def test_immediate_win_agrees_with_the_move_generator_for_every_god() -> None:
    rng = random.Random(7)
    gods = list(GODS)
    checked = wins = 0
    while checked < 3000:
        g1 = rng.choice(gods)
        g2 = rng.choice([g for g in gods if g != g1 or g == "mortal"])
        heights = {sq: rng.choice((0, 0, 1, 2, 2, 3, 3)) for sq in range(25)}
        domes = sum(1 << sq for sq in range(25) if rng.random() < 0.1)
        squares = rng.sample([sq for sq in range(25) if not domes >> sq & 1], 4)
        to_move = rng.randint(0, 1)
        athena_up = (g1, g2)[1 - to_move] == "athena" and rng.random() < 0.5
        workers = ((1 << squares[0]) | (1 << squares[1]), (1 << squares[2]) | (1 << squares[3]))
        try:
            pos = Position(gods=(g1, g2), heights=heights, domes=domes, workers=workers,
                           to_move=to_move, turn=5, athena_up=athena_up)
        except ValueError:
            continue
        me = pos.to_move
        got = immediate_win(pos.h1, pos.h2, pos.h3, pos.domes, pos.workers[me], pos.workers[1 - me],
                            pos.gods[me], pos.athena_up)
        expected = any(t.win for t in generate(pos))
        assert got == expected, pos.sps()
        checked += 1
        wins += expected
    assert 500 < wins < 2500  # both answers were exercised
