"""``--backend dask``: the same games as the local backend, nothing lost when workers die, no
engine left behind after Ctrl-C, workers that refuse missing engines, and two "machines"
(network namespaces) of which one is killed mid-run.  Real processes throughout."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")

import dask
from distributed import Client, LocalCluster

from santorini_server.backends.dask_backend import DaskBackend, DaskBackendError, _outcome
from santorini_server.backends.dask_worker import spec_text
from santorini_server.records import GameRecord, read_archive
from santorini_server.referee.engine_spec import parse_engine_spec
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.runner import Backend, LocalBackend, LostGame, TournamentResult, run_tournament
from santorini_server.tournament.schedule import ScheduledGame

from .test_process import session_alive
from .test_tournament import leftovers

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
MARKER = f"marker={uuid.uuid4().hex}"


def instant(name: str, *args: str) -> str:
    return f"cmd={PY} arg=-m arg=tests.gallery.instant name={name} " + " ".join(f"arg={a}" for a in args)


def nseat(name: str) -> str:
    return f"cmd={PY} arg=-m arg=tests.gallery.nseat name={name}"


def engines_file(directory: Path, marker: str) -> Path:
    """A worker's engines file: A/B instant, SA/SB 10 ms per turn (about 0.5 s a game), N1-N3
    instant for 2-4 seats."""
    path = directory / "engines.json"
    path.write_text(json.dumps({
        "A": instant("A"), "B": instant("B"),
        "SA": instant("SA", "sleep=10", marker), "SB": instant("SB", "sleep=10", marker),
        **{f"N{k}": nseat(f"N{k}") for k in (1, 2, 3)},
    }))
    return path


def wait_gone(marker: str, seconds: float = 8.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and leftovers(marker):
        time.sleep(0.05)
    return leftovers(marker)


def config_of(*engines: str, rounds: int, concurrency: int = 2) -> TournamentConfig:
    return TournamentConfig.from_settings(
        Settings(engines=list(engines), rounds=rounds, tc="10+0.1", concurrency=concurrency, rating_interval=1000)
    )


async def play(config: TournamentConfig, backend: Backend, directory: Path, lines: list[str] | None = None) -> TournamentResult:
    files = TournamentFiles(directory)
    try:
        return await run_tournament(config, files, backend=backend, emit=(lines.append if lines is not None else lambda _: None))
    finally:
        files.close()


def archived(directory: Path) -> list[int]:
    records, damage = read_archive(directory / "games.msgpack")
    assert not damage
    return sorted(r.game_number for r in records)  # type: ignore[misc]


def essence(record: GameRecord) -> tuple[object, ...]:
    """What must not depend on the backend (per-turn times and the date may)."""
    return (record.game_number, record.players, record.gods, record.result, record.termination,
            [t.turn for t in record.turns])


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[Client, str]]:
    """Two one-slot worker processes with the engines file above, as ``santorini worker`` sets up."""
    directory = Path(tempfile.mkdtemp(prefix="santorini-dask-test-"))
    path = engines_file(directory, MARKER)
    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    dask.config.set({"distributed.scheduler.allowed-failures": 1})  # KilledWorker after 2 deaths
    local = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
        worker_dashboard_address=None, resources={"santorini": 1}, silence_logs=40,
        env={"SANTORINI_ENGINES": str(path)}, preload=["santorini_server.backends.dask_preload"],
    )
    client = Client(local, set_as_default=False)
    client.wait_for_workers(2, timeout=30)
    try:
        yield client, local.scheduler_address
    finally:
        client.close()
        local.close()
        assert wait_gone(MARKER) == []


# --- the core stays Dask-free -----------------------------------------------------------------------


def test_the_core_and_a_local_tournament_import_nothing_of_dask(tmp_path: Path) -> None:
    code = f"""
