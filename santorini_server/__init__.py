"""Santorini engine-tournament referee.

Layers, innermost first: ``rules`` (positions, legal turns, their SPS and STN text) is pure;
``sei`` is the sans-IO engine protocol codec; ``records`` and ``stats`` are pure formats and
maths; ``process`` and the referee are the thin trio shell; ``cli`` is the click front end.
"""

__version__ = "0.1.0"
