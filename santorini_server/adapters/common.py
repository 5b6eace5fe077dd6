"""What every adapter shares (SPEC.md section 20.1): the foreign process, the turn check, placement, time.

* :class:`ForeignProcess` runs the foreign engine with line I/O and timed reads (a reader thread
  feeds a queue, so a silent engine costs a timeout, never a hang); its stderr is the adapter's,
  so the referee's engine log keeps it.  :class:`Spare` keeps started processes ahead, for
  engines that need a fresh process per search: the start-up cost falls outside the clock.
* :func:`judge` checks the foreign turn with the rules core.  A legal turn is sent canonical; an
  illegal one is reported in an ``info string`` and sent as it is, so the referee rules it
  ``illegal`` with the foreign turn in the detail: an adapter never repairs a turn.
* :func:`random_placement` is the placement rule of engines without a placement phase.
* :func:`budget_seconds` is what the foreign engine may think: the helper's budget, less what
  the adapter has already spent since ``go`` and a reserve for its own round trip.
"""

from __future__ import annotations

import atexit
import collections
import ctypes
import os
import queue
import random
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence

from santorini_engines.sei_bot import Info, Limits

from ..rules import WIN_NONE, NotationError, Position, Square

__all__ = [
    "ForeignEngineError",
    "ForeignProcess",
    "Spare",
    "judge",
    "wire_token",
    "random_placement",
    "wins_alone",
    "budget_seconds",
    "DEFAULT_THINK_S",
]

#: Thinking time when ``go`` gives no clock and no movetime (``depth``/``nodes`` only, ``infinite``):
#: the foreign engines here cannot be stopped mid-search, so an adapter picks a bounded search.
DEFAULT_THINK_S = 1.0


class ForeignEngineError(RuntimeError):
    """The foreign engine died, went silent or answered what its interface does not allow."""


def _child_setup(address_space: int | None) -> Callable[[], None]:
    """What the child runs before exec: SIGKILL when the thread that started it ends (Linux
    ``PR_SET_PDEATHSIG``; cpp-santorini spins on end of input forever, so a foreign engine must
    never outlive an adapter the referee killed), and the address-space limit, if any."""

    def setup() -> None:
        try:
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (AttributeError, OSError):
            pass  # not Linux: close() and the exit hook still stop it
        if address_space is not None:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return setup


_PR_SET_PDEATHSIG = 1
_spawn_requests: queue.Queue[tuple[Callable[[], subprocess.Popen[bytes]], queue.Queue[object]]] = queue.Queue()
_live: set[subprocess.Popen[bytes]] = set()


def _spawner() -> None:
    # One thread lives as long as the adapter and starts every foreign process: the death signal
    # follows the thread that forked, and a short-lived thread would take its children with it.
    while True:
        start, reply = _spawn_requests.get()
        try:
            reply.put(start())
        except BaseException as exc:
            reply.put(exc)


def _spawn(argv: list[str], cwd: str | None, env: dict[str, str] | None, address_space: int | None) -> subprocess.Popen[bytes]:
    global _spawner_thread
    with _spawn_lock:
        if _spawner_thread is None:
            _spawner_thread = threading.Thread(target=_spawner, daemon=True, name="foreign-spawner")
            _spawner_thread.start()
            atexit.register(_kill_all)
    reply: queue.Queue[object] = queue.Queue()
    _spawn_requests.put(
        (
            lambda: subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=cwd,
                env=env,
                bufsize=0,
                preexec_fn=_child_setup(address_space),  # the child only calls prctl and setrlimit
            ),
            reply,
        )
    )
    result = reply.get()
    if isinstance(result, BaseException):
        raise result
    assert isinstance(result, subprocess.Popen)
    _live.add(result)
    return result


_spawn_lock = threading.Lock()
_spawner_thread: threading.Thread | None = None


def _kill_all() -> None:
    for proc in list(_live):
        if proc.poll() is None:
            proc.kill()


class ForeignProcess:
    """One foreign engine process speaking lines on stdin/stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        address_space: int | None = None,
    ) -> None:
        """Start ``argv`` (``address_space``: its RLIMIT_AS in bytes).  Raises ForeignEngineError
        if it cannot be started (one line)."""
        self.argv = list(argv)
        try:
            self.proc = _spawn(self.argv, cwd, env, address_space)
        except OSError as exc:
            raise ForeignEngineError(f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        for raw in iter(stdout.readline, b""):
            self.lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        self.lines.put(None)  # EOF

    def send(self, line: str) -> None:
        """Write one line.  Raises ForeignEngineError when the engine is gone."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ForeignEngineError(f"{self.name} is gone (exit status {self.proc.poll()})") from None

    @property
    def name(self) -> str:
        return os.path.basename(self.argv[0])

    def read_line(self, timeout: float) -> str:
        """The next line within ``timeout`` seconds.  Raises ForeignEngineError on EOF or timeout."""
        try:
            line = self.lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise ForeignEngineError(f"{self.name} sent nothing within {timeout:.1f} s") from None
        if line is None:
            self.lines.put(None)  # EOF stays EOF for every later read
            raise ForeignEngineError(f"{self.name} exited (status {self.proc.wait()})")
        return line

    def expect(self, wanted: Callable[[str], bool], timeout: float) -> str:
        """The first line ``wanted`` accepts within ``timeout`` seconds; other lines go to stderr."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline - time.monotonic())
            if wanted(line):
                return line
            print(f"{self.name}: {line}", file=sys.stderr, flush=True)

    def close(self, quit_line: str | None = "quit", *, wait: bool = True) -> None:
        """Ask the engine to quit, then kill it if it has not exited within half a second; with
        ``wait=False`` that happens on a thread, so a search's clock never pays for an exit."""
        if self.proc.poll() is None and quit_line is not None:
            try:
                self.send(quit_line)
            except ForeignEngineError:
                pass
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # end of input: how a line-reading engine knows to stop
        except OSError:
            pass
        if wait:
            self._reap()
        else:
            threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self) -> None:
        try:
            self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        _live.discard(self.proc)


