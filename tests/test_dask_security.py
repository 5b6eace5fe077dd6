"""Who may talk to the Dask cluster: loopback by default, mutual TLS beyond (SPEC.md 11.6).

The flags and the Dask command lines they become are checked in-process (``_exec`` captured, so
nothing is started); where the cluster really listens and who it lets in, with real processes:
a scheduler, a worker, a coordinator, and strangers knocking.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

import psutil
from click.testing import CliRunner
from distributed import Client

from santorini_server.backends.dask_backend import DaskBackend
from santorini_server.backends.dask_security import DaskTLS, exposure_warning, is_loopback, reaching_interface
from santorini_server.cli import dask_cmds
from santorini_server.cli import main as cli

from .test_dask_backend import ROOT, archived, config_of, instant, play

PY = sys.executable
WARNING = re.compile(r"^warning: .* listens on .* without TLS: anyone who can reach it can run code on this machine; .*$")


# --- certificates: a cluster's CA, a node certificate, and a stranger from another CA ----------------


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """ca.pem signs node.pem (the cluster's); rogue.pem signs stranger.pem (anyone else's)."""
    d = tmp_path_factory.mktemp("pki")
    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    for ca in ("ca", "rogue"):
        _openssl("req", "-x509", *curve, "-keyout", str(d / f"{ca}.key"), "-out", str(d / f"{ca}.pem"), "-days", "1",
                 "-subj", f"/CN={ca}")
    for leaf, ca in (("node", "ca"), ("stranger", "rogue")):
        _openssl("req", *curve, "-keyout", str(d / f"{leaf}.key"), "-out", str(d / f"{leaf}.csr"), "-subj", f"/CN={leaf}")
        _openssl("x509", "-req", "-in", str(d / f"{leaf}.csr"), "-CA", str(d / f"{ca}.pem"), "-CAkey", str(d / f"{ca}.key"),
                 "-CAcreateserial", "-out", str(d / f"{leaf}.pem"), "-days", "1")
    return {p.stem + p.suffix.replace(".", "_"): p for p in d.iterdir()}


def tls_flags(pki: dict[str, Path], leaf: str = "node") -> list[str]:
    return ["--tls-ca-file", str(pki["ca_pem"]), "--tls-cert", str(pki[f"{leaf}_pem"]), "--tls-key", str(pki[f"{leaf}_key"])]


# --- the flags, in-process (Dask's command line captured instead of exec'd) -----------------------------


@pytest.fixture
def execs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    seen: list[list[str]] = []
    monkeypatch.setattr(dask_cmds, "_exec", lambda argv, env=None: seen.append(argv))
    return seen


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_the_scheduler_defaults_to_loopback_and_keeps_dask_http_there(execs: list[list[str]]) -> None:
    result = run("scheduler", "--port", "0")
    assert result.exit_code == 0 and result.stderr == "", result.output
    (argv,) = execs
    assert flag(argv, "--host") == "127.0.0.1"
    assert flag(argv, "--dashboard-address") == "127.0.0.1:0"  # Dask's HTTP server binds every interface otherwise
    assert "--protocol" not in argv and "--no-dashboard" in argv


def test_beyond_loopback_without_tls_is_one_warning_line(pki: dict[str, Path], execs: list[list[str]]) -> None:
    plain = run("scheduler", "--host", "0.0.0.0")
    assert plain.exit_code == 0
    assert len(plain.stderr.splitlines()) == 1 and WARNING.match(plain.stderr), plain.stderr
    under_tls = run("scheduler", "--host", "0.0.0.0", "--dashboard", *tls_flags(pki))
    assert under_tls.exit_code == 0 and under_tls.stderr == "", under_tls.stderr
    argv = execs[1]
    assert flag(argv, "--protocol") == "tls" and flag(argv, "--host") == "0.0.0.0"
    assert flag(argv, "--tls-ca-file") == str(pki["ca_pem"]) and flag(argv, "--tls-key") == str(pki["node_key"])
    assert flag(argv, "--dashboard-address") == "0.0.0.0:8787"  # asked for: on the scheduler's interface
    assert run("scheduler", "--host", "localhost").stderr == ""
    assert run("scheduler", "--host", "::1").stderr == ""


def test_a_worker_listens_on_the_interface_that_reaches_its_scheduler(pki: dict[str, Path], execs: list[list[str]]) -> None:
    assert run("worker", "--address", "tcp://127.0.0.1:8786").stderr == ""
    assert run("worker", "--address", "tls://127.0.0.1:8786", *tls_flags(pki)).stderr == ""
    plain, under_tls = execs
    assert flag(plain, "--host") == "127.0.0.1" and "--tls-cert" not in plain
    assert flag(plain, "--dashboard-address") == "127.0.0.1:0"
    assert flag(under_tls, "--host") == "127.0.0.1" and flag(under_tls, "--tls-cert") == str(pki["node_pem"])
    assert under_tls[3] == "tls://127.0.0.1:8786"
    exposed = run("worker", "--address", "tcp://127.0.0.1:8786", "--host", "0.0.0.0")
    assert WARNING.match(exposed.stderr) and len(exposed.stderr.splitlines()) == 1, exposed.stderr


def test_loopback_and_exposure() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("127.3.2.1") and is_loopback("::1") and is_loopback("[::1]")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("")
    assert not is_loopback("192.0.2.7") and not is_loopback("no-such-host.invalid")
    assert reaching_interface("127.0.0.1", 8786) == "127.0.0.1"
    assert exposure_warning("x", "0.0.0.0", DaskTLS(Path("ca"), Path("c"), Path("k"))) is None
    assert exposure_warning("x", "127.0.0.1", DaskTLS()) is None
    assert WARNING.match(exposure_warning("the scheduler", "0.0.0.0", DaskTLS()) or "")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["worker", "--address", "tls://h:8786"],
         "Error: tls://h:8786 is a TLS address: give --tls-ca-file, --tls-cert and --tls-key"),
        (["worker", "--address", "tcp://h:8786", "@TLS"], "Error: --tls-cert is given but tcp://h:8786 is plain TCP: use tls://h:8786"),
        (["worker", "--address", "udp://h:1"], "Error: bad address 'udp://h:1': expected tcp://HOST:PORT or tls://HOST:PORT"),
        (["worker", "--address", "tls://h:8786", "--tls-cert", "@node_pem"],
         "Error: mutual TLS needs --tls-ca-file, --tls-cert and --tls-key: --tls-ca-file, --tls-key missing"),
        (["scheduler", "--tls-ca-file", "@missing", "--tls-cert", "@node_pem", "--tls-key", "@node_key"],
         "Error: cannot read --tls-ca-file @missing: No such file or directory"),
        (["scheduler", "--tls-ca-file", "@node_key", "--tls-cert", "@node_pem", "--tls-key", "@node_key"],
         "Error: --tls-ca-file @node_key holds no usable PEM certificate: NO_CERTIFICATE_OR_CRL_FOUND"),
        (["scheduler", "--tls-ca-file", "@ca_pem", "--tls-cert", "@node_pem", "--tls-key", "@stranger_key"],
         "Error: --tls-cert @node_pem and --tls-key @stranger_key are not a PEM certificate and its key: KEY_VALUES_MISMATCH"),
        (["scheduler", "--host", "tcp://0.0.0.0"], "Error: bad --host 'tcp://0.0.0.0': expected an interface address"),
        (["tournament", "--backend", "dask", "--address", "tls://h:8786", "-e", "random", "-e", "greedy"],
         "Error: tls://h:8786 is a TLS address: give --tls-ca-file, --tls-cert and --tls-key"),
        (["tournament", "--backend", "dask", "--address", "tcp://h:8786", "@TLS", "-e", "random", "-e", "greedy"],
         "Error: --tls-cert is given but tcp://h:8786 is plain TCP: use tls://h:8786"),
        (["tournament", "@TLS", "-e", "random", "-e", "greedy"],
         "Error: --tls-ca-file, --tls-cert and --tls-key need --backend dask"),
    ],
)
def test_bad_tls_flags_are_one_line_errors(
    pki: dict[str, Path], execs: list[list[str]], tmp_path: Path, args: list[str], error: str
) -> None:
    files = {**pki, "missing": tmp_path / "missing.pem"}
    argv: list[str] = []
    for arg in args:
        argv += tls_flags(pki) if arg == "@TLS" else [str(files[arg[1:]]) if arg.startswith("@") else arg]
    expected = re.sub(r"@(\w+)", lambda m: str(files[m.group(1)]), error)
    result = run(*argv, "--out", str(tmp_path / "t")) if args[0] == "tournament" else run(*argv)
    assert result.exit_code in (1, 2) and execs == []
    assert expected in result.stderr, result.stderr
    if result.exit_code == 1:
        assert result.stderr.strip().splitlines() == [result.stderr.strip()], result.stderr
    assert not (tmp_path / "t").exists()


# --- real processes: where the scheduler listens, who gets in ------------------------------------------


def _start_scheduler(*args: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([PY, "-m", "santorini_server.cli", "scheduler", "--port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=open(log, "wb"), cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"Scheduler at:\s+((?:tcp|tls)://\S+)", log.read_text())
        if found:
            return proc, found.group(1)
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(log.read_text())


def listening(pid: int) -> set[tuple[str, int]]:
    """The TCP addresses a process and its descendants listen on."""
    root = psutil.Process(pid)
    found = set()
    for proc in [root, *root.children(recursive=True)]:
        try:
            conns = proc.net_connections(kind="tcp")
        except psutil.Error:
            continue
        found |= {(c.laddr.ip, c.laddr.port) for c in conns if c.status == psutil.CONN_LISTEN}
    return found


def other_address() -> str | None:
    """One of this machine's addresses that is not loopback (None if it has none)."""
    for addresses in psutil.net_if_addrs().values():
        for a in addresses:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                return str(a.address)
    return None


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
    for proc in started:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_scheduler_binds_loopback_only_and_warns_beyond_it(tmp_path: Path, procs: list[subprocess.Popen[bytes]]) -> None:
    proc, address = _start_scheduler(log=tmp_path / "default.log")
    procs.append(proc)
    assert address.startswith("tcp://127.0.0.1:"), address
    port = int(address.rsplit(":", 1)[1])
    bound = listening(proc.pid)
    assert ("127.0.0.1", port) in bound
    assert {ip for ip, _ in bound} == {"127.0.0.1"}, bound  # the HTTP server too
    assert "warning" not in (tmp_path / "default.log").read_text()
    other = other_address()
    if other is not None:  # the machine's network address: nobody there
        with pytest.raises(ConnectionRefusedError), socket.create_connection((other, port), timeout=5):
            pass
    exposed, address = _start_scheduler("--host", "0.0.0.0", log=tmp_path / "exposed.log")
    procs.append(exposed)
    first = (tmp_path / "exposed.log").read_text().splitlines()[0]
    assert WARNING.match(first), first
    assert (tmp_path / "exposed.log").read_text().count("warning:") == 1
    assert ("0.0.0.0", int(address.rsplit(":", 1)[1])) in listening(exposed.pid)


