"""``santorini adapter cpp-santorini --binary PATH``: PaMeirelles/cpp-santorini as an SEI engine.

SPEC.md section 20.4.  The engine speaks a UCI-like dialect on stdin/stdout:

* ``position <25 squares><side>``: a1, b1, ... e1, a2, ... e5, each square its height (``0``-``3``,
  ``4`` a dome) and ``G`` (player 1's worker, "gray"), ``B`` (player 2's, "blue") or ``N``; then
  ``0`` when gray is to move, ``1`` for blue.  It answers ``Position set.`` (a parse error goes to
  stderr instead).
* ``go gtime MS btime MS``: it thinks a tenth of the mover's time and answers ``bestmove
  <from><to><build>`` (``b2c3b2``); a winning climb still carries a build square (its from
  square); with no move the line is ``bestmove `` with nothing after it.
* ``isready`` -> ``readyok``; ``quit``.  There is no ``stop``, no placement phase, no gods.

What the adapter does about it: the base game only (no ``gods`` line); placement by
:func:`~.common.random_placement` (its ``id`` line says so); the climb's build square dropped;
an empty ``bestmove`` resigns (with an ``info string``); a fresh process per search, two kept
started ahead (:class:`~.common.Spare`), because a process reused across positions once played
an illegal move from a stale hash entry and it has no command to clear its table (on a machine
too loaded to start one within a quarter of the budget, the previous process searches again
rather than lose on time); a hash table
of ``--hash`` MB (default 62) instead of its 1,000 MB, chosen through the engine's own fallback
on a failed allocation (:data:`HASH_SIZES_MB`), so a fresh process starts in 0.12-0.15 s
instead of 0.7 s; and a clock of ten times the thinking budget, so its tenth is what the
adapter can afford.
"""

from __future__ import annotations

import random
import threading

import click

from santorini_engines.sei_bot import Info, Limits, Option, run_bot

from ..rules import Position, parse_square
from .common import ForeignProcess, Spare, budget_seconds, judge, random_placement, wins_alone, wire_token

__all__ = ["cpp_position", "cpp_turn", "command", "ENGINE", "PLACEMENT"]

ENGINE = "cpp-santorini"
#: How the adapter places, as its ``id name`` line says it.
PLACEMENT = "placement: random (the engine has no placement phase)"
#: Seconds kept off the budget for the round trip and the engine's overshoot: it reads its clock
#: every 1,000 nodes and answered up to 35 ms after its own target on a two-core machine at load 12.
RESERVE_S = 0.040
#: The engine spends ``remaining / 10`` (its ``getTime``): the clock sent is ten times the budget.
TIME_DIVISOR = 10
#: How long a fresh process may take to answer ``isready`` (it clears its hash table first).
START_TIMEOUT_S = 30.0
#: The hash sizes the engine can have: it asks for 1,000 MB and halves the request while
#: ``malloc`` fails (``allocateHashTable``), so an address-space limit just above a size picks it.
HASH_SIZES_MB = (1000, 500, 250, 125, 62, 31)
#: Address space the engine needs besides its table (measured: under 8 MB), with room to spare.
BASE_SPACE_MB = 32
#: How long past its budget the adapter waits for a ``bestmove`` before it gives the engine up.
GRACE_S = 5.0
#: Share of the budget a search waits for a fresh process before it reuses the previous one.
REUSE_AFTER = 0.25

_FILES = "abcde"


