"""Engine processes: start, feed, read and stop engines under a guard, leaving no orphans.

Bytes only; SEI parsing lives in the sans-IO codec.  See `transport` for the theory of operation
and `guard` for the guard process and its status protocol.
"""

from .transport import (
    GONE_STATUS_WAIT as GONE_STATUS_WAIT,
    GUARD_PATH as GUARD_PATH,
    KILL_GRACE as KILL_GRACE,
    QUIT_GRACE as QUIT_GRACE,
    START_TIMEOUT as START_TIMEOUT,
    STDERR_CHUNK_BYTES as STDERR_CHUNK_BYTES,
    STDERR_DRAIN_GRACE as STDERR_DRAIN_GRACE,
    STDERR_HEAD_BYTES as STDERR_HEAD_BYTES,
    STDERR_TAIL_BYTES as STDERR_TAIL_BYTES,
    TERM_GRACE as TERM_GRACE,
    BoundedCapture as BoundedCapture,
    EngineError as EngineError,
    EngineGone as EngineGone,
    EngineLimits as EngineLimits,
    EngineProcess as EngineProcess,
    EngineStartError as EngineStartError,
    ExitStatus as ExitStatus,
    StderrSink as StderrSink,
    describe_signal as describe_signal,
    open_engine_process as open_engine_process,
    run_engine as run_engine,
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
    "EngineError",
    "EngineGone",
    "EngineLimits",
    "EngineProcess",
    "EngineStartError",
    "ExitStatus",
    "StderrSink",
    "describe_signal",
    "open_engine_process",
    "run_engine",
]
