"""Names a package exports but loads on first access, so importing the package stays light.

    __getattr__, __dir__ = lazy_exports(__name__, {"LLMClient": "trustscore.llm._client"})

A name loads from its home module the first time it is read and is then kept in the package's
namespace. ``dir()`` lists the package's ``__all__`` (or, without one, its loaded and lazy names).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``homes`` maps each lazy name to the module
    (dotted path) that defines it."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        public = namespace.get("__all__")
        return sorted(public if public is not None else {*namespace, *homes})

    return __getattr__, __dir__
