"""A remote engine's bytes over a byte stream (TCP or TLS): the channel's second transport.

Theory of operation.  :class:`StreamTransport` implements
:class:`~santorini_server.referee.transport.EngineTransport` over any ``trio.abc.Stream``, so the
engine channel drives a remote bot exactly as it drives a subprocess: the same codec, the same
deadlines, the same failure mapping.  The engine "exits" when the connection ends (EOF, a reset,
or our own close); its status then says ``disconnected``, and a read or write fails the way a dead
process's pipe does (EOF is ``crash``, a write that cannot go through ``EngineGone``).

On a plain ``trio.SocketStream`` the per-turn reads and writes go straight to the non-blocking
socket (one system call, no pass through the scheduler, as the pipe transport does); any other
stream (``trio.SSLStream``) is read by awaiting ``receive_some`` into a buffer.  Reads obey a
byte budget per second: past it, nothing more is read until the second is over, so a flooding
peer costs the referee a bounded amount of work (the kernel's socket buffer and TCP's flow
control hold the rest).

A connection that ends is a network drop, which the server may wait out (the reconnect grace),
unless its last line was :data:`BRIDGE_EXIT` (``santorini connect`` sends it when the engine
behind it exits, then closes): then the engine itself ended, :attr:`StreamTransport.engine_exited`
is true and the status says how (SPEC.md section 16.3).
"""

from __future__ import annotations

import os
import re
import select

import trio

from ..process import BoundedCapture, EngineGone, ExitStatus, StderrSink

__all__ = ["StreamTransport", "DISCONNECTED", "CHUNK_BYTES", "BYTE_BUDGET", "BRIDGE_EXIT", "engine_exit_report"]

DISCONNECTED = ExitStatus(detail="disconnected")
"""The status of a remote engine whose connection ended."""
CHUNK_BYTES = 65536
"""Bytes read at most in one read."""
BYTE_BUDGET = 4 * 2**20
"""Bytes a remote engine may send per second before reads pause for the rest of the second
(a turn with its ``info`` lines is a few hundred bytes; 4 MiB/s is far beyond any honest bot)."""
BRIDGE_EXIT = "info string bridge: engine exited: "
"""The line (then how it exited, e.g. ``exit code 3``) a bridge sends when its engine ends; plain
SEI, so a server that does not know it takes it for telemetry."""
_TAIL_BYTES = 512
_BRIDGE_EXIT_LINE = re.compile(rb"(?:^|\n)" + re.escape(BRIDGE_EXIT.encode()) + rb"([ -~]{1,200})\r?\n$")


def engine_exit_report(tail: bytes) -> str | None:
    """How the engine exited, if ``tail`` (the last bytes of a connection) ends with the bridge's
    :data:`BRIDGE_EXIT` line."""
    match = _BRIDGE_EXIT_LINE.search(tail)
    return match[1].decode("ascii") if match else None


