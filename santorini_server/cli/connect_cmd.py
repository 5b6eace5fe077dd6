"""``santorini connect``: bridge a local engine to a server's bot port (SPEC.md section 16.3)."""

from __future__ import annotations

import ssl
import sys

import click
import trio

from ..process import EngineStartError
from ..referee.engine_spec import EngineSpec
from ..server.bridge import Backoff, LoginRefused, parse_server_url, read_token, run_bridge
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, Seconds

__all__ = ["connect"]


@click.command()
@click.argument("server", metavar="tcp://HOST:PORT|tls://HOST:PORT")
@click.argument("engine", type=ENGINE)
@click.option("--bot", "name", required=True, metavar="NAME", help="The bot's registered name.")
@click.option(
    "--token-file", required=True, type=click.Path(dir_okay=False), metavar="FILE",
    help="File holding the bot's token (never on the command line: it would show in ps).",
)
@click.option(
    "--ca", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
    help="CA certificate for tls:// (default: the system's).",
)
@click.option(
    "--max-delay", type=Seconds(min=0.1), default=30.0, show_default=True,
    help="Longest wait between reconnections, seconds.",
)
def connect(server: str, engine: EngineSpec, name: str, token_file: str, ca: str | None, max_delay: float) -> None:
    """Play ENGINE on a server: log in as NAME, relay SEI both ways, reconnect when dropped.

    ENGINE is a bundled name or a spec (``"cmd=./mybot"``).  Each connection starts a fresh
    engine; Ctrl-C stops it and leaves no process behind.

    \b
    Example:
      santorini connect tcp://127.0.0.1:7777 --bot mybot --token-file mybot.token alphabeta
    """
    try:
        address = parse_server_url(server)
        token = read_token(token_file)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    context = None
    if address.tls:
        try:
            context = ssl.create_default_context(cafile=ca)
        except (OSError, ssl.SSLError) as exc:
            raise click.ClickException(f"cannot read the CA file {ca!r}: {exc}") from None

    def say(line: str) -> None:
        click.echo(f"connect: {line}", err=True)

    say(f"{engine.name} as {name} on {address}")
    try:
        trio.run(lambda: run_bridge(address, name, token, engine, ssl_context=context, backoff=Backoff(cap=max_delay), say=say))
    except LoginRefused as exc:
        raise click.ClickException(f"login refused by {address}: {exc}") from None
    except EngineStartError as exc:
        raise click.ClickException(f"cannot start {engine.name}: {exc}") from None
    except BaseException as exc:
        if is_interrupt(exc):
            say("interrupted")
            sys.exit(INTERRUPTED_STATUS)
        raise
