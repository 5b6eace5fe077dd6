"""The adjudicator with three and four seats (SPEC.md section 15), pure: a clock per seat, ``go``
with every seat's clock, eliminations (no turn, time, illegal turn), faults between turns, the
four-seat team loss, placings, the reason line and the record."""

from __future__ import annotations

import pytest

from santorini_server.adjudicator import (
    Abort,
    AdjudicationError,
    Adjudicator,
    Answer,
    Elimination,
    Forfeit,
    GameSetup,
    NoReply,
    Outcome,
    Request,
    Resignation,
    TimeControl,
    parse_tc,
)
from santorini_server.records import Elimination as RecordedElimination
from santorini_server.records import format_sgn, parse_sgn
from santorini_server.records.replay import check_record
from santorini_server.rules import Position, parse_square
from santorini_server.sei import Go, PositionCommand
from santorini_server.termination import Termination

T = Termination
FISCHER = TimeControl(10_000, 100)
THREE = ("apollo", "minotaur", "pan")
FOUR = ("apollo", "minotaur", "pan", "athena")


def bits(*names: str) -> int:
    return sum(1 << parse_square(n) for n in names)


def pos(gods: tuple[str, ...], *groups: str, to_move: int = 1, turn: int = 3, heights: str = "", domes: str = "") -> str:
    """An SPS: ``groups`` as "a1 b2" strings; ``heights`` "c3=2 d4=1"; seats 1-based."""
    levels = {parse_square(k): int(v) for k, v in (h.split("=") for h in heights.split())}
    return Position(
        gods=gods, heights=levels, domes=bits(*domes.split()), workers=tuple(bits(*g.split()) for g in groups),
        to_move=to_move - 1, turn=turn,
    ).sps()


def game(gods: tuple[str, ...] = THREE, tc: TimeControl = FISCHER, *, opening: str | None = None, **kw: object) -> Adjudicator:
    return Adjudicator(GameSetup(gods=gods, opening=opening, tcs=(tc,), margins=(0,)), **kw)  # type: ignore[arg-type]


def ask(adj: Adjudicator) -> Request:
    step = adj.next_request()
    assert isinstance(step, Request), step
    return step


def play_first(adj: Adjudicator, elapsed: float = 10) -> Request | Outcome:
    """The seat to move plays its first legal turn."""
    ask(adj)
    return adj.receive(Answer(adj.position.legal_turns()[0], elapsed))


#: 3p, seat 1 to move, then seat 2 (Pan) boxed in on a5/b5 by domes and seat 3's worker on c4;
#: seat 1 on d1/e1 can climb d1-d2 (level 2 to 3).
BOXED_2 = pos(("apollo", "pan", "atlas"), "d1 e1", "a5 b5", "c4 c3", heights="d1=2 d2=3", domes="a4 b4 c5")
#: 3p, seat 1 to move; seats 2 and 3 are both boxed in.
BOTH_BOXED = pos(THREE, "d1 e1", "a5 b5", "e5 d5", to_move=1, domes="a4 b4 c5 c4 d4 e4")


def climb_after_seat_2_is_out(adj: Adjudicator) -> Request | Outcome:
    """BOXED_2: seat 1 plays a plain turn, seat 2 is eliminated, seat 3 moves into its square,
    seat 1 climbs."""
    for turn in ("e1-e2+e3", "c4-b5+a5", "d1-d2"):
        ask(adj)
        step = adj.receive(Answer(turn, 5))
    return step


# --- clocks and go per seat ------------------------------------------------------------------------


def test_go_states_every_seat_s_clock_and_increment_in_three_seats() -> None:
    adj = game()
    request = ask(adj)
    assert request.go == Go(p1time=10_000, p2time=10_000, p3time=10_000, p1inc=100, p2inc=100, p3inc=100)
    assert request.go.p4time is None and request.go.p4inc is None
    adj.receive(Answer("a1,a2", 250))
    assert ask(adj).go == Go(p1time=9_850, p2time=10_000, p3time=10_000, p1inc=100, p2inc=100, p3inc=100)


def test_go_states_four_clocks_in_four_seats() -> None:
    adj = game(FOUR)
    play_first(adj, 400)
    play_first(adj, 300)
    request = ask(adj)
    assert request.seat == 2
    assert request.go == Go(p1time=9_700, p2time=9_800, p3time=10_000, p4time=10_000,
                            p1inc=100, p2inc=100, p3inc=100, p4inc=100)


