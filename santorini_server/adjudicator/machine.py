"""The game adjudicator: one pure state machine that rules every game, whoever drives it.

Theory of operation (h11's ``Connection``, for a game instead of a connection).  The
:class:`Adjudicator` holds the position, both clocks (as numbers: it never reads the time),
the seats, the turns played and the outcome.  A driver -- the match and tournament loop, the
Dask worker, ``santorini play``, ``santorini check``, a server -- does the I/O and nothing else::

    step = adjudicator.next_request()
    while isinstance(step, Request):
        ...send step.position and step.go to seat step.seat, wait at most step.allowance_ms...
        step = adjudicator.receive(Answer(turn=..., elapsed_ms=..., info=...))  # or another event
    outcome = step

Every decision lives here, once: a side with no complete turn loses before it is asked
(``no-moves``); a reply is charged to the mover's clock first and then judged (SPEC.md
section 6: "Order of checks on a reply: the clock first, then the ``bestmove``.  A turn
that is both late and illegal loses on ``time``"); a resignation, a malformed or illegal turn,
a missed deadline and an engine failure each end the game with one wording of their detail
(the one tools parse, see :meth:`Outcome.reason`); a refused turn's detail is the quoted turn
(``'c4-b5'``, ``malformed 'B2,B3'``), then ``: `` and the rules' reason for refusing it.

A person's seat (``humans=``) differs in two ways only: its clock is charged and recorded but
never enforced, and a turn it types that is malformed or illegal is not a loss -- ``receive``
raises the rules' :class:`~santorini_server.rules.NotationError` and nothing changes, so the
driver can say why and ask again.

States: *ready* (no turn asked for), *asking* (a :class:`Request` is out), *over* (an
:class:`Outcome`).  ``next_request`` moves ready to asking (or over, for ``no-moves``) and
repeats the outstanding request while asking; a turn event (:class:`Answer`,
:class:`Resignation`, :class:`NoReply`) is accepted only while asking; :class:`Forfeit` and
:class:`Abort` are accepted at any time before the end.  Anything after the end, or a turn event
with no request out, is the driver's bug: :class:`AdjudicationError`, and nothing changes.

Three and four seats (SPEC.md section 15).  There is a clock per seat and ``go`` states every
seat's clock and increment.  With four seats a seat that has no complete turn or faults loses
the game for its team.  With three seats it is eliminated instead (its workers leave the board)
and the game goes on for the others until one wins or only one is left; each elimination is
appended to :attr:`Adjudicator.eliminations`, which a driver reads to tell that seat's engine
its ``result`` and to ask it nothing more, and from then on ``position`` states the SPS right
after it and the turns since (a seat that left by a fault left no trace in the turns).  A
:class:`Forfeit` of a seat that is not to move (an engine that failed between its turns) takes
effect at the start of that seat's next turn: its workers stay until then, so a game's positions
stay a function of the turns played and its record replays exactly.  Two-seat games are ruled
exactly as before (a forfeit ends them at once).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..records import GameRecord, TurnRecord
from ..rules import IllegalTurnError, MalformedTurnError, Position
from ..sei.messages import Go, Info, PositionCommand
from ..termination import Termination
from .clock import Clock
from .events import Abort, Answer, Event, Forfeit, NoReply, Request, Resignation
from .outcome import Elimination, Outcome
from .record import UNKNOWN_DATE, cut_detail, make_record, turn_record
from .setup import GameSetup

__all__ = ["Adjudicator", "AdjudicationError", "GameReport"]


class AdjudicationError(RuntimeError):
    """The driver gave an event the game's state does not accept (a bug in the driver)."""


@dataclass(frozen=True)
class GameReport:
    """The finished game: its outcome, its record, and what the engines' clocks said."""

    outcome: Outcome
    record: GameRecord
    final_position: Position
    """Where the game ended (the start, for a game forfeited before its first turn)."""
    engine_seconds: float = 0.0
    """Sum of the engines' answered thinking times (for overhead measurements)."""

    @property
    def final_sps(self) -> str:
        """The final position's SPS, formatted on demand."""
        return self.final_position.sps()


