"""``santorini submit``, ``runs`` and ``cancel``: the job API's command-line client (SPEC.md section 16.5).

The admin token comes from ``--token-file`` or, failing that, ``$SANTORINI_ADMIN_TOKEN`` (never
from a command-line argument: other users see those in ``ps``).  Every failure is one line:
the server unreachable, or its status and message.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..tournament.config import load_toml

__all__ = ["submit", "runs", "cancel", "TOKEN_ENV"]

TOKEN_ENV = "SANTORINI_ADMIN_TOKEN"



class _ServerURL(click.ParamType):
    """The job API's URL, checked before any request: httpx would otherwise end a bad port, an
    unclosed ``[`` or an over-long host label in a traceback (InvalidURL, UnicodeError)."""

    name = "URL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        reason = _url_problem(str(value))
        if reason is not None:
            self.fail(f"bad server URL {value!r}: {reason}", param, ctx)
        return str(value)


def _url_problem(value: str) -> str | None:
    """What is wrong with a job API URL, or None."""
    import httpx

    try:
        url = httpx.URL(value)
        url.host.encode("idna")
    except (httpx.InvalidURL, UnicodeError) as exc:
        return str(exc)
    if url.scheme not in ("http", "https") or not url.host:
        return "expected http://HOST:PORT or https://HOST:PORT"
    if url.port is not None and not 0 < url.port <= 65535:
        return "the port must be a number from 1 to 65535"
    return None


_SERVER = click.option(
    "--server", type=_ServerURL(), default="http://127.0.0.1:8080", show_default=True, help="The server's job API."
)
_TOKEN_FILE = click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"The admin token's file (DIR/admin.token on the server's machine); else ${TOKEN_ENV}.",
)


def _token(token_file: Path | None) -> str:
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.ClickException(f"cannot read the token file {token_file}: {exc}") from None
    else:
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise click.ClickException(f"this needs the admin token: --token-file FILE or ${TOKEN_ENV}")
    return token


def _call(method: str, server: str, path: str, *, token: str | None = None, body: Any = None) -> Any:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    url = server.rstrip("/") + path
    try:
        response = httpx.request(method, url, headers=headers, json=body, timeout=30.0)
    except httpx.HTTPError as exc:
        raise click.ClickException(f"cannot reach {server}: {exc}") from None
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.status_code >= 400:
        message = data.get("error") if isinstance(data, dict) else response.text.strip()[:200]
        raise click.ClickException(f"{server}: {response.status_code}: {message}")
    return data


@click.command()
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@_SERVER
@_TOKEN_FILE
def submit(config: Path, server: str, token_file: Path | None) -> None:
    """Submit the match or tournament of CONFIG (the tournament's TOML settings, engines by
    registered bot name); print its id."""
    try:
        settings = load_toml(config)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    answer = _call("POST", server, "/api/runs", token=_token(token_file), body=settings)
    click.echo(f"submitted run {answer['id']}")


@click.command()
@_SERVER
def runs(server: str) -> None:
    """List the server's runs: id, kind, state, bots."""
    listed = _call("GET", server, "/api/runs")
    if not listed:
        click.echo("no runs")
    for run in listed:
        click.echo(f"{run['id']:>5}  {run['kind']:<10}  {run['state']:<9}  {' '.join(run['engines'])}")


@click.command()
@click.argument("run_id", metavar="ID", type=int)
@_SERVER
@_TOKEN_FILE
def cancel(run_id: int, server: str, token_file: Path | None) -> None:
    """Cancel run ID (queued or running; its finished games stay)."""
    answer = _call("POST", server, f"/api/runs/{run_id}/cancel", token=_token(token_file))
    click.echo(f"run {answer['id']}: {answer['state']}")