def test_each_seat_has_its_own_time_control_and_margin() -> None:
    tcs = (parse_tc("1+0"), parse_tc("movetime=0.2"), parse_tc("40/60+0"))
    adj = Adjudicator(GameSetup(gods=THREE, tcs=tcs, margins=(10, 20, 30)))
    allowances, gos = [], []
    for _ in range(3):
        request = ask(adj)
        allowances.append(request.allowance_ms)
        gos.append(request.go)
        adj.receive(Answer(adj.position.legal_turns()[0], 100))
    assert allowances == [1_010, 220, 60_030]
    assert [c.tc for c in adj.clocks] == list(tcs)
    # a seat without a clock has no time or increment on the wire; movestogo is the mover's own
    assert gos[2] == Go(p1time=900, p3time=60_000, p1inc=0, p3inc=0, movestogo=40)
    assert gos[1] == Go(p1time=900, p3time=60_000, p1inc=0, p3inc=0, movetime=200)


def test_a_setup_with_different_time_controls_must_give_one_per_seat() -> None:
    with pytest.raises(ValueError, match="2 different time controls for a 3-seat game: give one per seat"):
        Adjudicator(GameSetup(gods=THREE, tcs=(parse_tc("1+0"), parse_tc("2+0"))))
    # the two-seat defaults (one value twice) serve any seat count
    assert len(Adjudicator(GameSetup(gods=FOUR)).clocks) == 4


# --- three seats: eliminations ---------------------------------------------------------------------


def test_three_seats_a_seat_with_no_turn_is_eliminated_and_play_goes_on() -> None:
    adj = game(opening=BOXED_2)
    ask(adj)
    step = adj.receive(Answer("e1-e2+e3", 5))
    assert isinstance(step, Request) and step.seat == 2  # seat 2 was skipped: eliminated
    assert adj.eliminations == (Elimination(1, T.NO_MOVES, "player 2 has no complete turn", 3, 1),)
    assert adj.position.eliminated == 0b010 and adj.position.workers[1] == 0
    # elimination is not a turn, and position restarts from the SPS right after it
    assert step.position == PositionCommand(sps=adj.position.sps(), moves=())
    assert ";d1,e2/x/c3,c4;3;3" in adj.position.sps()
    play_first(adj)
    assert ask(adj).position == PositionCommand(sps=step.position.sps, moves=adj.moves[1:])
    assert adj.out_seats == {1}


def test_three_seats_losing_on_time_eliminates_the_mover() -> None:
    adj = game(tc=TimeControl(1000, 0))
    ask(adj)
    step = adj.receive(Answer("a1,a2", 1200))
    assert isinstance(step, Request) and step.seat == 1
    assert adj.eliminations == (Elimination(0, T.TIME, "by 200 ms", 3, 0),)
    assert adj.position.sps() == "apollo/minotaur/pan;00000/00000/00000/00000/00000;x/-/-;2;1"
    assert Position.from_sps(adj.position.sps()) == adj.position  # a seat may leave while placing
    assert adj.moves == ()  # the late turn is not played
    step = adj.receive(NoReply(elapsed_ms=1001))  # seat 2 never answers: seat 3 is the last one in
    assert step == Outcome(3, T.TIME, "by 1 ms (no reply by the deadline)", (3, 2, 1), 2,
                           (Elimination(0, T.TIME, "by 200 ms", 3, 0),))
    assert step.result == "3-2-1"


def test_three_seats_an_illegal_turn_or_a_resignation_eliminates_the_mover() -> None:
    adj = game()
    ask(adj)
    step = adj.receive(Answer("a1,a1", 5))
    assert isinstance(step, Request) and step.seat == 1
    [out] = adj.eliminations
    assert (out.seat, out.termination, out.placing) == (0, T.ILLEGAL, 3) and out.detail.startswith("'a1,a1'")
    step = adj.receive(Resignation(elapsed_ms=5))
    assert isinstance(step, Outcome)
    assert (step.winner, step.termination, step.placings, step.decider) == (3, T.RESIGN, (3, 2, 1), 2)


def test_three_seats_a_win_ends_the_game_for_everyone_and_the_seats_still_in_tie() -> None:
    adj = game(opening=pos(THREE, "d1 e1", "a1 a2", "c3 e4", heights="d1=2 d2=3"))
    ask(adj)
    outcome = adj.receive(Answer("d1-d2", 5))
    assert outcome == Outcome(1, T.CLIMB, "", (1, 2, 2), 1)
    assert outcome.result == "1-2-2"


