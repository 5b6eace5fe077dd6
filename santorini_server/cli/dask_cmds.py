"""``santorini scheduler`` and ``santorini worker``: a Dask cluster for tournaments over machines.

Both check their input, then replace themselves (``os.execvp``) with Dask's own command run by
this interpreter (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``), so Ctrl-C and
service managers deal with Dask directly and no wrapper process is left in between.  Checking
includes where to listen and under which TLS files (``backends/dask_security.py``): every
address Dask would otherwise bind on all interfaces is given explicitly.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from pathlib import Path

import click

from ..backends.dask_security import (
    LOOPBACK,
    DaskTLS,
    check_host,
    exposure_warning,
    host_port,
    reaching_interface,
)
from .dask_options import checked_address, checked_tls, dask_tls_options, one_line_errors

__all__ = ["scheduler", "worker"]

DASK_MISSING = "this command needs Dask: pip install 'santorini-server[dask]'"
PRELOAD = "santorini_server.backends.dask_preload"
#: The port of the scheduler's dashboard (``--dashboard``), on the scheduler's interface.
DASHBOARD_PORT = 8787


def _need_dask() -> None:
    if importlib.util.find_spec("distributed") is None:
        raise click.ClickException(DASK_MISSING)


def _exec(argv: list[str], env: dict[str, str] | None = None) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvpe(argv[0], argv, env if env is not None else dict(os.environ))
    except OSError as exc:
        raise click.ClickException(f"cannot run {argv[0]}: {exc.strerror or exc}") from None


def _warn_if_exposed(what: str, host: str, tls: DaskTLS) -> None:
    warning = exposure_warning(what, host, tls)
    if warning:
        click.echo(warning, err=True)


@click.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8786, show_default=True,
    help="Port the workers and coordinators connect to.",
)
@click.option("--host", metavar="HOST",
              help=f"Interface address to listen on (default: {LOOPBACK}; 0.0.0.0 for every interface).")
@click.option("--dashboard", is_flag=True,
              help="Also serve Dask's web dashboard (needs bokeh; plain HTTP, read-only) on the same interface.")
@dask_tls_options
def scheduler(port: int, host: str | None, dashboard: bool, tls: DaskTLS) -> None:
    """Run the Dask scheduler on the head machine (``santorini worker`` machines join it).

    A Dask scheduler runs whatever its clients send it: it listens on 127.0.0.1 unless --host
    names an interface, and beyond loopback it should use mutual TLS (--tls-*: then its
    address is tls://HOST:PORT and only holders of a certificate signed by the CA get in).

    \b
    Examples:
      santorini scheduler --port 8786
      santorini scheduler --host 0.0.0.0 --tls-ca-file ca.pem --tls-cert head.pem --tls-key head.key
    """
    with one_line_errors():
        interface = check_host(host) if host else LOOPBACK
    checked_tls(tls)
    _need_dask()
    _warn_if_exposed("the scheduler", interface, tls)
    argv = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", interface, "--port", str(port)]
    if tls.enabled:
        argv += ["--protocol", "tls", *tls.cli_args()]
    # Dask serves HTTP (health, metrics, JSON about the cluster; plain HTTP even under TLS) on
    # every interface unless told where, --no-dashboard or not: on loopback without --dashboard
    if dashboard:
        argv += ["--dashboard", "--dashboard-address", host_port(interface, DASHBOARD_PORT)]
    else:
        argv += ["--no-dashboard", "--dashboard-address", host_port(LOOPBACK, 0)]
    _exec(argv)


@click.command()
@click.option("--address", required=True, metavar="tcp://HEAD:8786",
              help="The scheduler (santorini scheduler); tls://HEAD:8786 with the --tls-* files.")
@click.option(
    "--slots", type=click.IntRange(min=1), default=1, show_default=True,
    help="Games at once on this machine (one worker process each).",
)
@click.option("--engines", "engines_file", type=click.Path(dir_okay=False, path_type=Path),
              help="TOML or JSON file: engine name -> engine spec (cmd=... arg=...). Bundled engines need no entry.")
@click.option("--name", metavar="NAME", help="Worker name (default: this host's name).")
@click.option("--host", metavar="HOST", help="Address to listen on (default: the interface that reaches the scheduler).")
@dask_tls_options
def worker(address: str, slots: int, engines_file: Path | None, name: str | None, host: str | None, tls: DaskTLS) -> None:
    """Offer this machine's engines to a tournament scheduler.

    Engines are started from this machine's own engines file, by name: a coordinator never
    sends a program path.  The worker refuses to start if an engine of the file is missing.

    \b
    It listens (for the scheduler and the other workers) on the one interface that reaches the
    scheduler, or --host; with the --tls-* files, under mutual TLS.

    \b
    Example (engines.toml holds lines like:  mybot = "cmd=/opt/mybot/run arg=--fast"):
      santorini worker --address tcp://head:8786 --slots 2 --engines engines.toml
    """
    _, head, port = checked_address(tls, address)
    with one_line_errors():  # Dask's default binds every interface, whatever address it advertises
        interface = check_host(host) if host else reaching_interface(head, port)
    _need_dask()
    from ..backends.dask_preload import check_engines
    from ..backends.dask_worker import ENGINES_ENV

    env = dict(os.environ)
    # Dask's statistical profiler samples every 10 ms next to the referee: ~1.5 ms per game
    env.setdefault("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "False")
    if engines_file is not None:
        try:
            names = check_engines(engines_file)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        env[ENGINES_ENV] = str(engines_file.resolve())
        click.echo(f"Engines: {', '.join(names) or '(none)'} (and the bundled ones), {slots} slot(s)", err=True)
    else:
        env.pop(ENGINES_ENV, None)
    argv = [
        sys.executable, "-m", "distributed.cli.dask_worker", address,
        "--nworkers", str(slots), "--nthreads", "1", "--resources", "santorini=1",
        "--name", name or socket.gethostname(), "--no-dashboard", "--preload-nanny", PRELOAD, "--preload", PRELOAD,
    ]
    # the worker's HTTP server (health, metrics) binds every interface unless told where
    argv += ["--host", interface, "--dashboard-address", host_port(LOOPBACK, 0), *tls.cli_args()]
    _warn_if_exposed("this worker", interface, tls)
    _exec(argv, env)
