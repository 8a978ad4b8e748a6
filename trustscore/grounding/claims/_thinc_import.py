"""Import spaCy without what the claims check never runs: torch (through thinc), spaCy's own CLI,
srsly's YAML API and packaging's requirement parser.

thinc (spaCy's model library) runs ``import torch`` inside ``try/except ImportError`` when
``thinc.compat`` is first imported, whether or not a pipeline uses it; with torch installed that import
costs seconds (docs/signals.md, "Loading cost with torch installed"), and the English pipelines the
claims check loads (tok2vec CNNs on numpy) never touch torch. spaCy's ``__init__`` imports
``spacy.cli.info`` for its ``spacy.info`` function, and with it the whole ``spacy.cli`` package: every
command, typer, click, weasel, requests, jinja2 (about 350 modules, a third of spaCy's import time).
srsly's ``__init__`` (spaCy's serialisation library) imports ``srsly._yaml_api`` for its five YAML
functions, and with it its vendored ruamel.yaml (about 30 modules), which loading a pipeline never
reads (its config is INI, its data JSON and msgpack). ``spacy.util`` imports
``packaging.requirements`` (packaging's parser of requirement strings, with its markers and tokenizer's
patterns) for one function that splits a requirement string, which loading a pipeline never calls.

:func:`import_spacy` imports spaCy with a finder at the head of ``sys.meta_path`` that

* answers "no such module" to an ``import torch`` made by ``thinc.compat`` itself (thinc then records
  ``has_torch = False`` for the process, which the numpy pipelines never read), and
* gives the ``import spacy.cli`` / ``spacy.cli.info`` made by spaCy's own ``__init__``, the
  ``import srsly._yaml_api`` made by srsly's own and the ``import packaging.requirements`` made by
  ``spacy.util``, a stand-in (:data:`_STAND_INS`): a lazy module whose names are the real module's,
  imported on first use; the names its importer takes (``spacy.info``, ``srsly.read_yaml`` and the
  other YAML functions, ``spacy.util.Requirement``) are functions that call the real module's. The
  stand-ins leave ``sys.modules`` as soon as spaCy's import ends, so a later ``import spacy.cli``,
  ``import srsly._yaml_api`` or ``import packaging.requirements`` imports the real module; the
  package's attribute stays the stand-in until the real module is imported (by such an import or by a
  first use).

The finder answers only on the thread running :func:`import_spacy`, and only to ``thinc.compat``
(torch), to spaCy's and srsly's ``__init__`` (their CLI and YAML modules) and to ``spacy.util``
(packaging's requirements). Another thread's import of a stood-in module made while spaCy imports
finds the stand-in in ``sys.modules``; a use of its names waits until spaCy's import ends and then
imports the real module, so that thread gets the real names (a class, not a function that makes one;
on the importing thread, a use before the end is an ``AttributeError``: no importer makes one).

Torch is not kept out when it is already imported (thinc then sees it as it would), when thinc was
already imported (its choice is made), or for a pipeline outside the defaults (a transformer pipeline
needs thinc's torch wrapper); srsly's YAML API is imported as usual when srsly was already imported.
When spaCy's import fails, its error is raised as is, the finder and the stand-ins are gone and a later
import starts afresh, but a ``thinc.compat`` imported by the failed attempt stays imported, with
``has_torch = False`` for the process, and so does a srsly whose YAML functions import the real API on
first use.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.abc import Loader
from importlib.machinery import ModuleSpec
from types import FrameType, ModuleType
from typing import Any

__all__ = ["import_spacy"]

_THINC_COMPAT = "thinc.compat"
_IMPORTING = threading.Lock()


@dataclass(frozen=True)
class _StandIn:
    """What a stood-in module is imported by, whether it is a package, and the names its importer
    takes from it (each a function of the real module's, imported on the first call)."""

    importer: str
    package: bool = False
    functions: tuple[str, ...] = ()


_STAND_INS = {
    "spacy.cli": _StandIn("spacy", package=True),
    "spacy.cli.info": _StandIn("spacy", functions=("info",)),
    "srsly._yaml_api": _StandIn(
        "srsly", functions=("read_yaml", "write_yaml", "yaml_dumps", "yaml_loads", "is_yaml_serializable")
    ),
    "packaging.requirements": _StandIn("spacy.util", functions=("Requirement",)),
}
"""The modules the finder stands in for while spaCy imports, by name."""


class _SpacyImportFinder:
    """A meta-path finder, on the importing thread only: torch is not found for ``thinc.compat`` (when
    ``keep_torch_out``), and spaCy's and srsly's ``__init__`` get stand-ins (:data:`_STAND_INS`)."""

    def __init__(self, keep_torch_out: bool) -> None:
        self.keep_torch_out = keep_torch_out
        self.thread = threading.get_ident()
        self.spacy_imported = threading.Event()
        self.stand_ins: list[str] = []

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if threading.get_ident() != self.thread:
            return None
        if self.keep_torch_out and (name == "torch" or name.startswith("torch.")):
            if _importer(sys._getframe(1)) == _THINC_COMPAT:
                raise ModuleNotFoundError(f"No module named {name!r} (not loaded for spaCy)", name=name)
        elif (stand_in := _STAND_INS.get(name)) and _importer(sys._getframe(1)) == stand_in.importer:
            self.stand_ins.append(name)
            return ModuleSpec(name, _StandInLoader(self), is_package=stand_in.package)
        return None

    def remove_stand_ins(self) -> None:
        """Take the stand-ins out of ``sys.modules``; then a stand-in's first use imports the real module."""
        for name in self.stand_ins:
            if _is_stand_in(sys.modules.get(name)):
                del sys.modules[name]
        self.spacy_imported.set()


class _StandInLoader(Loader):
    """Makes the stand-ins of :data:`_STAND_INS`: modules whose functions call the real module's, and
    whose other names are the real module's, imported on first use."""

    def __init__(self, finder: _SpacyImportFinder) -> None:
        self.finder = finder

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        stand_in = _STAND_INS[spec.name]
        module = ModuleType(spec.name, "stands in for a module spaCy's loading never uses, until it is used")
        if stand_in.package:
            module.__path__ = []
        functions = {name: self._real_function(spec.name, name) for name in stand_in.functions}
        vars(module)["__getattr__"] = self._real_attribute(spec.name, functions)
        return module

    def exec_module(self, module: ModuleType) -> None:
        return None

    def _real_function(self, name: str, function: str) -> Callable[..., Any]:
        finder = self.finder

        def call(*args: Any, **kwargs: Any) -> Any:
            if not finder.spacy_imported.is_set() and threading.get_ident() == finder.thread:
                # On the importing thread the wait would never end (spaCy's import is below this call).
                raise AttributeError(f"{name}.{function} is not available while spaCy imports")
            finder.spacy_imported.wait()
            real: Callable[..., Any] = getattr(importlib.import_module(name), function)
            return real(*args, **kwargs)

        call.__name__ = call.__qualname__ = function
        call.__doc__ = f"``{name}.{function}``, imported on the first call (once spaCy is imported)."
        return call

    def _real_attribute(self, name: str, functions: dict[str, Callable[..., Any]]) -> Callable[[str], Any]:
        """The stand-in's ``__getattr__``: on the importing thread while spaCy imports, its importer's
        functions (the only names it takes); anywhere else, once spaCy is imported, the real module's
        names (a class is then the class itself, not a function that makes one)."""
        finder = self.finder

        def __getattr__(attribute: str) -> Any:
            importing = not finder.spacy_imported.is_set() and threading.get_ident() == finder.thread
            if importing and attribute in functions:
                return functions[attribute]
            if attribute.startswith("__") or importing:
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
            finder.spacy_imported.wait()
            return getattr(importlib.import_module(name), attribute)

        return __getattr__


def _is_stand_in(module: object) -> bool:
    return isinstance(getattr(getattr(module, "__spec__", None), "loader", None), _StandInLoader)


def _importer(frame: FrameType | None) -> str | None:
    """The module whose code runs the import: the first frame outside the import machinery."""
    while frame is not None:
        module = frame.f_globals.get("__name__")
        if module not in ("importlib._bootstrap", "importlib._bootstrap_external", __name__):
            return module if isinstance(module, str) else None
        frame = frame.f_back
    return None


def import_spacy(keep_torch_out: bool = True) -> ModuleType:
    """``import spacy`` without its CLI and srsly's YAML API, and with thinc kept from importing torch
    when ``keep_torch_out`` and neither torch nor thinc is imported yet."""
    with _IMPORTING:
        if "spacy" in sys.modules:
            return importlib.import_module("spacy")
        finder = _SpacyImportFinder(
            keep_torch_out and "torch" not in sys.modules and _THINC_COMPAT not in sys.modules
        )
        sys.meta_path.insert(0, finder)
        try:
            return importlib.import_module("spacy")
        finally:
            sys.meta_path.remove(finder)
            finder.remove_stand_ins()