class Adjudicator:
    """One game's referee, without I/O (see the module docstring for the protocol).

    Args:
        setup: gods or opening, time controls and margins, and the record's tags.
        humans: seats (0 for player 1, 1 for player 2, ...) played by a person.
        clocks: start from these clocks (one per seat) instead of full ones (they are charged
            in place), e.g. to judge one turn of a position with given times left.

    Raises:
        ValueError: the setup's time controls or margins do not fit the seat count.
    """

    def __init__(
        self, setup: GameSetup, *, humans: Collection[int] = (), clocks: tuple[Clock, ...] | None = None
    ) -> None:
        self.setup = setup
        self.humans = frozenset(humans)
        self._position = Position.from_sps(setup.opening) if setup.opening else Position.start(setup.gods)
        self.nseats = self._position.nseats
        self.clocks = clocks or setup.clocks(self.nseats)
        if len(self.clocks) != self.nseats:
            raise ValueError(f"{len(self.clocks)} clocks for a {self.nseats}-seat game")
        # each seat's increment as ``go`` states it: only a seat with a clock has one
        self._incs = tuple(c.tc.inc_ms if c.tc.base_ms is not None else None for c in self.clocks)
        self._eliminations: list[Elimination] = []
        # three and four seats: faults of seats not to move, ruled at the start of their next turn
        self._pending: dict[int, tuple[Termination, str]] = {}
        # what ``position`` states: the opening (or, after a three-seat elimination, the position
        # then) and the canonical turns played since
        self._base = setup.opening
        self._moves: list[str] = []
        # each checked turn's facts (canonical STN, ms charged, telemetry); records are made at the end
        self._played: list[tuple[str, int, Info | None]] = []
        self._request: Request | None = None
        self._outcome: Outcome | None = None
        self._engine_seconds = 0.0

    # --- state ------------------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position now (before the outstanding request's turn)."""
        return self._position

    @property
    def moves(self) -> tuple[str, ...]:
        """The canonical turns played so far, from the start."""
        return tuple(stn for stn, _, _ in self._played)

    @property
    def turns(self) -> tuple[TurnRecord, ...]:
        """The turns played so far as the record holds them (time charged, engine telemetry)."""
        return tuple(turn_record(stn, ms, info) for stn, ms, info in self._played)

    @property
    def turn_count(self) -> int:
        """How many turns have been played (cheap: a live observer reads it after every ruling)."""
        return len(self._played)

    def turn_at(self, k: int) -> TurnRecord:
        """The ``k``-th turn played (from 0) as the record will hold it."""
        stn, ms, info = self._played[k]
        return turn_record(stn, ms, info)

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        return self._outcome

    @property
    def eliminations(self) -> tuple[Elimination, ...]:
        """Three seats: the seats that have left the game so far, in order (the one whose leaving
        ended the game included).  Always empty with two or four seats."""
        return tuple(self._eliminations)

    @property
    def out_seats(self) -> frozenset[int]:
        """Seats the driver must ask nothing more: eliminated, or with a fault waiting for their turn."""
        return frozenset(e.seat for e in self._eliminations) | self._pending.keys()

    # --- the protocol -----------------------------------------------------------------------

    def next_request(self) -> Request | Outcome:
        """What to ask the mover for (the same request until it is answered), or the outcome."""
        if self._outcome is not None:
            return self._outcome
        if self._request is not None:
            return self._request
        pos = self._position
        if self._pending and pos.to_move in self._pending:
            return self._seat_out(pos.to_move, *self._pending.pop(pos.to_move))
        if pos.is_lost():
            return self._lose(pos.to_move, Termination.NO_MOVES, f"player {pos.player} has no complete turn")
        seat = pos.to_move
        self._request = Request(
            seat=seat,
            position=PositionCommand.unchecked(self._base, tuple(self._moves)),
            go=self._go(seat),
            allowance_ms=math.inf if seat in self.humans else self.clocks[seat].allowance_ms(),
        )
        return self._request

    def receive(self, event: Event) -> Request | Outcome:
        """Rule on what the driver observed; return the next request or the outcome.

        Raises:
            AdjudicationError: the event does not fit the state (nothing changes).
            MalformedTurnError, IllegalTurnError: a person's :class:`Answer` is not a legal
                turn (nothing changes; ask again).
        """
        if self._outcome is not None:
            raise AdjudicationError(f"the game is over ({self._outcome.termination}): {event!r} came too late")
        if isinstance(event, Forfeit):
            return self._forfeit(event)
        if isinstance(event, Abort):  # the seats that left stay in the record (it replays)
            return self._end(Outcome(None, Termination.ABORTED, event.detail, eliminated=tuple(self._eliminations)))
        request = self._request
        if request is None:
            raise AdjudicationError(f"no turn was asked for: {event!r}")
        seat = request.seat
        human = seat in self.humans
        if isinstance(event, NoReply):
            if human:
                raise AdjudicationError("a person's turn has no deadline")
            over = self.clocks[seat].charge(event.elapsed_ms) or 0.0
            return self._lose(seat, Termination.TIME, f"by {max(1, math.ceil(over))} ms (no reply by the deadline)")
        transition = None
        if human and isinstance(event, Answer):
            transition = self._position.play(event.turn)  # raises for a mistyped turn: ask again
        # the clock first, then the answer
        overrun = self.clocks[seat].charge(event.elapsed_ms)
        if not human:
            self._engine_seconds += event.elapsed_ms / 1000
            if overrun is not None:
                return self._lose(seat, Termination.TIME, f"by {math.ceil(overrun)} ms")
        if isinstance(event, Resignation):
            return self._lose(seat, Termination.RESIGN, "the human resigned" if human else "bestmove resign")
        if transition is None:
            try:
                transition = self._position.play(event.turn)
            except MalformedTurnError as exc:
                return self._lose(seat, Termination.ILLEGAL, "malformed " + cut_detail(repr(event.turn)) + _why(exc))
            except IllegalTurnError as exc:
                return self._lose(seat, Termination.ILLEGAL, cut_detail(repr(event.turn)) + _why(exc))
        self._played.append((transition.stn, round(event.elapsed_ms), event.info))
        self._moves.append(transition.stn)
        self._position = transition.position
        self._request = None
        if transition.win:
            tag = transition.termination
            assert tag is not None  # every winning turn says how it wins
            return self._win(seat, Termination(tag))
        return self.next_request()

    # --- the finished game ------------------------------------------------------------------

    def record(self, names: Sequence[str], *, date: str = UNKNOWN_DATE) -> GameRecord:
        """The finished game's record, with ``names`` as Player1, Player2, ... and ``date``
        (``YYYY.MM.DD``) as its Date tag.

        Raises:
            AdjudicationError: the game is not over (abort it first).
        """
        if self._outcome is None:
            raise AdjudicationError("the game is not over: no record yet (send Abort to stop it)")
        return make_record(self.setup, names, self._outcome, self.turns, date=date)

    def report(self, names: Sequence[str], *, date: str = UNKNOWN_DATE) -> GameReport:
        """The finished game's :class:`GameReport` (raises as :meth:`record` does)."""
        record = self.record(names, date=date)
        assert self._outcome is not None
        return GameReport(self._outcome, record, self._position, self._engine_seconds)

    # --- helpers ----------------------------------------------------------------------------

    def _go(self, seat: int) -> Go:
        """The ``go`` line: every clock (never negative on the wire) and the mover's own limits."""
        if self.nseats != 2:
            return self._go_n(seat)
        c1, c2 = self.clocks
        clock = self.clocks[seat]
        tc = clock.tc
        p1inc, p2inc = self._incs
        return Go(
            p1time=c1.wire_ms,
            p2time=c2.wire_ms,
            p1inc=p1inc,
            p2inc=p2inc,
            movestogo=clock.movestogo,
            movetime=tc.movetime_ms,
            depth=tc.depth,
            nodes=tc.nodes,
        )

    def _go_n(self, seat: int) -> Go:
        """:meth:`_go` for three and four seats: ``p3time``/``p3inc`` (and seat 4's) join in."""
        clocks = self.clocks
        incs = self._incs
        tc = clocks[seat].tc
        four = self.nseats == 4
        return Go(
            p1time=clocks[0].wire_ms,
            p2time=clocks[1].wire_ms,
            p3time=clocks[2].wire_ms,
            p4time=clocks[3].wire_ms if four else None,
            p1inc=incs[0],
            p2inc=incs[1],
            p3inc=incs[2],
            p4inc=incs[3] if four else None,
            movestogo=clocks[seat].movestogo,
            movetime=tc.movetime_ms,
            depth=tc.depth,
            nodes=tc.nodes,
        )

    def _lose(self, seat: int, termination: Termination, detail: str) -> Request | Outcome:
        """``seat`` (to move) lost its turn: two seats, the game; more, see :meth:`_seat_out`."""
        if self.nseats == 2:
            return self._end(Outcome(2 - seat, termination, detail))
        return self._seat_out(seat, termination, detail)

    def _forfeit(self, event: Forfeit) -> Request | Outcome:
        seat = event.seat
        if not 0 <= seat < self.nseats:
            raise AdjudicationError(f"no seat {seat} (0 is player 1, ..., {self.nseats - 1} is player {self.nseats}): {event!r}")
        detail = cut_detail(event.detail)
        if self.nseats == 2:
            return self._end(Outcome(2 - seat, event.kind, detail))
        if seat in self.out_seats:
            raise AdjudicationError(f"player {seat + 1} is already out of the game: {event!r}")
        if seat == self._position.to_move:
            self._request = None
            return self._seat_out(seat, event.kind, detail)
        self._pending[seat] = (event.kind, detail)  # ruled at the start of its next turn
        return self.next_request()

    def _seat_out(self, seat: int, termination: Termination, detail: str) -> Request | Outcome:
        """Three or four seats: ``seat``, to move, has no complete turn or faulted.

        Four seats: its team loses.  Three seats: it leaves the game (SPEC.md section 15.2) and
        the next seat still in is asked, or, with one seat left, that seat has won.
        """
        pos = self._position
        self._request = None
        if self.nseats == 4:
            placings = tuple(2 if s & 1 == seat & 1 else 1 for s in range(4))
            return self._end(Outcome((seat + 1) % 2 + 1, termination, detail, placings, seat + 1))
        placing = len(pos.live_seats)
        elimination = Elimination(seat, termination, detail, placing, len(self._played))
        self._eliminations.append(elimination)
        after = pos.eliminate()
        if after is not None:
            # ``position`` restarts from here: an engine cannot tell a fault from the turns
            self._position = after
            self._base = after.sps()
            self._moves = []
            return self.next_request()
        winner = next(s for s in pos.live_seats if s != seat)
        placings = tuple(self._placing(s, winner) for s in range(3))
        earlier = tuple(self._eliminations[:-1])
        return self._end(Outcome(winner + 1, termination, detail, placings, seat + 1, earlier))

    def _placing(self, seat: int, winner: int) -> int:
        """Three seats: first for the winner, an eliminated seat's own place, else tied second."""
        if seat == winner:
            return 1
        return next((e.placing for e in self._eliminations if e.seat == seat), 2)

    def _win(self, seat: int, termination: Termination) -> Outcome:
        """``seat`` made a winning turn: it (two or three seats) or its team (four) wins."""
        n = self.nseats
        if n == 2:
            return self._end(Outcome(seat + 1, termination))
        if n == 4:
            placings = tuple(1 if s & 1 == seat & 1 else 2 for s in range(4))
        else:
            placings = tuple(self._placing(s, seat) for s in range(3))
        return self._end(Outcome(seat + 1, termination, "", placings, seat + 1, tuple(self._eliminations)))

    def _end(self, outcome: Outcome) -> Outcome:
        self._outcome = outcome
        self._request = None
        return outcome


def _why(exc: MalformedTurnError | IllegalTurnError) -> str:
    """The rules' reason, appended to the quoted turn (tools parse the part before it)."""
    return f": {exc.reason}" if exc.reason else ""  # the rules' own words, bounded: never cut
