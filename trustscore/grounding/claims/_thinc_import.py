"""Import spaCy without thinc importing torch.

thinc (spaCy's model library) runs ``import torch`` inside ``try/except ImportError`` when
``thinc.compat`` is first imported, whether or not a pipeline uses it; with torch installed that import
costs seconds (docs/signals.md, "Loading cost with torch installed"), and the English pipelines the
claims check loads (tok2vec CNNs on numpy) never touch torch. :func:`import_spacy` imports spaCy with a
finder on ``sys.meta_path`` that answers "no such module" to an ``import torch`` made by
``thinc.compat`` itself, and to nothing else: an import of torch by any other module, on any thread, at
the same moment, goes through as usual. thinc then records ``has_torch = False`` for the process, which
the numpy pipelines never read.

Nothing is changed when torch is already imported (thinc then sees it as it would), when thinc was
already imported (its choice is made), or for a pipeline outside the defaults (a transformer pipeline
needs thinc's torch wrapper): then spaCy is imported as is.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import FrameType, ModuleType

__all__ = ["import_spacy"]

_BLOCKED_FROM = "thinc.compat"
_IMPORTING = threading.Lock()


class _TorchFromThincBlocker:
    """A meta-path finder: ``import torch`` (and its submodules) from ``thinc.compat`` is not found."""

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if (name == "torch" or name.startswith("torch.")) and _importer(sys._getframe(1)) == _BLOCKED_FROM:
            raise ModuleNotFoundError(f"No module named {name!r} (not loaded for spaCy)", name=name)
        return None


def _importer(frame: FrameType | None) -> str | None:
    """The module whose code runs the import: the first frame outside the import machinery."""
    while frame is not None:
        module = frame.f_globals.get("__name__")
        if module not in ("importlib._bootstrap", "importlib._bootstrap_external", __name__):
            return module if isinstance(module, str) else None
        frame = frame.f_back
    return None


def import_spacy(keep_torch_out: bool = True) -> ModuleType:
    """``import spacy``, with thinc kept from importing torch when ``keep_torch_out`` and neither torch
    nor thinc is imported yet."""
    with _IMPORTING:
        if not keep_torch_out or "torch" in sys.modules or "thinc.compat" in sys.modules:
            return importlib.import_module("spacy")
        blocker = _TorchFromThincBlocker()
        sys.meta_path.insert(0, blocker)
        try:
            return importlib.import_module("spacy")
        finally:
            sys.meta_path.remove(blocker)
