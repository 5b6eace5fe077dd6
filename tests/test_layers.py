"""The import graph between layers, pinned (trio's ``test_exports`` idea, applied to direction).

Theory of operation: every module under ``santorini_server/`` belongs to a *layer* (the first
name under the package: ``rules``, ``sei``, ``referee``, ...; ``termination`` for a top-level
module ``termination.py``).  :data:`LAYERS` says, as data, which layers and which third-party
packages each layer may import; the standard library is allowed except, for the pure layers,
the modules that do I/O or read the clock.  The source of every module is parsed with ``ast``
(every ``import``, also inside functions and under ``if TYPE_CHECKING:``: a type-only import is
a dependency too), so a violation is found without importing anything.  Then, in a fresh
interpreter, importing a pure layer must load no module of a layer it may not import, and no
trio.

When a package lands (``adjudicator``, ``check``, ``server``), add its row to :data:`LAYERS`:
the test fails, naming the module, until every layer is declared.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "santorini_server"


@dataclass(frozen=True)
class Layer:
    """What the modules of one layer may import."""

    layers: frozenset[str]
    """Layers of ``santorini_server`` it may import (its own is always allowed)."""
    third_party: frozenset[str] = field(default_factory=frozenset)
    """Top-level names outside the standard library it may import."""
    pure: bool = False
    """No I/O and no clock: none of :data:`IO_STDLIB`, no third-party package but the pure data
    libraries it lists (msgspec), no import inside a function (a lazy import is how a cycle hides)."""


def _layer(layers: str = "", third_party: str = "", *, pure: bool = False) -> Layer:
    return Layer(frozenset(layers.split()), frozenset(third_party.split()), pure)


#: The allowed graph.  Innermost first; a layer names only layers above it in this table.
LAYERS: dict[str, Layer] = {
    "rules": _layer(pure=True),
    "termination": _layer(pure=True),
    "stats": _layer("", "openskill", pure=True),
    "sei": _layer("termination", "msgspec", pure=True),
    "render": _layer("rules", pure=True),
    "records": _layer("rules termination", "msgspec"),
    # opening suites: read (for tournaments) and made from the bundled alpha-beta engine's play
    "openings": _layer("rules", "santorini_engines"),
    "adjudicator": _layer("rules sei termination records", "msgspec", pure=True),
    "viewer": _layer("rules termination records adjudicator", "jinja2 markupsafe"),
    "process": _layer("", "trio structlog"),
    "referee": _layer("rules sei termination records stats adjudicator process", "trio structlog msgspec"),
    "check": _layer("rules sei termination records adjudicator process referee", "trio structlog"),
    "tournament": _layer(
        "rules sei termination records stats adjudicator process referee viewer openings",
        "trio structlog msgspec jinja2 markupsafe",
    ),
    "backends": _layer(
        "rules termination records stats adjudicator process referee tournament", "trio structlog dask distributed"
    ),
    # the public engine API (scripts, notebooks, santorini analyse) over the referee's engine channel
    "engine": _layer("rules sei termination records adjudicator process referee", "trio structlog msgspec"),
    # the daemon plays runs with the tournament runner and serves the job API (Starlette on Hypercorn)
    "server": _layer(
        "rules sei termination records stats adjudicator process referee tournament viewer",
        "trio structlog msgspec starlette hypercorn",
    ),
    # the daemon's web pages: over the server's store and live hub, drawn with the viewer's code;
    # santorini serve (cli) hands them to the daemon, which does not import them
    "dashboard": _layer(
        "rules sei termination records stats adjudicator process referee tournament viewer server",
        "trio structlog msgspec starlette jinja2 markupsafe",
    ),
    # adapters: foreign engines as SEI engines, served by the bundled engines' helper (santorini_engines.sei_bot)
    "adapters": _layer("rules", "click santorini_engines"),
    "cli": _layer(
        "rules sei termination records stats adjudicator process referee check tournament backends render viewer server "
        "dashboard engine adapters openings",
        "click trio structlog httpx",
    ),
}

#: Standard-library modules a pure layer may not import: they do I/O, run processes or threads,
#: or read the clock (time is passed in to the pure layers, never read by them).
IO_STDLIB = frozenset(
    {
        *("asyncio", "io", "os", "pathlib", "subprocess", "socket", "select", "selectors", "signal"),
        *("threading", "multiprocessing", "concurrent", "mmap", "fcntl", "tempfile", "shutil"),
        *("time", "datetime", "logging", "sys"),
    }
)


@dataclass(frozen=True)
class Import:
    """One imported name, resolved to an absolute module path."""

    module: str
    target: str
    line: int
    lazy: bool
    """Inside a function body."""
    type_only: bool
    """Under ``if TYPE_CHECKING:``: read by type checkers, never run."""


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, root: Path) -> list[Import]:
    """Every import of the module at ``path`` (under ``root``), relative ones made absolute."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level:
                base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                if child.module:
                    targets = [".".join([*base, child.module])]
                else:  # ``from . import x``: x may be a module
                    targets = [".".join([*base, alias.name]) for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                assert child.module is not None
                targets = [child.module]
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend(Import(module, target, child.lineno, lazy, type_only) for target in targets)
            visit(
                child,
                lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)),
                type_only or (isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)),
            )

    visit(ast.parse(path.read_text(), filename=str(path)), False, False)
    return found