def test_three_seats_placings_rank_a_seat_eliminated_earlier_last() -> None:
    adj = game(opening=BOXED_2)
    outcome = climb_after_seat_2_is_out(adj)
    assert isinstance(outcome, Outcome)
    assert (outcome.winner, outcome.placings, outcome.result) == (1, (1, 3, 2), "1-3-2")
    assert outcome.eliminated == (Elimination(1, T.NO_MOVES, "player 2 has no complete turn", 3, 1),)


def test_three_seats_the_last_seat_standing_wins() -> None:
    adj = game(opening=BOTH_BOXED)
    play_first(adj)
    outcome = adj.outcome
    assert outcome is not None
    assert (outcome.winner, outcome.termination, outcome.decider, outcome.placings) == (1, T.NO_MOVES, 3, (1, 3, 2))
    assert [e.seat for e in adj.eliminations] == [1, 2]  # the one whose leaving ended the game included
    assert [e.seat for e in outcome.eliminated] == [1]


def test_a_fault_between_turns_takes_effect_at_that_seat_s_next_turn() -> None:
    adj = game()
    first = ask(adj)
    # seat 3's engine crashes while seat 1 thinks: the outstanding request stands
    assert adj.receive(Forfeit(seat=2, kind=T.CRASH, detail="exited (exit code 3)")) is first
    assert adj.out_seats == {2} and adj.eliminations == ()
    adj.receive(Answer("a1,a2", 5))
    play_first(adj)  # seat 2 places
    # seat 3's turn: it leaves now, before placing; the game goes on with seats 1 and 2
    step = adj.next_request()
    assert isinstance(step, Request) and step.seat == 0
    assert adj.eliminations == (Elimination(2, T.CRASH, "exited (exit code 3)", 3, 2),)
    with pytest.raises(AdjudicationError, match="player 3 is already out"):
        adj.receive(Forfeit(seat=2, kind=T.CRASH, detail="again"))


def test_a_fault_between_turns_keeps_the_seat_s_workers_until_its_turn() -> None:
    adj = game(opening=pos(THREE, "a1 a2", "c3 c4", "e4 e5"))
    ask(adj)
    adj.receive(Forfeit(seat=2, kind=T.STALL, detail="no readyok within 30 s after newgame"))
    adj.receive(Answer(adj.position.legal_turns()[0], 5))
    assert ask(adj).seat == 1 and adj.position.workers[2] == bits("e4", "e5")  # still there for seat 2's turn
    play_first(adj)  # seat 2 plays; seat 3's turn comes: it leaves the board
    assert adj.position.workers[2] == 0 and adj.position.to_move == 0 and ask(adj).seat == 0


def test_a_forfeit_of_the_seat_to_move_takes_effect_at_once() -> None:
    adj = game()
    ask(adj)
    step = adj.receive(Forfeit(seat=0, kind=T.ENGINE_ERROR, detail="error out of memory"))
    assert isinstance(step, Request) and step.seat == 1
    assert adj.eliminations[0].termination == T.ENGINE_ERROR


def test_an_engine_that_failed_before_the_game_leaves_at_its_first_turn() -> None:
    """A seat forfeited while no request is out (an engine that could not be readied)."""
    adj = game()
    adj.receive(Forfeit(seat=1, kind=T.STALL, detail="no readyok within 30 s after newgame"))
    adj.receive(Forfeit(seat=0, kind=T.CRASH, detail="could not be started"))
    outcome = adj.next_request()
    assert isinstance(outcome, Outcome)
    assert (outcome.winner, outcome.termination, outcome.placings, outcome.decider) == (3, T.STALL, (3, 2, 1), 2)


# --- four seats: a loss is the team's --------------------------------------------------------------


def test_four_seats_a_seat_with_no_turn_loses_for_its_team() -> None:
    # team A (seats 1 and 3) on a5/b5, walled in; seat 2 of team B to move... seat 3 has no turn
    opening = pos(FOUR, "a5 b5", "d1 e1", to_move=3, domes="a4 b4 c5 c4")
    adj = game(FOUR, opening=opening)
    outcome = adj.next_request()
    assert outcome == Outcome(2, T.NO_MOVES, "player 3 has no complete turn", (2, 1, 2, 1), 3)
    assert outcome.result == "2-1-2-1"
    assert adj.eliminations == ()


