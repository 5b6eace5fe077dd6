"""A hostile SEI engine: plays like ``instant`` until its fault fires, then misbehaves.

Usage: ``python -m tests.gallery.hostile_engine fault=NAME [at=N] [starts=PATH] [ARG...]``.

``at=N`` is the ``go`` (counted from 1 in this process) at which a turn fault fires; by default
the first play turn (the first ``go`` that is not a placement).  ``starts=PATH`` appends
``<pid>`` to PATH at every start, so a test can count restarts.  Unknown arguments (a test's
unique marker) are ignored.

Faults (``fault=``):

* handshake: ``exit-before-seiok`` (exit code 7 after ``id name``), ``mute`` (never answers
  ``sei``); never a readable ``seiok``, then silent: ``uppercase-seiok`` (``SEIOK 1``), ``unflushed``
  (writes its handshake and never flushes), ``banner`` (debug text), ``no-newline``
  (``seiok 1`` without a line end), ``no-seiok`` (``id`` lines only); ``uppercase-exit``
  (``SEIOK 1``, then exit code 3).
* new game: ``late-ready`` (answers the ``isready`` after ``newgame`` only after ``delay=MS``,
  default never), ``early-bestmove`` (a ``bestmove`` with no ``go``, before ``readyok``).
* turn: ``crash`` (exit code ``code=N``, default 5), ``signal`` (kills itself with SIGSEGV),
  ``hang`` (never answers, ignores ``stop``), ``double`` (two ``bestmove`` lines for one
  ``go``, one write), ``double-late`` (the second in its own write, 5 ms later),
  ``malformed``, ``huge-turn`` (a 200 KB token), ``illegal``, ``wrong-phase``, ``no-build`` (a good turn
  without its build), ``uppercase`` (a good turn in capitals), ``badbytes`` (invalid UTF-8 in the turn),
  ``control`` (a control character in the turn), ``noise`` (invalid UTF-8 and control
  characters in ``info string`` and unknown lines, then a good turn: harmless), ``longline``
  (10 MB without a newline, then waits), ``stderr`` (``mb=N`` MB to stderr, 100 by default, then a good turn),
  ``resign``, ``close-stdout`` (closes stdout and keeps running until ``quit``),
  ``close-and-sleep`` (writes ``time.monotonic()`` to ``eof=PATH``, closes stdout and sleeps
  without reading its input), ``clock``
  (sleeps until its clock has ``left=MS`` ms, or is ``over=MS`` ms past zero, then answers),
  ``chatter`` (``info`` lines, or blank lines with ``blank=1``, as fast as it can write
  them, and a ``bestmove`` only after ``stop``).
* handshake variant: ``split-gods`` (its gods on two ``gods`` lines; otherwise healthy).
* always: ``stubborn`` (ignores ``quit``, stdin EOF and SIGTERM), ``grandchild`` (starts a
  grandchild in its own process group that holds stdout/stderr and ignores SIGTERM, with
  ``mark=TEXT`` in its command line; combine with ``then=crash`` to crash at turn ``at``).
"""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import time

from santorini_server.rules import Position

out = sys.stdout.buffer


def say(data: bytes | str) -> None:
    out.write(data.encode() if isinstance(data, str) else data)
    out.flush()


_BUFFERED: list[io.BufferedWriter] = []


