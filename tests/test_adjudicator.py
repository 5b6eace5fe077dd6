"""The game adjudicator, pure: every outcome path with its exact detail, and properties against the
rules core and against SPEC.md's clock rule (section 4.5) computed here independently."""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from santorini_server.adjudicator import (
    Abort,
    AdjudicationError,
    Adjudicator,
    Answer,
    Clock,
    Forfeit,
    GameSetup,
    NoReply,
    Outcome,
    Request,
    Resignation,
    TimeControl,
    parse_tc,
)
from santorini_server.records import RecordError, format_sgn, parse_sgn
from santorini_server.records.game import check_tag
from santorini_server.records.replay import check_record
from santorini_server.rules import GODS, IllegalTurnError, MalformedTurnError, Position
from santorini_server.sei import RESULT_REASONS, Go, Info, PositionCommand, SeiConnection
from santorini_server.termination import WINS_BY_RULE, Termination

from .positions import sps

ROOT = Path(__file__).resolve().parent.parent
T_ = TypeVar("T_")
T = Termination
FISCHER = TimeControl(10_000, 100)
#: Player 1 to move, a worker on a1 (level 2) next to b1 (level 3): a1-b1 climbs.
CLIMB_NEXT = "mortal/mortal;00000/00000/00000/00000/23000;a1,d3/c2,c4;1;2"
#: Player 1 to move with both workers walled in (SPEC.md section 1.6, worked case 3).
STUCK = sps(domes="a2 b2 c2 c1", p1="a1,b1", p2="e5,e4")
#: Pan (player 1) on a level-2 square next to a level-0 one: a1-a2 wins by the drop.
PAN_DROP_NEXT = sps("pan/mortal", h={"a1": 2}, p1="a1,e5", p2="c3,e1")


def game(
    tc: TimeControl = FISCHER, *, opening: str | None = None, margins: tuple[int, int] = (0, 0), **kw: object
) -> Adjudicator:
    return Adjudicator(GameSetup(opening=opening, tcs=(tc, tc), margins=margins), **kw)  # type: ignore[arg-type]


def ask(adj: Adjudicator) -> Request:
    step = adj.next_request()
    assert isinstance(step, Request), step
    return step


# --- requests ----------------------------------------------------------------------------------------


def test_the_first_request_is_startpos_with_both_clocks_and_increments() -> None:
    adj = game(margins=(50, 0))
    request = ask(adj)
    assert request == Request(
        seat=0,
        position=PositionCommand(),
        go=Go(p1time=10_000, p2time=10_000, p1inc=100, p2inc=100),
        allowance_ms=10_050,
    )
    assert adj.next_request() is request  # asked again until answered


def test_a_request_carries_the_game_from_the_opening_in_canonical_turns() -> None:
    opening = "mortal/mortal;00000/00000/00000/00000/00000;b2,d4/-;2;1"
    adj = game(opening=opening)
    assert ask(adj).seat == 1
    step = adj.receive(Answer(turn="e5,a1", elapsed_ms=250))  # an accepted spelling
    assert isinstance(step, Request) and step.seat == 0
    assert step.position == PositionCommand(sps=opening, moves=("a1,e5",))
    assert step.go == Go(p1time=10_000, p2time=9_850, p1inc=100, p2inc=100)
    assert adj.moves == ("a1,e5",)


@pytest.mark.parametrize(
    ("tc", "go", "allowance"),
    [
        ("40/60+0", Go(p1time=60_000, p2time=60_000, p1inc=0, p2inc=0, movestogo=40), 60_020),
        ("movetime=0.1", Go(movetime=100), 100 + 20),
        ("depth=6,hard=30", Go(depth=6), 30_000),
        ("nodes=20000", Go(nodes=20_000), 60_000),
        ("inf", Go(), 60_000),
    ],
)
def test_go_states_the_mover_s_limits_as_the_time_control_says(tc: str, go: Go, allowance: float) -> None:
    request = ask(game(parse_tc(tc), margins=(20, 20)))
    assert (request.go, request.allowance_ms) == (go, allowance)


