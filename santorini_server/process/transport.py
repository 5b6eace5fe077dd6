"""trio process layer: start, feed, read and stop engine processes, leaving no orphans.

Theory of operation.  Every engine runs under a guard (``guard.py``, a ``python -I -S`` script)
that leads its own session and kills the engine's process group when a *lifeline* pipe reaches
EOF.  This module keeps the lifeline's write end (close-on-exec) for as long as the engine may
live, so the engine dies with the referee even on ``kill -9`` (SPEC.md section 5.4).
Closing the lifeline is also the referee's own hard kill; ``SIGTERM`` sent to the guard is
forwarded to the engine's group.  The guard reports ``started <pid>``, ``error ...`` and finally
``exit <code>`` / ``signal <n>`` on a status pipe, which is how signal deaths and exec failures
reach us intact (see the guard's docstring).

The layer moves bytes only: ``send_all`` to stdin, ``receive_some`` from stdout; parsing SEI
lines is the sans-IO codec's job.  stderr is drained by its own task into a bounded sink, so a
chatty engine can neither block on a full pipe nor grow the referee's memory (cutechess#513).

Shutdown (SPEC.md section 5.3): write ``quit`` and close stdin, wait
``QUIT_GRACE``; SIGTERM the group, wait ``TERM_GRACE``; close the lifeline (the guard SIGKILLs
the group), wait ``KILL_GRACE``; as a last resort SIGKILL the guard and sweep its session from
here.  All of it runs shielded from cancellation, so it also runs on Ctrl-C, and every wait is
bounded.  Time comes only from trio's clock.

Usage::

    async with open_engine_process(["./engine"], cwd=engine_dir) as engine:
        await engine.send_all(b"sei\\n")
        data = await engine.receive_some()

or ``engine = await nursery.start(run_engine, argv)`` to tie an engine (reused across games) to
the lifetime of a longer-lived nursery.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol, final

import structlog
import trio

from . import guard as _guard

__all__ = [
    "QUIT_GRACE",
    "TERM_GRACE",
    "KILL_GRACE",
    "START_TIMEOUT",
    "GONE_STATUS_WAIT",
    "STDERR_DRAIN_GRACE",
    "STDERR_HEAD_BYTES",
    "STDERR_TAIL_BYTES",
    "STDERR_CHUNK_BYTES",
    "GUARD_PATH",
    "EngineProcessError",
    "EngineStartError",
    "EngineGone",
    "EngineLimits",
    "ExitStatus",
    "StderrSink",
    "BoundedCapture",
    "EngineProcess",
    "run_engine",
    "open_engine_process",
    "describe_signal",
]

_log = structlog.get_logger("santorini_server.process")

# --- Timeouts (seconds).  Each names its precedent. -----------------------------------------------

QUIT_GRACE = 5.0
"""After ``quit`` (and EOF on stdin) an engine may take this long to exit on its own.
cutechess-cli waits 5 s after ``quit`` before killing."""

TERM_GRACE = 2.0
"""After SIGTERM to the engine's group.  trio.run_process allows 5 s after SIGTERM; the engine
has already had ``QUIT_GRACE`` to leave voluntarily, so this second grace is shorter."""

KILL_GRACE = 2.0
"""After closing the lifeline, the guard SIGKILLs the group and exits within milliseconds
(measured under Dask: everything dead within 1 s); 2 s before the last resort."""

START_TIMEOUT = 10.0
"""For the guard to report that the engine was exec'd (not for the SEI handshake).
fastchess's start-up timeout is 10 s."""

GONE_STATUS_WAIT = 1.0
"""When stdin breaks, how long ``send_all`` waits for the exit status to put in ``EngineGone``:
the engine has closed its stdin, so the guard normally reports within milliseconds."""

STDERR_DRAIN_GRACE = 0.5
"""After the guard has exited, how long stderr may take to reach EOF before we stop reading
(only a process that escaped the session can still hold the pipe)."""

# --- stderr bounds (cutechess#513: >10 GB RSS from an engine logging every node). -----------------

