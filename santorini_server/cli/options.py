"""click parameter types shared by commands: they reuse the notation/referee parsers, so a bad
flag reads the same as a bad record (one line, the input quoted)."""

from __future__ import annotations

from typing import Any

import click

from ..notation import NotationError, parse_sps
from ..referee.engine_spec import EngineSpec, parse_engine_spec
from ..referee.timecontrol import TimeControl, parse_tc
from ..rules.gods import check_matchup

__all__ = ["ENGINE", "TC", "GODS", "SPS"]


class _Engine(click.ParamType):
    name = "ENGINE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> EngineSpec:
        if isinstance(value, EngineSpec):
            return value
        try:
            return parse_engine_spec(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class _Tc(click.ParamType):
    name = "TC"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> TimeControl:
        if isinstance(value, TimeControl):
            return value
        try:
            return parse_tc(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


class _Gods(click.ParamType):
    name = "G1/G2"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, str]:
        if isinstance(value, tuple):
            return value
        parts = value.split("/")
        if len(parts) != 2:
            self.fail(f"expected two gods like apollo/mortal, got {value!r}", param, ctx)
        try:
            check_matchup(parts[0], parts[1])
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return parts[0], parts[1]


class _Sps(click.ParamType):
    name = "SPS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return parse_sps(value).sps()
        except NotationError as exc:
            self.fail(str(exc), param, ctx)


ENGINE = _Engine()
TC = _Tc()
GODS = _Gods()
SPS = _Sps()