def test_moves_per_period_count_down_and_refill_the_clock() -> None:
    adj = game(parse_tc("2/1+0"))
    turns = ["a1,a2", "e5,e4", "a1-b1+a1", "e5-d5+e5"]
    gos = []
    for turn in turns:
        gos.append(ask(adj).go)
        adj.receive(Answer(turn=turn, elapsed_ms=100))
    assert [(g.p1time, g.p2time, g.movestogo) for g in gos] == [
        (1000, 1000, 2), (900, 1000, 2), (900, 900, 1), (1800, 900, 1)
    ]
    assert ask(adj).go.movestogo == 2


def test_a_clock_inside_the_margin_is_sent_as_zero() -> None:
    adj = game(TimeControl(1000, 0), margins=(300, 0))
    adj.receive(Answer(turn="a1,a2", elapsed_ms=ask(adj).allowance_ms - 100))
    adj.receive(Answer(turn="e5,e4", elapsed_ms=1))
    request = ask(adj)
    assert request.go.p1time == 0 and request.allowance_ms == 100  # -200 ms left, 300 ms margin


def test_given_clocks_judge_one_turn_of_any_position() -> None:
    """``santorini check``'s use: one position, clocks with given times left, one answer."""
    clock = Clock(TimeControl(1000, 10), margin_ms=100)
    clock.remaining_ms = 400
    adj = Adjudicator(GameSetup(opening=CLIMB_NEXT), clocks=(clock, Clock(TimeControl(1000, 10))))
    request = ask(adj)
    assert request.go == Go(p1time=400, p2time=1000, p1inc=10, p2inc=10) and request.allowance_ms == 500
    assert adj.receive(Answer(turn="a1-b1", elapsed_ms=20)) == Outcome(1, T.CLIMB)
    assert clock.remaining_ms == 390 and adj.moves == ("a1-b1",)


# --- every way a game ends, with its exact detail ------------------------------------------------------


def test_a_climb_wins_for_the_mover() -> None:
    adj = game(opening=CLIMB_NEXT)
    ask(adj)
    assert adj.receive(Answer(turn="a1-b1", elapsed_ms=5)) == Outcome(1, T.CLIMB, "")
    with pytest.raises(AdjudicationError, match="the game is over"):
        adj.receive(Answer(turn="c2-c3+c2", elapsed_ms=5))


def test_pan_s_drop_wins_for_pan() -> None:
    adj = game(opening=PAN_DROP_NEXT)
    ask(adj)
    assert adj.receive(Answer(turn="a1-a2", elapsed_ms=5)) == Outcome(1, T.PAN_DROP, "")


def test_a_side_with_no_complete_turn_loses_before_it_is_asked() -> None:
    adj = game(opening=STUCK)
    assert adj.next_request() == Outcome(2, T.NO_MOVES, "player 1 has no complete turn")
    assert adj.outcome == Outcome(2, T.NO_MOVES, "player 1 has no complete turn")


def test_a_late_answer_loses_on_time_by_the_whole_ms_over() -> None:
    adj = game(TimeControl(1000, 0), margins=(0, 25))
    ask(adj)
    adj.receive(Answer(turn="a1,a2", elapsed_ms=400))
    ask(adj)
    adj.receive(Answer(turn="e5,e4", elapsed_ms=1025))  # inside the margin
    ask(adj)
    assert adj.receive(Answer(turn="a1-b1+a1", elapsed_ms=600.25)) == Outcome(2, T.TIME, "by 1 ms")


def test_the_clock_is_checked_before_the_turn_late_and_illegal_is_time() -> None:
    adj = game(TimeControl(100, 0))
    ask(adj)
    assert adj.receive(Answer(turn="zz", elapsed_ms=140)) == Outcome(2, T.TIME, "by 40 ms")
    adj = game(TimeControl(100, 0))
    ask(adj)
    assert adj.receive(Resignation(elapsed_ms=140)) == Outcome(2, T.TIME, "by 40 ms")


