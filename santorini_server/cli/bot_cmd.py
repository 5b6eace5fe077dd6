"""``santorini bot add/list/token/revoke/remove``: the server's bots (SPEC.md section 16.2).

Each command opens the data directory's database itself, so it works whether or not
``santorini serve`` is running on it (SQLite's WAL and busy timeout make the two writers take
turns). A token is printed once, alone on stdout (so ``> alpha.token`` captures it), or written
to a new file of mode 0600 with ``--token-file``; it is never printed again, never logged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from ..server.store import DEFAULT_DATA_DIR, Bot, Rating, Store, StoreError
from ..server.tokens import ensure_admin_token

__all__ = ["bot", "DATA_OPTION"]

DATA_OPTION = click.option(
    "--data",
    "data_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_DATA_DIR,
    show_default=True,
    help="The server's data directory.",
)
_TOKEN_FILE = click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the token to this new file (mode 0600) instead of stdout.",
)


def _open(data_dir: Path, *, create: bool = False) -> Store:
    try:
        return Store(data_dir, create=create)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot open {data_dir}: {exc.strerror or exc}") from None


def _create_token_file(token_file: Path | None) -> int | None:
    """Create the token's new 0600 file before the store changes, so a path that cannot be
    created leaves nothing registered and no token issued that nobody holds."""
    if token_file is None:
        return None
    try:
        return os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise click.ClickException(f"cannot create {token_file}: {exc.strerror or exc}") from None


@contextmanager
def _token_file_removed_on_failure(fd: int | None, token_file: Path | None) -> Iterator[None]:
    """The file of `_create_token_file` is removed again when the store refuses the change."""
    try:
        yield
    except BaseException:
        if fd is not None and token_file is not None:
            os.close(fd)
            token_file.unlink(missing_ok=True)
        raise


def _hand_over(name: str, token: str, token_file: Path | None, fd: int | None) -> None:
    """Give the token to the user, once: into its new 0600 file (``fd``), or alone on stdout."""
    if token_file is None or fd is None:
        click.echo(token)
        click.echo(f"the token of {name} is shown only this once: keep it (santorini bot token {name} replaces it)", err=True)
        return
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(token + "\n")
    click.echo(f"the token of {name} is in {token_file} (mode 0600); it is not kept anywhere else", err=True)


@click.group()
def bot() -> None:
    """Register, list, revoke and remove the bots of a server (santorini serve).

    A local bot is an engine the server starts itself (an engine spec, as in santorini match); a
    remote bot connects over TCP with its token (santorini connect).
    """


@bot.command()
@click.argument("name")
@click.option("--local", "spec", metavar="SPEC", help='An engine the server runs: a bundled name or "cmd=./mybot ...".')
@click.option("--remote", is_flag=True, help="A bot that logs in over TCP; its token is printed once.")
@_TOKEN_FILE
@DATA_OPTION
def add(name: str, spec: str | None, remote: bool, token_file: Path | None, data_dir: Path) -> None:
    """Register the bot NAME (1 to 32 characters from A-Z a-z 0-9 _ . -)."""
    if (spec is None) == (not remote):
        raise click.UsageError("give exactly one of --local SPEC and --remote")
    if token_file is not None and not remote:
        raise click.UsageError("--token-file goes with --remote (a local bot has no token)")
    if token_file is not None and (token_file.exists() or token_file.is_symlink()):
        raise click.UsageError(f"{token_file} exists: the token goes to a new file")
    fd = _create_token_file(token_file)
    with _token_file_removed_on_failure(fd, token_file), _open(data_dir, create=True) as store:
        try:
            ensure_admin_token(data_dir)
            if spec is not None:
                added = store.add_local_bot(name, spec)
                click.echo(f"local bot {added.name} added: {added.spec}")
                return
            added, token = store.add_remote_bot(name)
        except (ValueError, StoreError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"remote bot {added.name} added", err=True)
    _hand_over(added.name, token, token_file, fd)


@bot.command()
@click.argument("name")
@_TOKEN_FILE
@DATA_OPTION
def token(name: str, token_file: Path | None, data_dir: Path) -> None:
    """Issue a new token for the remote bot NAME: the old one stops working (a revoked bot is reinstated)."""
    if token_file is not None and (token_file.exists() or token_file.is_symlink()):
        raise click.UsageError(f"{token_file} exists: the token goes to a new file")
    fd = _create_token_file(token_file)
    with _token_file_removed_on_failure(fd, token_file), _open(data_dir) as store:
        try:
            fresh = store.issue_token(name)
            name = store.bot(name).name
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    _hand_over(name, fresh, token_file, fd)


@bot.command()
@click.argument("name")
@DATA_OPTION
def revoke(name: str, data_dir: Path) -> None:
    """Stop the bot NAME playing: its token no longer logs in, the server schedules it no more; its games stay."""
    with _open(data_dir) as store:
        try:
            revoked = store.revoke_bot(name)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"bot {revoked.name} revoked")


@bot.command()
@click.argument("name")
@DATA_OPTION
def remove(name: str, data_dir: Path) -> None:
    """Forget the bot NAME; refused once it has played (revoke it instead: its games keep its name)."""
    with _open(data_dir) as store:
        try:
            found = store.bot(name).name
            store.remove_bot(name)
        except StoreError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"bot {found} removed")


def _bot_json(entry: Bot, games: int, rating: Rating | None) -> dict[str, Any]:
    return {
        "name": entry.name,
        "kind": entry.kind,
        "spec": entry.spec,
        "created": entry.created,
        "revoked": entry.revoked,
        "games": games,
        "rating": None
        if rating is None
        else {"mu": rating.mu, "sigma": rating.sigma, "conservative": rating.conservative, "games": rating.games},
    }


@bot.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array of objects.")
@DATA_OPTION
def list_(as_json: bool, data_dir: Path) -> None:
    """List the bots: name, kind, engine, created, state, games and rating. Tokens are never shown."""
    with _open(data_dir) as store:
        try:
            ratings = store.ratings()
            rows = [(entry, store.games_played(entry.name), ratings.get(entry.name)) for entry in store.bots()]
        except StoreError as exc:  # a damaged database (SPEC.md section 16.1)
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([_bot_json(*row) for row in rows], indent=2))
        return
    if not rows:
        click.echo("no bots (santorini bot add NAME --local SPEC, or --remote)")
        return
    table = [("NAME", "KIND", "ENGINE", "CREATED", "STATE", "GAMES", "RATING")]
    for entry, games, rating in rows:
        table.append(
            (
                entry.name,
                entry.kind,
                entry.spec if entry.spec is not None else "remote",
                entry.created,
                "active" if entry.active else f"revoked {entry.revoked}",
                str(games),
                "-" if rating is None else f"{rating.conservative:.1f} (mu {rating.mu:.1f}, sigma {rating.sigma:.2f})",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    for row in table:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)) + "  " + row[-1])
