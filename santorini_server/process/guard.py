"""Engine guard: one tiny process per engine that makes sure the engine dies with the referee.

Run as::

    python -I -S guard.py --lifeline-fd R --status-fd W [--rlimit-as BYTES] [--rlimit-cpu SECONDS]
                          [--cwd DIR] -- ENGINE_ARGV...

Theory of operation (SPEC.md section 5):

* The referee creates a *lifeline* pipe per engine, passes its read end ``R`` to the guard and
  keeps the write end open for the engine's lifetime.  The kernel closes that write end when the
  referee exits for any reason, ``kill -9`` included, so EOF on ``R`` means "the referee is gone
  or wants the engine dead".  ``PR_SET_PDEATHSIG`` is not used: trio starts children from a
  worker thread and the death signal follows that thread, not the referee.
* The guard calls ``setsid()``, so it leads a session of its own that no terminal signal
  reaches, and makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``): every
  descendant whose parent dies is re-parented to the guard instead of to init, even one that
  left the session with ``setsid()`` (a daemon's double fork).  It forks the engine, which makes
  its own process group (pgid = engine pid) inside that session, applies the resource limits,
  changes directory and calls ``execvp`` with the argv vector (never a shell).  The engine
  inherits the guard's stdin/stdout/stderr pipes; the guard then points its own copies at
  ``/dev/null`` so that EOF and ``EPIPE`` on those pipes track the engine, not the guard.
* The guard waits for the engine to exit or the lifeline to reach EOF, reaping re-parented
  descendants that exit meanwhile.  Either way it calls ``killpg(engine_pgid, SIGKILL)``
  *before* reaping the engine (the unreaped zombie pins the pgid, so the number cannot have
  been reused), then kills and reaps its other children, over and over until none is left:
  killing one re-parents that one's children to the guard for the next round.  So no
  descendant outlives the engine, whatever group or session it moved to; a grandchild that
  kept the pipes open cannot hold them past the engine's exit.  Only a process that leaves
  the guard's tree by other means (a PID namespace of its own, or ptrace tricks) escapes.
* ``SIGTERM`` sent to the guard is forwarded to the engine's process group; this is how the
  referee's shutdown sequence asks politely before closing the lifeline.

Status protocol: the guard writes ASCII lines (each far below ``PIPE_BUF``, so atomic) on the
status fd ``W``; the referee reads them:

* ``started <engine_pid>`` once the exec succeeded;
* ``error <errno> <message>`` if the engine could not be started (the guard then exits 127 when
  the program was not found, 126 when it could not be executed, 125 when the working directory
  or a resource limit could not be set);
* at the end, ``exit <code>`` or ``signal <number>`` for how the engine ended; the guard then
  exits with the same code, or ``128 + number`` for a signal.  The status line is the
  authoritative answer (an engine may itself exit with 139); the exit code is a fallback.

The guard imports only built-in stdlib modules (``_signal`` instead of ``signal``, which pulls in
``enum``), plus the ``_ctypes`` C module for its one ``prctl`` call, and never prints: its stdout
and stderr belong to the engine.
"""

from __future__ import annotations

import errno
import os
import select
import sys
import time

TYPE_CHECKING = False  # importing ``typing`` would cost 13 ms; mypy honours this name
if TYPE_CHECKING:
    import signal
    from collections.abc import Callable
else:
    try:  # ``signal`` imports ``enum`` (about 5 ms); the C module has all the guard needs.
        import _signal as signal
    except ImportError:  # pragma: no cover - every CPython has _signal
        import signal

__all__ = [
    "EXIT_NOT_FOUND",
    "EXIT_CANNOT_EXECUTE",
    "EXIT_SETUP_FAILED",
    "PR_SET_CHILD_SUBREAPER",
    "session_members",
    "kill_session",
    "become_subreaper",
    "main",
]

EXIT_NOT_FOUND = 127
"""Guard exit code when the engine program does not exist (the shell's convention)."""
EXIT_CANNOT_EXECUTE = 126
"""Guard exit code when the engine program exists but cannot be executed (shell convention)."""
EXIT_SETUP_FAILED = 125
"""Guard exit code for a bad working directory, resource limit or command line (as ``env``)."""