@pytest.mark.parametrize(("elapsed", "detail"), [(10_000, "by 1 ms"), (10_000.5, "by 1 ms"), (10_040, "by 40 ms")])
def test_no_reply_by_the_deadline_loses_on_time(elapsed: float, detail: str) -> None:
    adj = game()
    ask(adj)
    assert adj.receive(NoReply(elapsed_ms=elapsed)) == Outcome(2, T.TIME, f"{detail} (no reply by the deadline)")


def test_movetime_and_the_hard_deadline_lose_past_their_limit_plus_margin() -> None:
    adj = game(parse_tc("movetime=0.1"), margins=(50, 50))
    ask(adj)
    step = adj.receive(Answer(turn="a1,a2", elapsed_ms=150))  # exactly movetime + margin: in time
    assert isinstance(step, Request)
    assert adj.receive(Answer(turn="e5,e4", elapsed_ms=150.5)) == Outcome(1, T.TIME, "by 51 ms")
    adj = game(parse_tc("depth=3,hard=1"))
    ask(adj)
    assert adj.receive(Answer(turn="a1,a2", elapsed_ms=1003)) == Outcome(2, T.TIME, "by 3 ms")


def test_resignation() -> None:
    adj = game()
    ask(adj)
    adj.receive(Answer(turn="a1,a2", elapsed_ms=1))
    assert adj.receive(Resignation(elapsed_ms=1)) == Outcome(1, T.RESIGN, "bestmove resign")


@pytest.mark.parametrize(
    ("turn", "detail"),
    [
        # a move as a placement
        ("a1-a2+a3", "'a1-a2+a3': place both workers first, on two empty squares (e.g. b3,d3)"),
        ("a1,a1", "'a1,a1': both workers cannot stand on a1"),
        ("b3-b9+c4", "malformed 'b3-b9+c4': b9 is not a square (files a-e, ranks 1-5)"),
        ("zz", "malformed 'zz': not STN (e.g. b3,d3 or b3-b4+c5)"),
        ("b" * 200_000, "malformed '" + "b" * 119 + "... (200002 chars): not STN (e.g. b3,d3 or b3-b4+c5)"),
        ("a1,\x07a2", "malformed 'a1,\\x07a2': not STN (e.g. b3,d3 or b3-b4+c5)"),
        ("B2,B3", "malformed 'B2,B3': squares are lowercase (b2,b3 is legal here)"),
    ],
)
def test_a_malformed_or_illegal_turn_loses_with_the_turn_quoted_and_cut_and_the_reason(turn: str, detail: str) -> None:
    adj = game()
    ask(adj)
    assert adj.receive(Answer(turn=turn, elapsed_ms=3)) == Outcome(2, T.ILLEGAL, detail)


def test_a_forfeit_before_the_first_turn_names_the_failing_seat() -> None:
    adj = game()
    outcome = adj.receive(Forfeit(seat=1, kind=T.STALL, detail="no readyok within 30 s after newgame"))
    assert outcome == Outcome(1, T.STALL, "no readyok within 30 s after newgame")
    assert adj.next_request() is outcome
    record = adj.record(("A", "B"))
    assert (record.result, record.termination, record.turns) == ("1-0", "stall", ())
    assert check_record(record) == []


def test_an_engine_failure_during_its_turn_loses_with_the_detail_made_storable() -> None:
    adj = game()
    ask(adj)
    adj.receive(Answer(turn="a1,a2", elapsed_ms=1))
    detail = "exited during its turn\n(exit code 5) " + "x" * 200
    outcome = adj.receive(Forfeit(seat=1, kind=T.CRASH, detail=detail))
    assert outcome == Outcome(1, T.CRASH, "exited during its turn (exit code 5) " + "x" * 83 + "... (237 chars)")


def test_abort_has_no_winner_and_keeps_the_turns_played() -> None:
    adj = game()
    ask(adj)
    adj.receive(Answer(turn="a1,a2", elapsed_ms=1))
    assert adj.receive(Abort()) == Outcome(None, T.ABORTED, "the game was interrupted")
    record = adj.record(("A", "B"))
    assert (record.result, record.termination, [t.turn for t in record.turns]) == ("*", "aborted", ["a1,a2"])


