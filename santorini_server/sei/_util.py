"""Sentinel values: identity-compared singletons with a readable repr (h11 ``_util.Sentinel``).

A sentinel is a class that is an instance of itself, so ``type(NEED_DATA) is NEED_DATA``: code
that dispatches on ``type(event)`` handles sentinels and events with one lookup, and ``repr``
shows the bare name in test failures and logs.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["Sentinel"]

_T = TypeVar("_T", bound="Sentinel")


class Sentinel(type):
    """Metaclass for sentinels: ``class NAME(Sentinel, metaclass=Sentinel): pass``."""

    def __new__(
        cls: type[_T],
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        **kwds: Any,
    ) -> _T:
        assert bases == (Sentinel,), (
            "sentinels are declared as `class X(Sentinel, metaclass=Sentinel)`"
        )
        v = super().__new__(cls, name, bases, namespace, **kwds)
        v.__class__ = v  # type: ignore[assignment]  # the sentinel is its own type
        return v

    def __repr__(self) -> str:
        return self.__name__
