"""The package list in pyproject.toml is explicit (engines/ installs as santorini_engines), so
check that it names every package folder: a missing one would install a broken tool."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_listed_in_pyproject() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'^\s+"([a-z_.]+)",$', text.split("packages = [", 1)[1].split("]", 1)[0], re.M))
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "santorini_server").rglob("__init__.py")
    }
    if (ROOT / "engines" / "__init__.py").exists():
        found.add("santorini_engines")
    assert found <= listed, f"add to pyproject.toml packages: {sorted(found - listed)}"
