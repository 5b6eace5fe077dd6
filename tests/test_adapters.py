"""The adapters (SPEC.md section 20): foreign engines as SEI engines, through their own interfaces.

In CI the foreign engines are the stand-ins under ``tests/fakes/`` (each speaks its engine's
interface exactly, and can be told to misbehave); the translations, the failures and whole games
are tested against them.  With the real engines built (``SANTORINI_CPP_BINARY``: cpp-santorini's
program; ``SANTORINI_AZ_CHECKOUT`` and ``SANTORINI_AZ_PYTHON``: alpha-zero-general's checkout and
the Python that runs it), the same compliance and game tests play them too; without, those cases
skip with one line.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from santorini_server.adapters import ADAPTERS, run
from santorini_server.adapters.alphazero import az_state, az_turn, socket_path
from santorini_server.adapters.common import wire_token
from santorini_server.adapters.cpp_santorini import cpp_position, cpp_turn
from santorini_server.cli import main
from santorini_server.referee.engine_spec import adapter_argv, parse_engine_spec
from santorini_server.rules import Position

FAKES = Path(__file__).resolve().parent / "fakes"
AZ_FAKE = FAKES / "az_checkout"
#: SPEC.md section 1.6, worked case 2: b2 (level 2) -> c3 (level 3) wins.
WIN_IN_ONE = "mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;9"
#: A dome on a1, levels on rank 5, player 2 to move.
SAMPLE = "mortal/mortal;01230/00000/00000/00000/40000;b1,c2/d4,e5;2;7"


@pytest.fixture
def cpp_fake(tmp_path: Path) -> Path:
    """The cpp-santorini stand-in as a program (the adapter runs ``--binary`` as it is)."""
    program = tmp_path / "fake-cpp"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKES / "fake_cpp_santorini.py"} "$@"\n')
    program.chmod(0o755)
    return program


def cpp_args(binary: Path | str) -> list[str]:
    return ["--binary", str(binary)]


def az_args(checkout: Path | str = AZ_FAKE, python: str = sys.executable, weights: str | None = None) -> list[str]:
    """The AlphaZero adapter's arguments; each checkpoint path has its own engine server, so a test
    that sets the stand-in's environment gives its own copy (:func:`own_weights`)."""
    weights = weights or (str(AZ_FAKE / "weights.json") if Path(checkout) == AZ_FAKE else None)
    idle = ["--idle", "5"] if Path(checkout) == AZ_FAKE else []
    return ["--checkout", str(checkout), "--python", python, *(["--weights", weights] if weights else []), *idle]


@pytest.fixture
def own_weights(tmp_path: Path) -> Iterator[str]:
    """A checkpoint path of the test's own, so its engine server is the test's own; the server's
    log and lock files go when the test ends (the server itself exits when idle)."""
    copy = tmp_path / "weights.json"
    copy.write_text((AZ_FAKE / "weights.json").read_text())
    yield str(copy)
    path = socket_path(sys.executable, str(AZ_FAKE), str(copy))
    for suffix in (".log", ".lock"):
        path.with_suffix(suffix).unlink(missing_ok=True)


def spec(name: str, args: list[str], label: str) -> str:
    return " ".join([f"adapter={name}", f"name={label}", *(f"arg={a}" for a in args)])


