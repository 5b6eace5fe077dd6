"""The local backend over several referee processes (``--processes``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import trio

from santorini_server.records import TurnRecord, read_archive
from santorini_server.referee import progress
from santorini_server.rules import Position
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.pool import ProcessPoolBackend
from santorini_server.tournament.runner import run_tournament

from .test_tournament import instant, leftovers, numbers

PY = sys.executable


def content(directory: Path) -> list[tuple[object, ...]]:
    records, _ = read_archive(directory / "games.msgpack")
    return sorted((r.game_number, r.players, r.result, r.termination, tuple(t.turn for t in r.turns)) for r in records)


def test_pool_plays_the_same_games_as_one_process(tmp_path: Path) -> None:
    args = ["tournament", "-e", instant("A"), "-e", instant("B"), "-e", instant("C"), "--tc", "5+0.05", "-j", "2",
            "--rating-interval", "100"]

    def tournament(processes: str, out: str) -> subprocess.CompletedProcess[str]:
        command = [PY, "-m", "santorini_server.cli", *args, "--processes", processes, "--out", str(tmp_path / out)]
        return subprocess.run(command, capture_output=True, text=True, timeout=120)

    one = tournament("1", "one")
    two = tournament("2", "two")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert content(tmp_path / "one") == content(tmp_path / "two")
    assert len(content(tmp_path / "two")) == 6
    assert two.stdout.count("Started game") == 6 and two.stdout.count("Finished game") == 6
    # the banner says what runs the games
    assert one.stdout.startswith("Tournament: 3 engines, 6 games, tc 5+0.05, concurrency 2, games in this process;")
    assert two.stdout.startswith("Tournament: 3 engines, 6 games, tc 5+0.05, concurrency 2, games in 2 referee processes;")


async def test_a_killed_worker_process_loses_only_its_games_which_resume_replays(tmp_path: Path) -> None:
    marker = f"marker={uuid.uuid4().hex}"
    settings = Settings(
        engines=[instant("A", "sleep=20", marker), instant("B", "sleep=20", marker)],
        rounds=3, tc="10+0.1", concurrency=2, rating_interval=100,
    )
    config = TournamentConfig.from_settings(settings)
    files = TournamentFiles(tmp_path / "t")
    lines: list[str] = []
    backend = ProcessPoolBackend(config, 2)

    async def killer() -> None:
        while not any(line.startswith("Finished") for line in lines):
            await trio.sleep(0.05)
        # this run's workers only: a pool worker of another run on the machine is not ours to kill
        workers = [p for p in os.listdir("/proc") if p.isdigit() and _is_pool_worker(p) and _descends_from(p, os.getpid())]
        assert workers
        os.kill(int(workers[0]), signal.SIGKILL)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(killer)
        result = await run_tournament(config, files, backend=backend, emit=lines.append)
    files.close()
    assert result.lost, "the killed worker's games are reported as lost"
    assert all("worker process ended" in g.reason for g in result.lost)
    assert any(line.startswith("Lost game") for line in lines)
    assert len(numbers(tmp_path / "t")) + len(result.lost) == 6
    # resume plays exactly the lost games
    files = TournamentFiles(tmp_path / "t")
    again = await run_tournament(config, files, backend=ProcessPoolBackend(config, 2), emit=lines.append)
    files.close()
    assert numbers(tmp_path / "t") == list(range(1, 7)) and not again.lost
    deadline = time.monotonic() + 5
    while leftovers(marker) and time.monotonic() < deadline:
        await trio.sleep(0.05)
    assert leftovers(marker) == []


def _descends_from(pid: str, ancestor: int) -> bool:
    """Whether process ``pid`` is a descendant of ``ancestor`` (the worker runs under a guard)."""
    current = int(pid)
    while current > 1:
        try:
            current = int(Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if current == ancestor:
            return True
    return False


def _is_pool_worker(pid: str) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    is_worker = cmdline.startswith(PY.encode()) or b"python" in cmdline.split(b"\0")[0]
    return (
        is_worker
        and b"santorini_server.tournament.pool_worker" in cmdline
        and b"guard.py" not in cmdline  # the worker, not its guard
        and stat.rsplit(")", 1)[1].split()[0] != "Z"
    )


async def test_the_wire_reads_lines_and_payloads_across_chunks_and_bounds_lines() -> None:
    from santorini_server.tournament.pool import WireReader

    chunks = [b"started ", b"3\nrecord 5\nab", b"cdeplay", b" 4\n", b""]

    async def receive_some() -> bytes:
        return chunks.pop(0)

    wire = WireReader(receive_some)
    assert await wire.line() == b"started 3"
    assert await wire.line() == b"record 5"
    assert await wire.exactly(5) == b"abcde"
    assert await wire.line() == b"play 4"
    assert await wire.line() is None  # EOF
    flood = [b"x" * 3000, b"y" * 3000]

    async def flooding() -> bytes:
        return flood.pop(0) if flood else b""

    with pytest.raises(ValueError, match="over 4096 bytes"):
        await WireReader(flooding, max_line=4096).line()
    short = [b"abc", b""]

    async def cut() -> bytes:
        return short.pop(0)

    assert await WireReader(cut).exactly(5) is None  # EOF before the payload's end


def _allowed_cpus(pid: str) -> str | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Cpus_allowed_list")), None)


def test_affinity_pins_each_game_s_referee_process_and_its_engines_to_a_cpu_of_their_own(tmp_path: Path) -> None:
    cpus = sorted(os.sched_getaffinity(0))[:2]
    marker = f"marker={uuid.uuid4().hex}"
    command = [PY, "-m", "santorini_server.cli", "tournament", "-e", instant("A", "sleep=30", marker),
               "-e", instant("B", "sleep=30", marker), "--rounds", "2", "--tc", "10+0.1", "-j", str(len(cpus)),
               "--affinity", "--rating-interval", "100", "--out", str(tmp_path / "t")]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: dict[str, str] = {}  # pid -> its allowed CPUs when last seen, for our engines and pool workers
    while run.poll() is None:  # (a worker is seen unpinned until it has read its first line)
        for pid in os.listdir("/proc"):
            if pid.isdigit() and _descends_from(pid, run.pid):
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                ours = (marker.encode() in cmdline or b"pool_worker" in cmdline) and b"guard.py" not in cmdline
                if ours and (allowed := _allowed_cpus(pid)) is not None:
                    seen[pid] = allowed
        time.sleep(0.02)
    out, err = run.communicate()
    assert run.returncode == 0, err
    pinned = ", ".join(map(str, cpus))
    assert f"games in {'this process' if len(cpus) == 1 else f'{len(cpus)} referee processes'}, pinned to CPU" in out
    assert pinned in out.splitlines()[0]
    assert len(seen) >= 2, "the engines (and workers) were seen running"
    # every engine and worker may run on one CPU only, and the games used every CPU given
    assert set(seen.values()) == {str(cpu) for cpu in cpus}
    assert len(numbers(tmp_path / "t")) == 4


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-j", "64", "--force-concurrency"], "--affinity gives each game a CPU of its own: --concurrency 64 is more than"),
        (["--backend", "dask"], "--affinity pins referee processes on this machine: it does not go with --backend dask"),
    ],
)
def test_affinity_refuses_what_it_cannot_pin_in_one_line(tmp_path: Path, extra: list[str], message: str) -> None:
    command = [PY, "-m", "santorini_server.cli", "tournament", "-e", instant("A"), "-e", instant("B"), "--affinity",
               "--out", str(tmp_path / "t"), *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [f"Error: {done.stderr.strip().removeprefix('Error: ')}"]
    assert message in done.stderr
    assert not (tmp_path / "t").exists()


class Recorder:
    """A game's progress as a sink saw it, in order."""

    def __init__(self, log: list[tuple[int, object]], number: int) -> None:
        self.log = log
        self.number = number

    def begin(self, event: progress.Begin) -> None:
        self.log.append((self.number, event))

    def turn(self, event: progress.Turn) -> None:
        self.log.append((self.number, event))

    def end(self, event: progress.Ending) -> None:
        self.log.append((self.number, event))


