"""``santorini serve``: the referee as a long-running daemon (SPEC.md section 16.4)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..server.gateway import DEFAULT_BOT_PORT
from ..server.remote_engine import RECONNECT_GRACE
from ..server.runs import DEFAULT_MAX_QUEUED
from .bot_cmd import DATA_OPTION
from .options import Seconds

if TYPE_CHECKING:
    from ..backends.dask_security import DaskTLS
    from ..tournament.config import TournamentConfig
    from ..tournament.runner import Backend

__all__ = ["serve"]

_PEM = click.Path(dir_okay=False, exists=True, path_type=Path)


def _cluster(address: str, tls: DaskTLS | None) -> Callable[[TournamentConfig], Backend]:
    """Each run's Dask backend on the scheduler at ``address``."""

    def backend(config: TournamentConfig) -> Backend:
        from ..backends.dask_backend import DaskBackend  # Dask loads with the first run it plays, not at start

        return DaskBackend(config, address, tls=tls)

    return backend


@click.command()
@DATA_OPTION
@click.option("--http", "http", default="127.0.0.1:8080", show_default=True, metavar="HOST:PORT", help="The job API's address.")
@click.option(
    "--bots", "bots", default=f"127.0.0.1:{DEFAULT_BOT_PORT}", show_default=True, metavar="HOST:PORT",
    help="The bot port's address.",
)
@click.option("--tls-cert", type=_PEM, help="TLS certificate (PEM) for both ports.")
@click.option("--tls-key", type=_PEM, help="The certificate's private key (PEM).")
@click.option(
    "--drain-timeout", type=Seconds(), default=60.0, show_default=True,
    help="Seconds running games get to finish on SIGTERM/Ctrl-C before they are aborted (and replayed after restart).",
)
@click.option(
    "--reconnect-grace", type=Seconds(), default=RECONNECT_GRACE, show_default=True,
    help="Seconds a game waits for a disconnected remote bot (never beyond its clock).",
)
@click.option(
    "--public", is_flag=True,
    help="Allow an --http address beyond loopback: the dashboard and API for other machines (use TLS).",
)
@click.option(
    "--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
    help="A host name the HTTP port answers to besides --http's host and loopback's (repeatable).",
)
@click.option("--ladder", is_flag=True, help="Play games continuously between the available bots, rated as they end.")
@click.option("--tc", default="10+0.1", show_default=True, help="The ladder's time control.")
@click.option("--gods", default="mortal/mortal", show_default=True, help="The ladder's god pairings, rotated (a,b,... or all).")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True, help="Ladder games at once.")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where runs of local bots play: this process, or the Dask cluster at --address.")
@click.option("--address", metavar="tcp://HOST:PORT",
              help="With --backend dask: the scheduler of `santorini scheduler` (tls://HOST:PORT with --tls-ca-file).")
@click.option("--max-queued", type=click.IntRange(min=1), default=DEFAULT_MAX_QUEUED, show_default=True,
              help="Runs that may wait to be played; a submission beyond is refused (503) until one starts.")
@click.option("--tls-ca-file", type=_PEM, metavar="FILE",
              help="With --backend dask: Dask's mutual TLS; the cluster's CA, and --tls-cert/--tls-key are this "
                   "machine's certificate for the cluster too.")
def serve(
    data_dir: Path, http: str, bots: str, tls_cert: Path | None, tls_key: Path | None,
    drain_timeout: float, reconnect_grace: float, public: bool, allowed_hosts: tuple[str, ...], ladder: bool,
    tc: str, gods: str, concurrency: int,
    backend: str, address: str | None, tls_ca_file: Path | None, max_queued: int,
) -> None:
    """Keep a referee running: the job API, the bot port and the runs, until SIGTERM or Ctrl-C.

    \b
    With --backend dask, runs whose bots are all local play on a Dask cluster (each worker's
    engines file names the bots); runs with a remote bot still play here.
    """
    import trio

    from ..backends.dask_security import DaskTLS, is_loopback
    from ..dashboard.app import dashboard_app
    from ..server.daemon import DEFAULT_HTTP_PORT, ListenError, ServeOptions, parse_host_port
    from ..server.daemon import serve as run_daemon
    from ..server.store import DamagedStore, StoreError
    from .dask_options import checked_address

    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    if backend != "dask" and (address is not None or tls_ca_file is not None):
        raise click.UsageError("--address and --tls-ca-file need --backend dask")
    dask_tls = None
    if backend == "dask":
        if address is None:
            raise click.UsageError("--backend dask needs --address: the scheduler of `santorini scheduler`")
        # --tls-ca-file turns on Dask's mutual TLS, with the server's own certificate and key
        dask_tls = DaskTLS(tls_ca_file, tls_cert, tls_key) if tls_ca_file is not None else DaskTLS()
        checked_address(dask_tls, address)
    try:
        options = ServeOptions(
            data=data_dir,
            http=parse_host_port(http, DEFAULT_HTTP_PORT),
            bots=parse_host_port(bots, DEFAULT_BOT_PORT),
            tls_cert=tls_cert,
            tls_key=tls_key,
            drain_timeout=drain_timeout,
            reconnect_grace=reconnect_grace,
            ladder=ladder,
            ladder_tc=tc,
            ladder_gods=gods,
            ladder_concurrency=concurrency,
            cluster=_cluster(address, dask_tls) if address is not None else None,
            max_queued=max_queued,
            allowed_hosts=allowed_hosts,
        )
        if not public and not is_loopback(options.http[0]):
            raise click.UsageError(
                f"--http {options.http[0]} is reachable beyond this machine: pass --public to serve the dashboard there"
            )
        trio.run(run_daemon, options, lambda line: click.echo(line, err=True), None, dashboard_app)
    except (ValueError, StoreError, PermissionError, ListenError) as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot serve: {exc.strerror or exc}") from None
    except BaseExceptionGroup as group:  # a task found the database damaged after the start's check
        found: BaseException | None = group.subgroup(DamagedStore)
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        if found is None:
            raise
        raise click.ClickException(str(found)) from None
