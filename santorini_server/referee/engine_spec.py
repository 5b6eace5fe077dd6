"""Engine specs: how a user names an engine (cutechess-cli's ``-engine`` grammar).

An engine is either the name of a bundled engine (``random``, ``greedy``, ``alphabeta``) or a
spec of ``key=value`` tokens, quoted as one argument::

    "cmd=./mybot name=MyBot arg=--fast arg=--log=x dir=/opt/bot option.Hash=64 tc=10+0.1 timemargin=50"

=================  ==================================================================
``cmd=``           the program (required unless a bundled name is given); never a shell
``name=``          display name (default: the bundled name or the program's file name); it
                   becomes the records' ``PlayerN`` tag, so it may hold what a tag value
                   may, at most 200 characters (``records.check_label``)
``arg=``           one argument, repeatable, in order
``dir=``           working directory
``option.N=V``     ``setoption name N value V`` after the handshake
``tc=``            this engine's own time control (``adjudicator.parse_tc`` grammar)
``timemargin=``    ms of lag forgiven before a time loss (default 0)
``limit.memory=``  address-space limit for the engine process (``512M``, ``2G``)
``limit.cpu=``     CPU-seconds limit for the engine process
``restart=``       ``on`` restarts the engine before every game (default ``off``: reuse)
``bundled=``       start from a bundled engine and override its settings
``adapter=``       a foreign engine through its adapter (SPEC.md section 20):
                   ``adapter=cpp-santorini arg=--binary arg=/opt/cpp/santorini-cpp``
                   runs ``python -m santorini_server.adapters cpp-santorini --binary ...``
=================  ==================================================================

Tokens may be quoted shell-style (``"option.Time Buffer=80"``).  Parsing is pure; resolving a
bundled name needs only the table below (the one table of bundled engines: tests and tools start
them through :func:`bundled_argv` too), never the engines' code.
"""

from __future__ import annotations

import difflib
import os
import re
import shlex
import sys
from dataclasses import dataclass, replace

from ..adjudicator import TimeControl, parse_tc
from ..records import check_label

__all__ = ["EngineSpec", "parse_engine_spec", "SPEC_KEYS", "BUNDLED_NAMES", "bundled_argv", "adapter_argv", "parse_size"]

#: Bundled engines by name; each runs as ``python -m santorini_engines.<module>`` (SPEC.md section 9).
_BUNDLED_MODULES = {"random": "random_engine", "greedy": "greedy", "alphabeta": "alphabeta"}
BUNDLED_NAMES: tuple[str, ...] = tuple(_BUNDLED_MODULES)

#: Every key of a spec, as the errors list them (``option.NAME`` stands for any option).
SPEC_KEYS: tuple[str, ...] = (
    "cmd", "name", "arg", "dir", "option.NAME", "tc", "timemargin", "limit.memory", "limit.cpu", "restart", "bundled",
    "proto", "adapter",
)
_KNOWN_KEYS = "known keys: " + ", ".join(f"{key}=" for key in SPEC_KEYS)

_SIZE_RE = re.compile(r"(?P<n>\d+)(?P<unit>[KMG]?)B?", re.I)


def adapter_argv(name: str) -> list[str]:
    """The command line of adapter ``name`` (its own arguments follow), with this interpreter.
    The name is checked when the adapter starts (``santorini_server.adapters.ADAPTERS``), so
    parsing a spec imports no adapter."""
    return [sys.executable, "-m", "santorini_server.adapters", name]


def bundled_argv(name: str) -> list[str]:
    """The command line of a bundled engine, with this interpreter so it works from any directory."""
    return [sys.executable, "-m", f"santorini_engines.{_BUNDLED_MODULES[name]}"]


def parse_size(text: str) -> int:
    """``512M`` -> bytes.  Raises ValueError with a one-line message."""
    m = _SIZE_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"bad size {text!r} (expected e.g. 512M or 2G)")
    return int(m["n"]) * 1024 ** " KMG".index((m["unit"] or " ").upper())


@dataclass(frozen=True)
class EngineSpec:
    """Everything needed to start and configure one engine."""

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    tc: TimeControl | None = None
    timemargin_ms: int = 0
    memory_limit: int | None = None
    cpu_limit: int | None = None
    restart: bool = False
    bundled: str | None = None

    def with_defaults(self, each: EngineSpec | None) -> EngineSpec:
        """Fill unset settings from an ``--each`` spec (engine-specific values win)."""
        if each is None:
            return self
        return replace(
            self,
            options=tuple((dict(each.options) | dict(self.options)).items()),
            tc=self.tc or each.tc,
            timemargin_ms=self.timemargin_ms or each.timemargin_ms,
            memory_limit=self.memory_limit or each.memory_limit,
            cpu_limit=self.cpu_limit or each.cpu_limit,
            restart=self.restart or each.restart,
        )


