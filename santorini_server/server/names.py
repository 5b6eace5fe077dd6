"""Bot names and ids: the one rule for what a registered bot may be called (SPEC.md section
16.2), and for the run and game ids that URLs carry (16.5).

A name travels in the TCP login line, in URLs of the job API, in records and on the dashboard,
so it is kept to characters that need no quoting anywhere: ``[A-Za-z0-9_.-]{1,32}``. ``.`` and
``..`` match that pattern but mean "this folder" and "the parent" in every path and URL, so they
are refused too (decision). Names are unique regardless of case (``Alpha`` and ``alpha`` are one
bot), so a look-alike cannot be registered beside an existing bot.

An id in a path is ASCII digits only: Python's ``int`` also takes other scripts' digits (``١`` is
1), signs, spaces and ``_``, so that one game would answer to many spellings.
"""

from __future__ import annotations

import re

__all__ = ["NAME_RULE", "check_bot_name", "parse_id"]

NAME_RULE = "1 to 32 characters from A-Z a-z 0-9 _ . - (not . or ..)"
_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,32}")
_ID_RE = re.compile(r"[0-9]{1,30}")  # beyond SQLite's 19 digits the store finds nothing: bounded, not refused


def check_bot_name(name: str) -> str:
    """Return ``name`` if it is a valid bot name.

    Raises:
        ValueError: one line quoting the name and stating the rule.
    """
    if _NAME_RE.fullmatch(name) is None or name in (".", ".."):
        raise ValueError(f"bad bot name {name!r}: {NAME_RULE}")
    return name


def parse_id(text: str) -> int:
    """The run or game id a path gives: ``0-9`` only (SPEC.md section 16.5).

    Raises:
        ValueError: anything else (the routes answer 404, as for an id not in the store).
    """
    if _ID_RE.fullmatch(text) is None:
        raise ValueError(f"not an id: {text[:40]!r}")
    return int(text)