SWEEP_ROUNDS = 200
"""At most this many ``/proc`` sweeps (1 ms apart) while killed processes turn into zombies."""

PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option (Linux >= 3.4, ``<linux/prctl.h>``): orphaned descendants re-parent to us."""

_LIVE_EXCLUDED_STATES = frozenset("ZXx")
"""``/proc/PID/stat`` states that count as dead: zombie (awaiting reaping) and dead."""


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """Return ``(state, ppid, sid)`` of ``pid`` from ``/proc``, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # The command name sits in parentheses and may itself contain spaces or ')'.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return fields[0].decode("ascii", "replace"), int(fields[1]), int(fields[3])
    except (IndexError, ValueError):
        return None


def _processes() -> list[tuple[int, str, int, int]]:
    """``(pid, state, ppid, sid)`` of every process in ``/proc``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _proc_stat(int(name))
            if stat is not None:
                found.append((int(name), *stat))
    return found


def session_members(sid: int) -> list[int]:
    """Live (non-zombie) processes whose session id is ``sid``, found by scanning ``/proc``."""
    return [pid for pid, state, _, s in _processes() if s == sid and state not in _LIVE_EXCLUDED_STATES]


def _kill_pid(pid: int, sid: int) -> None:
    """SIGKILL ``pid`` if it still belongs to session ``sid``, immune to pid reuse if possible."""
    pidfd_open = getattr(os, "pidfd_open", None)
    send = getattr(signal, "pidfd_send_signal", None)
    if pidfd_open is None or send is None:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        return
    try:
        fd = pidfd_open(pid)
    except OSError:
        return
    try:
        # Check again through the pinned pidfd: the pid may have been reused since the scan.
        stat = _proc_stat(pid)
        if stat is not None and stat[2] == sid:
            send(fd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(fd)


def kill_session(sid: int, *, exclude: int | None = None) -> None:
    """SIGKILL every live process of session ``sid`` except ``exclude``, until none is left.

    The referee calls this as a last resort when a guard died without cleaning up (for example
    killed by the OOM killer); the dead guard's pid stays reserved as long as any process still
    uses it as its session id, so the sweep cannot hit an unrelated session.
    """
    for _ in range(SWEEP_ROUNDS):
        members = [pid for pid in session_members(sid) if pid != exclude]
        if not members:
            return
        for pid in members:
            _kill_pid(pid, sid)
        time.sleep(0.001)


def become_subreaper() -> bool:
    """Make this process a child subreaper, so orphaned descendants re-parent to it; False where
    the system has no such thing.

    ``prctl`` is called through the ``_ctypes`` C module (about 1 ms to load): importing
    ``ctypes`` for this one call would add about 9 ms to every engine start.
    """
    try:
        import _ctypes
    except ImportError:  # pragma: no cover - CPython built without ctypes
        return False

    class _Libc:  # what _ctypes.CFuncPtr((name, library)) looks up: the dlopen handle
        _handle = _ctypes.dlopen(None)  # type: ignore[arg-type]  # NULL: the program and its libc

    class _CFunction(_ctypes.CFuncPtr):  # returns a C int, like ctypes' default restype
        _flags_ = _ctypes.FUNCFLAG_CDECL

    try:
        prctl = _CFunction(("prctl", _Libc()))  # type: ignore[arg-type]  # duck-typed CDLL
    except AttributeError:  # no prctl in the C library: not Linux
        return False
    return bool(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def _reap_orphans(engine_pid: int) -> bool:
    """Reap exited children other than the engine (descendants re-parented to the guard);
    return True once the engine has exited, leaving it unreaped so that its pgid stays pinned."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # pragma: no cover - the engine is a child until reaped
            return True
        if info is None:
            return False
        if info.si_pid == engine_pid:
            return True
        os.waitpid(info.si_pid, 0)