def _index_square(i: int) -> int:
    """Our square (index from a5, SPEC.md section 2.1) of the engine's square ``i`` (from a1)."""
    return (4 - i // 5) * 5 + i % 5


_ORDER = [_index_square(i) for i in range(25)]


def cpp_position(position: Position) -> str:
    """The engine's ``position`` argument for a two-seat base-game position with workers placed."""
    gray, blue = position.workers
    cells = []
    for sq in _ORDER:
        bit = 1 << sq
        mark = "G" if gray & bit else "B" if blue & bit else "N"
        cells.append(f"{position.level(sq)}{mark}")
    return "".join(cells) + ("0" if position.to_move == 0 else "1")


def _is_square(text: str) -> bool:
    return len(text) == 2 and text[0] in _FILES and text[1] in "12345"


def cpp_turn(position: Position, move: str) -> str:
    """The STN spelling of the engine's ``<from><to><build>``: the build dropped when the move wins
    (a climb onto level 3: our winning turn has none, SPEC.md section 1.4).  Anything that is not
    three squares comes back as it is, for the referee to refuse."""
    if len(move) != 6 or not all(_is_square(move[i : i + 2]) for i in (0, 2, 4)):
        return move
    src, dst, build = move[0:2], move[2:4], move[4:6]
    if wins_alone(position, parse_square(src), parse_square(dst), f"{src}-{dst}"):
        return f"{src}-{dst}"
    return f"{src}-{dst}+{build}"


class _Adapter:
    def __init__(self, binary: str, hash_mb: int) -> None:
        self.binary = binary
        self.address_space = None if hash_mb >= HASH_SIZES_MB[0] else (hash_mb + BASE_SPACE_MB) << 20
        self.rng = random.Random()
        self.spare: Spare | None = None
        self.last: ForeignProcess | None = None

    def start(self) -> ForeignProcess:
        proc = ForeignProcess([self.binary], address_space=self.address_space)
        proc.send("isready")
        proc.expect(lambda line: line == "readyok", START_TIMEOUT_S)
        return proc

    def choose(self, position: Position, limits: Limits, stop: threading.Event, info: Info) -> str:
        if position.is_placement:
            return random_placement(position, self.rng)
        proc = self.process(budget_seconds(limits, position.player, RESERVE_S), info)
        think = budget_seconds(limits, position.player, RESERVE_S)
        proc.send("position " + cpp_position(position))
        proc.expect(lambda line: line == "Position set.", START_TIMEOUT_S)
        clock = max(TIME_DIVISOR, int(think * 1000) * TIME_DIVISOR)
        proc.send(f"go gtime {clock} btime {clock}")
        line = proc.expect(lambda line: line.split()[:1] == ["bestmove"], think + GRACE_S)
        words = line.split()
        if len(words) == 1:
            info(f"string {ENGINE} answered an empty bestmove (it finds no move): resigning")
            return "resign"
        move = " ".join(words[1:])
        return judge(position, cpp_turn(position, wire_token(move)), move, info, ENGINE)

    def process(self, think: float, info: Info) -> ForeignProcess:
        """A fresh process if one is ready within a quarter of the budget (the previous one then
        quits, off the clock); else, on a machine too loaded to start one in time, the previous
        process again rather than a time loss."""
        assert self.spare is not None
        fresh = self.spare.take(think * REUSE_AFTER if self.last is not None else None)
        if fresh is None:
            assert self.last is not None
            if self.last.proc.poll() is None:
                info("string no fresh process ready in time: the previous one searches again")
                return self.last
            fresh = self.spare.take()
            assert fresh is not None
        if self.last is not None:
            self.last.close(wait=False)
        self.last = fresh
        return fresh

    def close(self) -> None:
        if self.last is not None:
            self.last.close(wait=False)
        if self.spare is not None:
            self.spare.close()


@click.command(name="cpp-santorini")
@click.option("--binary", required=True, type=click.Path(exists=True, dir_okay=False), help="The engine's built program.")
@click.option(
    "--hash",
    "hash_mb",
    type=click.Choice([str(size) for size in HASH_SIZES_MB]),
    default="62",
    show_default=True,
    help="Hash table MB of each (fresh) engine process.",
)
def command(binary: str, hash_mb: str) -> None:
    """PaMeirelles/cpp-santorini (branch cyan) as an SEI engine: base game, random placement."""
    adapter = _Adapter(binary, int(hash_mb))
    seed = Option("Seed", "spin", default=0, min=0, max=2**31 - 1)
    seed.on_change = lambda value: adapter.rng.seed(value or None)
    adapter.spare = Spare(adapter.start)  # the first process starts while the referee shakes hands
    try:
        run_bot(
            adapter.choose,
            name=f"{ENGINE} ({PLACEMENT})",
            author="PaMeirelles, through santorini-server's adapter",
            options=[seed],
            gods=(),
            verbatim=True,
            on_newgame=lambda gods: adapter.spare.wait_ready() if adapter.spare else None,
        )
    finally:
        adapter.close()
