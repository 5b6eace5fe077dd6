"""Engine process layer with real subprocesses: small Python programs stand in for engines.

No autojump clock here: the guard and engines are real processes, and a virtual clock would jump
while their replies are in flight.  Graces are shortened so the whole file runs in seconds.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from santorini_server.process import (
    GUARD_PATH,
    BoundedCapture,
    EngineGone,
    EngineLimits,
    EngineProcess,
    EngineStartError,
    ExitStatus,
    open_engine_process,
    run_engine,
)

REPO = Path(__file__).resolve().parents[1]
PY = sys.executable
MB = 1024 * 1024


def engine(code: str) -> list[str]:
    return [PY, "-c", textwrap.dedent(code)]


ECHO_CODE = """
import sys
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.flush()
"""
ECHO = engine(ECHO_CODE)

# Ignores quit, EOF on stdin, SIGTERM, SIGINT and SIGHUP; only SIGKILL stops it.
STUBBORN_CODE = """
import signal, sys, time
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
print("ready", flush=True)
sys.stdin.read()
while True:
    time.sleep(1)
"""
STUBBORN = engine(STUBBORN_CODE)

SLEEPER = f"[{PY!r}, '-c', 'import time; time.sleep(60)']"


def proc_state(pid: int) -> tuple[str, int, int] | None:
    """(state, pgid, sid) from /proc, or None if the pid is gone."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[2]), int(fields[3])


def parent_of(pid: int) -> int:
    data = Path(f"/proc/{pid}/stat").read_bytes()
    return int(data[data.rfind(b")") + 2 :].split()[1])


def alive(pid: int) -> bool:
    """Zombies (dead, awaiting reaping by PID 1) count as dead."""
    state = proc_state(pid)
    return state is not None and state[0] not in ("Z", "X", "x")


