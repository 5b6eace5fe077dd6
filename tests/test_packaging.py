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


def test_every_data_file_in_the_package_is_package_data() -> None:
    """Templates, CSS and JavaScript inside santorini_server are installed only when a
    [tool.setuptools.package-data] glob names them (a missing one breaks pages after pip install)."""
    import fnmatch
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    missing = []
    for path in (ROOT / "santorini_server").rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        owner = path.parent
        while not (owner / "__init__.py").exists():
            owner = owner.parent
        package = ".".join(owner.relative_to(ROOT).parts)
        relative = path.relative_to(owner).as_posix()
        if not any(fnmatch.fnmatch(relative, glob) for glob in data.get(package, [])):
            missing.append(f"{package}: {relative}")
    assert not missing, f"add to [tool.setuptools.package-data]: {missing}"
