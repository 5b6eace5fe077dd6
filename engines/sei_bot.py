"""Write a Santorini engine in one function: this module speaks SEI for you.

A bot is a ``choose`` function.  :func:`run_bot` runs the whole engine side of SEI
(SPEC.md section 4) around it: the handshake, options, ``newgame``, ``position``,
clocks, ``isready`` at any time (the search runs in a worker thread while the main thread
keeps reading stdin), ``stop``, exactly one ``bestmove`` per ``go``, ``legalmoves``,
``perft``, ``quit`` and EOF.  ``choose`` is only called for a position with at least one
legal turn (otherwise the helper answers ``bestmove resign`` itself), and whatever it
returns is checked: an illegal answer or an exception becomes an ``info string`` and a
legal fallback, never a crash.  A complete bot, the bundled random engine::

    import random
    import threading
    from typing import Callable

    from santorini_engines.sei_bot import Limits, Option, run_bot
    from santorini_server.rules import Position

    seed = Option("Seed", "spin", default=0, min=0, max=2**31 - 1)   # 0: seed from the clock
    rng = random.Random()

    def choose(position: Position, limits: Limits, stop: threading.Event,
               info: Callable[[str], None]) -> str:
        turns = position.legal_turns()          # canonical STN strings, never empty here
        info(f"string {len(turns)} legal turns")
        return rng.choice(turns)                # or "resign"

    def main() -> None:
        seed.on_change = lambda value: rng.seed(value or None)
        raise SystemExit(run_bot(choose, name="Random", author="Me", options=[seed]))

    if __name__ == "__main__":
        main()

Rules of thumb for ``choose``: return a canonical turn (anything from
``position.legal_turns()`` or ``Transition.stn``); poll ``stop.is_set()`` and return your best
turn so far soon after it is set; spend at most ``limits.budget_for(position.player)`` seconds
(``None`` means "until stop"), counted from ``limits.started`` (``time.monotonic()`` when ``go``
arrived); report progress with ``info("depth 3 score cp 12 nodes 5000 pv b3-b4+c5")``.

Three and four seats (SPEC.md section 15) are opt-in: ``run_bot(..., players=(2, 3, 4))``
declares ``feature players 2 3 4`` and accepts such games; without it the bot says nothing and
answers a 3- or 4-god ``newgame`` with an error, so an existing bot never claims a game it has not
been written for.  ``position.player`` is then the seat to move (1..N), ``position.nseats`` the
number of seats, and ``limits.time(seat)``/``limits.inc(seat)`` every seat's clock.  In a 3-seat
game a seat that has no complete turn leaves the game: the helper applies that when it replays a
``position`` (``Position.eliminate``), so ``choose`` always sees a seat that can move.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TextIO

from santorini_server.rules import GODS, SEAT_COUNTS, NotationError, Position, check_gods, perft

__all__ = ["ALL", "Limits", "Option", "Choose", "Info", "run_bot", "SEI_VERSION"]

#: Every god the rules core implements (``mortal`` included); the default of ``run_bot(gods=)``.
ALL: tuple[str, ...] = GODS
#: Highest protocol version this helper speaks (SPEC.md section 4.3: ``seiok <version>``).
SEI_VERSION = 1
#: Kept off every clock budget: thread wake-up, the pipe and the referee's read loop take a few ms
#: (the same idea as cutechess/fastchess ``timemargin``, from the engine's side).
SAFETY_MARGIN = 0.015
#: Fraction of the remaining clock a single turn may take at most (never bet the game on one turn).
MAX_FRACTION = 1 / 3
#: Turns assumed left when the referee sends no ``movestogo`` (games last ~15-40 turns per side).
DEFAULT_MOVES_TO_GO = 20
#: Share of the increment spent on top of the base allotment (the rest builds a reserve).
INCREMENT_SHARE = 0.8

OptionType = Literal["spin", "check", "string", "combo", "button"]
Info = Callable[[str], None]


@dataclass(frozen=True)
class Limits:
    """The search limits of one ``go`` (SPEC.md section 4.2), times in milliseconds.

    ``None`` means the limit was not given; with no limit at all the bot searches until stop.
    """

    p1time: int | None = None
    p2time: int | None = None
    p3time: int | None = None
    p4time: int | None = None
    p1inc: int | None = None
    p2inc: int | None = None
    p3inc: int | None = None
    p4inc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    depth: int | None = None
    nodes: int | None = None
    infinite: bool = False
    started: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when ``go`` was read: budgets count from here, not from ``choose``."""

    def time(self, seat: int) -> int | None:
        """Milliseconds left on ``seat``'s clock (1..4), None if the ``go`` did not say."""
        return getattr(self, f"p{seat}time")

    def inc(self, seat: int) -> int | None:
        """``seat``'s increment in milliseconds (1..4), None if the ``go`` did not say."""
        return getattr(self, f"p{seat}inc")

    def budget_for(self, player: int) -> float | None:
        """Seconds seat ``player`` (1..4) should spend on this turn, or None for "until stop".

        Fischer clocks: ``remaining / movestogo(20) + 0.8 * increment``, capped at a third of the
        remaining time, minus :data:`SAFETY_MARGIN`; the increment reserve keeps a bot from
        flagging in long games.  ``movetime`` is a hard limit minus the margin.  The smaller of
        the two applies when both are given; ``infinite`` overrides both.
        """
        if self.infinite:
            return None
        budgets: list[float] = []
        if self.movetime is not None:
            mt = self.movetime / 1000
            budgets.append(max(0.0, mt - min(SAFETY_MARGIN, mt / 5)))
        remaining_ms = self.time(player)
        if remaining_ms is not None:
            remaining = remaining_ms / 1000
            inc_ms = self.inc(player)
            inc = (inc_ms or 0) / 1000
            moves = max(1, min(self.movestogo or DEFAULT_MOVES_TO_GO, DEFAULT_MOVES_TO_GO))
            base = remaining / moves + INCREMENT_SHARE * inc
            cap = remaining * (MAX_FRACTION if moves > 1 else 0.8) - SAFETY_MARGIN
            budgets.append(max(0.0, min(base, cap)))
        return min(budgets) if budgets else None