STDERR_HEAD_BYTES = 16 * 1024
"""The first bytes of stderr are kept: start-up errors and banners live there."""
STDERR_TAIL_BYTES = 48 * 1024
"""The last bytes of stderr are kept: a crash's last words live there."""
STDERR_CHUNK_BYTES = 64 * 1024
"""Read size for the stderr drain; one Linux pipe buffer."""

_STATUS_MAX_BYTES = 4096
"""Status lines are tiny; anything longer is a guard bug, not something to buffer."""

GUARD_PATH = Path(_guard.__file__).resolve()
"""The guard script, run as ``sys.executable -I -S GUARD_PATH ...``."""


# --- Errors ---------------------------------------------------------------------------------------


class EngineProcessError(Exception):
    """Base class for engine process failures."""


class EngineStartError(EngineProcessError):
    """The engine could not be started.  ``str(exc)`` is one line fit for a user.

    Attributes:
        argv: The engine command line.
        errno: The OS error number when there is one (``ENOENT``, ``EACCES``...), else None.
    """

    def __init__(self, message: str, *, argv: Sequence[str], errno: int | None = None) -> None:
        super().__init__(message)
        self.argv = tuple(argv)
        self.errno = errno


class EngineGone(EngineProcessError):
    """The engine no longer reads its input (it exited or closed stdin).

    Attributes:
        status: How the engine ended, if known by the time the error was raised.
    """

    def __init__(self, status: ExitStatus | None) -> None:
        if status is None:
            message = "engine closed its input (exit status not known yet)"
        else:
            message = f"engine is gone ({status.describe()})"
        super().__init__(message)
        self.status = status


# --- Values ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EngineLimits:
    """Resource limits applied to the engine process (not to the referee or the guard)."""

    memory_bytes: int | None = None
    """``RLIMIT_AS``: address-space cap; allocations beyond it fail inside the engine."""
    cpu_seconds: int | None = None
    """``RLIMIT_CPU``: SIGXCPU after this much CPU time, SIGKILL one second later.  Counts the
    engine's whole life, so it is a runaway guard, not a per-move clock."""

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "cpu_seconds"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"`{name}` must be a positive int or None, not {value!r}")


def describe_signal(number: int) -> str:
    """``11`` -> ``"signal 11 (SIGSEGV)"``."""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    return f"signal {number} ({name})"


@dataclass(frozen=True, slots=True, kw_only=True)
class ExitStatus:
    """How an engine ended.  Exactly one of ``code``, ``signal`` is set, or ``detail`` says why
    neither is known."""

    code: int | None = None
    """Exit code when the engine exited normally."""
    signal: int | None = None
    """Signal number when the engine was killed by a signal."""
    forced: bool = False
    """True when the referee had to SIGTERM or SIGKILL the engine (it ignored ``quit``)."""
    detail: str | None = None
    """Why neither code nor signal is known (the engine never started, the guard was killed)."""

    @property
    def returncode(self) -> int | None:
        """``subprocess`` convention: the exit code, or minus the signal number."""
        if self.code is not None:
            return self.code
        if self.signal is not None:
            return -self.signal
        return None

    def describe(self) -> str:
        """``"exit code 3"``, ``"killed by signal 11 (SIGSEGV)"``, for logs and game records."""
        if self.code is not None:
            text = f"exit code {self.code}"
        elif self.signal is not None:
            text = f"killed by {describe_signal(self.signal)}"
        else:
            text = self.detail or "exit status unknown"
        if self.forced:
            text += " after the referee forced shutdown"
        return text


class StderrSink(Protocol):
    """Receives the engine's stderr.  ``write`` must not block: it runs in the drain task."""

    def write(self, data: bytes) -> None: ...


