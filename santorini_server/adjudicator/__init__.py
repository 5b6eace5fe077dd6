"""The game adjudicator: a pure state machine that rules every game (no trio, no files, no clock).

Drivers (``referee.play_game``, ``santorini play``, ``santorini check``) do the I/O and feed it
what they observed; see :mod:`.machine` for the protocol.
"""

from .clock import DEFAULT_HARD_DEADLINE_MS as DEFAULT_HARD_DEADLINE_MS
from .clock import Clock as Clock
from .clock import TimeControl as TimeControl
from .clock import parse_tc as parse_tc
from .clock import tc_warnings as tc_warnings
from .events import Abort as Abort
from .events import Answer as Answer
from .events import Event as Event
from .events import Forfeit as Forfeit
from .events import NoReply as NoReply
from .events import Request as Request
from .events import Resignation as Resignation
from .machine import AdjudicationError as AdjudicationError
from .machine import Adjudicator as Adjudicator
from .machine import GameReport as GameReport
from .outcome import Elimination as Elimination
from .outcome import Outcome as Outcome
from .outcome import placings_text as placings_text
from .record import MAX_DETAIL as MAX_DETAIL
from .record import cut_detail as cut_detail
from .record import make_record as make_record
from .record import score_text as score_text
from .record import turn_record as turn_record
from .setup import GameSetup as GameSetup

__all__ = [
    "Adjudicator", "AdjudicationError", "GameReport",
    "Request", "Answer", "Resignation", "NoReply", "Forfeit", "Abort", "Event",
    "Outcome", "Elimination", "placings_text", "GameSetup",
    "TimeControl", "Clock", "parse_tc", "tc_warnings", "DEFAULT_HARD_DEADLINE_MS",
    "make_record", "turn_record", "score_text", "cut_detail", "MAX_DETAIL",
]
