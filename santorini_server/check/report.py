"""What ``santorini check`` found: one result per check, and the report that sums them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..referee.channel import EngineInfo

__all__ = ["CheckResult", "ComplianceReport", "ComplianceStartError", "Status", "Verdict"]

Status = Literal["pass", "fail", "warn", "skip"]

Verdict = tuple[Status, str]
"""What a check function returns: its status and a one-line reason."""


@dataclass(frozen=True)
class CheckResult:
    """One line of the report."""

    name: str
    status: Status
    reason: str
    dead: bool = False
    """Skipped because the engine was dead: reported as ``skip``, counted as a failure."""
    transcript: tuple[str, ...] = ()
    """The SEI lines exchanged during the check (``>>`` sent, ``<<`` received), for ``--verbose``."""

    @property
    def failed(self) -> bool:
        return self.status == "fail" or self.dead


@dataclass
class ComplianceReport:
    """Every check's result, in order, and what the engine said about itself."""

    engine: str
    results: list[CheckResult] = field(default_factory=list)
    info: EngineInfo = field(default_factory=EngineInfo)
    restarts: int = 0
    stderr_tail: str = ""

    @property
    def passed(self) -> int:
        return sum(r.status == "pass" for r in self.results)

    @property
    def failed(self) -> int:
        return sum(r.failed for r in self.results)

    @property
    def warnings(self) -> int:
        return sum(r.status == "warn" for r in self.results)

    @property
    def skipped(self) -> int:
        """Checks that did not apply (not counted as failures); dead skips are in ``failed``."""
        return sum(r.status == "skip" and not r.dead for r in self.results)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def result(self, name: str) -> CheckResult:
        """The result of the check called ``name`` (KeyError if it did not run)."""
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)


class ComplianceStartError(Exception):
    """The engine program could not be started at all; ``str()`` is one line for the user."""
