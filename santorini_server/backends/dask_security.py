"""Who may talk to a Dask cluster: loopback by default, mutual TLS beyond it.

A Dask scheduler, and every worker and nanny, runs whatever a connected peer sends it (pickled
functions: ``client.run``, ``client.submit``), so whoever can open a connection to one of them
can run code on that machine as its user.  Two defences, applied by every command that starts
or reaches a cluster (``santorini scheduler``, ``santorini worker``, ``santorini tournament
--backend dask``, and the daemon's Dask backend):

* **Where it listens.**  The scheduler binds 127.0.0.1 unless ``--host`` names an interface;
  a worker binds the one interface that routes to its scheduler (Dask's own default binds every
  interface for the worker and its HTTP server, whatever address it advertises).  Listening
  beyond loopback without TLS is allowed, with one ``warning:`` line on stderr.
* **Mutual TLS.**  :class:`DaskTLS` holds the three files (a CA, a certificate signed by it and
  its key); every role of the cluster (scheduler, workers, clients) uses the same three, and
  Dask then requires a certificate signed by that CA from *both* ends of every connection
  (``ssl.CERT_REQUIRED``; no host name check: clusters are addressed by IP).  Holding a
  certificate from the CA is what "may connect" means.

Nothing here imports Dask at import time: the CLI checks its flags before Dask is loaded (a
bad flag is a quick one-line error), and only :meth:`DaskTLS.security` needs ``distributed``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DaskSecurityError",
    "DaskTLS",
    "LOOPBACK",
    "parse_address",
    "check_host",
    "is_loopback",
    "exposure_warning",
    "reaching_interface",
    "host_port",
]

#: Where the scheduler listens when ``--host`` is not given.
LOOPBACK = "127.0.0.1"

_ADDRESS_RE = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})")
_HOST_RE = re.compile(r"\[?[0-9A-Fa-f:.]+\]?|[A-Za-z0-9_.-]+")


class DaskSecurityError(ValueError):
    """A one-line reason the cluster's addresses or TLS files cannot be used as given."""


def parse_address(address: str) -> tuple[str, str, int]:
    """``tcp://HOST:PORT`` or ``tls://HOST:PORT`` as (scheme, host without brackets, port).

    Raises:
        DaskSecurityError: anything else, quoted.
    """
    found = _ADDRESS_RE.fullmatch(address)
    if found is None or int(found.group(3)) > 65535:
        raise DaskSecurityError(f"bad address {address!r}: expected tcp://HOST:PORT or tls://HOST:PORT")
    return found.group(1), found.group(2).strip("[]"), int(found.group(3))


def check_host(host: str) -> str:
    """An interface address or name given to ``--host`` (no scheme, no port), unbracketed.

    Raises:
        DaskSecurityError: a URL or anything that is not a host.
    """
    if not _HOST_RE.fullmatch(host) or host.count(":") == 1:
        raise DaskSecurityError(
            f"bad --host {host!r}: expected an interface address or name such as 127.0.0.1 or 0.0.0.0 "
            "(no tcp:// or port: TLS follows from --tls-cert)"
        )
    return host.strip("[]")


