"""Engines from Python: drive any SEI engine the way python-chess's ``chess.engine`` drives UCI ones.

::

    from santorini_server.engine import Limit, SimpleEngine

    with SimpleEngine.popen("alphabeta") as engine:
        result = engine.play("startpos", Limit(depth=3))

:class:`SimpleEngine` is synchronous (its own thread and trio loop); :func:`popen` gives the trio
form (:class:`AsyncEngine`).  Both speak through the referee's one engine channel.  SPEC.md
section 18 and docs/engine-api.md describe the API; ``santorini analyse`` is built on it.
"""

from ..records.analysis import Score
from .protocol import AnalysisStream, AsyncEngine, popen
from .simple import SimpleAnalysis, SimpleEngine
from .types import AnalysisInfo, EngineError, EngineTerminated, Limit, PlayResult

__all__ = [
    "Limit",
    "Score",
    "AnalysisInfo",
    "PlayResult",
    "EngineError",
    "EngineTerminated",
    "AsyncEngine",
    "AnalysisStream",
    "popen",
    "SimpleEngine",
    "SimpleAnalysis",
]