def test_four_seats_a_time_loss_loses_for_the_team_and_a_climb_wins_for_it() -> None:
    adj = game(FOUR, TimeControl(1000, 0))
    play_first(adj)
    ask(adj)
    outcome = adj.receive(Answer("c3,c4", 1500))  # seat 2 (team B) late
    assert outcome == Outcome(1, T.TIME, "by 500 ms", (1, 2, 1, 2), 2)
    adj = game(FOUR, opening=pos(FOUR, "d1 e1", "a1 a2", to_move=4, heights="a1=2 b1=3"))
    ask(adj)
    outcome = adj.receive(Answer("a1-b1", 5))  # seat 4 moves the team's worker up
    assert outcome == Outcome(4, T.CLIMB, "", (2, 1, 2, 1), 4)


def test_four_seats_a_fault_between_turns_loses_at_that_seat_s_turn() -> None:
    adj = game(FOUR)
    ask(adj)
    adj.receive(Forfeit(seat=2, kind=T.CRASH, detail="exited"))
    play_first(adj)
    play_first(adj)
    assert adj.next_request() == Outcome(2, T.CRASH, "exited", (2, 1, 2, 1), 3)
    assert len(adj.moves) == 2


# --- the reason line and the record ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (Outcome(1, T.CLIMB, "", (1, 2, 2), 1), "A wins by climbing to level 3"),
        (Outcome(1, T.CLIMB, "", (1, 3, 2), 1, (Elimination(1, T.TIME, "by 5 ms", 3, 4),)),
         "A wins by climbing to level 3 (out before: B loses on time by 5 ms)"),
        (Outcome(3, T.NO_MOVES, "", (2, 3, 1), 1, (Elimination(1, T.CRASH, "exited", 3, 4),)),
         "A has no legal turn, so C wins as the last player in (out before: B disconnects: exited)"),
        (Outcome(2, T.ILLEGAL, "'a1-a1'", (2, 1, 2, 1), 3), "C makes an illegal turn: 'a1-a1': B and D win"),
        (Outcome(4, T.PAN_DROP, "", (2, 1, 2, 1), 4), "D wins by Pan's drop: B and D win"),
    ],
)
def test_the_reason_names_the_winner_and_every_seat_that_left(outcome: Outcome, reason: str) -> None:
    assert outcome.reason(("A", "B", "C", "D")[: len(outcome.placings)]) == reason


def test_a_team_of_one_engine_is_named_once() -> None:
    outcome = Outcome(2, T.TIME, "by 3 ms", (2, 1, 2, 1), 1)
    assert outcome.reason(("A", "B", "A", "B")) == "A loses on time by 3 ms: B wins"


def test_an_eliminated_engine_is_told_its_own_place_only() -> None:
    assert Elimination(1, T.TIME, "", 3, 0).notice(3) == (None, 3, None)


def test_the_record_has_every_player_the_placings_and_the_eliminations() -> None:
    adj = game(opening=BOXED_2)
    climb_after_seat_2_is_out(adj)
    record = adj.record(("A", "B", "C"))
    assert record.tag("Player3") == "C" and record.tag("Result") == "1-3-2"
    assert record.eliminations == (RecordedElimination(1, 2, "no-moves", "player 2 has no complete turn"),)
    assert record.tag("Gods") == "apollo/pan/atlas"
    assert check_record(record) == [] and parse_sgn(format_sgn(record)) == [record]
    four = game(FOUR, opening=pos(FOUR, "d1 e1", "a1 a2", to_move=4, heights="a1=2 b1=3"))
    ask(four)
    four.receive(Answer("a1-b1", 5))
    record = four.record(("A", "B", "C", "D"))
    assert (record.tag("Player4"), record.tag("Result"), record.eliminations) == ("D", "2-1-2-1", ())
    assert check_record(record) == []


def test_a_fault_elimination_is_recorded_so_the_game_replays() -> None:
    """Seat 1 loses on time at its first turn: nothing in the turns says so, the record must."""
    adj = game(tc=TimeControl(1000, 0))
    ask(adj)
    adj.receive(Answer("a1,a2", 1200))
    for _ in range(3):
        play_first(adj)
    adj.receive(Abort(detail="stopped"))  # an aborted game keeps its eliminations too
    record = adj.record(("A", "B", "C"))
    assert record.eliminations == (RecordedElimination(0, 1, "time", "by 200 ms"),)
    assert record.result == "*" and len(record.turns) == 3
    assert check_record(record) == [] and parse_sgn(format_sgn(record)) == [record]
    assert Outcome.from_record(record) == Outcome(None, T.ABORTED, "stopped")
