"""``santorini check``: the SEI compliance test of one engine (like ``fastchess --compliance``).

``run_compliance(spec)`` runs every check of :data:`PLAN` against a real engine process and
returns a :class:`ComplianceReport`.  Modules: ``checks`` (the checks, declared as data),
``judge`` (one turn against the rules and the clock), ``session`` (the engine under test, on the
referee's engine channel), ``runner`` (following the plan) and ``report`` (the results).
"""

from .checks import CHECKS, CROSS_SPS, PLAN, Check, GodChecks, info_problem
from .report import CheckResult, ComplianceReport, ComplianceStartError, Status
from .runner import run_compliance
from .session import MAX_RESTARTS

__all__ = [
    "CHECKS",
    "CROSS_SPS",
    "MAX_RESTARTS",
    "PLAN",
    "Check",
    "CheckResult",
    "ComplianceReport",
    "ComplianceStartError",
    "GodChecks",
    "Status",
    "info_problem",
    "run_compliance",
]