@final
class BoundedCapture:
    """Keeps the first ``head_bytes`` and the last ``tail_bytes`` of a byte stream.

    Memory stays O(head + tail) however much the engine writes; the rest is counted in
    ``dropped`` so a game log can say how much was lost.
    """

    def __init__(
        self, head_bytes: int = STDERR_HEAD_BYTES, tail_bytes: int = STDERR_TAIL_BYTES
    ) -> None:
        if head_bytes < 0 or tail_bytes < 0:
            raise ValueError("`head_bytes` and `tail_bytes` must be non-negative")
        self._head_max = head_bytes
        self._tail_max = tail_bytes
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0
        """Bytes written so far, kept or not."""

    @property
    def dropped(self) -> int:
        """Bytes written but not kept."""
        return self.total - len(self._head) - len(self._tail)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        self.total += len(view)
        room = self._head_max - len(self._head)
        if room > 0:
            self._head += view[:room]
            view = view[room:]
        if not view or self._tail_max == 0:
            return
        if len(view) >= self._tail_max:
            self._tail[:] = view[len(view) - self._tail_max :]
        else:
            self._tail += view
            excess = len(self._tail) - self._tail_max
            if excess > 0:
                del self._tail[:excess]

    def getvalue(self) -> bytes:
        """The kept bytes, with a one-line marker where bytes were dropped."""
        if self.dropped:
            marker = f"\n[... {self.dropped} bytes of stderr dropped ...]\n".encode()
            return bytes(self._head) + marker + bytes(self._tail)
        return bytes(self._head) + bytes(self._tail)


# --- The process ----------------------------------------------------------------------------------