class StreamTransport:
    """A remote engine's connection as an engine transport (see the module docstring)."""

    def __init__(self, stream: trio.abc.Stream, *, byte_budget: int = BYTE_BUDGET) -> None:
        self.stream = stream
        self.stderr_sink: StderrSink = BoundedCapture()
        self.engine_pid: int | None = None
        self.byte_budget = byte_budget
        self._status: ExitStatus | None = None
        self._ended = trio.Event()
        self._buffer = bytearray()
        self._eof = False
        self._window_end = -1.0
        self._window_used = 0
        self._tail = b""
        self.engine_exited = False
        """The connection's last line said the engine behind the bridge exited (not a drop)."""
        socket_stream = stream if isinstance(stream, trio.SocketStream) else None
        self._fd = socket_stream.socket.fileno() if socket_stream is not None else -1
        self._poll = select.poll()
        if self._fd >= 0:
            self._poll.register(self._fd, select.POLLIN)

    def __repr__(self) -> str:
        return f"<StreamTransport {self.exit_description()}>"

    # -- how it ended ------------------------------------------------------------------------

    @property
    def status(self) -> ExitStatus | None:
        return self._status

    def exit_description(self) -> str:
        return "running" if self._status is None else self._status.describe()

    def _end(self) -> None:
        if self._status is None:
            report = engine_exit_report(self._tail)
            self.engine_exited = report is not None
            self._status = DISCONNECTED if report is None else ExitStatus(detail=f"the engine behind the bridge ended: {report}")
            self._ended.set()

    async def ended_within(self, seconds: float) -> bool:
        """A connection has nothing between "closed its output" and "ended": at EOF it has ended."""
        await trio.lowlevel.checkpoint()
        return self._eof or self._status is not None

    async def wait(self) -> ExitStatus:
        await self._ended.wait()
        assert self._status is not None
        return self._status

    def kill(self) -> None:
        """Close the connection now (a sync close of the socket; pending waits are woken)."""
        self._end()
        self._eof = True
        self._fd = -1  # the number may be reused by the next socket opened
        stream = self.stream
        socket_stream = stream if isinstance(stream, trio.SocketStream) else getattr(stream, "transport_stream", None)
        if isinstance(socket_stream, trio.SocketStream):
            socket_stream.socket.close()

    async def aclose(self, quit_bytes: bytes = b"quit\n", *, grace: float = 1.0, term_grace: float = 0.0) -> ExitStatus:
        """Send ``quit_bytes`` (within ``grace``) and close the connection; shielded, bounded."""
        with trio.CancelScope(shield=True):
            if self._status is None and quit_bytes:
                with trio.move_on_after(grace):
                    try:
                        await self.stream.send_all(quit_bytes)
                    except (trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError, OSError):
                        pass
            self._end()
            self._eof = True
            self._fd = -1
            await trio.aclose_forcefully(self.stream)
        assert self._status is not None
        return self._status

    # -- writing -----------------------------------------------------------------------------

    def send_nowait(self, data: bytes) -> int:
        if self._status is not None:
            raise EngineGone(self._status)
        if self._fd < 0:
            return 0
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            self._end()
            raise EngineGone(self._status) from exc

    async def send_all(self, data: bytes) -> None:
        if self._status is not None:
            await trio.lowlevel.checkpoint()
            raise EngineGone(self._status)
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, OSError) as exc:
            self._end()
            raise EngineGone(self._status) from exc

    # -- reading -----------------------------------------------------------------------------

    def receive_nowait(self) -> bytes | None:
        if self._buffer:
            data = bytes(self._buffer)
            self._buffer.clear()
            return self._charge(data)
        if self._eof:
            self._end()
            return b""
        if self._fd < 0 or self._over_budget():
            return None
        try:
            data = os.read(self._fd, self._read_size())
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            self._eof = True
            self._end()
            return b""
        self._tail = (self._tail + data)[-_TAIL_BYTES:]
        return self._charge(data)

    def unread(self, data: bytes) -> None:
        """Give back bytes read before this transport took the stream (after a login line)."""
        self._buffer[:0] = data

    def output_pending(self) -> bool:
        if self._buffer or self._eof:
            return True
        return self._fd >= 0 and bool(self._poll.poll(0))

    def poll_output(self, timeout: float) -> bool:
        """Never blocks: a remote bot's reply crosses a network, and the loop that waits for it
        runs the server's other games."""
        return False

    async def wait_readable(self) -> None:
        if self._buffer or self._eof:
            await trio.lowlevel.checkpoint()
            return
        if self._over_budget():
            await trio.sleep_until(self._window_end)
        if self._fd >= 0:
            try:
                await trio.lowlevel.wait_readable(self._fd)
            except trio.ClosedResourceError:
                self._eof = True
            return
        await self._fill_once()

    async def fill(self, cap: int = CHUNK_BYTES) -> None:
        """Read ahead into the buffer while nobody else reads (an idle remote bot): returns at
        EOF, or waits without reading once ``cap`` bytes wait unread (the peer is then held back
        by TCP's flow control).  Cancel it to stop."""
        while not self._eof:
            if len(self._buffer) >= cap:
                await trio.sleep_forever()
            if self._over_budget():
                await trio.sleep_until(self._window_end)
            await self._fill_once()
        self._end()

    async def _fill_once(self) -> None:
        try:
            data = await self.stream.receive_some(self._read_size())
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            data = b""
        if data:
            self._buffer += data
            self._tail = (self._tail + data)[-_TAIL_BYTES:]
        else:
            self._eof = True

    def _read_size(self) -> int:
        """A whole chunk, or what is left of this second's budget (a read never overshoots it
        by more than one byte; the byte that starts a new second is read alone)."""
        left = self.byte_budget - self._window_used
        return CHUNK_BYTES if left >= CHUNK_BYTES else max(1, left)

    def _over_budget(self) -> bool:
        return self._window_used >= self.byte_budget and trio.current_time() < self._window_end

    def _charge(self, data: bytes) -> bytes:
        self._window_used += len(data)
        if self._window_used >= self.byte_budget:
            now = trio.current_time()
            if now >= self._window_end:
                self._window_end = now + 1.0
                self._window_used = len(data)
        return data