def test_events_the_state_does_not_accept_are_the_driver_s_bug_and_change_nothing() -> None:
    adj = game()
    with pytest.raises(AdjudicationError, match="no turn was asked for"):
        adj.receive(Answer(turn="a1,a2", elapsed_ms=1))
    with pytest.raises(AdjudicationError, match="the game is not over"):
        adj.record(("A", "B"))
    with pytest.raises(AdjudicationError, match="no seat 2"):
        adj.receive(Forfeit(seat=2, kind=T.CRASH, detail="?"))
    request = ask(adj)
    assert adj.next_request() is request and adj.moves == () and adj.outcome is None


# --- a person's seat -------------------------------------------------------------------------------


def test_a_person_s_mistakes_raise_and_change_nothing() -> None:
    adj = game(humans={0})
    request = ask(adj)
    with pytest.raises(MalformedTurnError):
        adj.receive(Answer(turn="zz", elapsed_ms=5))
    with pytest.raises(IllegalTurnError):
        adj.receive(Answer(turn="b3,b3", elapsed_ms=5))
    assert adj.next_request() is request and adj.clocks[0].remaining_ms == 10_000
    assert request.allowance_ms == math.inf
    with pytest.raises(AdjudicationError, match="no deadline"):
        adj.receive(NoReply(elapsed_ms=1e9))


def test_a_person_s_clock_is_charged_and_recorded_but_never_enforced() -> None:
    adj = game(TimeControl(1000, 0), humans={0})
    ask(adj)
    step = adj.receive(Answer(turn="b3,d3", elapsed_ms=5000))
    assert isinstance(step, Request) and step.go.p1time == 0 and adj.clocks[0].remaining_ms == -4000
    assert adj.turns[0].time_ms == 5000
    adj.receive(Answer(turn="a1,a2", elapsed_ms=900))  # the engine, still on the clock
    assert adj.receive(Resignation(elapsed_ms=1)) == Outcome(2, T.RESIGN, "the human resigned")


# --- the record --------------------------------------------------------------------------------------


def parsed_info(line: str) -> Info:
    """``line`` as the codec reads it from an engine that is searching (telemetry as a game sees it)."""
    from santorini_server.sei import Sei as SeiCommand

    conn = SeiConnection()
    conn.send(SeiCommand(version=1))
    conn.receive_data(b"seiok 1\n")
    conn.next_event()
    conn.send(Go(depth=1))
    conn.receive_data(line.encode() + b"\n")
    info = conn.next_event()
    assert isinstance(info, Info)
    return info


def test_the_record_holds_every_tag_each_turn_s_time_and_the_telemetry_it_can_hold() -> None:
    info = parsed_info("info depth 7 nodes 99999999999999999999 score win -2")
    setup = GameSetup(opening=CLIMB_NEXT, tcs=(FISCHER, parse_tc("movetime=1")), event="E", round="3", game_number=7)
    adj = Adjudicator(setup)
    ask(adj)
    adj.receive(Answer(turn="a1-b1", elapsed_ms=12.5, info=info))
    record = adj.record(("A", "B"))
    assert dict(record.tags) | {"Date": "?"} == {
        "Event": "E", "Site": "local", "Date": "?", "Round": "3", "GameNumber": "7", "Player1": "A",
        "Player2": "B", "Gods": "mortal/mortal", "Ruleset": "santorini-base-v1", "Start": CLIMB_NEXT,
        "Opening": CLIMB_NEXT, "TimeControl": "10+0.1 | movetime=1", "Result": "1-0", "Termination": "climb",
        "TerminationDetail": "",
    }
    (turn,) = record.turns
    assert (turn.turn, turn.time_ms, turn.score, turn.depth, turn.nodes) == ("a1-b1", 12, "-win/2", 7, None)
    assert parse_sgn(format_sgn(record)) == [record] and check_record(record) == []
    report = adj.report(("A", "B"))
    assert report.final_position == Position.from_sps(CLIMB_NEXT).play("a1-b1").position
    assert report.engine_seconds == 0.0125


# --- the termination tags ----------------------------------------------------------------------------