class Spare:
    """A fresh foreign process for every search, each started (and made ready) ``ahead`` searches
    early, so that back-to-back searches (a fast opponent, ``santorini check``) find one ready too."""

    def __init__(self, start: Callable[[], ForeignProcess], ahead: int = 2) -> None:
        self._start = start
        self._queue: collections.deque[tuple[threading.Thread, list[ForeignProcess | BaseException]]] = collections.deque()
        for _ in range(ahead):
            self._launch()

    def _launch(self) -> None:
        box: list[ForeignProcess | BaseException] = []

        def work() -> None:
            try:
                box.append(self._start())
            except BaseException as exc:  # handed to take(), which raises it on the searching thread
                box.append(exc)

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        self._queue.append((thread, box))

    def take(self, timeout: float | None = None) -> ForeignProcess | None:
        """The oldest process once it is ready (another starts then), waiting at most ``timeout``
        seconds (None: as long as it takes); None if it is still starting by then."""
        thread, box = self._queue[0]
        thread.join(timeout)
        if thread.is_alive():
            return None
        self._queue.popleft()
        self._launch()
        taken = box[0]
        if isinstance(taken, BaseException):
            raise taken
        return taken

    def wait_ready(self) -> None:
        """Block until the next process has started (``newgame`` waits here, off the clock)."""
        if self._queue:
            self._queue[0][0].join()

    def close(self) -> None:
        for thread, box in self._queue:
            thread.join(timeout=5)
            if box and isinstance(box[0], ForeignProcess):
                box[0].close()


def wire_token(text: str) -> str:
    """``text`` as one printable-ASCII token for ``bestmove`` (SPEC.md section 4.1), so a foreign
    answer that is no turn at all still reaches the referee as an illegal turn, never as a
    protocol violation: whitespace becomes ``_``, other characters outside ``!``-``~`` become ``?``."""
    token = "".join(c if "!" <= c <= "~" else ("_" if c.isspace() else "?") for c in text.strip())
    return token or "(nothing)"


def judge(position: Position, candidate: str, foreign: str, info: Info, engine: str) -> str:
    """The turn to send for the foreign engine's answer ``foreign``, translated as ``candidate``.

    Legal in our rules: its canonical STN.  Not legal (or not STN): an ``info string`` naming the
    foreign answer and the rules' reason, and ``candidate`` as one token, unrepaired.
    """
    try:
        return position.play(candidate).stn
    except NotationError as exc:
        reason = getattr(exc, "reason", None) or str(exc)
        info(f"string {engine} answered {wire_token(foreign)!r}, {wire_token(candidate)!r} in STN: not legal here: {reason}")
        return wire_token(candidate)


def wins_alone(position: Position, src: Square, dst: Square, move: str) -> bool:
    """Whether the step ``move`` (``src`` to ``dst``) is by itself a legal winning turn here: then
    it takes no build (SPEC.md section 1.4), whatever build the foreign engine names.  The rules
    core decides; the filter before it (only a step onto level 3 or a drop of two levels, Pan's,
    can win) spares the ~0.5 ms the core spends explaining a refused turn."""
    if position.level(dst) != 3 and position.level(src) - position.level(dst) < 2:
        return False
    try:
        return position.play(move).win != WIN_NONE
    except NotationError:
        return False


def random_placement(position: Position, rng: random.Random) -> str:
    """Two empty squares drawn uniformly (every placement is equally likely): the placement rule
    of an engine with no placement phase, as its adapter's ``id`` line says."""
    return rng.choice(position.legal_turns())


def budget_seconds(limits: Limits, player: int, reserve: float, default: float = DEFAULT_THINK_S) -> float:
    """Seconds the foreign engine may think on this ``go``: the helper's budget for ``player``
    (``default`` when the ``go`` has no clock or movetime), less the time since ``go`` was read
    and ``reserve`` for the adapter's own round trip; never negative."""
    budget = limits.budget_for(player)
    if budget is None:
        budget = default
    return max(0.0, budget - (time.monotonic() - limits.started) - reserve)
