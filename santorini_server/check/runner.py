"""Running the checks: follow the plan, keep the engine usable, report each result as it comes.

Theory of operation.  A bot author wants to know, before a tournament, everything the referee
would hold against the engine.  The run follows :data:`~.checks.PLAN`; each check drives the
session and returns a verdict (``pass``, ``fail`` or ``warn``) with a one-line reason.  A
failing check does not end the run: the runner first tries to bring the engine back to idle
(``stop``, wait for the outstanding reply), and if that does not work -- the engine crashed,
broke the protocol (the codec's ERROR state is sticky), or still owes a reply -- it restarts
the engine and carries on, so one bug does not hide the others.  An engine that cannot be
(re)started, has needed ``MAX_RESTARTS`` restarts, or failed a *vital* check is *dead*: every
later check is reported as skipped and counted as a failure.  Every wait is bounded; every
process is reaped before :func:`run_compliance` returns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import trio

from ..referee.channel import EngineFailure
from ..referee.engine_spec import EngineSpec
from .checks import PLAN, Check, GodChecks, select_gods
from .report import CheckResult, ComplianceReport, ComplianceStartError, Status
from .session import Fail, Session, quote

__all__ = ["ResultCallback", "run_compliance"]

ResultCallback = Callable[[CheckResult], None]


async def run_compliance(
    spec: EngineSpec,
    *,
    gods: Sequence[str] | None = None,
    timeout: float = 10.0,  # noqa: ASYNC109 (a limit on each reply, not on the run)
    on_result: ResultCallback | None = None,
) -> ComplianceReport:
    """Run every check against ``spec`` and return the report; ``on_result`` sees each line as it
    is decided (so a long run shows progress).

    Args:
        gods: which gods get a ``god-<name>`` check (and ``athena-up``); None means every god the
            engine claims.  A god the engine does not claim is reported as skipped.
        timeout: seconds for the handshake and for replies without a clock (``go depth 1``,
            ``perft``, ``newgame``); the protocol's own limits (1 s for ``isready``...) are fixed.

    Raises:
        ComplianceStartError: the program could not be started (missing, not executable...).
    """
    report = ComplianceReport(engine=spec.name)
    # Errors leave the nursery bare, not in an ExceptionGroup (as in open_engine_process): a
    # start failure, or the caller's own exception from on_result (a closed stdout).
    error: Exception | None = None
    async with trio.open_nursery() as nursery:
        s = Session(nursery, spec, timeout)
        try:
            try:
                await s.start()
            except EngineFailure as exc:
                raise ComplianceStartError(exc.detail) from None
            try:
                await _run_checks(s, report, gods, on_result)
            finally:
                await s.close()
        except Exception as exc:
            error = exc
        report.restarts = s.restarts
        report.info = s.info
        report.stderr_tail = s.stderr_tail
    if error is not None:
        raise error
    return report


def _reason(failure: EngineFailure) -> str:
    """A check's reason for a failure of the channel: its detail, about "the engine"."""
    return failure.detail if failure.kind == "engine-error" else f"the engine {failure.detail}"


async def _run_checks(
    s: Session, report: ComplianceReport, gods: Sequence[str] | None, on_result: ResultCallback | None
) -> None:
    def emit(result: CheckResult) -> None:
        report.results.append(result)
        if on_result is not None:
            on_result(result)

    passed: set[str] = set()
    s.selected_gods = tuple(gods) if gods is not None else ()
    for step in PLAN:
        checks = step.expand(s) if isinstance(step, GodChecks) else [step]
        for check in checks:
            if s.dead_reason is not None:
                emit(CheckResult(check.name, "skip", f"engine is dead ({s.dead_reason})", dead=True))
                continue
            if not passed.issuperset(check.requires):
                emit(CheckResult(check.name, "skip", check.unmet))
                continue
            status, reason, usable = await _run_one(s, check)
            emit(CheckResult(check.name, status, reason, transcript=tuple(s.transcript[s.mark :])))
            if status == "pass":
                passed.add(check.name)
            if check.vital and status != "pass":
                s.dead_reason = f"no {check.name}"
            if check.vital and s.handshaken:
                s.selected_gods = select_gods(s.info.gods, gods)
            await _after(s, check, usable)


async def _run_one(s: Session, check: Check) -> tuple[Status, str, bool]:
    """Run ``check``: its status, its reason, and whether the engine is still usable."""
    s.mark = len(s.transcript)
    s.errors.clear()
    status: Status
    try:
        status, reason = await check.run(s)
    except Fail as exc:
        return "fail", str(exc), True
    except EngineFailure as exc:
        return "fail", _reason(exc), False
    errors = s.take_errors()
    if errors and status != "fail":
        status, reason = "fail", f"engine sent error {quote(errors[0])}"
    return status, reason, True


async def _after(s: Session, check: Check, usable: bool) -> None:
    """Leave the engine ready for the next check: as it is, settled, or restarted."""
    if check.closes_engine or s.dead_reason is not None:
        return
    if check.keeps_state and usable:
        return
    if (not usable or not await s.settle()) and not await s.restart():
        s.dead_reason = s.dead_reason or "could not be restarted"
