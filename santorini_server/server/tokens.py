"""Secret tokens: bot login tokens and the admin token (SPEC.md section 16.2).

A token is 32 random bytes from :mod:`secrets`, URL-safe base64 (43 characters). Only its SHA-256
(hex) is ever stored, and a presented token is checked by hashing it and comparing the digests
with :func:`hmac.compare_digest`, whose running time does not depend on where they differ. A
plain hash (no salt, no key stretching) is enough because a token has 256 bits of entropy: there
is no dictionary to attack, unlike a password.

The admin token (the job API's ``Authorization: Bearer``) is the exception that proves the rule:
its owner must be able to read it back, so it is kept in clear in ``DIR/admin.token``, created
once with mode 0600, and refused if anyone else may read it (as ssh refuses a private key).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

__all__ = ["TOKEN_BYTES", "new_token", "token_hash", "token_matches", "ADMIN_TOKEN_FILE", "ensure_admin_token"]

TOKEN_BYTES = 32
"""256 bits: out of reach of guessing, so one unsalted SHA-256 is a safe thing to store."""

ADMIN_TOKEN_FILE = "admin.token"

#: Compared against when there is no stored hash, so an unknown name costs the same as a wrong token.
_NO_HASH = "0" * 64


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe base64 without padding."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The SHA-256 of a token, hex: the only form in which a token is stored."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, stored_hash: str | None) -> bool:
    """Whether ``token`` hashes to ``stored_hash``, in constant time; never for a missing hash."""
    expected = _NO_HASH if stored_hash is None else stored_hash
    same = hmac.compare_digest(token_hash(token).encode("ascii"), expected.encode("ascii", "replace"))
    return same and stored_hash is not None


def ensure_admin_token(data_dir: Path) -> str:
    """The admin token of a data directory, created (mode 0600) on first use.

    The token is written to a file of this process's own, which is then hard-linked to its name:
    the link is made only if no file has the name yet, so two processes starting at once agree on
    one token, and neither ever reads the file before its token is in it.

    Raises:
        PermissionError: the file may be read by its group or others (one line: how to fix it).
        ValueError: the file exists but holds no token.
    """
    path = data_dir / ADMIN_TOKEN_FILE
    if path.exists():
        return _read_admin_token(path)
    token = new_token()
    draft = data_dir / f".{ADMIN_TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(token + "\n")
            file.flush()
            os.fsync(file.fileno())
        os.link(draft, path)
    except FileExistsError:  # another process was first: its token is the one
        return _read_admin_token(path)
    finally:
        draft.unlink(missing_ok=True)
    return token


def _read_admin_token(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise PermissionError(f"{path} may be read by others (mode {mode:04o}): chmod 600 {path}")
    token = path.read_text(encoding="ascii").strip()
    if not token:
        raise ValueError(f"{path} is empty: delete it to create a new admin token")
    return token
