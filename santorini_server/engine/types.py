"""The values of the public engine API: limits, what a search reports, what it chose, and its errors."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..records.analysis import Score
from ..sei import Go, Info

__all__ = ["Limit", "AnalysisInfo", "PlayResult", "EngineError", "EngineTerminated"]


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


@dataclass(frozen=True)
class Limit:
    """When a search ends, as ``go`` says it (SPEC.md section 4.2); every field is optional.

    ``time`` is a fixed time per turn (``movetime``), ``clocks`` and ``incs`` the seats' clocks and
    increments in seat order (``p1time`` ...), all in seconds.  No field at all means ``go infinite``:
    the engine searches until it is stopped (:meth:`AsyncEngine.analysis` stops it).
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    clocks: tuple[float, ...] | None = None
    incs: tuple[float, ...] | None = None
    movestogo: int | None = None

    def go(self) -> Go:
        """The ``go`` command; ValueError (one line) for a limit SEI cannot say."""
        fields: dict[str, object] = {}
        if self.clocks is not None:
            if not 2 <= len(self.clocks) <= 4:
                raise ValueError(f"clocks gives one time per seat (2 to 4), got {len(self.clocks)}")
            fields.update({f"p{i}time": _ms(t) for i, t in enumerate(self.clocks, 1)})
        if self.incs is not None:
            if not 2 <= len(self.incs) <= 4:
                raise ValueError(f"incs gives one increment per seat (2 to 4), got {len(self.incs)}")
            fields.update({f"p{i}inc": _ms(t) for i, t in enumerate(self.incs, 1)})
        if self.time is not None:
            fields["movetime"] = max(1, _ms(self.time))
        for name in ("depth", "nodes", "movestogo"):
            value = getattr(self, name)
            if value is not None:
                if type(value) is not int or value < 1:
                    raise ValueError(f"Limit {name} must be a whole number >= 1, got {value!r}")
                fields[name] = value
        if not fields:
            return Go(infinite=True)
        return Go(**fields)  # type: ignore[arg-type]

    @property
    def infinite(self) -> bool:
        """No limit at all: the search runs until stopped."""
        return self == Limit()


@dataclass(frozen=True)
class AnalysisInfo:
    """One ``info`` line of a search, read (SPEC.md section 4.3); ``raw`` is the codec's value."""

    score: Score | None = None
    depth: int | None = None
    seldepth: int | None = None
    nodes: int | None = None
    time: float | None = None
    """Seconds searched."""
    nps: int | None = None
    wdl: tuple[int, int, int] | None = None
    pv: tuple[str, ...] = ()
    """The principal variation, STN turns, the first the turn the engine would play."""
    multipv: int = 1
    """Rank of this line among the candidate turns (1: the best; see ``analyse(multipv=)``)."""
    string: str | None = None
    raw: Info | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, info: Info, multipv: int = 1) -> AnalysisInfo:
        """The API's view of a codec ``Info``."""
        score = None
        if info.score_win is not None:
            score = Score(win=info.score_win)
        elif info.score_cp is not None:
            score = Score(cp=info.score_cp)
        return cls(
            score=score, depth=info.depth, seldepth=info.seldepth, nodes=info.nodes,
            time=None if info.time is None else info.time / 1000, nps=info.nps, wdl=info.wdl, pv=info.pv,
            multipv=multipv, string=info.string, raw=info,
        )


@dataclass(frozen=True)
class PlayResult:
    """What one ``play`` produced: the turn (None when the engine resigned) and its last ``info``."""

    turn: str | None
    info: AnalysisInfo | None
    elapsed: float
    """Seconds from the write of ``go`` to the read of ``bestmove``."""

    @property
    def resigned(self) -> bool:
        return self.turn is None


class EngineError(Exception):
    """The engine failed: ``kind`` is the termination tag the referee would record (``crash``,
    ``stall``, ``engine-error``, ``illegal``, ``limit``, ``time``), ``detail`` one line, and the
    evidence ``check`` shows: the tail of its stderr and the last lines it wrote."""

    def __init__(self, kind: str, detail: str, *, stderr_tail: str = "", arrived: tuple[str, ...] = ()) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.stderr_tail = stderr_tail
        self.arrived = arrived
        """The last lines read from the engine, oldest first."""


class EngineTerminated(EngineError):
    """The engine is closed (``quit()`` was called, or a failure before broke it)."""