def _unflushed() -> None:
    # A block-buffered stdout, as C's stdio and Python's give on a pipe (PYTHONUNBUFFERED aside):
    # the handshake stays in the buffer.
    _BUFFERED.append(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
    _BUFFERED[0].write(b"id name hostile\nseiok 1\n")


#: Handshakes that never reach a ``seiok`` the referee can read, each a newcomer's mistake.
_HANDSHAKE_FAULTS = {
    "uppercase-seiok": lambda: say("id name hostile\nSEIOK 1\n"),
    "unflushed": _unflushed,
    "banner": lambda: say("MyBot v0.1 by me\nloading\ttables...\n" + "".join(f"table {i}\n" for i in range(5))),
    "no-newline": lambda: say("id name hostile\nseiok 1"),
    "no-seiok": lambda: say("id name hostile\nid author tests\n"),
    "uppercase-exit": lambda: (say("SEIOK 1\n"), sys.exit(3)),
}


def main() -> None:
    args = dict(a.partition("=")[::2] for a in sys.argv[1:])
    fault = args.get("fault", "")
    turn_fault = args.get("then") or fault
    at = int(args["at"]) if args.get("at") else 0
    if args.get("starts"):
        with open(args["starts"], "a") as f:
            f.write(f"{os.getpid()}\n")
    if fault == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if fault == "grandchild":
        code = "import os, signal, time; os.setpgid(0, 0); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
        subprocess.Popen([sys.executable, "-c", code, args.get("mark", "grandchild")], stdin=subprocess.DEVNULL)
    gos = 0
    pos = Position.start()
    gods = ("mortal", "mortal")
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "sei":
            if fault == "mute":
                continue
            if fault in _HANDSHAKE_FAULTS:
                _HANDSHAKE_FAULTS[fault]()
                continue
            say("id name hostile\nid author tests\n")
            if fault == "exit-before-seiok":
                sys.exit(7)
            if fault == "split-gods":
                say("gods apollo artemis athena atlas demeter\n")
                say("gods hephaestus hermes minotaur pan prometheus\nseiok 1\n")
            else:
                say("gods apollo artemis athena atlas demeter hephaestus hermes minotaur pan prometheus\nseiok 1\n")
        elif cmd == "isready":
            if fault == "late-ready":
                if "delay" not in args:
                    continue
                time.sleep(int(args["delay"]) / 1000)
            if fault == "early-bestmove":
                say("bestmove b3,d3\n")
            say("readyok\n")
        elif cmd == "newgame":
            gods = tuple(words[2].split("/"))  # type: ignore[assignment]
        elif cmd == "position":
            if words[1] == "startpos":
                pos, rest = Position.start(gods), words[2:]  # type: ignore[arg-type]
            else:
                pos, rest = Position.from_sps(words[2]), words[3:]
            for turn in rest[1:]:
                pos = pos.play(turn).position
        elif cmd == "go":
            gos += 1
            fire = gos == at if at else not pos.is_placement
            best = pos.legal_turns()[0]
            quiet = ("", "split-gods", "stubborn", "grandchild", "mute", "exit-before-seiok", "late-ready", "early-bestmove")
            if not fire or turn_fault in quiet:
                say(f"info depth 1 score cp 5\nbestmove {best}\n")
                continue
            if turn_fault == "crash":
                sys.exit(int(args.get("code", 5)))
            elif turn_fault == "signal":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif turn_fault == "hang":
                continue
            elif turn_fault == "double":
                say(f"bestmove {best}\nbestmove {best}\n")
            elif turn_fault == "double-late":
                say(f"bestmove {best}\n")
                time.sleep(0.005)
                say(f"bestmove {best}\n")
            elif turn_fault == "malformed":
                say("bestmove b3-b9+c4\n")
            elif turn_fault == "huge-turn":
                say("bestmove " + "b" * 200_000 + "\n")
            elif turn_fault == "illegal":
                say("bestmove a1-a2+a3\n")  # well-formed STN, but no worker stands on a1
            elif turn_fault == "no-build":
                say("bestmove " + best.rsplit("+", 1)[0] + "\n")
            elif turn_fault == "uppercase":
                say(f"bestmove {best.upper()}\n")
            elif turn_fault == "wrong-phase":
                say("bestmove a1,e5\n" if not pos.is_placement else "bestmove b3-b4+c5\n")
            elif turn_fault == "badbytes":
                say(b"bestmove b3\xff\xfe,d3\n")
            elif turn_fault == "control":
                say(f"bestmove {best}\x07\n")
            elif turn_fault == "noise":
                say(b"info string caf\xc3\xa9 \xff\xfe\x00\x01\x1b[31m\n\x00\x07\xff garbage\r\n\xc3\x28\n")
                say(f"bestmove {best}\n")
            elif turn_fault == "longline":
                chunk = b"x" * (1 << 20)
                for _ in range(10):
                    out.write(chunk)
                out.flush()
            elif turn_fault == "stderr":
                err = sys.stderr.buffer
                chunk = b"e" * 99 + b"\n"
                block = chunk * 10_000  # 1 MB
                for _ in range(int(args.get("mb", 100))):
                    err.write(block)
                err.flush()
                say(f"bestmove {best}\n")
            elif turn_fault == "chatter":
                block = b"\n" * 4096 if args.get("blank") else b"info depth 1\n" * 300
                heard = b""
                while b"stop" not in heard and b"quit" not in heard:
                    out.write(block)
                    out.flush()
                    if select.select([0], [], [], 0)[0]:
                        chunk = os.read(0, 4096)
                        if not chunk:
                            sys.exit(0)
                        heard += chunk
                say(f"bestmove {best}\n")  # the search's one bestmove, after stop
                if b"quit" in heard:
                    sys.exit(0)
            elif turn_fault == "resign":
                say("bestmove resign\n")
            elif turn_fault == "close-stdout":
                out.flush()
                os.close(1)
            elif turn_fault == "close-and-sleep":
                with open(args["eof"], "w") as f:
                    f.write(repr(time.monotonic()))
                out.flush()
                os.close(1)
                time.sleep(600)
            elif turn_fault == "clock":
                mine = int(words[words.index(f"p{pos.player}time") + 1])
                target = mine + int(args["over"]) if "over" in args else mine - int(args.get("left", 150))
                time.sleep(max(0, target) / 1000)
                say(f"bestmove {best}\n")
            else:
                raise SystemExit(f"unknown fault {turn_fault!r}")
        elif cmd == "quit":
            if fault == "stubborn":
                continue
            return
    if fault == "stubborn":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
