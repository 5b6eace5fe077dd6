"""The Dask security flags, one option group for every command that starts or reaches a cluster
(``scheduler``, ``worker``, ``tournament --backend dask``, and the daemon's ``--backend dask``):
``--tls-ca-file``, ``--tls-cert`` and ``--tls-key`` arrive as one ``tls`` argument, a
:class:`~santorini_server.backends.dask_security.DaskTLS`, checked before Dask is loaded."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from ..backends.dask_security import DaskSecurityError, DaskTLS

__all__ = ["dask_tls_options", "checked_tls", "checked_address", "one_line_errors"]

_FILE = click.Path(dir_okay=False, path_type=Path)
_OPTIONS = (
    click.option("--tls-ca-file", type=_FILE, metavar="FILE",
                 help="Mutual TLS: the CA certificate (PEM) that signed every machine's certificate."),
    click.option("--tls-cert", type=_FILE, metavar="FILE", help="Mutual TLS: this machine's certificate (PEM)."),
    click.option("--tls-key", type=_FILE, metavar="FILE", help="Mutual TLS: the certificate's private key (PEM)."),
)


def dask_tls_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the three flags to a click command; it receives them as ``tls: DaskTLS``."""

    @functools.wraps(command)
    def with_tls(*args: Any, tls_ca_file: Path | None, tls_cert: Path | None, tls_key: Path | None, **kwargs: Any) -> Any:
        return command(*args, tls=DaskTLS(tls_ca_file, tls_cert, tls_key), **kwargs)

    for option in reversed(_OPTIONS):
        with_tls = option(with_tls)
    return with_tls


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """A :class:`DaskSecurityError` inside is the command's one-line error (exit status 1)."""
    try:
        yield
    except DaskSecurityError as exc:
        raise click.ClickException(str(exc)) from None


def checked_tls(tls: DaskTLS) -> DaskTLS:
    """``tls`` with its files checked; a problem is the command's one-line error."""
    with one_line_errors():
        tls.check()
    return tls


def checked_address(tls: DaskTLS, address: str) -> tuple[str, str, int]:
    """``address`` as (scheme, host, port), its scheme agreeing with ``tls`` (whose files are
    checked too); a problem is the command's one-line error."""
    with one_line_errors():
        parsed = tls.check_address(address)
    checked_tls(tls)
    return parsed
