"""Bot names: the one rule for what a registered bot may be called (SPEC.md section 16.2).

A name travels in the TCP login line, in URLs of the job API, in records and on the dashboard,
so it is kept to characters that need no quoting anywhere: ``[A-Za-z0-9_.-]{1,32}``. ``.`` and
``..`` match that pattern but mean "this folder" and "the parent" in every path and URL, so they
are refused too (decision). Names are unique regardless of case (``Alpha`` and ``alpha`` are one
bot), so a look-alike cannot be registered beside an existing bot.
"""

from __future__ import annotations

import re

__all__ = ["NAME_RULE", "check_bot_name"]

NAME_RULE = "1 to 32 characters from A-Z a-z 0-9 _ . - (not . or ..)"
_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")


def check_bot_name(name: str) -> str:
    """Return ``name`` if it is a valid bot name.

    Raises:
        ValueError: one line quoting the name and stating the rule.
    """
    if _NAME_RE.fullmatch(name) is None or name in (".", ".."):
        raise ValueError(f"bad bot name {name!r}: {NAME_RULE}")
    return name