def test_the_termination_enum_is_the_one_list_of_tags() -> None:
    assert [t.value for t in Termination] == [
        "climb", "pan-drop", "no-moves", "resign", "time", "illegal",
        "crash", "stall", "engine-error", "limit", "aborted",
    ]
    assert {T.CLIMB, T.PAN_DROP} == WINS_BY_RULE
    assert RESULT_REASONS == {t.value for t in T if t.decisive} == {t.value for t in T} - {"aborted"}
    assert all(t.meaning and t.meaning[0].islower() for t in T)
    for t in T:  # a record takes exactly these
        check_tag("Termination", t.value)
    with pytest.raises(RecordError, match="Termination must be one of climb, pan-drop"):
        check_tag("Termination", "draw")


def test_spec_md_s_table_lists_exactly_the_enum_s_tags() -> None:
    text = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    section = text.split("### 4.6 Failure handling and termination tags", 1)[1].split("\n* ", 1)[0]
    assert sorted(re.findall(r"^\| `([a-z-]+)` \|", section, re.M)) == sorted(t.value for t in Termination)


# --- properties: random games of every god pairing against the rules core and the clock rule -------------

#: Every matchup the rules allow (two players may not share a god, but both may be mortal).
PAIRINGS = [(a, b) for a in GODS for b in GODS if a == "mortal" or a != b]

TIME_CONTROLS = {
    "fischer": TimeControl(1000, 50),
    "periods": TimeControl(600, 0, moves=3),
    "movetime": TimeControl(movetime_ms=200),
    "depth": TimeControl(depth=3, hard_ms=500),
    "nodes": TimeControl(nodes=1000, hard_ms=400),
}

#: Texts for the "not a turn" answers; whether each is malformed, illegal or (rarely) legal here
#: is asked of the rules core.  Near misses are also built from STN's own characters.
NEAR_MISSES = ["zz", "b3-b9+c4", "a1-a1+a1", "a1,a1", "c3,c3", "e5-e4+e5", "", "x" * 300]
STN_CHARS = "abcdef0123456-+,xD"


@dataclass
class SpecClock:
    """SPEC.md section 4.5, written as totals rather than as a running balance (so it is not
    ``Clock`` again): before a seat's turn number k+1 its clock shows base + k * inc, plus the base
    again for every completed period, minus everything it used."""

    tc: TimeControl
    margin: int
    used: list[float] = field(default_factory=list)

    def left(self) -> float:
        k, tc = len(self.used), self.tc
        assert tc.base_ms is not None
        periods = k // tc.moves if tc.moves else 0
        return tc.base_ms + k * tc.inc_ms + periods * tc.base_ms - sum(self.used)

    def allowance(self) -> float:
        """SPEC: the deadline is ``movetime + timemargin``, the clock plus the margin, or ``hard=``."""
        tc = self.tc
        if tc.movetime_ms is not None:
            return tc.movetime_ms + self.margin
        if tc.base_ms is not None:
            return self.left() + self.margin
        return tc.hard_ms

    def overrun(self, elapsed: float) -> float | None:
        """How far a turn of ``elapsed`` ms went past what the rule allows (None: in time)."""
        tc = self.tc
        if tc.movetime_ms is not None:
            over = elapsed - tc.movetime_ms
            return over if over > self.margin else None
        if tc.base_ms is None:
            return elapsed - tc.hard_ms if elapsed > tc.hard_ms else None
        after = self.left() - elapsed
        return -after if after < -self.margin else None

    def wire(self) -> int | None:
        return None if self.tc.base_ms is None else max(0, math.floor(self.left()))

    def movestogo(self) -> int | None:
        return self.tc.moves - len(self.used) % self.tc.moves if self.tc.moves else None


def expected_go(clocks: list[SpecClock], seat: int) -> Go:
    mine = clocks[seat].tc
    return Go(
        p1time=clocks[0].wire(), p2time=clocks[1].wire(),
        p1inc=None if clocks[0].tc.base_ms is None else clocks[0].tc.inc_ms,
        p2inc=None if clocks[1].tc.base_ms is None else clocks[1].tc.inc_ms,
        movestogo=clocks[seat].movestogo(), movetime=mine.movetime_ms, depth=mine.depth, nodes=mine.nodes,
    )