@dataclass
class Option:
    """An engine option, announced as UCI ``option name <name> type <type> ...`` at handshake.

    ``value`` holds the current value (the default until ``setoption``); ``on_change`` is called
    with the new, already validated value, so a bot can react (reseed, resize a table).
    """

    name: str
    type: OptionType
    default: int | bool | str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()
    on_change: Callable[[int | bool | str | None], None] | None = None
    value: int | bool | str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.value = self.default

    def announce(self) -> str:
        """The ``option ...`` handshake line."""
        parts = ["option", "name", self.name, "type", self.type]
        if self.default is not None and self.type != "button":
            default = str(self.default).lower() if isinstance(self.default, bool) else str(self.default)
            parts += ["default", default if default != "" else "<empty>"]
        if self.min is not None:
            parts += ["min", str(self.min)]
        if self.max is not None:
            parts += ["max", str(self.max)]
        for var in self.vars:
            parts += ["var", var]
        return " ".join(parts)

    def parse(self, text: str | None) -> int | bool | str | None:
        """Validate a ``setoption`` value for this option; raises ValueError with the reason."""
        if self.type == "button":
            return None
        if text is None:
            raise ValueError(f"option {self.name} needs a value")
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise ValueError(f"option {self.name} takes an integer, got {text!r}") from None
            if (self.min is not None and number < self.min) or (self.max is not None and number > self.max):
                raise ValueError(f"option {self.name} must be in {self.min}..{self.max}, got {number}")
            return number
        if self.type == "check":
            if text.lower() not in ("true", "false"):
                raise ValueError(f"option {self.name} takes true or false, got {text!r}")
            return text.lower() == "true"
        if self.type == "combo" and text not in self.vars:
            raise ValueError(f"option {self.name} takes one of {', '.join(self.vars)}, got {text!r}")
        return "" if text == "<empty>" else text


Choose = Callable[[Position, Limits, threading.Event, Info], str]

_GO_INT_KEYS = (
    "p1time", "p2time", "p3time", "p4time", "p1inc", "p2inc", "p3inc", "p4inc",
    "movestogo", "movetime", "depth", "nodes",
)  # fmt: skip


