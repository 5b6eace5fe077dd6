"""What the engine channel needs from the thing that carries an engine's bytes, and nothing more.

Theory of operation.  :class:`~santorini_server.referee.channel.EngineChannel` speaks SEI to an
engine and maps every failure to the termination tag it decides.  It does not care whether the
bytes travel over a subprocess's pipes (:class:`~santorini_server.process.EngineProcess`, a
local engine) or over a TCP connection (:class:`~santorini_server.referee.stream_transport.StreamTransport`,
a remote bot): both implement :class:`EngineTransport`.  "The engine ended" is the process
exiting for the one and the connection closing for the other (its status then says
``disconnected``), so the channel's rulings (EOF is ``crash``, a full input is ``stall``...) are
the same for both, with no special case in the channel.
"""

from __future__ import annotations

from typing import Protocol

from ..process import ExitStatus, StderrSink

__all__ = ["EngineTransport"]


class EngineTransport(Protocol):
    """An engine's byte stream both ways, how it ended, and its bounded shutdown."""

    stderr_sink: StderrSink
    """The engine's stderr (an empty capture for a remote engine: it keeps its stderr)."""
    engine_pid: int | None
    """The engine's pid on this machine; None for a remote engine."""

    @property
    def status(self) -> ExitStatus | None:
        """How the engine ended (exited, or its connection closed), or None while it runs."""

    def exit_description(self) -> str:
        """``"running"``, ``"exit code 3"``, ``"disconnected"``..."""

    def send_nowait(self, data: bytes) -> int:
        """Write what can be written of ``data`` without waiting; how many bytes.

        Raises:
            EngineGone: the engine no longer reads its input.
            trio.ClosedResourceError: we closed it already.
        """

    async def send_all(self, data: bytes) -> None:
        """Write ``data``, waiting as needed (the caller bounds the wait).

        Raises:
            EngineGone: the engine no longer reads its input (with its status when known).
            trio.ClosedResourceError: we closed it already.
        """

    def receive_nowait(self) -> bytes | None:
        """What the engine wrote and nobody has read yet: None if nothing, ``b""`` at EOF."""

    def output_pending(self) -> bool:
        """Whether unread output (or EOF) waits, without reading it."""

    def poll_output(self, timeout: float) -> bool:
        """Block the thread (no checkpoint) at most ``timeout`` seconds until output or EOF
        waits; False when none came in time, or when this transport does not wait this way
        (the channel then waits through trio's scheduler)."""

    async def wait_readable(self) -> None:
        """Wait until output or EOF can be read with :meth:`receive_nowait` (a checkpoint)."""

    async def ended_within(self, seconds: float) -> bool:
        """After EOF: whether the engine has ended or does within ``seconds``."""

    async def wait(self) -> ExitStatus:
        """Wait until the engine has ended."""

    def kill(self) -> None:
        """End the engine now, without waiting (``wait``/``aclose`` to see it through)."""

    async def aclose(self, quit_bytes: bytes = b"quit\n", *, grace: float = ..., term_grace: float = ...) -> ExitStatus:
        """Send ``quit_bytes``, end the engine within bounded time and release everything."""