def quoted(text: str) -> str:
    """SPEC.md: the detail quotes the token (``repr``), cut to 120 characters."""
    r = repr(text)
    return r if len(r) <= 120 else r[:120] + f"... ({len(r)} chars)"


class Chooser(Protocol):
    """Where a random game's choices come from: ``random.Random`` or Hypothesis (below)."""

    def choice(self, seq: Sequence[T_]) -> T_: ...
    def randint(self, a: int, b: int) -> int: ...


@dataclass
class Drawn:
    """A :class:`Chooser` drawing from Hypothesis, so it can explore and shrink."""

    data: st.DataObject

    def choice(self, seq: Sequence[T_]) -> T_:
        return self.data.draw(st.sampled_from(seq))

    def randint(self, a: int, b: int) -> int:
        return self.data.draw(st.integers(a, b))


def ms(choose: Chooser, high: float) -> float:
    """A time in 0..high ms, in eighths of a ms so the sums of either clock are exact in floats."""
    return choose.randint(0, max(0, int(high * 8))) / 8


#: What the mover may do besides playing a legal turn: each way of losing.
FAULTS = ["near-miss", "resign", "late", "no-reply", "forfeit", "abort"]


def play_and_check(gods: tuple[str, str], choose: Chooser) -> Termination:
    """Play one random game through the adjudicator and rule it alongside with the rules core
    and :class:`SpecClock`; every request and the outcome must agree.  Returns the tag."""
    names = sorted(TIME_CONTROLS)
    tcs = (TIME_CONTROLS[choose.choice(names)], TIME_CONTROLS[choose.choice(names)])
    margins = (choose.randint(0, 100), choose.randint(0, 100))
    adj = Adjudicator(GameSetup(gods=gods, tcs=tcs, margins=margins))
    clocks = [SpecClock(tcs[0], margins[0]), SpecClock(tcs[1], margins[1])]
    pos = Position.start(gods)
    # legal turns per fault: some games run to a win or a side with no turn, others end early
    actions = ["turn"] * choose.choice([10, 60, 1000]) + FAULTS
    played: list[tuple[str, int]] = []
    step = adj.next_request()
    expected: Outcome | None = None
    while expected is None:
        if pos.is_lost():  # SPEC.md section 1.4: no complete turn at the start of one's turn loses at once
            expected = Outcome(2 - pos.to_move, T.NO_MOVES, f"player {pos.player} has no complete turn")
            break
        seat = pos.to_move
        clock = clocks[seat]
        assert isinstance(step, Request)
        assert step.seat == seat
        assert step.position == PositionCommand(moves=tuple(stn for stn, _ in played))
        assert step.go == expected_go(clocks, seat)
        assert step.allowance_ms == clock.allowance()
        action = choose.choice(actions)
        if action == "abort":
            expected = Outcome(None, T.ABORTED, "the game was interrupted")
            step = adj.receive(Abort())
            break
        if action == "forfeit":
            kind = choose.choice([T.CRASH, T.STALL, T.ENGINE_ERROR, T.LIMIT, T.ILLEGAL])
            expected = Outcome(2 - seat, kind, "exited during its turn (exit code 5)")
            step = adj.receive(Forfeit(seat=seat, kind=kind, detail="exited during its turn (exit code 5)"))
            break
        if action == "no-reply":  # the driver's deadline fired, right on time or a little late
            elapsed = step.allowance_ms + ms(choose, 5)
            over = clock.overrun(elapsed) or 0.0
            expected = Outcome(2 - seat, T.TIME, f"by {max(1, math.ceil(over))} ms (no reply by the deadline)")
            step = adj.receive(NoReply(elapsed_ms=elapsed))
            break
        elapsed = ms(choose, clock.allowance() + 50 if action == "late" else min(60, clock.allowance() * 0.6))
        if action == "near-miss":
            made = "".join(choose.choice(STN_CHARS) for _ in range(choose.randint(0, 12)))
            text = choose.choice([*NEAR_MISSES, made])
        else:
            text = choose.choice(pos.legal_turns())
        over = clock.overrun(elapsed)
        clock.used.append(elapsed)
        if over is not None:  # the clock first
            expected = Outcome(2 - seat, T.TIME, f"by {math.ceil(over)} ms")
        elif action == "resign":
            expected = Outcome(2 - seat, T.RESIGN, "bestmove resign")
        else:
            try:
                transition = pos.play(text)
            except MalformedTurnError as exc:
                expected = Outcome(2 - seat, T.ILLEGAL, f"malformed {quoted(text)}: {exc.reason}")
            except IllegalTurnError as exc:
                expected = Outcome(2 - seat, T.ILLEGAL, f"{quoted(text)}: {exc.reason}")
            else:
                played.append((transition.stn, round(elapsed)))
                pos = transition.position
                if transition.win:
                    expected = Outcome(seat + 1, T(transition.termination))
        event = Resignation(elapsed_ms=elapsed) if action == "resign" else Answer(turn=text, elapsed_ms=elapsed)
        step = adj.receive(event)
    assert step == expected == adj.outcome
    record = adj.record(("A", "B"))
    assert [(t.turn, t.time_ms) for t in record.turns] == played
    assert (record.result, record.termination) == (expected.result, expected.termination)
    assert check_record(record) == []  # and replay agrees with the ruling
    assert adj.position == pos
    return expected.termination