def _kill_descendants(guard: int, keep: int) -> None:
    """SIGKILL and reap the guard's children but ``keep``, and any live process of its session,
    round after round until none is left.

    Killing a child re-parents its own children to the guard (a subreaper), so the rounds walk
    down the whole tree, daemons that called ``setsid()`` included.  A child's pid cannot be
    reused before the guard reaps it, so killing it by pid is safe; session members that are
    not children go through `_kill_pid`.
    """
    for _ in range(SWEEP_ROUNDS):
        left = False
        for pid, state, ppid, sid in _processes():
            if pid in (guard, keep):
                continue
            if ppid == guard:
                left = True
                try:
                    os.kill(pid, signal.SIGKILL)  # harmless on a zombie
                    os.waitpid(pid, os.WNOHANG)
                except OSError:
                    pass
            elif sid == guard and state not in _LIVE_EXCLUDED_STATES:
                left = True
                _kill_pid(pid, sid)
        if not left:
            return
        time.sleep(0.001)


class _Options:
    __slots__ = ("argv", "cwd", "lifeline_fd", "rlimit_as", "rlimit_cpu", "status_fd")

    def __init__(self) -> None:
        self.lifeline_fd = -1
        self.status_fd = -1
        self.rlimit_as: int | None = None
        self.rlimit_cpu: int | None = None
        self.cwd: str | None = None
        self.argv: list[str] = []