@final
class EngineProcess:
    """A running engine: bytes in, bytes out, bounded shutdown.

    Created only by `run_engine` / `open_engine_process`, which own its helper task.
    """

    def __init__(
        self,
        *,
        proc: trio.Process,
        argv: tuple[str, ...],
        lifeline_w: int,
        status_r: int,
        stderr_sink: StderrSink,
    ) -> None:
        self._proc = proc
        # Pipes from open_process are FdStreams: the per-turn fast paths use their fds.
        assert isinstance(proc.stdin, trio.lowlevel.FdStream)
        assert isinstance(proc.stdout, trio.lowlevel.FdStream)
        self._stdin = proc.stdin
        self._stdout = proc.stdout
        # one fd, asked every turn whether anything waits: a poll set made once answers in one
        # C call (FIONREAD through fcntl.ioctl cost ~4,000 instructions more a turn, callgrind)
        self._stdout_poll = select.poll()
        self._stdout_poll.register(proc.stdout.fileno(), select.POLLIN)
        # stdout and stderr: a blocking wait for the reply must end when the engine writes to
        # stderr too (its drain task has to run, or a full stderr pipe stalls the engine)
        self._stdout_fd = proc.stdout.fileno()
        self._stderr_fd = proc.stderr.fileno() if isinstance(proc.stderr, trio.lowlevel.FdStream) else -1
        self._output_poll = select.poll()
        for fd in (self._stdout_fd, self._stderr_fd):
            if fd >= 0:
                self._output_poll.register(fd, select.POLLIN)
        self.argv = argv
        """The engine command line."""
        self.stderr_sink = stderr_sink
        """Where the engine's stderr goes (a `BoundedCapture` unless the caller gave one)."""
        self.engine_pid: int | None = None
        """The engine's pid (also its process group id), once the guard has exec'd it."""
        self._lifeline_w = lifeline_w
        self._status_r = status_r
        self._status_buf = bytearray()
        self._status: ExitStatus | None = None
        self._forced = False
        self._closing = False
        self._closed = trio.Event()
        self._stderr_done = trio.Event()
        self._wait_lock = trio.Lock()
        self._pidfd = -1
        try:  # Linux >= 5.3; lets us look at the guard's report before reaping it
            self._pidfd = os.pidfd_open(proc.pid)
        except (AttributeError, OSError):
            pass

    def __repr__(self) -> str:
        state = "running" if self._status is None else self._status.describe()
        return f"<EngineProcess {list(self.argv)!r} guard={self.guard_pid} {state}>"

    @property
    def guard_pid(self) -> int:
        """The guard's pid, which is also the session id of everything the engine starts."""
        return self._proc.pid

    @property
    def status(self) -> ExitStatus | None:
        """How the engine ended, or None while it (or its guard) is running."""
        return self._status

    @property
    def returncode(self) -> int | None:
        """``subprocess`` convention (minus the signal number for a signal death); None while
        running or when unknown."""
        return None if self._status is None else self._status.returncode

    def exit_description(self) -> str:
        """``"running"``, ``"exit code 3"``, ``"killed by signal 11 (SIGSEGV)"``..."""
        return "running" if self._status is None else self._status.describe()

    # -- I/O ------------------------------------------------------------------------------------

    async def send_all(self, data: bytes) -> None:
        """Write ``data`` to the engine's stdin; the caller bounds it with a timeout.

        Raises:
            EngineGone: the engine closed its stdin or exited (with its status when known).
            trio.ClosedResourceError: the engine was already closed by us.
        """
        try:
            await self._stdin.send_all(data)
        except trio.BrokenResourceError as exc:
            status = None
            with trio.move_on_after(GONE_STATUS_WAIT):
                status = await self.wait()
            raise EngineGone(status) from exc

    async def close_input(self) -> None:
        """Close the engine's stdin (EOF), leaving it running: for a child that finishes its
        work and exits on EOF.  Idempotent."""
        await self._stdin.aclose()

    def send_nowait(self, data: bytes) -> int:
        """Write as much of ``data`` as the pipe takes right now, without a checkpoint.

        Returns how many bytes were written (the caller awaits :meth:`send_all` for the rest).
        The referee's per-turn write is a few hundred bytes into an empty pipe, so this nearly
        always writes everything and saves a pass through the scheduler on the hot path; the
        caller still checkpoints when it awaits the reply.

        Raises:
            EngineGone: the engine no longer reads its input (status filled in later by
                :meth:`send_all`'s caller if it wants it).
        """
        try:
            return os.write(self._stdin.fileno(), data)
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise EngineGone(self._status) from exc
        except OSError as exc:
            raise trio.ClosedResourceError("engine input already closed") from exc

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        """Read what the engine wrote to stdout; ``b""`` means EOF (the engine is gone or closed
        stdout).  Only one task may read at a time."""
        return _as_bytes(await self._stdout.receive_some(max_bytes))

    def receive_nowait(self, max_bytes: int = STDERR_CHUNK_BYTES) -> bytes | None:
        """What the engine wrote to stdout and nobody has read yet, without waiting: ``None`` if
        the pipe is empty, ``b""`` at EOF.  With :meth:`wait_readable`, the referee's per-turn
        read: on a shared core the engine has often answered by the time we look, and then the
        answer costs one system call and no pass through the scheduler."""
        try:
            return os.read(self._stdout.fileno(), max_bytes)  # the fd is non-blocking
        except BlockingIOError:
            return None
        except OSError:
            return b""

    def output_pending(self) -> bool:
        """Whether unread stdout bytes (or EOF) are waiting: the idle check before a ``go`` asks
        this every turn, and a zero-timeout ``poll`` answers without a failing read's exception."""
        return bool(self._stdout_poll.poll(0))

    def poll_output(self, timeout: float) -> bool:
        """Block the thread (not a checkpoint) for at most ``timeout`` seconds until stdout has
        bytes or EOF to read; False at the timeout, or as soon as stderr has bytes (its drain
        task needs the scheduler).  The referee's wait for an instant engine's reply when it has
        nothing else to run (``EngineChannel.receive``): one ``poll`` call instead of a pass
        through trio's scheduler."""
        ready = self._output_poll.poll(max(0.0, timeout) * 1000)  # a negative timeout blocks for good
        return len(ready) == 1 and ready[0][0] == self._stdout_fd

    async def wait_readable(self) -> None:
        """Wait until stdout has bytes or EOF to read (a checkpoint); read with
        :meth:`receive_nowait`.  Only one task may wait at a time."""
        await trio.lowlevel.wait_readable(self._stdout.fileno())

    # -- Lifetime -------------------------------------------------------------------------------

    async def wait(self) -> ExitStatus:
        """Wait until the guard (and so the engine and its group) has exited; reap it."""
        if self._status is None:
            # One task at a time does the waiting; if it is cancelled the next one takes over.
            async with self._wait_lock:
                if self._status is None:
                    if self._pidfd >= 0:
                        # Exited but not yet reaped: the guard's pid (our session id) is pinned
                        # while we look at what it reported.
                        await trio.lowlevel.wait_readable(self._pidfd)
                        self._before_reap()
                    returncode = await self._proc.wait()
                    if self._pidfd < 0:
                        self._before_reap()
                    self._finish(returncode)
        else:
            await trio.lowlevel.checkpoint()
        assert self._status is not None
        return self._status

    async def ended_within(self, seconds: float) -> bool:
        """Whether the engine process (not its guard) has exited or does within ``seconds``:
        after EOF on stdout, tells a dying engine (which closes stdout microseconds before it
        exits) from one that closed its output and keeps running."""
        if self._status is not None:
            return True
        pid = self.engine_pid
        try:
            pidfd = os.pidfd_open(pid) if pid is not None else -1
        except ProcessLookupError:
            return True  # already reaped by its guard
        except OSError:
            pidfd = -1
        if pidfd < 0:  # no pidfd (old kernel): the guard's report is the only sign
            with trio.move_on_after(seconds):
                await self.wait()
            return self._status is not None
        try:
            with trio.move_on_after(seconds):
                await trio.lowlevel.wait_readable(pidfd)
                return True
            return False
        finally:
            trio.lowlevel.notify_closing(pidfd)
            os.close(pidfd)

    def terminate(self) -> None:
        """Ask politely: SIGTERM to the guard, which forwards it to the engine's group."""
        if self._status is None:
            self._forced = True
            self._proc.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """Kill now: close the lifeline, and the guard SIGKILLs the engine's group.

        Does not wait; ``await wait()`` (or ``aclose()``) to reap.
        """
        if self._status is None:
            self._forced = True
        self._close_lifeline()

    async def aclose(
        self,
        quit_bytes: bytes = b"quit\n",
        *,
        grace: float = QUIT_GRACE,
        term_grace: float = TERM_GRACE,
    ) -> ExitStatus:
        """Stop the engine and release everything; safe to call more than once.

        Sequence: send ``quit_bytes`` and close stdin, wait ``grace``; SIGTERM the group, wait
        ``term_grace``; SIGKILL the group (lifeline), wait `KILL_GRACE`; last resort.  Runs
        shielded from cancellation (so Ctrl-C still reaps the engine), with stdout drained
        meanwhile so an engine blocked writing output can still see ``quit``.

        Returns:
            How the engine ended.
        """
        with trio.CancelScope(shield=True):
            if self._closing:  # a concurrent aclose is already bounded; share its result
                await self._closed.wait()
            else:
                self._closing = True
                try:
                    async with trio.open_nursery() as nursery:
                        nursery.start_soon(self._discard_stdout)
                        await self._shutdown(quit_bytes, grace, term_grace)
                        nursery.cancel_scope.cancel()
                finally:
                    await self._release()
                    self._closed.set()
        status = self._status
        if status is None:  # only if even the last resort failed
            status = ExitStatus(detail="guard could not be reaped")
        return status

    async def _shutdown(self, quit_bytes: bytes, grace: float, term_grace: float) -> None:
        if self._status is not None:
            return
        with trio.move_on_after(grace):
            if quit_bytes:
                try:
                    await self._stdin.send_all(quit_bytes)
                except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError):
                    pass
            await self._stdin.aclose()  # EOF: many engines exit on it too
            await self.wait()
        if self._status is not None:
            return
        _log.warning("engine ignored quit; sending SIGTERM", argv=self.argv, grace=grace)
        self.terminate()
        with trio.move_on_after(term_grace):
            await self.wait()
        if self._status is not None:
            return
        _log.warning("engine ignored SIGTERM; killing its process group", argv=self.argv)
        await self._abort()

    async def _abort(self) -> None:
        """Close the lifeline, wait bounded, and as a last resort kill guard and session."""
        self.kill()
        with trio.move_on_after(KILL_GRACE):
            await self.wait()
        if self._status is not None:
            return
        _log.error("guard did not exit; killing it and sweeping its session", argv=self.argv)
        self._proc.kill()
        _guard.kill_session(self.guard_pid)
        with trio.move_on_after(KILL_GRACE):
            await self.wait()

    async def _discard_stdout(self) -> None:
        try:
            while await self._stdout.receive_some(STDERR_CHUNK_BYTES):
                pass
        except (trio.ClosedResourceError, trio.BusyResourceError, trio.BrokenResourceError):
            pass  # closed, or the caller's own reader is still draining it

    async def _release(self) -> None:
        """Close our ends of every pipe (the streams and the two guard fds)."""
        await trio.aclose_forcefully(self._stdin)
        try:
            self._output_poll.unregister(self._stdout_fd)
        except KeyError:
            pass  # released twice
        await trio.aclose_forcefully(self._stdout)
        self._close_lifeline()
        self._close_status()

    def _close_lifeline(self) -> None:
        if self._lifeline_w >= 0:
            fd, self._lifeline_w = self._lifeline_w, -1
            os.close(fd)

    def _close_status(self) -> None:
        if self._status_r >= 0:
            fd, self._status_r = self._status_r, -1
            trio.lowlevel.notify_closing(fd)
            os.close(fd)

    # -- Guard status -----------------------------------------------------------------------------

    def _read_status_nowait(self) -> bool:
        """Append what the status pipe holds; return False at EOF."""
        while self._status_r >= 0:
            try:
                chunk = os.read(self._status_r, _STATUS_MAX_BYTES)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self._status_buf += chunk
            if len(self._status_buf) > _STATUS_MAX_BYTES:
                del self._status_buf[: len(self._status_buf) - _STATUS_MAX_BYTES]
        return False

    async def _wait_started(self) -> None:
        """Wait for the guard's first status line; raise `EngineStartError` unless it is
        ``started <pid>``."""
        eof = False
        with trio.move_on_after(START_TIMEOUT):
            while b"\n" not in self._status_buf and not eof:
                await trio.lowlevel.wait_readable(self._status_r)
                eof = not self._read_status_nowait()
        line = bytes(self._status_buf).partition(b"\n")[0]
        words = line.decode("utf-8", "replace").split(" ", 2)
        if words[0] == "started" and len(words) == 2 and words[1].isdigit():
            self.engine_pid = int(words[1])
            del self._status_buf[: len(line) + 1]
            return
        if words[0] == "error" and len(words) == 3:
            await self._wait_reaped_after_failure()
            err = int(words[1]) if words[1].isdigit() and words[1] != "0" else None
            raise EngineStartError(words[2], argv=self.argv, errno=err)
        if not eof:
            raise EngineStartError(
                f"engine guard did not report within {START_TIMEOUT:g} s", argv=self.argv
            )
        await self._wait_reaped_after_failure()
        said = b""
        assert self._proc.stderr is not None
        with trio.move_on_after(STDERR_DRAIN_GRACE):
            said = _as_bytes(await self._proc.stderr.receive_some(_STATUS_MAX_BYTES))
        last = said.decode("utf-8", "replace").strip().splitlines()[-1:]
        raise EngineStartError(
            f"engine guard exited before starting the engine ({self.exit_description()})"
            + (f": {last[0]}" if last else ""),
            argv=self.argv,
        )

    async def _wait_reaped_after_failure(self) -> None:
        with trio.move_on_after(KILL_GRACE):
            await self.wait()

    def _before_reap(self) -> None:
        """The guard has exited: collect its report and, if it died without cleaning up (OOM
        killer?), do its job from here while its pid still pins the session id."""
        self._read_status_nowait()  # the guard is dead, so this reads everything it wrote
        self._close_status()
        self._close_lifeline()
        lines = bytes(self._status_buf).decode("utf-8", "replace").splitlines()
        finished = any(line.split(" ")[0] in ("exit", "signal") for line in lines)
        # A reported start failure means the guard reaped the failed child itself.
        start_failed = bool(lines) and lines[0].startswith("error ")
        if not finished and not start_failed:
            _log.error("engine guard died without reporting; sweeping its session",
                       argv=self.argv, guard_pid=self.guard_pid)
            _guard.kill_session(self.guard_pid)

    def _finish(self, guard_returncode: int) -> None:
        """Record the exit status once the guard has been reaped (runs without checkpoints)."""
        if self._pidfd >= 0:
            fd, self._pidfd = self._pidfd, -1
            trio.lowlevel.notify_closing(fd)
            os.close(fd)
        code: int | None = None
        sig: int | None = None
        detail: str | None = None
        for raw in bytes(self._status_buf).decode("utf-8", "replace").splitlines():
            words = raw.split(" ", 2)
            if words[0] == "exit" and len(words) == 2 and words[1].isdigit():
                code = int(words[1])
            elif words[0] == "signal" and len(words) == 2 and words[1].isdigit():
                sig = int(words[1])
            elif words[0] == "error" and len(words) == 3:
                detail = f"engine not started: {words[2]}"
        if code is None and sig is None and detail is None:
            if guard_returncode < 0:
                detail = f"guard killed by {describe_signal(-guard_returncode)}"
            else:
                detail = f"guard exited with code {guard_returncode}"
            detail += "; engine exit status unknown"
        self._status = ExitStatus(code=code, signal=sig, forced=self._forced, detail=detail)

    async def _drain_stderr(self, scope: trio.CancelScope) -> None:
        stream = self._proc.stderr
        assert stream is not None
        try:
            with scope:
                while chunk := await stream.receive_some(STDERR_CHUNK_BYTES):
                    self.stderr_sink.write(_as_bytes(chunk))
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        finally:
            self._stderr_done.set()
            try:  # before the number can be reused: poll_output must not wait on another file
                self._output_poll.unregister(self._stderr_fd)
            except KeyError:
                pass  # there was none
            await trio.aclose_forcefully(stream)