def layer_of(module: str) -> str:
    """``santorini_server.rules.sps`` -> ``rules``; the package itself is the root layer ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def violations(root: Path, layers: dict[str, Layer], package: str = PACKAGE) -> list[str]:
    """Every import under ``root/package`` that the layer table does not allow, one line each."""
    out: list[str] = []
    for path in sorted((root / package).rglob("*.py")):
        module = module_name(path, root)
        mine = layer_of(module)
        if mine == "":
            rule = Layer(frozenset(), frozenset(), pure=True)  # the package's __init__ imports nothing
        elif mine not in layers:
            out.append(f"{module}: layer {mine!r} is not declared in LAYERS")
            continue
        else:
            rule = layers[mine]
        for imp in imports_of(path, root):
            top = imp.target.split(".")[0]
            where = f"{module}:{imp.line} imports {imp.target}"
            if top == package:
                theirs = layer_of(imp.target)
                if theirs != mine and theirs not in rule.layers:
                    out.append(f"{where}: layer {mine!r} may not import layer {theirs!r}")
            elif top in sys.stdlib_module_names or top == "__future__":
                if rule.pure and top in IO_STDLIB:
                    out.append(f"{where}: the pure layer {mine!r} does no I/O and reads no clock")
            elif top not in rule.third_party:
                out.append(f"{where}: layer {mine!r} may not import {top!r}")
            if rule.pure and imp.lazy:
                out.append(f"{where}: an import inside a function in the pure layer {mine!r}")
    return out


def test_every_import_follows_the_layer_graph() -> None:
    assert violations(ROOT, LAYERS) == []


def test_the_layer_graph_runs_one_way() -> None:
    """Each layer names only layers declared before it, so the allowed graph has no cycle."""
    order = list(LAYERS)
    for name, rule in LAYERS.items():
        later = sorted(other for other in rule.layers if order.index(other) >= order.index(name))
        assert later == [], f"{name} may import {later}, declared after it: a cycle is possible"
        assert name not in rule.layers


def load_time_cycles(root: Path, package: str = PACKAGE) -> list[list[str]]:
    """Import cycles between modules at load time (module-level imports that run)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((root / package).rglob("*.py")):
        graph[module_name(path, root)] = {
            imp.target
            for imp in imports_of(path, root)
            if not imp.lazy and not imp.type_only and imp.target.startswith(package + ".")
        }
    cycles: list[list[str]] = []
    state: dict[str, str] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node] & graph.keys()):
            if state.get(nxt) == "open":
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            walk(node)
    return cycles


