"""Adapters: existing Santorini engines that speak their own interfaces, run as SEI engines.

Each adapter is a module of this package that is an SEI engine (SPEC.md section 20): it serves
SEI with ``santorini_engines.sei_bot.run_bot`` and drives the foreign engine over that engine's
own interface, translating positions, limits and turns (``common`` holds what they share).
:data:`ADAPTERS` is the one registry, name -> module; ``santorini adapter NAME ...`` and
``python -m santorini_server.adapters NAME ...`` (what an engine spec's ``adapter=NAME`` runs) both
dispatch through :func:`run`.  A module exposes ``main(argv: list[str]) -> int``, or a click
command named ``command``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ADAPTERS", "run"]

#: Adapter name (as ``santorini adapter NAME`` takes it) -> module under this package.
ADAPTERS: dict[str, str] = {
    "alphazero": "alphazero",
    "cpp-santorini": "cpp_santorini",
    "santorini-ai": "santorini_ai",
}


def run(name: str, argv: Sequence[str]) -> int:
    """Run adapter ``name`` with its own arguments ``argv``; returns the exit status.

    Raises:
        ValueError: no adapter of that name (one line listing the known ones).
    """
    module_name = ADAPTERS.get(name)
    if module_name is None:
        raise ValueError(f"no adapter {name!r} (have {', '.join(sorted(ADAPTERS))})")
    module = importlib.import_module(f"{__name__}.{module_name}")
    command: Any = getattr(module, "command", None)
    if command is not None:
        try:  # click prints usage errors and --help itself, then exits
            command.main(list(argv), prog_name=f"santorini adapter {name}", standalone_mode=True)
        except SystemExit as exc:
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        return 0
    main: Callable[[list[str]], int] = module.main
    return main(list(argv))
