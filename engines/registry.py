"""Bundled engines by name: the argv that starts each one (the referee resolves names here)."""

from __future__ import annotations

import sys

__all__ = ["BUNDLED"]

#: ``santorini match random greedy`` looks the names up here; each runs with this interpreter.
BUNDLED: dict[str, list[str]] = {
    "random": [sys.executable, "-m", "santorini_engines.random_engine"],
    "greedy": [sys.executable, "-m", "santorini_engines.greedy"],
    "alphabeta": [sys.executable, "-m", "santorini_engines.alphabeta"],
}
