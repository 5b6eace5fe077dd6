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

from santorini_server.records import read_archive
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
