"""``santorini check``: the protocol compliance test for bot authors (``fastchess --compliance``)."""

from __future__ import annotations

import os
import sys

import click
import structlog
import trio

from ..check import CheckResult, ComplianceReport, ComplianceStartError, run_compliance
from ..referee.engine_spec import EngineSpec
from ..rules import GODS, MORTAL
from .interrupt import INTERRUPTED_STATUS, is_interrupt
from .options import ENGINE, Seconds

__all__ = ["check"]

_LABELS = {"pass": "PASS", "fail": "FAIL", "warn": "WARN", "skip": "SKIP"}
_COLOURS = {"pass": "green", "fail": "red", "warn": "yellow", "skip": None}


class _GodList(click.ParamType):
    name = "all|G1,G2"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[str, ...] | None:
        if value is None or isinstance(value, tuple):
            return value
        text = str(value).strip()
        if text == "all":
            return None
        names = tuple(n.strip() for n in text.split(",") if n.strip())
        for name in names:
            if name not in GODS:
                self.fail(f"unknown god {name!r} (expected all or a comma list of {', '.join(GODS[1:])})", param, ctx)
        return tuple(n for n in names if n != MORTAL)


def _line(result: CheckResult, colour: bool) -> str:
    label = _LABELS[result.status] if not result.dead else "SKIP"
    if colour and _COLOURS[result.status if not result.dead else "fail"]:
        label = click.style(label, fg=_COLOURS[result.status if not result.dead else "fail"], bold=True)
    return f"{label} {result.name}: {result.reason}"


def _summary(report: ComplianceReport) -> str:
    dead = sum(r.dead for r in report.results)
    failed = f"{report.failed} failed" + (f" ({dead} skipped: engine dead)" if dead else "")
    parts = [f"{report.passed} passed", failed, f"{report.warnings} warnings"]
    if report.skipped:
        parts.append(f"{report.skipped} not applicable")
    text = ", ".join(parts)
    if report.restarts:
        text += f"; the engine was restarted {report.restarts} time{'s' if report.restarts > 1 else ''}"
    return text


@click.command()
@click.argument("engine", type=ENGINE)
@click.option(
    "--gods", "gods", type=_GodList(), default="all", show_default=True,
    help="Gods to play a few turns with: all the engine claims, or a comma list.",
)
@click.option(
    "--timeout", type=Seconds(min=0.1), default=10.0, show_default=True,
    help="Seconds for the handshake and for replies without a clock (go depth, perft, newgame).",
)
@click.option("--verbose", "-v", is_flag=True, help="Show the SEI lines of every check, and the engine's stderr.")
def check(engine: EngineSpec, gods: tuple[str, ...] | None, timeout: float, verbose: bool) -> None:
    """Test that ENGINE speaks SEI the way the referee expects, one line per check.

    Runs about 40 checks: the handshake, options, isready (also during a search), new games,
    legal turns from several positions and for every god the engine claims, clocks, movetime,
    depth and nodes limits, go infinite / stop, legalmoves and perft against the rules, info
    lines, and a clean exit on quit and on EOF.  A failing check does not stop the run; an engine
    that breaks the protocol or crashes is restarted.  Exit status 1 if any check failed.

    \b
    Example:
      santorini check "cmd=./mybot arg=--fast"
      santorini check alphabeta --gods apollo,pan -v
    """
    if not structlog.is_configured():  # the process layer's warnings must not mix into the report
        structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))
    colour = sys.stdout.isatty()
    click.echo(f"Checking {engine.name} ({' '.join(engine.argv)})")

    def show(result: CheckResult) -> None:
        click.echo(_line(result, colour))
        if verbose:
            for line in result.transcript:
                click.echo(f"    {line}")

    try:
        report = trio.run(lambda: run_compliance(engine, gods=gods, timeout=timeout, on_result=show))
    except ComplianceStartError as exc:
        raise click.ClickException(str(exc)) from None
    except (KeyboardInterrupt, BaseExceptionGroup) as exc:
        if not is_interrupt(exc):
            raise
        click.echo("interrupted: engine stopped", err=True)
        sys.exit(INTERRUPTED_STATUS)
    except BrokenPipeError:  # `santorini check ... | head`: the reader left; so do we, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    if verbose and report.stderr_tail:
        click.echo("engine stderr (last lines):")
        for line in report.stderr_tail.splitlines()[-20:]:
            click.echo(f"    {line}")
    click.echo(_summary(report))
    sys.exit(0 if report.ok else 1)