def test_modules_load_without_import_cycles() -> None:
    """Within a layer too, imports run one way (``rules.position`` reads ``rules.sps``, never the reverse)."""
    assert load_time_cycles(ROOT) == []


#: Modules no pure layer may load, even through another layer: the I/O framework and the shells.
SHELL_MODULES = ("trio", "click", "msgpack", "structlog", "dask", "distributed", "santorini_engines")


def _exists(layer: str) -> bool:
    return (ROOT / PACKAGE / layer / "__init__.py").exists() or (ROOT / PACKAGE / f"{layer}.py").exists()


@pytest.mark.parametrize("layer", [name for name, rule in LAYERS.items() if rule.pure and _exists(name)])
def test_importing_a_pure_layer_loads_no_shell(layer: str) -> None:
    """In a fresh interpreter: ``import santorini_server.rules`` loads no trio, no ``sei`` module."""
    code = f"import sys, {PACKAGE}.{layer}\nprint('\\n'.join(sys.modules))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    loaded = out.stdout.split()
    allowed = {layer, "", *LAYERS[layer].layers}
    foreign = sorted(m for m in loaded if m.split(".")[0] == PACKAGE and layer_of(m) not in allowed)
    shells = sorted({m.split(".")[0] for m in loaded} & set(SHELL_MODULES))
    assert (foreign, shells) == ([], [])


# --- the checks can fail: violations planted in a throw-away tree ------------------------------


def _plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / PACKAGE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for folder in [root / PACKAGE, *(p for p in (root / PACKAGE).rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    return root


def test_planted_violations_are_found(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "rules/position.py": (
                "from typing import TYPE_CHECKING\n"
                "import re\n"
                "import trio\n"  # line 3: a third-party I/O framework in the rules core
                "from ..sei import codec\n"  # line 4: rules may not look up at sei
                "import time\n"  # line 5: a pure layer reads no clock
                "if TYPE_CHECKING:\n"
                "    from santorini_server.referee import game\n"  # line 7: type-only still counts
                "def play():\n"
                "    from . import stn\n"  # line 9: a lazy import in a pure layer
            ),
            "rules/stn.py": "from .position import play\n",
            "sei/codec.py": "from santorini_server.termination import Termination\n",  # allowed
            "newlayer/thing.py": "import os\n",
        },
    )
    found = violations(root, LAYERS)
    expected = [
        "santorini_server.newlayer: layer 'newlayer' is not declared in LAYERS",
        "santorini_server.newlayer.thing: layer 'newlayer' is not declared in LAYERS",
        "santorini_server.rules.position:3 imports trio: layer 'rules' may not import 'trio'",
        "santorini_server.rules.position:4 imports santorini_server.sei: layer 'rules' may not import layer 'sei'",
        "santorini_server.rules.position:5 imports time: the pure layer 'rules' does no I/O and reads no clock",
        "santorini_server.rules.position:7 imports santorini_server.referee: "
        "layer 'rules' may not import layer 'referee'",
        "santorini_server.rules.position:9 imports santorini_server.rules.stn: "
        "an import inside a function in the pure layer 'rules'",
    ]
    assert found == expected


def test_a_planted_load_time_cycle_is_found(tmp_path: Path) -> None:
    root = _plant(
        tmp_path,
        {
            "rules/position.py": "from .sps import read_sps\n",
            "rules/sps.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .position import Position\n",
            "rules/stn.py": "from santorini_server.rules.position import Position\n",
        },
    )
    assert load_time_cycles(root) == []  # a type-only import back is no cycle
    (root / PACKAGE / "rules" / "sps.py").write_text("from . import position\n")
    assert load_time_cycles(root) == [
        ["santorini_server.rules.position", "santorini_server.rules.sps", "santorini_server.rules.position"]
    ]
