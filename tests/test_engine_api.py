"""The public engine API (``santorini_server.engine``) against real engine processes."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import trio

from santorini_server.engine import (
    AnalysisInfo,
    EngineError,
    EngineTerminated,
    Limit,
    Score,
    SimpleEngine,
    popen,
)
from santorini_server.rules import Position

PY = sys.executable
PLACED = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;2;1"


def gallery(module: str, *args: str) -> str:
    return f"cmd={PY} arg=-m arg=tests.gallery.{module} " + " ".join(f"arg={a}" for a in args) + f" name={module}"


def script_engine(tmp_path: Path, on_go: str) -> str:
    """An engine that handshakes, then runs ``on_go`` (Python) at its first ``go``."""
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(f"""
        import sys
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "sei":
                print("id name scripted\\nseiok 1", flush=True)
            elif words[0] == "isready":
                print("readyok", flush=True)
            elif words[0] == "go":
                {on_go}
            elif words[0] == "quit":
                break
    """))
    return f"cmd={PY} arg={path} name=scripted"


def test_simple_engine_plays_a_legal_turn_at_the_depth_asked() -> None:
    with SimpleEngine.popen("alphabeta") as engine:
        assert engine.id.name == "AlphaBeta"
        result = engine.play(PLACED, Limit(depth=2))
        assert result.turn in Position.from_sps(PLACED).legal_turns()
        assert result.info is not None and result.info.depth == 2
        assert result.info.score is not None and result.info.pv[0] == result.turn
        # the same engine goes on: a position after turns, and the start position
        after = engine.play(PLACED, Limit(depth=1), moves=[result.turn])
        assert after.turn in Position.from_sps(PLACED).play(result.turn).position.legal_turns()
        assert engine.play("startpos", Limit(nodes=50)).turn is not None


def test_analyse_gives_a_score_and_pv_and_ranks_every_turn_with_multipv() -> None:
    with SimpleEngine.popen("alphabeta") as engine:
        [info] = engine.analyse(PLACED, Limit(depth=2))
        assert info.score is not None and info.depth == 2 and info.pv
        lines = engine.analyse(PLACED, Limit(depth=2), multipv=3)
        assert [line.multipv for line in lines] == [1, 2, 3]
        legal = Position.from_sps(PLACED).legal_turns()
        assert len({line.pv[0] for line in lines}) == 3 and all(line.pv[0] in legal for line in lines)
        ranks = [line.score.rank() for line in lines if line.score is not None]
        assert ranks == sorted(ranks, reverse=True) and len(ranks) == 3


def test_a_winning_turn_is_scored_as_a_win_in_multipv() -> None:
    # player 1's worker on level 2 next to a level-3 tower: climbing wins
    sps = "mortal/mortal;23000/00000/00000/00000/00000;a5,e1/c1,e3;1;5"
    with SimpleEngine.popen("greedy") as engine:
        lines = engine.analyse(sps, Limit(depth=1), multipv=2)
        assert lines[0].score == Score(win=1) and lines[0].pv[0].startswith("a5-b5")


def test_analysis_streams_info_until_stopped_and_then_the_engine_plays_on() -> None:
    with SimpleEngine.popen("alphabeta") as engine:
        seen: list[AnalysisInfo] = []
        with engine.analysis(PLACED) as stream:  # no limit: go infinite
            for info in stream:
                seen.append(info)
                if info.depth is not None and info.depth >= 2:
                    stream.stop()
        assert [i.depth for i in seen][:2] == [1, 2]
        assert stream.result is not None and stream.result.turn is not None
        assert engine.play(PLACED, Limit(depth=1)).turn is not None


async def test_async_api_plays_and_streams() -> None:
    async with popen("alphabeta") as engine:
        result = await engine.play(PLACED, Limit(depth=2))
        assert result.turn is not None
        async with engine.analysis(PLACED, Limit(depth=3)) as stream:
            depths = [info.depth async for info in stream]
        assert depths[-1] == 3
        assert stream.result is not None and stream.result.info is not None and stream.result.info.depth == 3
        await engine.quit()
        with pytest.raises(EngineTerminated):
            await engine.play(PLACED, Limit(depth=1))


def test_configure_sets_announced_options_and_refuses_others() -> None:
    with SimpleEngine.popen("alphabeta") as engine:
        engine.configure({"Hash": 64})
        engine.ping()
        with pytest.raises(ValueError, match="has no option 'Nope'"):
            engine.configure({"Nope": 1})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((PLACED, Limit()), "play needs a limit"),
        (("startpos", Limit(depth=0)), "depth must be a whole number >= 1"),
        (("startpos", Limit(depth=1)), "malformed turn 'zz'"),
        (("mortal/mortal;00003/00000/00000/00000/00000;b3,d3/c2", Limit(depth=1)), "SPS"),
    ],
)
def test_bad_positions_and_limits_are_one_line_value_errors_before_anything_is_sent(
    args: tuple[str, Limit], message: str
) -> None:
    with SimpleEngine.popen("random") as engine:
        moves = ["zz"] if "zz" in message else []
        with pytest.raises(ValueError) as caught:
            engine.play(*args, moves=moves)
        assert message in str(caught.value) and "\n" not in str(caught.value)
        assert engine.play(PLACED, Limit(depth=1)).turn is not None  # still usable


def test_a_finished_game_is_refused() -> None:
    won = "mortal/mortal;23000/00000/00000/00000/00000;a5,e1/c1,e3;1;5"
    with SimpleEngine.popen("random") as engine, pytest.raises(ValueError, match="the game is over"):
        engine.play(won, Limit(depth=1), moves=["a5-b5"])


def test_a_crash_carries_the_stderr_tail_and_what_arrived(tmp_path: Path) -> None:
    spec = script_engine(tmp_path, 'print("info string thinking hard", flush=True); '
                                   'sys.stderr.write("segfault in search\\n"); sys.exit(3)')
    with SimpleEngine.popen(spec) as engine:
        with pytest.raises(EngineError) as caught:
            engine.play(PLACED, Limit(depth=1))
        err = caught.value
        assert err.kind == "crash" and "exit code 3" in err.detail
        assert "segfault in search" in err.stderr_tail
        assert "info string thinking hard" in err.arrived
        with pytest.raises(EngineTerminated):
            engine.play(PLACED, Limit(depth=1))


def test_an_engine_past_its_timeout_is_stopped_and_reported() -> None:
    with SimpleEngine.popen(gallery("faulty")) as engine:
        with pytest.raises(EngineError) as caught:
            engine.play(PLACED, Limit(clocks=(1000.0, 1000.0)), timeout=0.2)
        assert caught.value.kind == "time"
        assert engine.play(PLACED, Limit(time=0.01)).turn is not None  # it answered the stop: reusable


def test_start_failures_and_bad_specs() -> None:
    with pytest.raises(EngineError) as caught:
        SimpleEngine.popen("cmd=/nonexistent/engine")
    assert caught.value.kind == "crash" and "/nonexistent/engine" in caught.value.detail
    with pytest.raises(ValueError, match="unknown key"):
        SimpleEngine.popen("cmd=x nmae=y")


async def test_multipv_needs_the_next_mover_on_the_other_side() -> None:
    sps = Position.start(("apollo", "minotaur", "pan")).sps()
    async with popen("greedy") as engine:
        with pytest.raises(ValueError, match="multipv above 1"):
            await engine.analyse(sps, Limit(depth=1), multipv=2)
        with trio.fail_after(30):
            [info] = await engine.analyse(sps, Limit(depth=1))
        assert info.pv


def test_limit_becomes_go() -> None:
    assert str(Limit(time=0.1).go()) is not None
    go = Limit(clocks=(60.0, 30.5), incs=(1.0, 1.0), depth=4).go()
    assert (go.p1time, go.p2time, go.p1inc, go.depth, go.movetime) == (60000, 30500, 1000, 4, None)
    assert Limit().go().infinite and Limit().infinite


def test_turns_checked_for_the_last_call_are_not_trusted_blindly() -> None:
    with SimpleEngine.popen("random") as engine:
        first = engine.play("startpos", Limit(depth=1))
        assert first.turn is not None
        second = engine.play("startpos", Limit(depth=1), moves=[first.turn])
        assert second.turn is not None
        with pytest.raises(ValueError, match="illegal turn"):
            engine.play("startpos", Limit(depth=1), moves=[first.turn, first.turn])  # a placement twice
        with pytest.raises(ValueError, match="malformed turn"):
            engine.play("startpos", Limit(depth=1), moves=["x", second.turn])  # a different first turn
        assert engine.play("startpos", Limit(depth=1), moves=[first.turn, second.turn]).turn is not None


def test_a_simple_engine_serves_calls_from_several_threads_one_at_a_time() -> None:
    legal = set(Position.from_sps(PLACED).legal_turns())
    found: list[str | None] = []
    with SimpleEngine.popen("greedy") as engine:

        def work() -> None:
            for _ in range(10):
                found.append(engine.play(PLACED, Limit(depth=1)).turn)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(found) == 30 and set(found) <= legal


def test_ctrl_c_during_a_search_ends_the_script_and_its_engine_at_once(tmp_path: Path) -> None:
    script = tmp_path / "long.py"
    script.write_text(textwrap.dedent("""
        from santorini_server.engine import Limit, SimpleEngine
        with SimpleEngine.popen("alphabeta") as engine:
            print(engine.id.name, flush=True)
            engine.play("startpos", Limit(depth=30))
    """))
    proc = subprocess.Popen([PY, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "AlphaBeta"
    time.sleep(0.3)  # the search is under way
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)  # a depth-30 search would take hours
    assert "KeyboardInterrupt" in stderr and proc.returncode != 0


async def test_commands_during_a_running_analysis_are_refused_without_breaking_the_engine() -> None:
    async with popen("alphabeta") as engine:
        async with engine.analysis(PLACED) as stream:
            with pytest.raises(ValueError, match="busy"):
                await engine.play(PLACED, Limit(depth=1))
            with pytest.raises(ValueError, match="busy"):
                await engine.configure({"Hash": 64})
            await stream.stop()
        assert (await engine.play(PLACED, Limit(depth=1))).turn is not None
