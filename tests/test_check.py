"""``santorini check``: real engine processes, compliant and broken (tests/gallery/faulty.py).

Each broken engine has one fault and must fail exactly the check that names it, and nothing else:
that is what makes the report useful to a bot author.  Broken engines are checked with one god
(athena, so ``athena-up`` runs too) to keep the file fast.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from santorini_server.check import (
    CHECKS,
    CROSS_SPS,
    PLAN,
    Check,
    ComplianceReport,
    ComplianceStartError,
    GodChecks,
    info_problem,
    run_compliance,
)
from santorini_server.check.judge import judge
from santorini_server.check.session import Answer
from santorini_server.cli import main
from santorini_server.referee.engine_spec import EngineSpec, parse_engine_spec
from santorini_server.rules import GODS, Position
from santorini_server.sei import BestMove, Go, Info, Resign, SeiConnection

GALLERY = Path(__file__).parent / "gallery"
SPEC_DOC = Path(__file__).parent.parent / "SPEC.md"


def check_section() -> str:
    """The compliance-test section of SPEC.md (up to the next top-level section)."""
    text = SPEC_DOC.read_text()
    start = text.index("## 7. `santorini check`")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def faulty(*faults: str) -> EngineSpec:
    return EngineSpec(name="faulty", argv=(sys.executable, str(GALLERY / "faulty.py"), *faults))


def failed(report: ComplianceReport) -> set[str]:
    return {r.name for r in report.results if r.failed}


def describe(report: ComplianceReport) -> str:
    return "\n".join(f"{r.status} {r.name}: {r.reason}" for r in report.results if r.status != "pass")


async def test_compliant_engine_passes_all_54_checks_with_every_god_and_every_seat_count() -> None:
    report = await run_compliance(faulty(), timeout=5)
    assert report.ok and report.warnings == 0 and report.skipped == 0, describe(report)
    names = [r.name for r in report.results]
    gods = [f"god-{g}" for g in GODS[1:]]
    at = CHECKS.index("god-<god>")
    assert names == [*CHECKS[:at], *gods, *CHECKS[at + 1 :]]
    assert len(names) == 54 and report.restarts == 0
    assert report.result("handshake").reason.startswith("seiok 1 in ")
    assert report.result("win-in-one").reason == "found the win b2-c3"


@pytest.mark.parametrize("name", ["random", "greedy", "alphabeta"])
async def test_bundled_engines_pass(name: str) -> None:
    report = await run_compliance(parse_engine_spec(name), timeout=5)
    assert report.ok and report.restarts == 0, describe(report)
    assert len(report.results) == 54  # they claim all ten gods
    if name != "random":  # random finds the win one time in 24
        assert report.result("win-in-one").status == "pass"


BROKEN = [
    # fault, the checks it must fail (and no others)
    ("late-ready", {"isready-searching"}),
    ("double-bestmove", {"single-bestmove"}),
    ("no-stop", {"stop"}),
    ("ignore-quit", {"quit"}),
    ("p1-clock", {"clock-p2", "clock-p3", "clock-p4"}),
    ("early-infinite", {"infinite"}),
    ("crash-infinite", {"infinite"}),
    ("ignore-moves", {
        "placement-2", "position-moves", "sps-moves", "god-athena", "eliminated-moves", "athena-3", "athena-4",
        "clock-p2", "info",
    }),
]


@pytest.mark.parametrize(("fault", "expected"), BROKEN, ids=[b[0] for b in BROKEN])
async def test_broken_engine_fails_the_check_that_names_its_fault(fault: str, expected: set[str]) -> None:
    report = await run_compliance(faulty(fault), gods=["athena"], timeout=3)
    assert failed(report) == expected, describe(report)
    assert not any(r.dead for r in report.results)
    # the rest of the run still happened: the exit checks come last
    assert report.results[-1].name == "eof"


async def test_messages_name_what_went_wrong() -> None:
    spec = faulty("late-ready", "double-bestmove", "bad-info", "bad-gods", "no-error")
    report = await run_compliance(spec, gods=[], timeout=3)
    expected = {"isready-searching", "single-bestmove", "info", "gods", "unsupported-god"}
    assert failed(report) == expected, describe(report)
    assert "no readyok within 1000 ms during a search" in report.result("isready-searching").reason
    assert report.result("single-bestmove").reason.startswith(
        "after the bestmove for stop: protocol violation: engine sent BestMove in state IDLE: 'bestmove "
    )
    assert "depth needs an unsigned integer, got 'x'" in report.result("info").reason
    assert "unknown god 'zeus'" in report.result("gods").reason
    assert "zeus/mortal was not answered with 'error" in report.result("unsupported-god").reason
    assert report.restarts == 1  # after the second bestmove the connection is unusable


async def test_rules_queries_left_unanswered_or_refused_fail_with_the_position() -> None:
    report = await run_compliance(faulty("mute-legalmoves", "error-perft"), gods=[], timeout=1)
    assert {"legalmoves", "perft"} <= failed(report), describe(report)
    assert report.result("legalmoves").reason == f"no reply to legalmoves within 1 s ({CROSS_SPS})"
    assert report.result("perft").reason == f"engine sent error 'perft is not implemented' to perft 1 ({CROSS_SPS})"


async def test_illegal_answers_fail_every_turn_check() -> None:
    report = await run_compliance(faulty("illegal"), gods=["athena"], timeout=3)
    turn_checks = {
        "placement", "placement-2", "cross", "midgame", "win-in-one", "position-moves", "sps-moves",
        "athena-up", "god-athena", "eliminated-sps", "eliminated-moves", "athena-3", "clock-p3", "teammate-4", "athena-4",
        "clock-p4", "clock", "clock-p2", "movetime", "depth", "nodes", "stop",
    }
    assert failed(report) == turn_checks | {"info"}, describe(report)
    assert report.result("cross").reason == (
        f"bestmove rejected: illegal turn 'a1-a1+a1' in {CROSS_SPS}: a1 has no worker of yours: yours are on b3 and d3"
    )


async def test_engine_that_keeps_crashing_is_declared_dead_and_the_rest_counts_as_failed() -> None:
    spec = EngineSpec(name="instant", argv=(sys.executable, str(GALLERY / "instant.py"), "crash=1"))
    report = await run_compliance(spec, gods=[], timeout=3)
    assert report.result("placement").reason == "the engine closed its output (exit code 3)"
    assert report.restarts == 3
    dead = [r for r in report.results if r.dead]
    assert dead and dead[-1].name == "eof" and all(r.status == "skip" and r.failed for r in dead)
    assert "gave up after 3 restarts" in dead[0].reason
    assert report.failed == len(dead) + 5  # unsupported-god, and placement..midgame crashed


async def test_no_handshake_means_dead_from_the_start() -> None:
    spec = EngineSpec(name="mute", argv=(sys.executable, str(GALLERY / "mute.py")))
    report = await run_compliance(spec, timeout=0.5)
    assert report.result("handshake").reason == (
        "no seiok within 0.5 s: no output at all: does the engine flush stdout after each line?"
    )
    assert report.passed == 0 and report.failed == len(report.results)
    assert all(r.dead for r in report.results[1:])


async def test_a_missing_program_is_a_start_error() -> None:
    with pytest.raises(ComplianceStartError, match="could not start nope"):
        await run_compliance(EngineSpec(name="nope", argv=("/nonexistent/engine",)))


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("info depth 3 seldepth 5 time 10 nodes 99 nps 9900 score cp -12 wdl 400 200 400 pv b3-b4+c5", None),
        ("info score win -2 multipv 1 hashfull 3 string anything goes: depth x", None),
        ("info depth x", "depth needs an unsigned integer, got 'x'"),
        ("info score mate 3", "score must be 'cp <x>' or 'win <n>', got 'mate'"),
        ("info wdl 1 2", "wdl needs three unsigned integers, got '1 2'"),
        ("info pv b3-b4+c5 b3-b4+c5", "pv turn 2 'b3-b4+c5' is illegal"),
    ],
)
def test_info_lines_are_checked_field_by_field(line: str, problem: str | None) -> None:
    conn = SeiConnection(strict_info=True)  # the codec's one info reader, read strictly
    conn.receive_data(line.encode() + b"\n")
    info = conn.next_event()
    assert isinstance(info, Info)
    found = info_problem(info, Position.from_sps("mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"))
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(problem)


def test_the_plan_is_data_whose_requirements_come_earlier() -> None:
    """Checks say what they need (``requires=``) instead of the runner steering by their names:
    every requirement is an earlier check of the plan, and a skip for an unmet one says why."""
    seen: set[str] = set()
    for step in PLAN:
        assert set(step.requires) <= seen, (step.name, step.requires)
        if isinstance(step, Check) and step.requires:
            assert step.unmet
        seen.add(step.name)
    assert [s.name for s in PLAN if isinstance(s, Check) and s.vital] == ["handshake"]
    assert [s.name for s in PLAN if isinstance(s, GodChecks)] == ["god-<god>"]


def test_the_spec_section_lists_every_check() -> None:
    documented = re.findall(r"^\| `([a-z0-9<>-]+)` \|", check_section(), re.M)
    assert documented == list(CHECKS)


# --- CLI -----------------------------------------------------------------------------------------

def test_cli_passing_engine_exits_0_with_one_line_per_check() -> None:
    spec = f"cmd={sys.executable} arg={GALLERY / 'faulty.py'}"
    result = CliRunner().invoke(main, ["check", spec, "--gods", "pan", "--timeout", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.fullmatch(r"PASS handshake: seiok 1 in \d+ ms", lines[1])
    assert "PASS god-pan: 4 legal turns: " in result.output
    assert "SKIP athena-up: athena not selected (--gods)" in result.output
    assert lines[-1] == "44 passed, 0 failed, 0 warnings, 1 not applicable"


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("uppercase-seiok", "got 'SEIOK 1': keywords are lowercase"),
        ("unflushed", "no output at all: does the engine flush stdout after each line?"),
    ],
)
def test_cli_failed_handshake_says_what_arrived(fault: str, reason: str) -> None:
    spec = f"cmd={sys.executable} arg={GALLERY / 'hostile_engine.py'} arg=fault={fault}"
    result = CliRunner().invoke(main, ["check", spec, "--timeout", "2.5"])  # slack for a loaded machine
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[1] == f"FAIL handshake: no seiok within 2.5 s: {reason}"


def test_cli_failing_engine_exits_1_and_verbose_shows_the_exchange() -> None:
    spec = f"cmd={sys.executable} arg={GALLERY / 'faulty.py'} arg=crash-infinite"
    result = CliRunner().invoke(main, ["check", spec, "--gods", "athena", "--timeout", "3", "--verbose"])
    assert result.exit_code == 1, result.output
    assert "FAIL infinite: the engine closed its output (exit code 3)" in result.output
    assert "SKIP stop: no search running (see infinite)" in result.output
    assert re.search(r"^ +\d+  >> go infinite$", result.output, re.M)
    assert result.output.splitlines()[-1] == (
        "41 passed, 1 failed, 0 warnings, 3 not applicable; the engine was restarted 1 time"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cmd=/nonexistent/engine", "Error: could not start engine: cannot execute '/nonexistent/engine'"),
        ("cmd=./x bogus", "Error: Invalid value for 'ENGINE': bad engine spec token 'bogus'"),
        ("cmd=", "Error: Invalid value for 'ENGINE': bad engine spec token 'cmd=': the program is empty"),
    ],
)
def test_cli_bad_engine_is_one_line_without_traceback(spec: str, message: str) -> None:
    result = CliRunner().invoke(main, ["check", spec])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, (TypeError, AttributeError))


def test_cli_rejects_unknown_gods() -> None:
    result = CliRunner().invoke(main, ["check", "random", "--gods", "apollo,zeus"])
    assert result.exit_code == 2 and "unknown god 'zeus'" in result.output


# --- one turn, ruled by the game adjudicator ------------------------------------------------------


def _answer(turn: str | None, elapsed: float, *, resign: bool = False) -> Answer:
    move = Resign() if resign else (BestMove(turn=turn) if turn is not None else None)
    return Answer(move, elapsed, [], 1.5)


CLOCKED = Go(p1time=1000, p2time=1000, p1inc=10, p2inc=10)


@pytest.mark.parametrize(
    ("answer", "go", "status", "reason"),
    [
        (_answer("b3-b4+c5", 0.05), CLOCKED, "pass", "bestmove b3-b4+c5 in 50 ms"),
        (_answer("b3xb4+c5", 0.05), CLOCKED, "pass", "bestmove b3xb4+c5 (accepted spelling of b3-b4+c5) in 50 ms"),
        # the referee's grace (the seat's margin): 1050 ms on a 1000 ms clock is no loss, 1150 is
        (_answer("b3-b4+c5", 1.05), CLOCKED, "pass", "bestmove b3-b4+c5 in 1050 ms"),
        (_answer("b3-b4+c5", 1.15), CLOCKED, "fail", "bestmove after 1150 ms with 1000 ms on its clock (time loss)"),
        (_answer("b3-b4+c5", 0.35), Go(movetime=200), "fail",
         "bestmove after 350 ms over movetime 200 + 100 ms grace (time loss)"),
        (_answer("b3-b4+c5", 0.25), Go(movetime=200), "pass", "bestmove b3-b4+c5 in 250 ms"),
        (_answer(None, 0.1, resign=True), CLOCKED, "fail", "resigned in a position with 68 legal turns"),
        (_answer("zz", 0.05), CLOCKED, "fail", "bestmove rejected: malformed turn 'zz': not STN (e.g. b3,d3 or b3-b4+c5)"),
        (_answer("B3-B4+C5", 0.05), CLOCKED, "fail",
         "bestmove rejected: malformed turn 'B3-B4+C5': squares are lowercase (b3-b4+c5 is legal here)"),
        (_answer("a1-a2+a3", 0.05), CLOCKED, "fail",
         f"bestmove rejected: illegal turn 'a1-a2+a3' in {CROSS_SPS}: a1 has no worker of yours: yours are on b3 and d3"),
        (_answer("b3-b4", 0.05), CLOCKED, "fail",
         f"bestmove rejected: illegal turn 'b3-b4' in {CROSS_SPS}: after moving, build next to b4 (e.g. b3-b4+b3)"),
        # a time loss is ruled before the turn is looked at, as in a game
        (_answer("zz", 1.2), CLOCKED, "fail", "bestmove after 1200 ms with 1000 ms on its clock (time loss)"),
        (_answer(None, 1.5), CLOCKED, "fail", "no bestmove within 1500 ms (1000 ms on its clock)"),
    ],
)
def test_a_checked_turn_is_ruled_by_the_adjudicator(answer: Answer, go: Go, status: str, reason: str) -> None:
    pos = Position.from_sps(CROSS_SPS)
    (got_status, got_reason), stn = judge(pos, answer, go)
    assert (got_status, got_reason) == (status, reason)
    assert (stn is not None) == (status == "pass")


def test_a_winning_turn_passes_the_check() -> None:
    pos = Position.from_sps("mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;2")
    verdict, stn = judge(pos, _answer("b2-c3", 0.01), CLOCKED)
    assert (verdict, stn) == (("pass", "bestmove b2-c3 in 10 ms"), "b2-c3")


def test_ctrl_c_stops_the_check_with_one_line_and_no_engine_left(tmp_path: Path) -> None:
    """SIGINT mid-run: exit 130, one line, no traceback (trio hands the KeyboardInterrupt back
    wrapped in an exception group from the run's nursery), and the engine process is gone."""
    marker = f"hang-{os.getpid()}-{time.monotonic_ns()}"
    engine = f"cmd={sys.executable} arg={GALLERY / 'hang.py'} arg={marker} name=hang"
    child = subprocess.Popen(
        [sys.executable, "-m", "santorini_server.cli", "check", engine, "--gods", "mortal"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    try:
        out = b""
        deadline = time.monotonic() + 30
        while b"placement" not in out and time.monotonic() < deadline:  # the hang engine is thinking
            ready, _, _ = select.select([child.stdout], [], [], 0.1)
            if ready:
                out += os.read(child.stdout.fileno(), 4096)  # type: ignore[union-attr]
        assert b"newgame" in out, out
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert err.decode().strip().splitlines() == ["interrupted: engine stopped"]
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    assert left.stdout == ""


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_cli_refuses_a_timeout_that_is_not_a_finite_number(value: str) -> None:
    result = CliRunner().invoke(main, ["check", "greedy", "--timeout", value])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "Error: Invalid value for '--timeout': " in result.output
