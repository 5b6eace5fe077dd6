"""Engine processes: start, feed, read and stop engines under a guard, leaving no orphans.

Bytes only; SEI parsing lives in the sans-IO codec.  See `transport` for the theory of operation
and `guard` for the guard process and its status protocol.
"""

from .transport import (
    GONE_STATUS_WAIT,
    GUARD_PATH,
    KILL_GRACE,
    QUIT_GRACE,
    START_TIMEOUT,
    STDERR_CHUNK_BYTES,
    STDERR_DRAIN_GRACE,
    STDERR_HEAD_BYTES,
    STDERR_TAIL_BYTES,
    TERM_GRACE,
    BoundedCapture,
    EngineGone,
    EngineLimits,
    EngineProcess,
    EngineProcessError,
    EngineStartError,
    ExitStatus,
    StderrSink,
    describe_signal,
    open_engine_process,
    run_engine,
)

__all__ = [
    "GONE_STATUS_WAIT",
    "GUARD_PATH",
    "KILL_GRACE",
    "QUIT_GRACE",
    "START_TIMEOUT",
    "STDERR_CHUNK_BYTES",
    "STDERR_DRAIN_GRACE",
    "STDERR_HEAD_BYTES",
    "STDERR_TAIL_BYTES",
    "TERM_GRACE",
    "BoundedCapture",
    "EngineGone",
    "EngineLimits",
    "EngineProcess",
    "EngineProcessError",
    "EngineStartError",
    "ExitStatus",
    "StderrSink",
    "describe_signal",
    "open_engine_process",
    "run_engine",
]
