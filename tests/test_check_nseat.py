"""``santorini check`` for three and four seats: the positions have the properties the checks rely
on (rules core), and real engine processes that play N seats right pass while those that play them
wrong fail the check naming the fault, with the position and the reason in one line.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from santorini_server.check import CHECKS, ComplianceReport, run_compliance
from santorini_server.check.judge import TURN_GO_3, after, judge
from santorini_server.check.seats import (
    ATHENA_3_SPS,
    ATHENA_4_SPS,
    CLOCK_P3_SPS,
    CLOCK_P4_SPS,
    ELIMINATED_MOVES,
    ELIMINATED_SPS,
    GODS_3,
    GODS_4,
    SEAT_CHECKS,
    TEAMMATE_SPS,
)
from santorini_server.check.session import Answer
from santorini_server.referee.engine_spec import EngineSpec
from santorini_server.rules import Position
from santorini_server.sei import BestMove

GALLERY = Path(__file__).parent / "gallery"
SEAT_NAMES = [name for name, _ in SEAT_CHECKS]
TURN_CHECKS_3 = {"eliminated-sps", "eliminated-moves", "athena-3", "clock-p3"}
TURN_CHECKS_4 = {"teammate-4", "athena-4", "clock-p4"}


def faulty(*faults: str) -> EngineSpec:
    return EngineSpec(name="faulty", argv=(sys.executable, str(GALLERY / "faulty.py"), *faults))


def failed(report: ComplianceReport) -> set[str]:
    return {r.name for r in report.results if r.failed}


def climbs(pos: Position, turn: str) -> bool:
    """Whether ``turn``'s mover ends higher than it started (the board's heights, before the build)."""
    heights = pos.sps().split(";")[1].split("/")  # rows 5..1, files a..e

    def level(square: str) -> int:
        return int(heights[5 - int(square[1])]["abcde".index(square[0])])

    start, end = turn[:2], turn[3:5]
    return level(end) > level(start)


# --- the positions are what their docstrings say -------------------------------------------------

def test_eliminated_sps_has_one_turn_onto_the_gone_seats_square() -> None:
    pos = Position.from_sps(ELIMINATED_SPS)
    assert pos.gods == GODS_3 and pos.eliminated == 0b010 and pos.player == 3
    assert pos.legal_turns() == ["b1-a1+b1"]
    before = Position.from_sps(ELIMINATED_SPS.replace("/x/", "/a1,e5/").replace(";3;5", ";2;5"))
    assert before.is_lost() and before.eliminate() == pos  # case C: seat 2 had no complete turn


def test_eliminated_moves_cross_an_elimination_from_startpos() -> None:
    pos = Position.start(GODS_3)
    for turn in ELIMINATED_MOVES[:8]:
        pos = pos.play(turn).position
    assert pos.player == 3 and pos.is_lost()  # seat 3 has no complete turn after the eighth
    left = pos.eliminate()
    assert left is not None and left.player == 1
    final = after(Position.start(GODS_3), ELIMINATED_MOVES)
    assert final.player == 2 and final.eliminated == 0b100 and len(final.legal_turns()) == 60
    with pytest.raises(ValueError):  # kept in, seat 3 cannot "play" seat 1's ninth turn
        pos.play(ELIMINATED_MOVES[8])


def test_athena_3_binds_both_seats_after_her() -> None:
    pos = Position.from_sps(ATHENA_3_SPS)
    assert pos.athena_up and pos.player == 2 and pos.nseats == 3
    untagged = Position.from_sps(ATHENA_3_SPS.replace("[up]", ""))
    assert any(climbs(untagged, t) for t in untagged.legal_turns())
    for turn in pos.legal_turns():
        assert not climbs(pos, turn)
        nxt = pos.play(turn).position
        assert nxt.player == 3 and nxt.athena_up and len(nxt.legal_turns()) == 4
        assert not any(climbs(nxt, t) for t in nxt.legal_turns())
        free = Position.from_sps(nxt.sps().replace("[up]", ""))
        assert len(free.legal_turns()) == 7 and any(climbs(free, t) for t in free.legal_turns())


def test_teammate_4_has_only_turns_of_the_other_team_worker() -> None:
    pos = Position.from_sps(TEAMMATE_SPS)
    assert pos.gods == GODS_4 and pos.player == 3 and pos.teammate(2) == 0
    turns = pos.legal_turns()
    assert len(turns) == 8 and {t[:2] for t in turns} == {"a1"}  # e1 (team A's other worker) is boxed


def test_athena_4_binds_the_other_team_not_her_teammate() -> None:
    pos = Position.from_sps(ATHENA_4_SPS)
    assert pos.athena_up and pos.player == 3 and pos.gods[1] == "athena" and pos.teammate(3) == 1
    first = pos.legal_turns()
    assert len(first) == 4 and not any(climbs(pos, t) for t in first)
    for turn in first:
        nxt = pos.play(turn).position
        assert nxt.player == 4 and nxt.athena_up
        turns = nxt.legal_turns()
        assert len(turns) == 3 and all(climbs(nxt, t) for t in turns)


def test_clock_positions_have_seat_3_and_seat_4_to_move() -> None:
    p3, p4 = Position.from_sps(CLOCK_P3_SPS), Position.from_sps(CLOCK_P4_SPS)
    assert (p3.nseats, p3.player, len(p3.legal_turns())) == (3, 3, 11)
    assert (p4.nseats, p4.player, len(p4.legal_turns())) == (4, 4, 8)


def test_the_judge_rules_a_three_seat_turn_with_seat_3s_clock() -> None:
    pos = Position.from_sps(CLOCK_P3_SPS)
    turn = pos.legal_turns()[0]
    (status, _), stn = judge(pos, Answer(BestMove(turn=turn), 0.05, []), TURN_GO_3)
    assert (status, stn) == ("pass", turn)
    (status, reason), stn = judge(pos, Answer(BestMove(turn=turn), 1.2, []), TURN_GO_3)
    assert status == "fail" and stn is None and reason == "bestmove after 1200 ms with 1000 ms on its clock (time loss)"
    (status, reason), _ = judge(pos, Answer(BestMove(turn="a1-a1+a1"), 0.01, []), TURN_GO_3)
    assert status == "fail" and reason.startswith(f"bestmove rejected: illegal turn 'a1-a1+a1' in {CLOCK_P3_SPS}")


def test_the_seat_checks_come_after_the_god_checks_in_run_order() -> None:
    at = CHECKS.index("god-<god>")
    assert list(CHECKS[at + 1 : at + 1 + len(SEAT_NAMES)]) == SEAT_NAMES


# --- real engines --------------------------------------------------------------------------------

async def test_an_engine_for_two_to_four_seats_passes_every_seat_check() -> None:
    report = await run_compliance(faulty(), gods=[], timeout=5)
    for name in SEAT_NAMES:
        assert report.result(name).status == "pass", report.result(name)
    assert report.result("players").reason == "plays 2, 3, 4 seats"
    assert report.result("eliminated-sps").reason.startswith("legal: seat 3 b1-a1+b1")
    assert report.result("athena-4").reason.startswith("legal: seat 3 a1-b1+")
    assert ", seat 4 e5-d5+" in report.result("athena-4").reason


async def test_the_bot_helper_passes_every_seat_check() -> None:
    spec = EngineSpec(name="seats", argv=(sys.executable, str(GALLERY / "seats_bot.py"), "2", "3", "4"))
    report = await run_compliance(spec, gods=[], timeout=5)
    assert not failed(report) & set(SEAT_NAMES), [report.result(n) for n in SEAT_NAMES]
    assert all(report.result(n).status == "pass" for n in SEAT_NAMES)


async def test_a_two_seat_engine_gets_the_seat_checks_as_not_applicable() -> None:
    report = await run_compliance(faulty("two-seats"), gods=[], timeout=5)
    assert report.result("players").reason == "two seats only (no 'feature players' line)"
    for name in SEAT_NAMES[1:]:
        result = report.result(name)
        seats = 3 if name in TURN_CHECKS_3 | {"newgame-3"} else 4
        assert (result.status, result.reason) == ("skip", f"no 'feature players {seats}' (plays two seats only)")
    assert report.ok


def reasons(report: ComplianceReport) -> list[tuple[str, str]]:
    return [(r.name, r.reason) for r in report.results if r.failed]


async def test_an_engine_that_keeps_an_eliminated_seat_fails_eliminated_moves() -> None:
    report = await run_compliance(faulty("keep-eliminated"), gods=[], timeout=5)
    # info: its pv was searched in the wrong position
    assert failed(report) == {"eliminated-moves", "info"}, reasons(report)
    final = after(Position.start(GODS_3), ELIMINATED_MOVES).sps()
    reason = report.result("eliminated-moves").reason
    assert reason.startswith("seat 2 of 3: engine sent error \"position: illegal turn 'd2-c3+b4' in apollo"), reason
    assert reason.endswith(f" (in {final})")


async def test_an_engine_that_ignores_athenas_tag_fails_the_athena_checks() -> None:
    report = await run_compliance(faulty("ignore-athena"), gods=["athena"], timeout=5)
    assert failed(report) == {"athena-up", "athena-3", "athena-4", "info"}, reasons(report)
    assert report.result("athena-3").reason == (
        f"seat 2 of 3: bestmove rejected: illegal turn 'a1-a2+a3' in {ATHENA_3_SPS}: "
        "Athena moved up on her last turn: her opponents may not move up until she moves again"
    )
    athena_4 = report.result("athena-4").reason
    assert athena_4.startswith(f"seat 3 of 4: bestmove rejected: illegal turn 'a1-a2+a3' in {ATHENA_4_SPS}")


async def test_an_engine_whose_athena_binds_one_seat_only_fails_athena_3_at_the_second_seat() -> None:
    report = await run_compliance(faulty("athena-once"), gods=[], timeout=5)
    assert failed(report) == {"athena-3", "info"}, reasons(report)
    reason = report.result("athena-3").reason
    assert reason.startswith("seat 3 of 3: bestmove rejected: illegal turn 'e5-d5+c5' in athena[up]/pan/minotaur;"), reason
    assert reason.endswith("her opponents may not move up until she moves again")


async def test_an_engine_that_binds_athenas_teammate_fails_athena_4() -> None:
    report = await run_compliance(faulty("athena-team"), gods=[], timeout=5)
    assert failed(report) == {"athena-4"}, reasons(report)
    reason = report.result("athena-4").reason
    assert reason.startswith("seat 4 of 4: resigned in a position with 3 legal turns (in apollo/athena[up]/minotaur/pan;"), reason