async def test_each_game_s_progress_comes_over_the_wire_in_order_as_the_record_has_it(tmp_path: Path) -> None:
    settings = Settings(engines=[instant("A"), instant("B")], rounds=2, tc="10+0.1", concurrency=2, rating_interval=100)
    config = TournamentConfig.from_settings(settings)
    files = TournamentFiles(tmp_path / "t")
    log: list[tuple[int, object]] = []
    backend = ProcessPoolBackend(config, 2, observe=lambda game: Recorder(log, game.number))
    before = time.time()
    result = await run_tournament(config, files, backend=backend, emit=lambda line: None)
    files.close()
    records, _ = read_archive(tmp_path / "t" / "games.msgpack")
    assert result.complete and len(records) == 4
    for record in records:
        events = [e for n, e in log if n == record.game_number]
        begin, *turns, end = events
        assert isinstance(begin, progress.Begin) and isinstance(end, progress.Ending)
        assert all(isinstance(t, progress.Turn) for t in turns)
        assert begin.names == list(record.players) and Position.from_sps(begin.start).gods == tuple(record.gods)
        assert [t.record for t in turns] == list(record.turns)  # every turn, in order, as recorded
        assert (end.result, end.termination, end.turns) == (record.result, record.termination, len(record.turns))
        assert end.words and all(len(t.clocks) == 2 for t in turns)
        stamps = [begin.t, *(t.t for t in turns), end.t]  # the worker's wall clock at each ruling
        assert stamps == sorted(stamps) and before <= stamps[0] and stamps[-1] <= time.time()
        # the clocks are the adjudicator's after each turn: the first mover has what its turn took
        # from it (Fischer: base - spent + increment; the record's time is rounded), the other its base
        first = turns[0]
        assert abs(first.clocks[0] - (10_000 - (first.record.time_ms or 0) + 100)) <= 1  # type: ignore[operator]
        assert first.clocks[1] == 10_000


