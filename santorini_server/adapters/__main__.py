"""``python -m santorini_server.adapters NAME ARGS...``: what an engine spec's ``adapter=NAME`` starts.

It skips the ``santorini`` command group (logging set-up, lazy command table), so an adapter starts
as fast as the interpreter allows.
"""

from __future__ import annotations

import sys

from . import run


def _main() -> int:
    if len(sys.argv) < 2:
        print("usage: python -m santorini_server.adapters NAME [ARGS...]", file=sys.stderr)
        return 2
    try:
        return run(sys.argv[1], sys.argv[2:])
    except ValueError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(_main())
