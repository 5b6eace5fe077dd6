"""click parameter types shared by commands: they reuse the rules/referee parsers, so a bad
flag reads the same as a bad record (one line, the input quoted)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import click

from ..adjudicator import TimeControl, parse_tc, tc_warnings
from ..referee.engine_spec import EngineSpec, parse_engine_spec
from ..rules import NotationError, parse_sps
from ..rules.gods import check_matchup

__all__ = ["ENGINE", "TC", "GODS", "SPS", "Parsed", "Seconds", "warn_time_controls", "gods_against_opening"]


class Parsed(click.ParamType):
    """A flag read by one of our parsers; its one-line error becomes click's usage error.

    ``parsed`` is the parser's result type: a value that already has it (a default given
    parsed) is taken as is."""

    def __init__(
        self, name: str, parse: Callable[[str], Any], errors: type[Exception], parsed: type | None = None
    ) -> None:
        self.name = name
        self._parse = parse
        self._errors = errors
        self._parsed = parsed

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if self._parsed is not None and isinstance(value, self._parsed):
            return value
        try:
            return self._parse(value)
        except self._errors as exc:
            self.fail(str(exc), param, ctx)


def _parse_gods(value: str) -> tuple[str, str]:
    parts = value.split("/")
    if len(parts) != 2:
        raise ValueError(f"expected two gods like apollo/mortal, got {value!r}")
    check_matchup(parts[0], parts[1])
    return parts[0], parts[1]


ENGINE = Parsed("ENGINE", parse_engine_spec, ValueError, EngineSpec)
TC = Parsed("TC", parse_tc, ValueError, TimeControl)
GODS = Parsed("G1/G2", _parse_gods, ValueError, tuple)
SPS = Parsed("SPS", lambda value: parse_sps(value).sps(), NotationError)


class Seconds(click.FloatRange):
    """A duration flag in seconds, at least ``min``: click's FloatRange lets ``nan`` through
    (it fails no comparison) and ``inf``, which no timeout, grace or delay here means."""

    name = "seconds"

    def __init__(self, min: float = 0) -> None:
        super().__init__(min=min)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return seconds


def warn_time_controls(*tcs: TimeControl | None) -> None:
    """One ``warning:`` line on stderr for each likely slip in the run's time controls (the
    ``--tc`` and the engines' own ``tc=``); the run goes on."""
    seen: set[TimeControl] = set()
    for tc in tcs:
        if tc is not None and tc not in seen:
            seen.add(tc)
            for warning in tc_warnings(tc):
                click.echo(f"warning: {warning}", err=True)


def gods_against_opening(gods: tuple[str, ...] | None, opening_gods: tuple[str, ...]) -> str | None:
    """Why ``--gods`` cannot go with ``--opening`` (the opening's gods are the game's), or None."""
    if gods is None or gods == opening_gods:
        return None
    return f"--gods {'/'.join(gods)} disagrees with the opening's gods {'/'.join(opening_gods)}"
