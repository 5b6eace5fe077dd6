"""A structlog processor that keeps secrets out of the logs (SPEC.md section 16.2).

Tokens are never passed to a logger on purpose; this is the second line of defence against one
passed by accident (``log.info("login", name=name, token=token)``, a whole request's headers): any
field whose name looks like a secret is dropped, at any depth of nested dicts, before rendering.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import Any

__all__ = ["SECRET_FIELD", "redact_secrets"]

SECRET_FIELD = re.compile(r"token|secret|passw(or)?d|authorization|cookie|api[-_]?key|credential", re.I)
"""A field name that may hold a secret (matched anywhere in the name: ``admin_token``, ``X-Api-Key``)."""


def _scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if not (isinstance(k, str) and SECRET_FIELD.search(k))}
    return value


def redact_secrets(logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Drop every field (also inside nested dicts) whose name matches :data:`SECRET_FIELD`."""
    for key in [k for k in event_dict if SECRET_FIELD.search(k)]:
        del event_dict[key]
    for key, value in event_dict.items():
        if isinstance(value, dict):
            event_dict[key] = _scrub(value)
    return event_dict
