"""``santorini scheduler`` and ``santorini worker``: a Dask cluster for tournaments over machines.

Both check their input, then replace themselves (``os.execvp``) with Dask's own command run by
this interpreter (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``), so Ctrl-C and
service managers deal with Dask directly and no wrapper process is left in between.
"""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import sys
from pathlib import Path

import click

__all__ = ["scheduler", "worker"]

_ADDRESS_RE = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}")
DASK_MISSING = "this command needs Dask: pip install 'santorini-server[dask]'"
PRELOAD = "santorini_server.backends.dask_preload"


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


@click.command()
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8786, show_default=True,
    help="Port the workers and coordinators connect to.",
)
@click.option("--host", metavar="HOST", help="Interface address to listen on (default: all).")
@click.option("--dashboard", is_flag=True, help="Also serve Dask's web dashboard (needs bokeh).")
def scheduler(port: int, host: str | None, dashboard: bool) -> None:
    """Run the Dask scheduler on the head machine (``santorini worker`` machines join it).

    \b
    Example:
      santorini scheduler --port 8786
    """
    _need_dask()
    argv = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", str(port)]
    argv += ["--dashboard"] if dashboard else ["--no-dashboard"]
    if host:
        argv += ["--host", host]
    _exec(argv)


@click.command()
@click.option("--address", required=True, metavar="tcp://HEAD:8786", help="The scheduler (santorini scheduler).")
@click.option(
    "--slots", type=click.IntRange(min=1), default=1, show_default=True,
    help="Games at once on this machine (one worker process each).",
)
@click.option("--engines", "engines_file", type=click.Path(dir_okay=False, path_type=Path),
              help="TOML or JSON file: engine name -> engine spec (cmd=... arg=...). Bundled engines need no entry.")
@click.option("--name", metavar="NAME", help="Worker name (default: this host's name).")
@click.option("--host", metavar="HOST", help="Address to listen on (default: the interface that reaches the scheduler).")
def worker(address: str, slots: int, engines_file: Path | None, name: str | None, host: str | None) -> None:
    """Offer this machine's engines to a tournament scheduler.

    Engines are started from this machine's own engines file, by name: a coordinator never
    sends a program path.  The worker refuses to start if an engine of the file is missing.

    \b
    Example (engines.toml holds lines like:  mybot = "cmd=/opt/mybot/run arg=--fast"):
      santorini worker --address tcp://head:8786 --slots 2 --engines engines.toml
    """
    if not _ADDRESS_RE.fullmatch(address):
        raise click.UsageError(f"bad --address {address!r}: expected tcp://HOST:PORT")
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
    if host:
        argv += ["--host", host]
    _exec(argv, env)