@pytest.mark.parametrize("gods", PAIRINGS, ids="/".join)
def test_a_random_game_of_every_god_pairing_is_ruled_as_the_rules_and_the_clock_rule_say(gods: tuple[str, str]) -> None:
    play_and_check(gods, random.Random("/".join(gods)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_are_ruled_as_the_rules_and_the_clock_rule_say(data: st.DataObject) -> None:
    play_and_check(data.draw(st.sampled_from(PAIRINGS), label="gods"), Drawn(data))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_person_s_seat_never_loses_on_time_or_by_a_typo(data: st.DataObject) -> None:
    adj = Adjudicator(GameSetup(tcs=(TimeControl(100, 0), TimeControl(100_000, 0))), humans={0})
    pos = Position.start()
    for _ in range(12):
        step = adj.next_request()
        if not isinstance(step, Request):
            break
        if step.seat == 0:
            for text in data.draw(st.lists(st.sampled_from(NEAR_MISSES) | st.text(STN_CHARS, max_size=12), max_size=3)):
                try:
                    pos.play(text)
                except (MalformedTurnError, IllegalTurnError) as exc:
                    with pytest.raises(type(exc)):
                        adj.receive(Answer(turn=text, elapsed_ms=1e6))
                    assert adj.next_request() is step
        turn = data.draw(st.sampled_from(pos.legal_turns()))
        adj.receive(Answer(turn=turn, elapsed_ms=ms(Drawn(data), 5000) if step.seat == 0 else 1.0))
        pos = pos.play(turn).position
        assert adj.outcome is None or adj.outcome.termination in (T.CLIMB, T.PAN_DROP, T.NO_MOVES)


# --- layering --------------------------------------------------------------------------------------


def test_the_adjudicator_loads_no_io_layer_and_the_tags_load_nothing() -> None:
    """Pure: no trio, no click, no engine processes, no referee; the tags import nothing of ours."""
    code = (
        "import sys, santorini_server.termination as t\n"
        "ours = lambda: sorted(m for m in sys.modules if m.startswith('santorini_server.'))\n"
        "assert ours() == ['santorini_server.termination'], ours()\n"
        "import santorini_server.adjudicator\n"
        "bad = ('trio', 'click', 'santorini_server.referee', 'santorini_server.process', 'santorini_server.cli',"
        " 'santorini_server.tournament', 'santorini_server.backends')\n"
        "assert not [m for m in sys.modules if m.startswith(bad)], [m for m in sys.modules if m.startswith(bad)]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=60)


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (Outcome(1, T.CLIMB), "A wins by climbing to level 3"),
        (Outcome(2, T.PAN_DROP), "B wins by Pan's drop"),
        (Outcome(1, T.NO_MOVES, "player 2 has no complete turn"), "B has no legal turn"),
        (Outcome(2, T.RESIGN, "bestmove resign"), "A resigns"),
        (Outcome(1, T.TIME, "by 37 ms"), "B loses on time by 37 ms"),
        (Outcome(1, T.ILLEGAL, "'a1-a1+a1'"), "B makes an illegal turn: 'a1-a1+a1'"),
        (Outcome(1, T.ILLEGAL, "'c4-b5': after moving, build next to b5 (e.g. c4-b5+c4)"),
         "B makes an illegal turn: 'c4-b5': after moving, build next to b5 (e.g. c4-b5+c4)"),
        (Outcome(1, T.CRASH, "exited (exit code 5)"), "B disconnects: exited (exit code 5)"),
        (Outcome(1, T.STALL, ""), "B's connection stalls"),
        (Outcome(1, T.ENGINE_ERROR, "error x"), "B engine error: error x"),
        (Outcome(1, T.LIMIT, "CPU limit of 1 s"), "B disconnects: resource limit: CPU limit of 1 s"),
        (Outcome(None, T.ABORTED, "the game was interrupted"), "game aborted: the game was interrupted"),
    ],
)
def test_the_reason_line_uses_the_words_tools_parse(outcome: Outcome, reason: str) -> None:
    """cutechess's wording: "disconnects", "stalls", "on time", "illegal" (OpenBench and fishtest count them)."""
    assert outcome.reason(("A", "B")) == reason
    adj = game()
    loser = None if outcome.winner is None else 2 - outcome.winner
    adj.receive(Abort(detail=outcome.detail) if loser is None else Forfeit(seat=loser, kind=T.CRASH, detail=""))
    assert Outcome.from_record(adj.record(("A", "B"))).result == outcome.result


@pytest.mark.parametrize(
    ("line", "score"),
    [
        (b"info depth 1 score cp 21", "+21"), (b"info depth 1 score cp -3", "-3"), (b"info depth 1 score cp 0", "0"),
        (b"info depth 1 score win 1", "win/1"), (b"info depth 1 score win -3", "-win/3"),
        (b"info depth 1 score cp 99999999999999999999", None), (b"info depth 1 score win 99999999999999999999", None),
        (b"info depth 1", None),
    ],
)
def test_scores_are_written_as_the_record_holds_them(line: bytes, score: str | None) -> None:
    from santorini_server.adjudicator import score_text
    from santorini_server.sei import Sei as SeiCommand

    conn = SeiConnection()
    conn.send(SeiCommand(version=1))
    conn.receive_data(b"seiok 1\n")
    conn.next_event()
    conn.send(Go(depth=1))
    conn.receive_data(line + b"\n")
    info = conn.next_event()
    assert isinstance(info, Info)
    assert score_text(info) == score
    assert score_text(None) is None


_DIGITS = st.integers(0, 10**20 - 1)


@settings(max_examples=150, deadline=None)
@given(
    depth=st.none() | _DIGITS,
    nodes=st.none() | _DIGITS,
    score=st.none() | st.tuples(st.sampled_from(["cp", "win"]), st.integers(-(10**20) + 1, 10**20 - 1)),
    elapsed_ms=st.floats(0, 1e9),
)
def test_a_turn_record_holds_whatever_telemetry_the_codec_parses(
    depth: int | None, nodes: int | None, score: tuple[str, int] | None, elapsed_ms: float
) -> None:
    """``turn_record`` builds a checked TurnRecord: whatever telemetry the codec can parse, it
    never fails the game (a value the record cannot hold, such as a 20-digit count, is left out)."""
    from santorini_server.adjudicator import turn_record
    from santorini_server.records import MAX_COUNT

    words = ["info"]
    if depth is not None:
        words += ["depth", str(depth)]
    if nodes is not None:
        words += ["nodes", str(nodes)]
    if score is not None:
        words += ["score", score[0], str(score[1])]
    info = parsed_info(" ".join(words))
    record = turn_record("b3-b4+c5", round(elapsed_ms), info)
    assert record.depth == (depth if depth is not None and depth <= MAX_COUNT else None)
    assert record.nodes == (nodes if nodes is not None and nodes <= MAX_COUNT else None)
    assert (record.score is None) == (score is None or abs(score[1]) > MAX_COUNT)