def _as_bytes(data: bytes | bytearray) -> bytes:
    """trio's streams are typed ``bytes | bytearray``; FdStream returns bytes (no copy)."""
    return data if isinstance(data, bytes) else bytes(data)


# --- Starting -------------------------------------------------------------------------------------


async def _spawn(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None,
    env: dict[str, str] | None,
    limits: EngineLimits | None,
    stderr_sink: StderrSink,
) -> EngineProcess:
    args = tuple(os.fspath(arg) for arg in argv)
    if not args or not all(isinstance(arg, str) for arg in args):
        raise ValueError(f"`argv` must be a non-empty sequence of str, not {argv!r}")
    if isinstance(argv, str):
        raise TypeError("`argv` must be a sequence of arguments, not a string (no shell)")
    lifeline_r, lifeline_w = os.pipe()
    status_r, status_w = os.pipe()
    cmd = [sys.executable, "-I", "-S", str(GUARD_PATH)]
    cmd += ["--lifeline-fd", str(lifeline_r), "--status-fd", str(status_w)]
    if limits is not None and limits.memory_bytes is not None:
        cmd += ["--rlimit-as", str(limits.memory_bytes)]
    if limits is not None and limits.cpu_seconds is not None:
        cmd += ["--rlimit-cpu", str(limits.cpu_seconds)]
    if cwd is not None:
        cmd += ["--cwd", os.fspath(cwd)]
    cmd += ["--", *args]
    try:
        # start_new_session: the guard is out of the terminal's process group from its first
        # instruction, so a Ctrl-C cannot kill it before it has set up.  (It would setsid()
        # itself otherwise.)
        proc = await trio.lowlevel.open_process(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(lifeline_r, status_w),
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        os.close(lifeline_w)
        os.close(status_r)
        raise EngineStartError(
            f"cannot start the engine guard: {exc.strerror or exc}", argv=args, errno=exc.errno
        ) from None
    except BaseException:
        os.close(lifeline_w)
        os.close(status_r)
        raise
    finally:
        os.close(lifeline_r)
        os.close(status_w)
    os.set_blocking(status_r, False)
    return EngineProcess(
        proc=proc, argv=args, lifeline_w=lifeline_w, status_r=status_r, stderr_sink=stderr_sink
    )


async def run_engine(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    limits: EngineLimits | None = None,
    stderr_sink: StderrSink | None = None,
    quit_bytes: bytes = b"quit\n",
    quit_grace: float = QUIT_GRACE,
    term_grace: float = TERM_GRACE,
    task_status: trio.TaskStatus[EngineProcess] = trio.TASK_STATUS_IGNORED,
) -> ExitStatus:
    """Run an engine under a guard for as long as this task lives; ``nursery.start`` target.

    ``engine = await nursery.start(run_engine, argv)`` returns once the engine has been exec'd
    (so a missing binary raises right there); the task then drains stderr and waits for the
    engine to exit.  If the task is cancelled, it runs ``engine.aclose(quit_bytes, ...)``
    before leaving.  After a natural exit stdout stays readable until EOF; call
    ``engine.aclose()`` to release the pipes.

    Args:
        argv: Program and arguments, exec'd directly (``PATH`` is searched; no shell).
        cwd: Working directory for the engine (relative ``argv[0]`` resolves against it).
        env: Environment for the engine; default: the referee's.
        limits: Resource limits for the engine process.
        stderr_sink: Receives stderr; default: a fresh `BoundedCapture`.
        quit_bytes, quit_grace, term_grace: Shutdown used on cancellation (see `aclose`).

    Returns:
        How the engine ended.

    Raises:
        EngineStartError: the engine could not be started (one-line message).
    """
    sink: StderrSink = BoundedCapture() if stderr_sink is None else stderr_sink
    engine = await _spawn(argv, cwd=cwd, env=env, limits=limits, stderr_sink=sink)
    # From here on the guard exists: every exit path below reaps it.
    try:
        await engine._wait_started()
    except BaseException:
        with trio.CancelScope(shield=True):
            await engine._abort()
            await engine._release()
            if engine._proc.stderr is not None:
                await trio.aclose_forcefully(engine._proc.stderr)
        raise
    try:
        async with trio.open_nursery() as nursery:
            # The drain outlives cancellation so a chatty engine cannot block during shutdown.
            drain_scope = trio.CancelScope(shield=True)
            nursery.start_soon(engine._drain_stderr, drain_scope)
            try:
                task_status.started(engine)
                try:
                    status = await engine.wait()
                except BaseException:
                    await engine.aclose(quit_bytes, grace=quit_grace, term_grace=term_grace)
                    raise
            finally:
                with trio.CancelScope(shield=True), trio.move_on_after(STDERR_DRAIN_GRACE):
                    await engine._stderr_done.wait()
                drain_scope.cancel()
    finally:
        engine._close_lifeline()
    return status


@asynccontextmanager
async def open_engine_process(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    limits: EngineLimits | None = None,
    stderr_sink: StderrSink | None = None,
    quit_bytes: bytes = b"quit\n",
    quit_grace: float = QUIT_GRACE,
    term_grace: float = TERM_GRACE,
) -> AsyncIterator[EngineProcess]:
    """Start an engine for the duration of an ``async with`` block; ``aclose`` it on the way out
    (also on error or cancellation).  Arguments as for `run_engine`."""
    # Errors are re-raised outside the nursery so callers see them bare, not in an
    # ExceptionGroup (a start failure or the caller's own exception from the block).
    error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        try:
            engine: EngineProcess = await nursery.start(
                partial(
                    run_engine,
                    argv,
                    cwd=cwd,
                    env=env,
                    limits=limits,
                    stderr_sink=stderr_sink,
                    quit_bytes=quit_bytes,
                    quit_grace=quit_grace,
                    term_grace=term_grace,
                )
            )
        except BaseException as exc:
            error = exc
        else:
            try:
                yield engine
            except BaseException as exc:
                error = exc
            finally:
                await engine.aclose(quit_bytes, grace=quit_grace, term_grace=term_grace)
    if error is not None:
        raise error