class Adapter:
    """An adapter process under test, spoken to in SEI over pipes, each read with a timeout."""

    def __init__(self, name: str, args: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [*adapter_argv(name), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.send("sei 1")
        self.until("seiok")
        self.send("newgame gods mortal/mortal", "isready")
        self.until("readyok")

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

    def until(self, keyword: str, timeout: float = 60) -> tuple[str, list[str]]:
        """The first line starting with ``keyword``, and the lines before it."""
        before: list[str] = []
        while True:
            line = self.lines.get(timeout=timeout)
            if line is None:
                raise EOFError(f"the adapter exited before {keyword!r}; before it: {before}")
            if line.split()[:1] == [keyword]:
                return line, before
            before.append(line)

    def best(self, sps: str, go: str = "go p1time 5000 p2time 5000") -> tuple[str, list[str]]:
        self.send(f"position sps {sps}", go)
        line, before = self.until("bestmove")
        return line.split()[1], before

    def close(self) -> int:
        if self.proc.poll() is None:
            self.send("quit")
        return self.proc.wait(timeout=10)


@pytest.fixture
def adapters() -> Iterator[list[Adapter]]:
    started: list[Adapter] = []
    yield started
    for adapter in started:
        if adapter.proc.poll() is None:
            adapter.proc.kill()
        adapter.proc.wait()


# --- the registry, the command and the engine spec --------------------------------------------


def test_the_registry_names_a_module_per_adapter_and_refuses_others_in_one_line() -> None:
    assert {"alphazero", "cpp-santorini"} <= set(ADAPTERS)
    with pytest.raises(ValueError, match=r"^no adapter 'nope' \(have alphazero, cpp-santorini"):
        run("nope", [])
    result = CliRunner().invoke(main, ["adapter", "--help"])
    assert result.exit_code == 0 and "cpp-santorini" in result.output and "alphazero" in result.output
    result = CliRunner().invoke(main, ["adapter", "cpp-santorini", "--binary", "/nonexistent/engine"])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_an_engine_spec_names_an_adapter_with_adapter_key() -> None:
    parsed = parse_engine_spec("adapter=cpp-santorini arg=--binary arg=/opt/cpp/main")
    assert parsed.argv == (sys.executable, "-m", "santorini_server.adapters", "cpp-santorini", "--binary", "/opt/cpp/main")
    assert parsed.name == "cpp-santorini"
    with pytest.raises(ValueError, match="names a program twice"):
        parse_engine_spec("adapter=cpp-santorini cmd=./x")
    with pytest.raises(ValueError, match="not a program or name"):
        parse_engine_spec("adapter=alphazero", allow_partial=True)


# --- translations, both ways -------------------------------------------------------------------


def test_cpp_position_lists_squares_from_a1_by_rank_with_heights_workers_and_the_side() -> None:
    text = cpp_position(Position.from_sps(SAMPLE))
    squares = [text[i : i + 2] for i in range(0, 50, 2)]
    assert squares[:5] == ["4N", "0G", "0N", "0N", "0N"]  # rank 1: a dome on a1, a worker of player 1 on b1
    assert squares[5:10] == ["0N", "0N", "0G", "0N", "0N"]
    assert squares[15:20] == ["0N", "0N", "0N", "0B", "0N"]  # d4
    assert squares[20:25] == ["0N", "1N", "2N", "3N", "0B"]  # rank 5
    assert text[50] == "1" and len(text) == 51


def test_cpp_turn_drops_the_build_of_a_winning_climb_and_leaves_what_is_no_move() -> None:
    win = Position.from_sps(WIN_IN_ONE)
    assert cpp_turn(win, "b2c3b2") == "b2-c3"  # level 2 -> 3: the engine's build square is its from square
    assert cpp_turn(win, "b2a1b2") == "b2-a1+b2"
    assert cpp_turn(win, "zz9") == "zz9"
    assert wire_token("b2 c3\x07") == "b2_c3?" and wire_token("") == "(nothing)"


def test_az_state_is_the_movers_board_with_workers_levels_and_god_bits() -> None:
    position = Position.from_sps(SAMPLE)
    state = az_state(position, nb_gods=11)
    workers = [[cell[0] for cell in row] for row in state]
    levels = [[cell[1] for cell in row] for row in state]
    assert workers[0][4] == 1 and workers[1][3] == 2  # player 2 moves: e5 and d4 (index order from a5) are 1 and 2
    assert workers[3][2] == -1 and workers[4][1] == -2  # c2, b1: the opponent's
    assert levels[0] == [0, 1, 2, 3, 0] and levels[4][0] == 4
    gods = [state[i // 5][i % 5][2] for i in range(25)]
    assert gods[0] == 64 and gods[11] == 64 and gods[22] == 2 * (7 - 2) + 1
    assert sum(1 for v in gods if v) == 3


def test_az_turn_reads_directions_row_major_from_the_a5_side_and_refuses_powers() -> None:
    win = Position.from_sps(WIN_IN_ONE)  # player 1: b2 is worker 0 (square order a5..e1: e5 comes first)
    assert sorted(sq for sq in range(25) if win.workers[0] >> sq & 1) == [4, 16]
    assert az_turn(win, (1, 0, 2, 4 - 1)) == "b2-c3"  # worker 1 is b2; direction 2 = up-right: c3, level 3
    assert az_turn(win, (1, 0, 6, 1)) == "b2-a1+a2"  # down-left to a1, build up (a2)
    assert az_turn(win, (0, 1, 0, 0)) == "az:0/1/0/0"
    assert az_turn(win, (0, 0, 2, 0)) == "az:0/0/2/0"  # e5 up-right: off the board


def test_az_state_sets_each_sides_god_and_athenas_moved_up_bit() -> None:
    position = Position.from_sps("athena[up]/minotaur;00000/00000/00000/00000/00000;b3,d3/c2,c4;2;4")
    state = az_state(position, nb_gods=11)
    gods = [state[i // 5][i % 5][2] for i in range(25)]
    assert gods[2] == 64 and gods[9 + 11] == 64 + 1 and gods[22] == 2 * (4 - 2) + 1  # Minotaur moves; Athena moved up
    assert sum(1 for v in gods if v) == 3


@pytest.mark.parametrize(
    ("sps", "decoded", "turn"),
    [
        ("pan/athena;00000/00000/02000/00000/00000;b3,d3/c2,c4;1;4", (0, 0, 0, 8), "b3-a4"),  # Pan's drop wins: no build
        ("athena/minotaur;00000/00000/00000/00000/00000;b3,d3/c2,c4;2;4", (0, 2, 6, 0), "c4xb3+a4"),  # the push
        ("apollo/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;4", (0, 1, 8, 7), "b3xc2+c1"),  # the swap
        ("atlas/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;4", (0, 3, 1, 1), "b3-b4+b5D"),
        ("hephaestus/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;4", (0, 4, 1, 1), "b3-b4+b5+b5"),
        ("mortal/atlas;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;4", (0, 3, 1, 1), "az:0/3/1/1"),  # not its power
    ],
)
def test_az_turn_spells_the_gods_powers_in_stn(sps: str, decoded: tuple[int, int, int, int], turn: str) -> None:
    position = Position.from_sps(sps)
    assert az_turn(position, decoded) == turn
    if not turn.startswith("az:"):
        assert position.play(turn).stn == turn


# --- cpp-santorini through its stand-in --------------------------------------------------------


def script(tmp_path: Path, *behaviours: str) -> dict[str, str]:
    path = tmp_path / "script.txt"
    path.write_text("".join(b + "\n" for b in behaviours))
    return {"FAKE_CPP_SCRIPT": str(path), "FAKE_AZ_SCRIPT": str(path)}


def test_cpp_adapter_sends_the_position_and_ten_times_its_budget_to_a_fresh_process_each_search(
    tmp_path: Path, cpp_fake: Path, adapters: list[Adapter]
) -> None:
    log = tmp_path / "received.txt"
    adapter = Adapter("cpp-santorini", cpp_args(cpp_fake), {"FAKE_CPP_LOG": str(log)})
    adapters.append(adapter)
    go = "go p1time 40000 p2time 40000"  # a budget whose quarter outlasts a fresh process's start on a loaded machine
    turn, _ = adapter.best(SAMPLE, go)
    assert Position.from_sps(SAMPLE).play(turn)
    turn2, _ = adapter.best(WIN_IN_ONE, go)
    assert turn2 == "b2-c3"  # the stand-in names b2 as the build of its winning climb
    assert adapter.close() == 0
    received = [line.split(" ", 1) for line in log.read_text().splitlines()]
    positions = [(pid, text) for pid, text in received if text.startswith("position ")]
    assert positions[0][1] == "position " + cpp_position(Position.from_sps(SAMPLE))
    assert len({pid for pid, _ in positions}) == 2  # one process per search
    clocks = [re.fullmatch(r"go gtime (\d+) btime (\d+)", text) for _, text in received if text.startswith("go")]
    for m in clocks:
        assert m is not None and m[1] == m[2] and int(m[1]) % 10 == 0 and 0 < int(m[1]) <= 10 * 40000 // 20


def test_when_no_fresh_process_is_ready_in_time_the_previous_one_searches_again(
    tmp_path: Path, cpp_fake: Path, adapters: list[Adapter]
) -> None:
    log = tmp_path / "received.txt"
    adapter = Adapter("cpp-santorini", cpp_args(cpp_fake), {"FAKE_CPP_LOG": str(log), "FAKE_CPP_START_DELAY": "3"})
    adapters.append(adapter)  # two processes started ahead, both ready once newgame is answered
    notes = [adapter.best(SAMPLE)[1] for _ in range(3)]  # the third process started with the first search
    assert adapter.close() == 0
    pids = [line.split()[0] for line in log.read_text().splitlines() if " position " in line]
    assert len(set(pids)) == 2 and pids[1] == pids[2], pids
    assert not any("previous one" in line for line in notes[0] + notes[1])
    assert any("no fresh process ready in time: the previous one searches again" in line for line in notes[2])


def test_cpp_adapter_resigns_on_an_empty_bestmove_and_sends_illegal_or_garbage_answers_unrepaired(
    tmp_path: Path, cpp_fake: Path, adapters: list[Adapter]
) -> None:
    adapter = Adapter("cpp-santorini", cpp_args(cpp_fake), script(tmp_path, "empty", "illegal", "garbage", "second"))
    adapters.append(adapter)
    turn, before = adapter.best(SAMPLE)
    assert turn == "resign" and any("empty bestmove" in line for line in before)
    turn, before = adapter.best(SAMPLE)  # d4 is the first worker in the engine's order? its own pick: d4 or e5
    assert turn in ("d4-a1+d4", "e5-a1+e5") and any("not legal here" in line for line in before)
    turn, before = adapter.best(SAMPLE)
    assert turn == "zz9" and any("'zz9'" in line for line in before)
    turn, _ = adapter.best(SAMPLE)
    assert turn == Position.from_sps(SAMPLE).legal_turns()[1]  # the engine's second move, as chosen
    assert adapter.close() == 0


def test_a_crashing_engine_ends_the_adapter_so_the_referee_sees_a_crash(
    tmp_path: Path, cpp_fake: Path, adapters: list[Adapter]
) -> None:
    adapter = Adapter("cpp-santorini", cpp_args(cpp_fake), script(tmp_path, "crash"))
    adapters.append(adapter)
    adapter.send(f"position sps {SAMPLE}", "go p1time 5000 p2time 5000")
    with pytest.raises(EOFError):
        adapter.until("bestmove")
    assert adapter.proc.wait(timeout=10) == 1
    assert adapter.proc.stderr is not None and "exited" in adapter.proc.stderr.read()


def test_the_referee_rules_a_foreign_illegal_turn_illegal_with_the_turn_in_the_detail(
    tmp_path: Path, cpp_fake: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CPP_SCRIPT", str(tmp_path / "script.txt"))
    (tmp_path / "script.txt").write_text("illegal\n" * 4)
    out = tmp_path / "games.sgn"
    engine = spec("cpp-santorini", cpp_args(cpp_fake), "cpp")
    result = CliRunner().invoke(main, ["match", engine, "random", "-n", "1", "--tc", "10+0.1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert '[Termination "illegal"]' in text
    detail = re.search(r'\[TerminationDetail "(.*)"\]', text)
    assert detail is not None and re.match(r"'([a-e][1-5])-(a1|e5)\+\1': \2 is not next to \1", detail[1]), detail[1]


# --- the AlphaZero engine through its stand-in checkout ----------------------------------------


def test_az_adapter_sends_the_movers_board_and_a_simulation_count_and_plays_the_decoded_action(
    tmp_path: Path, adapters: list[Adapter], own_weights: str
) -> None:
    log = tmp_path / "boards.jsonl"
    adapter = Adapter("alphazero", [*az_args(weights=own_weights), "--sims", "37"], {"FAKE_AZ_LOG": str(log)})
    adapters.append(adapter)
    turn, _ = adapter.best(WIN_IN_ONE, "go depth 3")
    assert turn == "b2-c3"
    turn, _ = adapter.best(SAMPLE, "go nodes 5")
    assert Position.from_sps(SAMPLE).play(turn)
    assert adapter.close() == 0
    searches = [json.loads(line) for line in log.read_text().splitlines()]
    assert searches[-2]["board"] == az_state(Position.from_sps(WIN_IN_ONE), 11)  # after the warm-up search
    assert [s["sims"] for s in searches[-2:]] == [37, 5]


def test_az_adapter_sends_invalid_and_power_actions_unrepaired(tmp_path: Path, adapters: list[Adapter], own_weights: str) -> None:
    behaviours = script(tmp_path, "first", "invalid", "power")  # the warm-up search takes "first"
    adapter = Adapter("alphazero", az_args(weights=own_weights), behaviours)
    adapters.append(adapter)
    turn, before = adapter.best(SAMPLE)
    assert not Position.from_sps(SAMPLE).legal_turns().count(turn) and any("not legal here" in line for line in before)
    turn, _ = adapter.best(SAMPLE)
    assert turn == "az:0/1/0/0"
    assert adapter.close() == 0


def test_a_second_az_adapter_finds_the_engine_warm_and_a_dead_engine_is_a_crash(
    tmp_path: Path, adapters: list[Adapter], own_weights: str
) -> None:
    log = tmp_path / "boards.jsonl"
    env = {"FAKE_AZ_LOG": str(log), **script(tmp_path, "first", "first", "first", "crash")}
    args = az_args(weights=own_weights)
    for _ in range(2):  # the referee restarts an adapter after a fault: the engine server is still up
        adapter = Adapter("alphazero", args, env)
        adapters.append(adapter)
        assert adapter.best(SAMPLE)[0] in Position.from_sps(SAMPLE).legal_turns()
        assert adapter.close() == 0
    assert [json.loads(line)["sims"] for line in log.read_text().splitlines()].count(4) == 1  # one warm-up
    adapter = Adapter("alphazero", args, env)
    adapters.append(adapter)
    adapter.send(f"position sps {SAMPLE}", "go p1time 5000 p2time 5000")
    with pytest.raises(EOFError):
        adapter.until("bestmove")
    assert adapter.proc.wait(timeout=10) == 1
    assert adapter.proc.stderr is not None and "closed the connection" in adapter.proc.stderr.read()


def test_az_adapter_resigns_where_the_engines_game_model_says_the_game_is_over(adapters: list[Adapter], own_weights: str) -> None:
    # Apollo swapped the mortal's worker onto level 3 (c3): forced is not moved, the game goes on
    # in our rules; the engine's win test is "a worker on level 3", so it cannot search this.
    forced = "apollo/mortal;00000/00000/00300/00000/00000;b2,d4/c3,e5;1;6"
    adapter = Adapter("alphazero", az_args(weights=own_weights), {})
    adapters.append(adapter)
    adapter.send("newgame gods apollo/mortal", "isready")
    adapter.until("readyok")
    turn, before = adapter.best(forced)
    assert turn == "resign" and any("calls this position finished" in line for line in before)
    assert adapter.close() == 0


def test_az_adapter_refuses_missing_or_unreadable_weights_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["adapter", "alphazero", *az_args(weights=str(tmp_path / "none.pt"))])
    assert result.exit_code == 1 and "no weights file" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    proc = subprocess.run(
        [*adapter_argv("alphazero"), *az_args(weights=str(bad))],
        input="sei 1\nnewgame gods mortal/mortal\nisready\nposition sps " + SAMPLE + "\ngo p1time 9000 p2time 9000\n",
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1 and "could not load the weights" in proc.stderr
    for suffix in (".log", ".lock"):
        socket_path(sys.executable, str(AZ_FAKE), str(bad)).with_suffix(suffix).unlink()


# --- whole games and santorini check, with the stand-ins and (when built) the real engines -----


def _engines() -> list[object]:
    cpp = os.environ.get("SANTORINI_CPP_BINARY")
    az_checkout, az_python = os.environ.get("SANTORINI_AZ_CHECKOUT"), os.environ.get("SANTORINI_AZ_PYTHON")
    return [
        pytest.param("cpp-santorini", None, id="cpp-fake"),
        pytest.param("alphazero", az_args(), id="az-fake"),
        pytest.param(
            "cpp-santorini", cpp_args(cpp or ""), id="cpp-real",
            marks=pytest.mark.skipif(not cpp, reason="SANTORINI_CPP_BINARY not set (cpp-santorini not built)"),
        ),
        pytest.param(
            "alphazero", [*az_args(az_checkout or ".", az_python or ""), "--sims", "50"], id="az-real",
            marks=pytest.mark.skipif(
                not (az_checkout and az_python), reason="SANTORINI_AZ_CHECKOUT/SANTORINI_AZ_PYTHON not set"
            ),
        ),
    ]  # fmt: skip


def warm(name: str, args: list[str]) -> None:
    """Start the AlphaZero engine outside the referee, as docs/external-engines.md says to."""
    if name == "alphazero":
        subprocess.run([*adapter_argv(name), *args, "--warm"], check=True, capture_output=True, timeout=600)


@pytest.mark.parametrize(("name", "args"), _engines())
def test_each_adapter_passes_santorini_check(name: str, args: list[str] | None, cpp_fake: Path) -> None:
    warm(name, args or [])
    result = CliRunner().invoke(main, ["check", spec(name, args or cpp_args(cpp_fake), name), "--timeout", "60"])
    assert result.exit_code == 0, result.output
    assert "0 failed" in result.output


@pytest.mark.parametrize(("name", "args"), _engines())
def test_each_adapter_plays_whole_games_with_no_fault_of_its_own(
    name: str, args: list[str] | None, cpp_fake: Path, tmp_path: Path
) -> None:
    warm(name, args or [])
    out = tmp_path / "games.sgn"
    engine = spec(name, args or cpp_args(cpp_fake), "adapted")
    result = CliRunner().invoke(main, ["match", engine, "greedy", "-n", "2", "--tc", "10+0.1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    terminations = re.findall(r'\[Termination "(.*)"\]', out.read_text())
    assert len(terminations) == 2 and set(terminations) <= {"climb", "no-moves"}, out.read_text()