def _unknown_key(key: str) -> str:
    """``unknown key 'nmae' (did you mean name=?); known keys: ...``."""
    _head, dot, tail = key.partition(".")
    candidates = [f"option.{tail}" if k == "option.NAME" and dot else k for k in SPEC_KEYS]
    close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.6)
    guess = f" (did you mean {close[0]}=?)" if close else ""
    return f"unknown key {key!r}{guess}; {_KNOWN_KEYS}"


#: What names one engine and its program: an ``--each`` spec (the settings every engine shares) cannot hold it.
_ENGINE_ONLY_KEYS = ("cmd", "name", "arg", "dir", "bundled", "adapter")


def _refuse_engine_keys(text: str) -> None:
    """An ``--each`` token that names a program would be silently dropped: refuse it instead."""
    try:
        tokens = shlex.split(text)
    except ValueError:
        return  # the parser reports it
    for token in tokens:
        if token in _BUNDLED_MODULES or token.partition("=")[0] in _ENGINE_ONLY_KEYS:
            raise ValueError(
                f"bad --each token {token!r}: --each gives every engine the same option.X=, tc=, timemargin=, "
                "limit.memory=, limit.cpu= or restart=, not a program or name"
            )


def parse_engine_spec(text: str, *, allow_partial: bool = False) -> EngineSpec:
    """Parse a bundled engine name or a ``key=value`` spec.

    Args:
        allow_partial: accept a spec without ``cmd=`` (for ``--each``).

    Raises:
        ValueError: one line naming the bad token and what was expected.
    """
    text = text.strip()
    if allow_partial:
        _refuse_engine_keys(text)
    if text in _BUNDLED_MODULES:
        return EngineSpec(name=text, argv=tuple(bundled_argv(text)), bundled=text)
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"bad engine spec {text!r}: {exc}") from None
    if not tokens:
        raise ValueError(f"empty engine spec (a bundled name {', '.join(BUNDLED_NAMES)} or cmd=PROGRAM ...)")
    cmd: str | None = None
    name: str | None = None
    bundled: str | None = None
    adapter: str | None = None
    args: list[str] = []
    options: list[tuple[str, str]] = []
    values: dict[str, object] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            if token in _BUNDLED_MODULES and bundled is None and cmd is None:
                bundled = token
                continue
            raise ValueError(
                f"bad engine spec token {token!r}: expected key=value or a bundled engine "
                f"({', '.join(BUNDLED_NAMES)}); {_KNOWN_KEYS}"
            )
        try:
            if key == "cmd":
                if not value:
                    raise ValueError("the program is empty")
                cmd = value
            elif key == "name":
                name = value
            elif key == "arg":
                args.append(value)
            elif key == "dir":
                values["cwd"] = value
            elif key == "adapter":
                if not value:
                    raise ValueError("the adapter name is empty")
                adapter = value
            elif key == "bundled":
                if value not in _BUNDLED_MODULES:
                    raise ValueError(f"no bundled engine {value!r} (have {', '.join(BUNDLED_NAMES)})")
                bundled = value
            elif key.startswith("option.") and len(key) > 7:
                options.append((key[7:], value))
            elif key == "tc":
                values["tc"] = parse_tc(value)
            elif key == "timemargin":
                values["timemargin_ms"] = int(value)
                if values["timemargin_ms"] < 0:  # type: ignore[operator]
                    raise ValueError("timemargin must be >= 0 ms")
            elif key == "limit.memory":
                values["memory_limit"] = parse_size(value)
            elif key == "limit.cpu":
                values["cpu_limit"] = int(value)
                if values["cpu_limit"] < 1:  # type: ignore[operator]
                    raise ValueError("limit.cpu must be >= 1 second")
            elif key == "restart":
                if value not in ("on", "off"):
                    raise ValueError("restart must be on or off")
                values["restart"] = value == "on"
            elif key == "proto":
                if value != "sei":
                    raise ValueError(f"unsupported protocol {value!r} (only sei)")
            else:
                raise ValueError(_unknown_key(key))
        except ValueError as exc:
            raise ValueError(f"bad engine spec token {token!r}: {exc}") from None
    argv: list[str]
    if adapter is not None and (cmd is not None or bundled is not None):
        raise ValueError(f"engine spec {text!r} names a program twice: adapter= with cmd= or a bundled engine")
    if adapter is not None:
        argv = adapter_argv(adapter) + args
        default_name = adapter
    elif cmd is not None:
        argv = [cmd, *args]
        default_name = os.path.basename(cmd) or cmd
    elif bundled is not None:
        argv = bundled_argv(bundled) + args
        default_name = bundled
    elif allow_partial:
        argv = []
        default_name = ""
    else:
        raise ValueError(f"engine spec {text!r} has no cmd= (or give a bundled name: {', '.join(BUNDLED_NAMES)})")
    name = name or default_name
    # the name is every record's PlayerN tag: refused now, not when the first game is written
    check_label("engine name", name)
    return EngineSpec(
        name=name, argv=tuple(argv), options=tuple(options), bundled=bundled, **values  # type: ignore[arg-type]
    )