def _parse(args: list[str]) -> _Options:
    """Parse the guard's own command line by hand (argparse would double the start time)."""
    opts = _Options()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            opts.argv = args[i + 1 :]
            break
        if i + 1 >= len(args):
            raise ValueError(f"option {arg!r} needs a value")
        value = args[i + 1]
        if arg == "--lifeline-fd":
            opts.lifeline_fd = int(value)
        elif arg == "--status-fd":
            opts.status_fd = int(value)
        elif arg == "--rlimit-as":
            opts.rlimit_as = int(value)
        elif arg == "--rlimit-cpu":
            opts.rlimit_cpu = int(value)
        elif arg == "--cwd":
            opts.cwd = value
        else:
            raise ValueError(f"unknown option {arg!r}")
        i += 2
    if opts.lifeline_fd < 0:
        raise ValueError("--lifeline-fd is required")
    if not opts.argv:
        raise ValueError("no engine command after '--'")
    return opts


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Status:
    """Writes status lines; a referee that is gone (EPIPE) is not an error for the guard."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, line: str) -> None:
        if self.fd < 0:
            return
        try:
            os.write(self.fd, (_one_line(line) + "\n").encode("utf-8", "replace"))
        except OSError:
            pass


def _child(opts: _Options, errpipe_w: int) -> None:
    """In the forked child: own process group, limits, directory, then exec. Never returns."""
    stage = "exec"
    try:
        os.setpgid(0, 0)
        # Python ignores SIGPIPE and SIGXFSZ at start-up and ignored signals survive exec;
        # give the engine the defaults it would get from a shell.
        for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM", "SIGCHLD"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        stage = "rlimit"
        if opts.rlimit_as is not None or opts.rlimit_cpu is not None:
            import resource

            if opts.rlimit_as is not None:
                resource.setrlimit(resource.RLIMIT_AS, (opts.rlimit_as, opts.rlimit_as))
            if opts.rlimit_cpu is not None:
                # Soft limit: SIGXCPU; the kernel sends SIGKILL at the hard limit one second later.
                _, hard = resource.getrlimit(resource.RLIMIT_CPU)
                soft = opts.rlimit_cpu
                new_hard = soft + 1 if hard == resource.RLIM_INFINITY else min(soft + 1, hard)
                resource.setrlimit(resource.RLIMIT_CPU, (min(soft, new_hard), new_hard))
        stage = "cwd"
        if opts.cwd is not None:
            os.chdir(opts.cwd)
        stage = "exec"
        os.execvp(opts.argv[0], opts.argv)
    except BaseException as exc:  # report anything, never a traceback
        err = exc.errno if isinstance(exc, OSError) and exc.errno else 0
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if stage == "cwd":
            message = f"cannot change directory to {opts.cwd!r}: {reason}"
        elif stage == "rlimit":
            message = f"cannot set resource limits: {reason}"
        else:
            message = f"cannot execute {opts.argv[0]!r}: {reason}"
        try:
            os.write(errpipe_w, f"{stage} {err} {_one_line(message)}".encode("utf-8", "replace"))
        finally:
            os._exit(EXIT_SETUP_FAILED)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:  # pragma: no cover - PEP 475 retries already
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _run(opts: _Options, status: _Status) -> int:
    if os.getsid(0) != os.getpid():
        os.setsid()
    sid = os.getpid()
    become_subreaper()  # before the fork: the engine may orphan a daemon at once
    for fd in (opts.lifeline_fd, status.fd):
        if fd >= 0:
            os.set_inheritable(fd, False)

    # A SIGTERM that arrives before the engine exists is remembered and forwarded after the fork,
    # so the guard can never die of SIGTERM and leave an engine behind.
    engine_pgid = 0
    term_pending = False

    def on_term(signum: int, frame: object) -> None:
        nonlocal term_pending
        if engine_pgid:
            try:
                os.killpg(engine_pgid, signal.SIGTERM)
            except OSError:
                pass
        else:
            term_pending = True

    signal.signal(signal.SIGTERM, on_term)
    # Engine exit wakes poll() through the wakeup fd (the C handler writes a byte on SIGCHLD).
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_w)

    errpipe_r, errpipe_w = os.pipe()  # close-on-exec: EOF means the exec succeeded
    pid = os.fork()
    if pid == 0:
        os.close(errpipe_r)
        _child(opts, errpipe_w)
    os.close(errpipe_w)
    engine_pgid = pid
    failure = _read_all(errpipe_r).decode("utf-8", "replace")
    os.close(errpipe_r)
    if failure:
        os.waitpid(pid, 0)
        stage, err, message = [*failure.split(" ", 2), "", ""][:3]
        status.write(f"error {err or 0} {message}")
        if stage == "exec":
            return EXIT_NOT_FOUND if err == str(errno.ENOENT) else EXIT_CANNOT_EXECUTE
        return EXIT_SETUP_FAILED
    status.write(f"started {pid}")
    try:
        return _supervise(opts, status, pid, sid, wake_r, on_term, term_pending)
    except BaseException:
        # A guard bug must not leave the engine behind: kill first, let main() report.
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        _kill_descendants(sid, keep=0)
        raise


def _supervise(
    opts: _Options,
    status: _Status,
    pid: int,
    sid: int,
    wake_r: int,
    on_term: Callable[[int, object], None],
    term_pending: bool,
) -> int:
    """Wait for the engine to exit or the lifeline to break; kill the rest; report."""
    # The engine has the real stdio pipes; ours must not keep them open.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    if term_pending:
        on_term(signal.SIGTERM, None)

    poller = select.poll()
    poller.register(opts.lifeline_fd, select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    lifeline_open = True
    while True:
        if _reap_orphans(pid):
            break  # exited; still unreaped, so its pgid cannot be reused yet
        if not lifeline_open:
            # Only reachable after the SIGKILL below; wait for the zombie without polling.
            os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
            break
        for fd, _ in poller.poll():
            if fd == wake_r:
                try:
                    os.read(wake_r, 512)
                except BlockingIOError:
                    pass
            elif fd == opts.lifeline_fd and not os.read(opts.lifeline_fd, 512):
                lifeline_open = False  # the referee is gone or wants the engine dead
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass

    # Engine gone (or dying): nothing of its group, its session or the guard's tree may outlive it.
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    _kill_descendants(sid, keep=pid)
    _, wait_status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(wait_status):
        signum = os.WTERMSIG(wait_status)
        status.write(f"signal {signum}")
        return 128 + signum
    code = os.WEXITSTATUS(wait_status)
    status.write(f"exit {code}")
    return code


def main(args: list[str] | None = None) -> int:
    """Run the guard; the return value is the process exit code."""
    argv = sys.argv[1:] if args is None else args
    status = _Status(-1)
    try:
        opts = _parse(argv)
        status = _Status(opts.status_fd)
        return _run(opts, status)
    except BaseException as exc:  # a guard bug must still reach the referee as one line
        status.write(f"error 0 guard failed: {type(exc).__name__}: {exc}")
        return EXIT_SETUP_FAILED


if __name__ == "__main__":
    sys.exit(main())
