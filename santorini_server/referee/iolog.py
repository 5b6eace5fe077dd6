"""Protocol logging (``--debug``): every line exchanged with an engine, timestamped, per engine.

structlog renders the events: a readable console format on a terminal, JSON Lines otherwise (for
machines).  Off by default; when off the referee passes no callback, so the per-turn path pays
nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

import structlog

__all__ = ["make_io_log"]


def make_io_log(stream: TextIO | None = None) -> Callable[[str, str, str], None]:
    """A callback ``(engine, direction, line)`` writing one structlog event per line."""
    stream = stream or sys.stderr
    renderer: structlog.typing.Processor
    renderer = structlog.dev.ConsoleRenderer(colors=True) if stream.isatty() else structlog.processors.JSONRenderer()
    logger = structlog.wrap_logger(
        structlog.PrintLogger(stream),
        processors=[structlog.processors.TimeStamper(fmt="iso", utc=True), renderer],
    )

    def log(engine: str, direction: str, line: str) -> None:
        logger.msg("sei", engine=engine, dir=direction, line=line)

    return log