async def test_once_stopped_the_pool_hands_out_no_game_and_queues_none(tmp_path: Path) -> None:
    settings = Settings(engines=[instant("A", "sleep=30"), instant("B", "sleep=30")], rounds=4, tc="10+0.1",
                        concurrency=1, rating_interval=100)
    config = TournamentConfig.from_settings(settings)
    files = TournamentFiles(tmp_path / "t")
    stop = trio.Event()
    lines: list[str] = []

    def emit(line: str) -> None:
        lines.append(line)
        if line.startswith("Started game 1 "):
            stop.set()  # the drain comes while game 1 plays

    result = await run_tournament(config, files, backend=ProcessPoolBackend(config, 1, stop=stop), emit=emit)
    files.close()
    # game 1 is finished; nothing was queued behind it, so nothing else started
    assert numbers(tmp_path / "t") == [1] and not result.lost and not result.complete
    assert sum(line.startswith("Started game") for line in lines) == 1


def test_a_progress_message_is_checked_field_by_field() -> None:
    good = progress.Turn(3, TurnRecord("a1-a2", time_ms=5), [9_000, None], 1.5)
    assert progress.decode(progress.encode(good)) == good
    bad = progress.encode(progress.Turn(3, TurnRecord("a1-a2"), [1], 1.0)).replace(b"a1-a2", b"a1 a2")
    with pytest.raises(ValueError, match="not a game progress message: turn must be one token"):
        progress.decode(bad)
    with pytest.raises(ValueError, match="not a game progress message"):
        progress.decode(b"\x93\x01\x02")