class _Engine:
    """The engine side of one SEI session: the main thread reads, a worker thread searches."""

    def __init__(
        self,
        choose: Choose,
        name: str,
        author: str,
        options: Sequence[Option],
        gods: Sequence[str],
        stdout: TextIO,
        on_newgame: Callable[[tuple[str, ...]], None] | None,
        players: Sequence[int] = (2,),
        verbatim: bool = False,
    ) -> None:
        self.choose = choose
        self.verbatim = verbatim
        self.name = name
        self.author = author
        self.options = {opt.name.lower(): opt for opt in options}
        self.option_order = list(options)
        self.gods = tuple(g for g in GODS if g in set(gods) | {"mortal"})
        self.players = tuple(sorted(set(players)))
        self.out = stdout
        self.on_newgame = on_newgame
        self.lock = threading.Lock()
        self.game_gods: tuple[str, ...] = ("mortal", "mortal")
        self.explicit_gods = False
        self.position: Position | None = Position.start(self.game_gods)
        self.debug = False
        self.search_id = 0
        self.searching = False
        self.stop_event = threading.Event()
        self.worker: threading.Thread | None = None

    # --- output -------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line and flush (SPEC.md section 4.1: the engine flushes after every line)."""
        with self.lock:
            self._write(line)

    def _write(self, line: str) -> None:
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the referee went away; the read loop sees EOF next and exits

    # --- dispatch -----------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Execute one command line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        cmd, args = tokens[0], tokens[1:]
        if self.debug:
            self.send(f"info string received {line.strip()}")
        handler = _COMMANDS.get(cmd)
        if handler is None:
            self.send(f"info string unknown command {line.strip()}")
            return True
        try:
            return handler(self, args) is not False
        except Exception as exc:  # never crash on input: report and keep going
            self.send(f"error {cmd}: {type(exc).__name__}: {exc}")
            return True

    def cmd_sei(self, args: list[str]) -> None:
        self.send(f"id name {self.name}")
        self.send(f"id author {self.author}")
        for opt in self.option_order:
            self.send(opt.announce())
        named = [g for g in self.gods if g != "mortal"]
        if named:
            self.send("gods " + " ".join(named))
        self.send("feature legalmoves perft")
        if self.players != (2,):
            self.send("feature players " + " ".join(map(str, self.players)))
        requested = SEI_VERSION
        if args and args[0].isdigit():
            requested = int(args[0])
        self.send(f"seiok {max(1, min(requested, SEI_VERSION))}")

    def cmd_isready(self, args: list[str]) -> None:
        self.send("readyok")

    def cmd_debug(self, args: list[str]) -> None:
        self.debug = bool(args) and args[0] == "on"

    def cmd_result(self, args: list[str]) -> None:
        return None  # a notice only (SPEC.md section 4.2)

    def cmd_quit(self, args: list[str]) -> bool:
        return False

    def _busy(self, cmd: str) -> bool:
        with self.lock:  # the bestmove line and the end of `searching` are one step under the lock
            busy = self.searching
        if busy:
            self.send(f"error {cmd} while searching (send stop and wait for bestmove)")
        return busy

    def cmd_setoption(self, args: list[str]) -> None:
        if self._busy("setoption"):
            return
        # setoption name <id with spaces> [value <x with spaces>]
        if not args or args[0] != "name":
            self.send("error setoption: expected 'setoption name <id> [value <x>]'")
            return
        if "value" in args:
            i = args.index("value")
            name, value = " ".join(args[1:i]), " ".join(args[i + 1 :])
        else:
            name, value = " ".join(args[1:]), None
        opt = self.options.get(name.lower())
        if opt is None:
            self.send(f"error unknown option {name}")
            return
        try:
            parsed = opt.parse(value)
        except ValueError as exc:
            self.send(f"error {exc}")
            return
        opt.value = parsed
        if opt.on_change is not None:
            opt.on_change(parsed)

    def _refuse_seats(self, seats: int) -> bool:
        """Answer an error for a game of ``seats`` seats the bot did not declare; True if refused."""
        if seats in self.players:
            return False
        plays = " ".join(map(str, self.players))
        self.send(f"error unsupported players {seats} (this engine plays {plays}: feature players)")
        return True

    def cmd_newgame(self, args: list[str]) -> None:
        if self._busy("newgame"):
            return
        gods: tuple[str, ...] = ("mortal", "mortal")
        # key value pairs; unknown future keys (``board 5x5``) are ignored
        for key, value in zip(args[::2], args[1::2], strict=False):
            if key == "gods":
                names = value.split("/")
                if len(names) not in SEAT_COUNTS or not all(names):
                    self.send(f"error bad gods {value!r}: expected 2 to 4 gods joined by '/', one per seat")
                    return
                gods = tuple(names)
        if self._refuse_seats(len(gods)):
            return
        for god in gods:
            if god not in self.gods:
                self.send(f"error unsupported god {god}")
                return
        try:
            check_gods(gods)
        except ValueError as exc:
            self.send(f"error {exc}")
            return
        self.game_gods = gods
        self.explicit_gods = True
        self.position = Position.start(gods)
        if self.on_newgame is not None:
            self.on_newgame(gods)

    def cmd_position(self, args: list[str]) -> None:
        if self._busy("position"):
            return
        self.position = None  # a failed position command leaves no position (go then resigns)
        if not args:
            self.send("error position: expected startpos or sps <SPS>")
            return
        if args[0] == "startpos":
            pos = Position.start(self.game_gods)
            rest = args[1:]
        elif args[0] == "sps" and len(args) >= 2:
            try:
                pos = Position.from_sps(args[1])
            except (NotationError, ValueError) as exc:
                self.send(f"error bad sps: {exc}")
                return
            if self._refuse_seats(pos.nseats):
                return
            for god in pos.gods:
                if god not in self.gods:
                    self.send(f"error unsupported god {god}")
                    return
            if self.explicit_gods and pos.gods != self.game_gods:
                self.send(f"error gods {'/'.join(pos.gods)} in sps do not match newgame {'/'.join(self.game_gods)}")
                return
            rest = args[2:]
        else:
            self.send("error position: expected startpos or sps <SPS>")
            return
        if rest and rest[0] != "moves":
            self.send(f"error position: expected 'moves', got {rest[0]!r}")
            return
        turns = rest[1:]
        for i, turn in enumerate(turns, 1):
            left = _leave_seats_without_a_turn(pos)
            if left is None or left.is_lost():
                self.send(f"error position: turn {i} {turn!r} played after the game ended")
                return
            try:
                transition = left.play(turn)
            except (NotationError, ValueError) as exc:
                self.send(f"error position: turn {i}: {exc}")
                return
            pos = transition.position
            if transition.win and i < len(turns):
                self.send(f"error position: turn {i} {turn!r} wins; nothing may follow it")
                return
        final = _leave_seats_without_a_turn(pos)
        if final is None:
            self.send("error position: one seat is left, the game is over")
            return
        self.position = final

    def cmd_legalmoves(self, args: list[str]) -> None:
        if self._busy("legalmoves") or not self._have_position("legalmoves"):
            return
        assert self.position is not None
        turns = sorted(self.position.legal_turns())
        self.send(" ".join(["legalmoves", str(len(turns)), *turns]))

    def cmd_perft(self, args: list[str]) -> None:
        if self._busy("perft") or not self._have_position("perft"):
            return
        assert self.position is not None
        if len(args) != 1 or not args[0].isdigit():
            self.send("error perft: expected 'perft <depth>'")
            return
        depth = int(args[0])
        count = 1 if depth == 0 else perft(self.position, depth)
        self.send(f"perft {depth} {count}")

    def _have_position(self, cmd: str) -> bool:
        if self.position is None:
            self.send(f"error {cmd}: no valid position (the last position command failed)")
            return False
        return True

    def cmd_stop(self, args: list[str]) -> None:
        self.stop_event.set()  # no search: nothing to do (UCI)

    def cmd_go(self, args: list[str]) -> None:
        started = time.monotonic()
        if self._busy("go"):
            return
        values: dict[str, int] = {}
        infinite = False
        i = 0
        while i < len(args):
            key = args[i]
            if key == "infinite":
                infinite = True
                i += 1
            elif key in _GO_INT_KEYS and i + 1 < len(args):
                try:
                    values[key] = int(args[i + 1])
                except ValueError:
                    self.send(f"info string ignoring go {key} {args[i + 1]!r}: not an integer")
                i += 2
            else:
                self.send(f"info string ignoring go parameter {key!r}")
                i += 1
        limits = Limits(infinite=infinite, started=started, **values)
        pos = self.position
        self.search_id += 1
        self.stop_event = threading.Event()
        if pos is None:
            self.send("info string no valid position (the last position command failed)")
            self.send("bestmove resign")
            return
        turns = pos.legal_turns()
        if not turns:
            self.send("bestmove resign")  # SPEC.md section 1.4: no complete turn = lost; the bot is never asked
            return
        self.searching = True
        self.worker = threading.Thread(
            target=self._search, args=(pos, turns, limits, self.stop_event, self.search_id), daemon=True
        )
        self.worker.start()

    def _search(self, pos: Position, turns: list[str], limits: Limits, stop: threading.Event, sid: int) -> None:
        def info(text: str) -> None:
            with self.lock:
                if self.searching and self.search_id == sid:  # never after this search's bestmove
                    self._write("info " + text)

        try:
            answer = self.choose(pos, limits, stop, info)
            if answer != "resign" and not self.verbatim:
                answer = pos.play(answer).stn if answer not in turns else answer
        except Exception as exc:
            if self.verbatim:  # an adapter's engine failed: the referee must see a crash, not a stand-in turn
                info(f"string engine failed: {type(exc).__name__}: {exc}")
                print(f"{self.name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                os._exit(1)
            info(f"string bot error {type(exc).__name__}: {exc}; playing {turns[0]} instead")
            answer = turns[0]
        if limits.infinite:
            stop.wait()  # UCI: in infinite mode the bestmove waits for stop, even if the search is done
        with self.lock:  # the main thread reads `searching` under this lock: no stale "busy"
            self.searching = False
            self._write(f"bestmove {answer}")


def _leave_seats_without_a_turn(pos: Position) -> Position | None:
    """Three seats: the position once every seat to move with no complete turn has left (SPEC.md
    section 15: elimination is not a turn); None when one seat is left.  Other positions as given."""
    while pos.nseats == 3 and pos.is_lost():
        after = pos.eliminate()
        if after is None:
            return None
        pos = after
    return pos


_COMMANDS: dict[str, Callable[[_Engine, list[str]], bool | None]] = {
    "sei": _Engine.cmd_sei,
    "isready": _Engine.cmd_isready,
    "setoption": _Engine.cmd_setoption,
    "newgame": _Engine.cmd_newgame,
    "position": _Engine.cmd_position,
    "go": _Engine.cmd_go,
    "stop": _Engine.cmd_stop,
    "result": _Engine.cmd_result,
    "debug": _Engine.cmd_debug,
    "quit": _Engine.cmd_quit,
    "legalmoves": _Engine.cmd_legalmoves,
    "perft": _Engine.cmd_perft,
}


def run_bot(
    choose: Choose,
    *,
    name: str,
    author: str,
    options: Sequence[Option] | None = None,
    gods: Sequence[str] = ALL,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    on_newgame: Callable[[tuple[str, ...]], None] | None = None,
    players: Sequence[int] = (2,),
    verbatim: bool = False,
) -> int:
    """Serve SEI on ``stdin``/``stdout`` with ``choose`` as the brain; returns the exit code (0).

    Returns on ``quit`` or EOF, also in the middle of a search (the search thread is a daemon
    and is told to stop; its ``bestmove`` is not awaited).  ``gods`` lists what the bot can
    play (``mortal`` is always included); ``newgame`` with any other god is answered
    ``error unsupported god <name>``.  ``on_newgame`` is called with the gods of each new game
    (clear tables, reseed).  ``players`` are the seat counts the bot plays (SPEC.md section 4.3,
    ``feature players``): 2 only unless the bot opts in, and a game of any other count is
    answered ``error unsupported players <n> ...``.  ``verbatim`` is for adapters of foreign engines
    (SPEC.md section 20.1): ``choose``'s answer is sent as it is, legal or not, so the referee rules an
    illegal one (never repaired), and an exception from ``choose`` ends the process (a ``crash``).

    Raises:
        ValueError: ``players`` names a count other than 2, 3 or 4.
    """
    bad = [n for n in players if n not in SEAT_COUNTS]
    if bad or not players:
        raise ValueError(f"players must be seat counts among {SEAT_COUNTS}, got {tuple(players)}")
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    engine = _Engine(choose, name, author, list(options or ()), gods, stdout, on_newgame, players, verbatim)
    while True:
        try:
            line = stdin.readline()
        except (OSError, ValueError, UnicodeDecodeError):
            line = ""
        if not line:  # EOF: the referee is gone
            break
        if not engine.handle(line):
            break
    engine.stop_event.set()
    if engine.worker is not None:
        engine.worker.join(timeout=0.2)
    return 0