def _handshake(address: str, context: ssl.SSLContext) -> bytes:
    """Open TLS to ``address`` and read what the server says first (Dask greets every peer)."""
    host, port = address.removeprefix("tls://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as raw, context.wrap_socket(raw) as tls:
        try:
            return tls.recv(4096)
        except (ssl.SSLError, ConnectionResetError):
            return b""


def test_mutual_tls_a_worker_with_the_cas_certificate_plays_and_strangers_are_refused(
    pki: dict[str, Path], tmp_path: Path, procs: list[subprocess.Popen[bytes]]
) -> None:
    scheduler, address = _start_scheduler("--host", "0.0.0.0", *tls_flags(pki), log=tmp_path / "scheduler.log")
    procs.append(scheduler)
    assert address.startswith("tls://")
    assert "warning" not in (tmp_path / "scheduler.log").read_text()  # beyond loopback, but under TLS
    engines = tmp_path / "engines.json"
    engines.write_text(json.dumps({"A": instant("A"), "B": instant("B")}))
    worker_log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [PY, "-m", "santorini_server.cli", "worker", "--address", address, "--engines", str(engines), *tls_flags(pki)],
        stdout=subprocess.DEVNULL, stderr=open(worker_log, "wb"), cwd=ROOT,
    )
    procs.append(worker)
    out = tmp_path / "t"
    coordinator = subprocess.run(
        [PY, "-m", "santorini_server.cli", "tournament", "--backend", "dask", "--address", address, *tls_flags(pki),
         "-e", instant("A"), "-e", instant("B"), "--rounds", "1", "--tc", "10+0.1", "--out", str(out)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert coordinator.returncode == 0, coordinator.stderr + worker_log.read_text()[-3000:]
    assert f"games on the Dask scheduler at {address}" in coordinator.stdout
    assert archived(out) == [1, 2]
    # the worker (and its nanny) listen under TLS on the interface that reaches the scheduler, never everywhere
    assert re.search(r"Listening to:\s+tls://", worker_log.read_text())
    head = address.removeprefix("tls://").rsplit(":", 1)[0]
    assert {ip for ip, _ in listening(worker.pid)} <= {reaching_interface(head, 1), "127.0.0.1"}, listening(worker.pid)
    assert "warning" not in worker_log.read_text()

    # strangers: a Dask client over plain TCP, another CA's certificate, no certificate at all
    with pytest.raises(OSError):
        Client(address.replace("tls://", "tcp://"), timeout=2, set_as_default=False)
    assert _handshake(address, _context(pki)) == b""
    assert _handshake(address, _context(pki, "stranger")) == b""
    assert _handshake(address, _context(pki, "node")) != b""  # the CA's certificate is greeted


def _context(pki: dict[str, Path], leaf: str | None = None) -> ssl.SSLContext:
    """A client's TLS context trusting the cluster's CA, presenting ``leaf``'s certificate (or none)."""
    context = ssl.create_default_context(cafile=pki["ca_pem"])
    context.check_hostname = False
    if leaf is not None:
        context.load_cert_chain(pki[f"{leaf}_pem"], pki[f"{leaf}_key"])
    return context


async def test_a_local_cluster_runs_under_the_given_tls(pki: dict[str, Path], tmp_path: Path) -> None:
    config = config_of(instant("A"), instant("B"), rounds=1, concurrency=1)
    backend = DaskBackend(config, tls=DaskTLS(pki["ca_pem"], pki["node_pem"], pki["node_key"]))
    result = await play(config, backend, tmp_path / "t")
    assert not result.lost and archived(tmp_path / "t") == [1, 2]
    assert (backend.scheduler_address or "").startswith("tls://127.0.0.1:"), backend.scheduler_address