def session_alive(sid: int) -> list[int]:
    """Live processes whose session or process group is ``sid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            state = proc_state(int(name))
            if state and sid in (state[1], state[2]) and state[0] not in ("Z", "X", "x"):
                found.append(int(name))
    return found


async def read_line(engine_process: EngineProcess) -> bytes:
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = await engine_process.receive_some()
        assert chunk, f"EOF after {buf!r}"
        buf += chunk
    return buf


async def wait_dead(pids: list[int], seconds: float) -> float:
    """Poll until none of ``pids`` is alive; return how long it took (fail after ``seconds``)."""
    start = trio.current_time()
    with trio.fail_after(seconds):
        while any(alive(pid) for pid in pids):
            await trio.sleep(0.01)
    return trio.current_time() - start


# --- Round trips and exit statuses ----------------------------------------------------------------


async def test_echo_round_trip() -> None:
    async with open_engine_process(ECHO) as e:
        assert e.returncode is None and e.exit_description() == "running"
        assert e.engine_pid is not None
        state = proc_state(e.engine_pid)
        assert state is not None and state[1:] == (e.engine_pid, e.guard_pid)  # group, session
        await e.send_all(b"sei\n")
        assert await read_line(e) == b"sei\n"
        await e.send_all(b"isready\nposition x\n")
        got = b""
        while got.count(b"\n") < 2:
            got += await e.receive_some()
        assert got == b"isready\nposition x\n"
    # quit was echoed, then EOF on stdin ended the loop: a voluntary exit.
    assert e.status == ExitStatus(code=0)
    assert e.exit_description() == "exit code 0"
    assert session_alive(e.guard_pid) == []


async def test_eof_exit_code_and_engine_gone() -> None:
    code = "import sys; sys.stdout.write('bye\\n'); sys.stdout.flush(); sys.exit(3)"
    async with open_engine_process(engine(code)) as e:
        out = b""
        while chunk := await e.receive_some():
            out += chunk
        assert out == b"bye\n"
        status = await e.wait()
        assert status.code == 3 and status.returncode == 3 and not status.forced
        assert e.exit_description() == "exit code 3"
        with pytest.raises(EngineGone) as info:
            await e.send_all(b"go\n")
        assert info.value.status == status
        assert "exit code 3" in str(info.value)


@pytest.mark.parametrize(
    ("sig", "text"),
    [
        (signal.SIGSEGV, "killed by signal 11 (SIGSEGV)"),
        (signal.SIGKILL, "killed by signal 9 (SIGKILL)"),
    ],
)
async def test_signal_death_is_named(sig: int, text: str, tmp_path: Path) -> None:
    code = f"import os; os.kill(os.getpid(), {int(sig)})"
    async with open_engine_process(engine(code), cwd=tmp_path) as e:
        status = await e.wait()
    assert status.signal == sig and status.returncode == -sig and status.code is None
    assert e.exit_description() == text


async def test_quit_is_sent_and_obeyed() -> None:
    code = """
    import sys
    for line in sys.stdin:
        if line == "quit\\n":
            sys.exit(7)
    """
    async with open_engine_process(engine(code)) as e:
        pass
    assert e.status == ExitStatus(code=7)


async def test_cwd_env_and_limits_reach_the_engine(tmp_path: Path) -> None:
    code = """
    import os, resource
    print(os.getcwd(), os.environ.get("SEI_TEST"), resource.getrlimit(resource.RLIMIT_AS)[0],
          resource.getrlimit(resource.RLIMIT_CPU)[0], os.getpgid(0) == os.getpid(), flush=True)
    """
    env = dict(os.environ, SEI_TEST="yes")
    limits = EngineLimits(memory_bytes=1024 * MB, cpu_seconds=30)
    async with open_engine_process(engine(code), cwd=tmp_path, env=env, limits=limits) as e:
        line = (await read_line(e)).decode().split()
    assert line == [str(tmp_path), "yes", str(1024 * MB), "30", "True"]


# --- Start failures -------------------------------------------------------------------------------


async def test_missing_binary_is_one_clear_line(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-engine")
    with pytest.raises(EngineStartError) as info:
        async with open_engine_process([missing, "--uci"]):
            pass  # pragma: no cover
    message = str(info.value)
    assert message == f"cannot execute {missing!r}: No such file or directory"
    assert info.value.errno == errno.ENOENT and info.value.argv == (missing, "--uci")
    # Same through nursery.start, and for a bare name searched on PATH.
    async with trio.open_nursery() as nursery:
        with pytest.raises(EngineStartError, match="No such file or directory"):
            await nursery.start(run_engine, ["santorini-engine-that-does-not-exist"])


async def test_not_executable_is_one_clear_line(tmp_path: Path) -> None:
    script = tmp_path / "engine.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    sink = BoundedCapture()
    with pytest.raises(EngineStartError) as info:
        async with open_engine_process([str(script)], stderr_sink=sink):
            pass  # pragma: no cover
    assert str(info.value) == f"cannot execute {str(script)!r}: Permission denied"
    assert info.value.errno == errno.EACCES
    assert "Traceback" not in str(info.value) and sink.getvalue() == b""


async def test_bad_cwd_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(EngineStartError, match=r"^cannot change directory to '.*nowhere'"):
        async with open_engine_process(ECHO, cwd=tmp_path / "nowhere"):
            pass  # pragma: no cover


def test_guard_status_protocol(tmp_path: Path) -> None:
    """The guard on its own: status lines and exit codes as documented in guard.py."""

    def run(argv: list[str]) -> tuple[int, list[str]]:
        life_r, life_w = os.pipe()
        stat_r, stat_w = os.pipe()
        cmd = [PY, "-I", "-S", str(GUARD_PATH), "--lifeline-fd", str(life_r)]
        cmd += ["--status-fd", str(stat_w), "--", *argv]
        proc = subprocess.Popen(cmd, pass_fds=(life_r, stat_w), stderr=subprocess.PIPE)
        os.close(life_r)
        os.close(stat_w)
        _, err = proc.communicate(timeout=10)
        os.close(life_w)
        with os.fdopen(stat_r, "rb") as f:
            lines = f.read().decode().splitlines()
        assert err == b""  # the guard never prints, and nothing here writes to stderr
        return proc.returncode, lines

    rc, lines = run([PY, "-c", "raise SystemExit(3)"])
    assert rc == 3 and lines[0].startswith("started ") and lines[1:] == ["exit 3"]
    rc, lines = run([PY, "-c", "import os; os.kill(os.getpid(), 9)"])
    assert rc == 128 + 9 and lines[1:] == ["signal 9"]
    rc, lines = run([str(tmp_path / "nope")])  # exit 127, as a shell would
    nope = str(tmp_path / "nope")
    assert rc == 127 and lines == [f"error 2 cannot execute {nope!r}: No such file or directory"]
    rc, lines = run([str(tmp_path)])  # a directory: EACCES
    assert rc == 126 and lines[0].startswith("error 13 ")


# --- Shutdown -------------------------------------------------------------------------------------


async def test_engine_ignoring_quit_and_sigterm_is_killed_within_grace() -> None:
    async with open_engine_process(STUBBORN) as e:
        assert await read_line(e) == b"ready\n"
        start = trio.current_time()
        status = await e.aclose(grace=0.2, term_grace=0.2)
        elapsed = trio.current_time() - start
    assert status.signal == signal.SIGKILL and status.forced
    assert e.exit_description() == "killed by signal 9 (SIGKILL) after the referee forced shutdown"
    assert 0.4 <= elapsed < 1.5
    assert session_alive(e.guard_pid) == []


async def test_sigterm_is_forwarded_to_the_engine() -> None:
    code = "import sys, time\nprint('ready', flush=True)\nsys.stdin.read()\ntime.sleep(60)"
    async with open_engine_process(engine(code), quit_grace=0.2, term_grace=5) as e:
        assert await read_line(e) == b"ready\n"
    assert e.status == ExitStatus(signal=signal.SIGTERM, forced=True)


async def test_engine_blocked_on_stdout_still_sees_quit() -> None:
    # Writes 1 MB nobody reads, then waits for quit: aclose drains stdout so it gets there.
    code = """
    import sys
    sys.stdout.write("x" * (1 << 20)); sys.stdout.flush()
    for line in sys.stdin:
        if line.strip() == "quit":
            sys.exit(0)
    """
    async with open_engine_process(engine(code)) as e:
        await trio.sleep(0.05)
    assert e.status == ExitStatus(code=0)


async def test_grandchildren_do_not_survive_aclose() -> None:
    # One grandchild stays in the engine's group, one moves to a group of its own (still in the
    # guard's session); both inherit the pipes and would outlive the engine.
    code = f"""
    import os, subprocess, sys
    a = subprocess.Popen({SLEEPER})
    b = subprocess.Popen({SLEEPER}, process_group=0)
    print(a.pid, b.pid, flush=True)
    sys.stdin.readline()
    """
    async with open_engine_process(engine(code)) as e:
        pids = [int(p) for p in (await read_line(e)).split()]
        assert all(alive(pid) for pid in pids)
        escaped = proc_state(pids[1])
        assert escaped is not None and escaped[1:] == (pids[1], e.guard_pid)  # own group
    assert e.status == ExitStatus(code=0)
    assert not any(alive(pid) for pid in pids)
    assert session_alive(e.guard_pid) == []


async def test_grandchild_holding_stdout_does_not_delay_eof() -> None:
    code = f"""
    import subprocess
    p = subprocess.Popen({SLEEPER})
    print(p.pid, flush=True)
    """
    async with open_engine_process(engine(code)) as e:
        with trio.fail_after(3):
            out = b""
            while chunk := await e.receive_some():
                out += chunk
            status = await e.wait()
        assert status == ExitStatus(code=0)
        assert not alive(int(out))


# --- stderr ---------------------------------------------------------------------------------------


def vm_rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")  # pragma: no cover


async def test_stderr_flood_is_bounded_and_does_not_block_the_engine() -> None:
    flood = 100 * MB
    code = f"""
    import os, sys
    chunk = b"e" * {MB}
    for _ in range({flood // MB}):
        os.write(2, chunk)
    print("done", flush=True)
    sys.stdin.readline()
    """
    sink = BoundedCapture()
    baseline = vm_rss_bytes()
    peak = baseline

    async def sample() -> None:
        nonlocal peak
        while True:
            peak = max(peak, vm_rss_bytes())
            await trio.sleep(0.005)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(sample)
        with trio.fail_after(15):
            async with open_engine_process(engine(code), stderr_sink=sink) as e:
                assert await read_line(e) == b"done\n"  # the engine got through 100 MB
        nursery.cancel_scope.cancel()
    assert e.status == ExitStatus(code=0)
    assert sink.total == flood
    kept = sink.getvalue()
    assert len(kept) < 70 * 1024 and sink.dropped == flood - 64 * 1024
    assert b"bytes of stderr dropped" in kept
    assert peak - baseline < 16 * MB, f"RSS grew by {(peak - baseline) / MB:.1f} MB"


def test_bounded_capture_keeps_head_and_tail() -> None:
    sink = BoundedCapture(head_bytes=4, tail_bytes=3)
    sink.write(b"ab")
    assert sink.getvalue() == b"ab" and sink.dropped == 0
    sink.write(b"cdefg")
    assert sink.getvalue() == b"abcdefg" and sink.dropped == 0
    sink.write(b"hi")
    assert sink.total == 9 and sink.dropped == 2
    assert sink.getvalue() == b"abcd\n[... 2 bytes of stderr dropped ...]\nghi"
    sink.write(b"0123456789")
    assert sink.getvalue().endswith(b"789") and sink.dropped == 12


async def test_stderr_is_captured() -> None:
    code = "import sys; sys.stderr.write('debug: hello\\n'); sys.exit(1)"
    async with open_engine_process(engine(code)) as e:
        await e.wait()
    assert isinstance(e.stderr_sink, BoundedCapture)
    assert e.stderr_sink.getvalue() == b"debug: hello\n"


# --- Resource limits ------------------------------------------------------------------------------


async def test_memory_limit_applies_to_the_engine() -> None:
    code = """
    try:
        block = bytearray(512 << 20)
    except MemoryError:
        raise SystemExit(5)
    """
    async with open_engine_process(engine(code), limits=EngineLimits(memory_bytes=256 * MB)) as e:
        assert (await e.wait()).code == 5


async def test_cpu_limit_stops_a_runaway_engine() -> None:
    limits = EngineLimits(cpu_seconds=1)
    async with open_engine_process(engine("while True: pass"), limits=limits) as e:
        with trio.fail_after(5):
            status = await e.wait()
    assert status.signal == signal.SIGXCPU
    assert e.exit_description() == "killed by signal 24 (SIGXCPU)"


# --- Nobody left behind ---------------------------------------------------------------------------


async def test_engine_dies_when_the_referee_is_sigkilled() -> None:
    referee_code = f"""
    import sys, trio
    sys.path.insert(0, {str(REPO)!r})
    from santorini_server.process import open_engine_process

    async def main():
        async with open_engine_process([sys.executable, "-c", {STUBBORN_CODE!r}]) as e:
            line = b""
            while not line.endswith(b"\\n"):
                line += await e.receive_some()
            print(e.guard_pid, e.engine_pid, flush=True)
            await trio.sleep_forever()

    trio.run(main)
    """
    referee = await trio.lowlevel.open_process(engine(referee_code), stdout=subprocess.PIPE)
    try:
        assert referee.stdout is not None
        with trio.fail_after(10):
            line = b""
            while not line.endswith(b"\n"):
                chunk = await referee.stdout.receive_some()
                assert chunk, "referee exited early"
                line += chunk
        guard_pid, engine_pid = (int(p) for p in line.split())
        assert alive(guard_pid) and alive(engine_pid)
        referee.kill()  # SIGKILL: no finally, no aclose, nothing runs in the referee
        await referee.wait()
        took = await wait_dead([guard_pid, engine_pid], 2.0)
        assert session_alive(guard_pid) == []
        assert took < 2.0
    finally:
        with trio.CancelScope(shield=True):
            referee.kill()
            await referee.wait()
            if referee.stdout is not None:
                await referee.stdout.aclose()


async def test_ctrl_c_in_the_referee_shuts_the_engine_down_gracefully() -> None:
    referee_code = f"""
    import sys, trio
    sys.path.insert(0, {str(REPO)!r})
    from santorini_server.process import open_engine_process
    engines = []

    async def main():
        async with open_engine_process([sys.executable, "-c", {ECHO_CODE!r}]) as e:
            engines.append(e)
            await e.send_all(b"hi\\n")
            line = b""
            while not line.endswith(b"\\n"):
                line += await e.receive_some()
            print(e.guard_pid, e.engine_pid, flush=True)
            await trio.sleep_forever()

    try:
        trio.run(main)
    except KeyboardInterrupt:
        print("interrupted:", engines[0].exit_description(), flush=True)
    """
    referee = await trio.lowlevel.open_process(engine(referee_code), stdout=subprocess.PIPE)
    try:
        assert referee.stdout is not None
        out = b""
        with trio.fail_after(10):
            while not out.endswith(b"\n"):
                chunk = await referee.stdout.receive_some()
                assert chunk, "referee exited early"
                out += chunk
            guard_pid, engine_pid = (int(p) for p in out.split())
            referee.send_signal(signal.SIGINT)
            while chunk := await referee.stdout.receive_some():
                out += chunk
            assert await referee.wait() == 0
        # The engine got quit and left on its own before the referee exited.
        assert out.splitlines()[1] == b"interrupted: exit code 0"
        assert not alive(guard_pid) and not alive(engine_pid)
    finally:
        with trio.CancelScope(shield=True):
            referee.kill()
            await referee.wait()
            if referee.stdout is not None:
                await referee.stdout.aclose()


async def test_cancellation_reaps_the_engine() -> None:
    with trio.move_on_after(0.5) as scope:
        async with open_engine_process(STUBBORN, quit_grace=0.1, term_grace=0.1) as e:
            await trio.sleep_forever()
    assert scope.cancelled_caught
    assert e.status == ExitStatus(signal=signal.SIGKILL, forced=True)
    assert session_alive(e.guard_pid) == []


async def test_cancelling_a_run_engine_nursery_reaps_the_engine() -> None:
    async with trio.open_nursery() as nursery:
        e = await nursery.start(run_engine, ECHO)
        await e.send_all(b"hi\n")
        assert await read_line(e) == b"hi\n"
        nursery.cancel_scope.cancel()
    assert e.status == ExitStatus(code=0)  # quit, then EOF: the echo engine leaves on its own
    assert session_alive(e.guard_pid) == []


async def test_guard_killed_behind_our_back_still_leaves_no_engine() -> None:
    # What the OOM killer could do: SIGKILL the guard itself.  The referee sweeps the session.
    async with open_engine_process(STUBBORN) as e:
        assert await read_line(e) == b"ready\n"
        os.kill(e.guard_pid, signal.SIGKILL)
        with trio.fail_after(3):
            status = await e.wait()
        assert status.returncode is None
        assert status.describe() == "guard killed by signal 9 (SIGKILL); engine exit status unknown"
        assert e.engine_pid is not None and not alive(e.engine_pid)
    assert session_alive(e.guard_pid) == []


# --- Daemons: a grandchild that calls setsid() ----------------------------------------------------
# ``tests/gallery/daemon.py`` double-forks a daemon that leaves the engine's session, ignores
# SIGHUP/SIGINT/SIGTERM and sleeps; the engine logs "<daemon pid> <engine pid>" at each start.


def started_pids(pids_file: Path) -> list[int]:
    """Every daemon and engine pid the daemonising engine logged."""
    return [int(pid) for pid in pids_file.read_text().split()] if pids_file.exists() else []


def daemon_engine(pids_file: Path, *args: str) -> list[str]:
    return [PY, "-m", "tests.gallery.daemon", str(pids_file), *args]


async def handshake(e: EngineProcess) -> None:
    """Until ``seiok``: by then the engine has logged its daemon."""
    await e.send_all(b"sei\n")
    out = b""
    with trio.fail_after(10):
        while b"seiok" not in out:
            chunk = await e.receive_some()
            assert chunk, f"EOF after {out!r}"
            out += chunk


async def test_daemon_that_calls_setsid_does_not_survive_aclose(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    async with open_engine_process(daemon_engine(pids_file), cwd=REPO) as e:
        await handshake(e)
        daemon, engine_pid = started_pids(pids_file)
        assert engine_pid == e.engine_pid
        state = proc_state(daemon)
        assert state is not None and alive(daemon) and state[2] not in (e.guard_pid, daemon)  # own session
    assert e.status == ExitStatus(code=0)
    assert not alive(daemon) and not alive(engine_pid)  # gone by the time aclose returns


async def test_orphans_are_reparented_to_the_guard_and_reaped_while_the_engine_runs() -> None:
    # Each orphan's parent exits at once; the orphan lives 0.5 s, then exits while the engine is
    # still running.  The guard (subreaper) is its new parent and reaps it: no zombie piles up.
    code = """
    import os, sys, time
    r, w = os.pipe()
    for _ in range(3):
        if os.fork() == 0:
            if os.fork() == 0:
                os.write(w, b"%d " % os.getpid())
                time.sleep(0.5)
            os._exit(0)
        os.wait()
    os.close(w)
    pids = b""
    while pids.count(b" ") < 3:
        pids += os.read(r, 100)
    print(pids.decode(), flush=True)
    sys.stdin.readline()
    """
    async with open_engine_process(engine(code)) as e:
        orphans = [int(pid) for pid in (await read_line(e)).split()]
        assert len(orphans) == 3
        assert {parent_of(pid) for pid in orphans} == {e.guard_pid}
        with trio.fail_after(3):
            while any(proc_state(pid) is not None for pid in orphans):
                await trio.sleep(0.02)
        assert e.status is None  # reaped while the engine runs, not at its end


async def test_daemon_holding_stdout_does_not_delay_eof(tmp_path: Path) -> None:
    # The engine leaves on its own (quit) while its daemon still holds the stdout pipe: EOF comes
    # when the engine exits, because the guard kills the daemon then.
    pids_file = tmp_path / "pids"
    async with open_engine_process(daemon_engine(pids_file, "hold"), cwd=REPO) as e:
        await handshake(e)
        daemon, _ = started_pids(pids_file)
        await e.send_all(b"quit\n")
        with trio.fail_after(3):
            while await e.receive_some():
                pass
            assert await e.wait() == ExitStatus(code=0)
        assert not alive(daemon)


async def run_match_until(pids_file: Path, *, games: int, started: int) -> tuple[trio.Process, bytes]:
    """Start ``santorini match`` (the daemonising engine against a slow instant one) and read its
    output until game ``started`` has started."""
    spec = f"cmd={PY} arg=-m arg=tests.gallery.daemon arg={pids_file} name=Daemon"
    other = f"cmd={PY} arg=-m arg=tests.gallery.instant arg=sleep=20 name=Slow"
    cmd = [PY, "-m", "santorini_server.cli", "match", spec, other, "--games", str(games), "--tc", "60+1"]
    referee = await trio.lowlevel.open_process(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert referee.stdout is not None
    out = b""
    with trio.fail_after(10):
        while f"Started game {started} ".encode() not in out:
            chunk = await referee.stdout.receive_some()
            assert chunk, f"referee exited early: {out!r}"
            out += chunk
    return referee, out


async def stop_referee(referee: trio.Process) -> None:
    with trio.CancelScope(shield=True):
        referee.kill()
        await referee.wait()
        for stream in (referee.stdout, referee.stderr):
            if stream is not None:
                await stream.aclose()


async def test_match_leaves_no_daemon_behind(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    referee, _ = await run_match_until(pids_file, games=2, started=1)
    try:
        assert referee.stdout is not None
        with trio.fail_after(10):
            while await referee.stdout.receive_some():
                pass
            assert await referee.wait() == 0
        pids = started_pids(pids_file)
        assert pids
        assert [pid for pid in pids if alive(pid)] == []
    finally:
        await stop_referee(referee)


async def test_ctrl_c_of_a_match_leaves_no_daemon_behind(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    referee, _ = await run_match_until(pids_file, games=100, started=2)
    try:
        pids = started_pids(pids_file)
        assert pids and all(alive(pid) for pid in pids[-2:])
        referee.send_signal(signal.SIGINT)
        assert referee.stderr is not None
        with trio.fail_after(10):
            err = b""
            while chunk := await referee.stderr.receive_some():
                err += chunk
            assert await referee.wait() == 130, err
        assert err == b"interrupted: engines stopped; games finished so far are saved\n"
        assert [pid for pid in started_pids(pids_file) if alive(pid)] == []
    finally:
        await stop_referee(referee)


async def test_sigkill_of_a_match_leaves_no_daemon_behind(tmp_path: Path) -> None:
    pids_file = tmp_path / "pids"
    referee, _ = await run_match_until(pids_file, games=100, started=2)
    try:
        pids = started_pids(pids_file)
        assert pids and all(alive(pid) for pid in pids[-2:])
        referee.kill()  # nothing runs in the referee: the guards' lifelines break
        await referee.wait()
        await wait_dead(started_pids(pids_file), 3.0)
    finally:
        await stop_referee(referee)