import sys, trio
import santorini_server.cli.tournament_cmd
from santorini_server.cli import main
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.output import TournamentFiles
from santorini_server.tournament.runner import run_tournament
config = TournamentConfig.from_settings(Settings(engines=[{instant('A')!r}, {instant('B')!r}], tc="10+0.1", concurrency=1))
files = TournamentFiles(__import__("pathlib").Path({str(tmp_path)!r}))
result = trio.run(lambda: run_tournament(config, files, emit=lambda _: None))
files.close()
assert result.played == 2, result
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed", "santorini_server.backends"))
print("loaded:", loaded)
"""
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "loaded: []" in proc.stdout, proc.stdout


# --- same games as the local backend ------------------------------------------------------------------


async def test_dask_plays_the_same_games_as_the_local_backend(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    _, address = cluster
    config = config_of(instant("A"), instant("B"), rounds=5)
    local = await play(config, LocalBackend(config), tmp_path / "local")
    backend = DaskBackend(config, address)
    distributed = await play(config, backend, tmp_path / "dask")
    assert local.played == distributed.played == 10 and not distributed.lost
    assert archived(tmp_path / "dask") == list(range(1, 11))
    by_number = lambda folder: sorted((essence(r) for r in read_archive(folder / "games.msgpack")[0]), key=lambda e: e[0])  # noqa: E731
    assert by_number(tmp_path / "dask") == by_number(tmp_path / "local")
    assert backend.slots == 2


async def test_a_worker_killed_mid_run_loses_nothing_and_leaves_no_engine(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    client, address = cluster
    config = config_of(instant("SA"), instant("SB"), rounds=4)
    lines: list[str] = []
    killed: list[int] = []

    async def kill_a_worker() -> None:
        while not any(line.startswith("Started game") for line in lines):
            await trio.sleep(0.02)
        await trio.sleep(0.25)  # both workers are mid-game (a game takes about 0.5 s)
        pids = await trio.to_thread.run_sync(client.run, os.getpid)
        assert len(pids) == 2
        pid = sorted(pids.values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(kill_a_worker)
        result = await play(config, DaskBackend(config, address), tmp_path / "t", lines)
    assert killed and not result.lost
    assert result.played == 8
    assert archived(tmp_path / "t") == list(range(1, 9))
    assert sum(line.startswith("Finished game") for line in lines) == 8
    assert wait_gone(MARKER) == []  # the dead worker's engines died with it; the rest were released
    await trio.to_thread.run_sync(lambda: client.wait_for_workers(2, timeout=30))  # the nanny restarted it


async def test_dask_plays_three_and_four_seat_games_as_the_local_backend(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    _, address = cluster
    for players, engines in ((3, ("N1", "N2", "N3")), (4, ("N1", "N2"))):
        config = TournamentConfig.from_settings(Settings(
            engines=[nseat(name) for name in engines], players=players, gods="all", tc="10+0.1", concurrency=2,
            rating_interval=1000,
        ))
        local = await play(config, LocalBackend(config), tmp_path / f"local{players}")
        distributed = await play(config, DaskBackend(config, address), tmp_path / f"dask{players}")
        assert local.played == distributed.played == len(config.schedule) and not distributed.lost
        by_number = lambda folder: sorted((essence(r) for r in read_archive(folder / "games.msgpack")[0]), key=lambda e: e[0])  # noqa: E731
        assert by_number(tmp_path / f"dask{players}") == by_number(tmp_path / f"local{players}")
        assert all(len(r.players) == players for r in read_archive(tmp_path / f"dask{players}" / "games.msgpack")[0])


async def test_dask_workers_refuse_an_engine_without_the_seat_count(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    _, address = cluster
    config = TournamentConfig.from_settings(Settings(
        engines=[nseat("N1"), nseat("N2"), instant("A")], players=3, gods="all", tc="10+0.1", concurrency=2,
    ))
    with pytest.raises(BaseExceptionGroup) as caught:
        await play(config, DaskBackend(config, address), tmp_path / "t")
    found, _ = caught.value.split(DaskBackendError)
    assert found is not None, caught.value
    leaf: BaseException = found
    while isinstance(leaf, BaseExceptionGroup):
        leaf = leaf.exceptions[0]
    assert "A does not play 3-seat games" in str(leaf), leaf
    assert not (tmp_path / "t" / "games.msgpack").exists() or archived(tmp_path / "t") == []  # no game played


def _die() -> None:
    os._exit(3)


def test_a_task_that_kills_its_workers_is_a_lost_game_not_a_result(cluster: tuple[Client, str]) -> None:
    client, _ = cluster
    future = client.submit(_die, key=f"killer-{uuid.uuid4().hex}", pure=False, resources={"santorini": 1})
    done = next(iter(__import__("distributed").as_completed([future], loop=client.loop, with_results=True, raise_errors=False)))
    game = ScheduledGame(7, (0, 1), ("mortal", "mortal"), None, 1)
    lost = _outcome(game, done[0], done[1])
    assert isinstance(lost, LostGame) and lost.game == game
    assert lost.reason.startswith("it killed its worker repeatedly"), lost.reason
    client.wait_for_workers(2, timeout=30)


def test_a_local_cluster_engines_file_starts_the_same_program() -> None:
    spec = parse_engine_spec(f"cmd={PY} 'arg=-m' 'arg=a b' dir=/tmp limit.memory=512M limit.cpu=9 name='My Bot' option.Hash=64")
    again = parse_engine_spec(spec_text(spec))
    assert (again.argv, again.cwd, again.memory_limit, again.cpu_limit, again.name) == (spec.argv, "/tmp", 512 << 20, 9, "My Bot")
    assert again.options == ()  # options travel with each game, not in the file


def test_an_engine_missing_on_a_worker_is_a_one_line_error(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    _, address = cluster
    proc = subprocess.run(
        [PY, "-m", "santorini_server.cli", "tournament", "--backend", "dask", "--address", address,
         "-e", instant("A"), "-e", instant("C"), "--out", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert proc.returncode == 1
    assert re.search(r"Error: worker tcp://\S+ has no engine 'C' in its engines file", proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr
    assert f", games on the Dask scheduler at {address}; records in " in proc.stdout.splitlines()[0]


# --- Ctrl-C of a coordinator (own local cluster) ----------------------------------------------------------


def _left_in_session(sid: int, seconds: float = 5.0) -> list[str]:
    """The processes of session ``sid`` still running after ``seconds``, each with its command
    line: a worker or helper may take a moment to exit after the run itself has (under coverage
    each process saves its data as it exits), but none may stay."""
    deadline = time.monotonic() + seconds
    while (pids := session_alive(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    found = []
    for pid in pids:
        try:
            found.append(f"{pid} {Path(f'/proc/{pid}/cmdline').read_bytes().replace(bytes(1), b' ')[:160]!r}")
        except OSError:
            continue  # it has just exited
    return found


def test_ctrl_c_stops_every_game_and_engine_then_resume_finishes(tmp_path: Path) -> None:
    out = tmp_path / "t"
    marker = f"marker={uuid.uuid4().hex}"
    proc = subprocess.Popen(
        [PY, "-m", "santorini_server.cli", "tournament", "--backend", "dask", "-j", "2",
         "-e", instant("A", "sleep=20", marker), "-e", instant("B", "sleep=20", marker),
         "--rounds", "4", "--tc", "10+0.1", "--out", str(out), "--rating-interval", "100"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any(line.startswith("Finished game") for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1], "the tournament ended before it was interrupted"
        assert leftovers(marker)  # games are running on the workers
        assert ", concurrency 2, games on a Dask local cluster; records in " in lines[0]
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
        rest, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert time.monotonic() - sent < 15
    assert proc.returncode == 130, stderr
    assert f"Resume with: santorini tournament --resume {out} --backend dask" in stderr
    assert "Traceback" not in stderr, stderr
    assert wait_gone(marker) == []
    assert _left_in_session(proc.pid) == []  # no worker, nanny or engine of that run is left
    finished = ("".join(lines) + rest).count("Finished game")
    assert len(archived(out)) == finished < 8
    again = subprocess.run([PY, "-m", "santorini_server.cli", "tournament", "--resume", str(out), "--backend", "dask"],
                           capture_output=True, text=True, timeout=90, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert archived(out) == list(range(1, 9))
    assert wait_gone(marker) == []


# --- workers refuse engines they do not have ----------------------------------------------------------------


def test_a_worker_refuses_to_start_when_an_engine_is_missing(tmp_path: Path, cluster: tuple[Client, str]) -> None:
    _, address = cluster
    bad = tmp_path / "engines.toml"
    bad.write_text(f'ok = "cmd={PY}"\nghost = "cmd=/nonexistent/santorini-bot arg=--fast"\n')
    cli = subprocess.run([PY, "-m", "santorini_server.cli", "worker", "--address", address, "--engines", str(bad)],
                         capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert cli.returncode == 1
    assert cli.stderr.strip().splitlines() == [f"Error: {bad}: engine 'ghost': program /nonexistent/santorini-bot not found"]
    # the preload itself (a plain `dask worker`, or an engines file changed after the check)
    env = dict(os.environ, SANTORINI_ENGINES=str(bad))
    for flag in ("--preload-nanny", "--preload"):
        raw = subprocess.run(
            [PY, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard",
             flag, "santorini_server.backends.dask_preload"],
            capture_output=True, text=True, timeout=60, cwd=ROOT, env=env,
        )
        assert raw.returncode != 0, (flag, raw.stderr[-2000:])
        assert "santorini worker refused: " in raw.stderr and "engine 'ghost'" in raw.stderr


# --- two machines (network namespaces); one of them dies mid-run ------------------------------------------------


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10, check=check)


def _kill_namespace(ns: str) -> None:
    pids = _ip("netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_two_hosts_one_killed_mid_run_loses_nothing(tmp_path: Path) -> None:
    tag = uuid.uuid4().hex[:6]
    namespaces = [f"sant-{tag}-a", f"sant-{tag}-b"]
    bridge = f"sbr{tag}"
    net = f"10.77.{int(tag, 16) % 250 + 1}"
    try:
        _ip("netns", "add", namespaces[0])
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"network namespaces cannot be created here: {getattr(exc, 'stderr', '') or exc}")
    marker = f"marker={uuid.uuid4().hex}"
    procs: list[subprocess.Popen[bytes]] = []
    client: Client | None = None
    try:
        _ip("netns", "add", namespaces[1])
        _ip("link", "add", bridge, "type", "bridge")
        _ip("addr", "add", f"{net}.1/24", "dev", bridge)
        _ip("link", "set", bridge, "up")
        for i, ns in enumerate(namespaces):
            outside, inside = f"sv{tag}{i}", f"sn{tag}{i}"
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns)
            _ip("link", "set", outside, "master", bridge, "up")
            _ip("-n", ns, "addr", "add", f"{net}.{i + 2}/24", "dev", inside)
            _ip("-n", ns, "link", "set", inside, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        path = engines_file(tmp_path, marker)
        log = tmp_path / "scheduler.log"
        procs.append(subprocess.Popen([PY, "-m", "santorini_server.cli", "scheduler", "--host", f"{net}.1", "--port", "0"],
                                      stdout=subprocess.DEVNULL, stderr=open(log, "wb"), cwd=ROOT))
        address = ""
        deadline = time.monotonic() + 20
        while not address and time.monotonic() < deadline:
            found = re.search(r"Scheduler at:\s+(tcp://\S+)", log.read_text())
            address = found.group(1) if found else ""
            time.sleep(0.05)
        assert address, log.read_text()
        for ns in namespaces:
            procs.append(subprocess.Popen(
                ["ip", "netns", "exec", ns, PY, "-m", "santorini_server.cli", "worker", "--address", address,
                 "--slots", "1", "--engines", str(path), "--name", ns],
                stdout=subprocess.DEVNULL, stderr=open(tmp_path / f"{ns}.log", "wb"), cwd=ROOT,
            ))
        client = Client(address, set_as_default=False, timeout=10)
        await trio.to_thread.run_sync(lambda: client.wait_for_workers(2, timeout=30))  # type: ignore[union-attr]
        hosts = {w["host"] for w in client.scheduler_info()["workers"].values()}
        assert hosts == {f"{net}.2", f"{net}.3"}
        config = config_of(instant("SA"), instant("SB"), rounds=4)
        lines: list[str] = []
        killed: list[str] = []

        async def kill_host_a() -> None:
            # wait until host a plays a game (its engines are in its namespace), then kill it all
            while True:
                pids = _ip("netns", "pids", namespaces[0], check=False).stdout.split()
                if any(marker in _cmdline(pid) for pid in pids):
                    break
                await trio.sleep(0.05)
            await trio.sleep(0.3)
            _kill_namespace(namespaces[0])
            killed.append(namespaces[0])

        with trio.fail_after(40):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(kill_host_a)
                result = await play(config, DaskBackend(config, address), tmp_path / "t", lines)
        assert killed and not result.lost
        assert result.played == 8
        assert archived(tmp_path / "t") == list(range(1, 9))
        assert _ip("netns", "pids", namespaces[0], check=False).stdout.split() == []
        assert wait_gone(marker) == []  # host a's engines died with it; host b's were released
    finally:
        if client is not None:
            client.close()
        for ns in namespaces:
            _kill_namespace(ns)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
        _ip("link", "del", bridge, check=False)
        for ns in namespaces:
            _ip("netns", "del", ns, check=False)
        assert wait_gone(marker, 5) == []


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
