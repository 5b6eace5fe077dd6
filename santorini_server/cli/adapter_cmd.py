"""``santorini adapter NAME [ARGS...]``: run an existing engine through its adapter, as an SEI engine.

The adapters and their arguments are listed by ``santorini adapter --help`` and SPEC.md section 20;
each adapter parses its own arguments (``santorini adapter cpp-santorini --help``).
"""

from __future__ import annotations

import click

from ..adapters import ADAPTERS, run

__all__ = ["adapter"]


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    epilog="Adapters: " + ", ".join(sorted(ADAPTERS)) + ".  In a spec: -e \"adapter=NAME arg=--binary arg=PATH\".",
)
@click.argument("name", type=click.Choice(sorted(ADAPTERS)))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def adapter(name: str, args: tuple[str, ...]) -> None:
    """Serve SEI on stdin/stdout for the foreign engine NAME (SPEC.md section 20)."""
    raise SystemExit(run(name, args))