def host_port(host: str, port: int) -> str:
    """``HOST:PORT``, the host bracketed when it is an IPv6 address (Dask's spelling)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_loopback(host: str) -> bool:
    """True when every address ``host`` stands for is a loopback address (127/8, ::1).

    The wildcard (``0.0.0.0``, ``::``, empty) and names that do not resolve count as beyond
    loopback: the question is whether another machine might reach the port."""
    host = host.strip("[]")
    if not host:
        return False
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def reaching_interface(host: str, port: int) -> str:
    """The address of this machine's interface that routes to ``host`` (the scheduler): where a
    worker listens, so that it binds one interface rather than all of them.

    Raises:
        DaskSecurityError: ``host`` does not resolve, or no route leads to it.
    """
    try:
        family, kind, proto, _, sockaddr = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.connect(sockaddr)  # UDP: picks the route, sends nothing
            return str(probe.getsockname()[0])
    except (OSError, UnicodeError) as exc:
        raise DaskSecurityError(f"cannot find the interface that reaches {host}: {exc}") from None


def exposure_warning(what: str, host: str, tls: DaskTLS) -> str | None:
    """The one ``warning:`` line for ``what`` listening on ``host`` beyond loopback without
    TLS, or None when it is on loopback or under TLS."""
    if tls.enabled or is_loopback(host):
        return None
    return (
        f"warning: {what} listens on {host or 'every interface'} without TLS: anyone who can reach it can run "
        "code on this machine; use --tls-ca-file, --tls-cert and --tls-key (SPEC.md 11.6)"
    )


@dataclass(frozen=True)
class DaskTLS:
    """The cluster's mutual-TLS files, or none of them (plain TCP).

    One CA file and one certificate with its key serve every role: the scheduler, the workers
    and the clients (coordinators) each present the certificate and accept only peers whose
    certificate the CA signed."""

    ca_file: Path | None = None
    """The CA certificate(s) (PEM) that signed the cluster's certificates."""
    cert: Path | None = None
    """This machine's certificate (PEM), signed by the CA."""
    key: Path | None = None
    """The certificate's private key (PEM)."""

    @property
    def enabled(self) -> bool:
        return self.ca_file is not None or self.cert is not None or self.key is not None

    @property
    def scheme(self) -> str:
        """The scheme of the cluster's addresses: ``tls`` with the files, ``tcp`` without."""
        return "tls" if self.enabled else "tcp"

    def check(self) -> None:
        """All three files or none; each readable and what it claims to be (the CA loads as
        certificates, the certificate matches its key).

        Raises:
            DaskSecurityError: one line naming the flag, the file and what is wrong.
        """
        if not self.enabled:
            return
        given = {"--tls-ca-file": self.ca_file, "--tls-cert": self.cert, "--tls-key": self.key}
        missing = [flag for flag, path in given.items() if path is None]
        if missing:
            raise DaskSecurityError(f"mutual TLS needs --tls-ca-file, --tls-cert and --tls-key: {', '.join(missing)} missing")
        for flag, path in given.items():
            try:
                with open(path, "rb") as f:  # type: ignore[arg-type]
                    f.read(1)
            except OSError as exc:
                raise DaskSecurityError(f"cannot read {flag} {path}: {exc.strerror or exc}") from None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            context.load_verify_locations(cafile=self.ca_file)
        except (ssl.SSLError, ValueError) as exc:
            raise DaskSecurityError(f"--tls-ca-file {self.ca_file} holds no usable PEM certificate: {_reason(exc)}") from None
        try:
            context.load_cert_chain(self.cert, self.key)  # type: ignore[arg-type]
        except (ssl.SSLError, ValueError) as exc:
            raise DaskSecurityError(
                f"--tls-cert {self.cert} and --tls-key {self.key} are not a PEM certificate and its key: {_reason(exc)}"
            ) from None

    def check_address(self, address: str) -> tuple[str, str, int]:
        """``address`` parsed, its scheme agreeing with the files: ``tls://`` needs them and
        they need ``tls://``.

        Raises:
            DaskSecurityError: a bad address or a scheme the files contradict.
        """
        scheme, host, port = parse_address(address)
        if scheme == "tls" and not self.enabled:
            raise DaskSecurityError(f"{address} is a TLS address: give --tls-ca-file, --tls-cert and --tls-key")
        if scheme == "tcp" and self.enabled:
            raise DaskSecurityError(
                f"--tls-cert is given but {address} is plain TCP: use tls://{host_port(host, port)}"
            )
        return scheme, host, port

    def cli_args(self) -> list[str]:
        """The flags of Dask's own ``dask scheduler``/``dask worker`` for these files."""
        if not self.enabled:
            return []
        return ["--tls-ca-file", str(self.ca_file), "--tls-cert", str(self.cert), "--tls-key", str(self.key)]

    def security(self) -> Any:
        """A ``distributed.Security`` for a client or a local cluster: these files for every role,
        encryption required (None without files: Dask's plain default)."""
        if not self.enabled:
            return None
        from distributed import Security

        files = {"tls_ca_file": str(self.ca_file)}
        for role in ("client", "scheduler", "worker"):
            files[f"tls_{role}_cert"] = str(self.cert)
            files[f"tls_{role}_key"] = str(self.key)
        return Security(require_encryption=True, **files)


def _reason(exc: Exception) -> str:
    return str(getattr(exc, "reason", None) or exc)
