"""spaCy's attribute conversion of the tokenizer's special cases, made directly for a package file's
form while a pipeline loads.

Loading the small English pipeline's tokenizer adds its 1,347 special cases one by one, and spaCy passes
every piece of each twice through ``spacy.attrs.intify_attrs`` (to check the case, then to make its
tokens) with its deprecated-name pass, which compares the piece with some forty old attribute names
three ways: over half of the special cases' load. In a package file every piece is a dict keyed by the
``ORTH`` and ``NORM`` ids, which that pass leaves as they are. :func:`direct_intify_attrs` converts such
a piece directly, as ``intify_attrs`` does (the same dict, its strings added to the string store when
one is given), and hands any other to ``intify_attrs`` itself; :func:`special_cases_read_directly`
puts it in the place of ``intify_attrs`` in spaCy's tokenizer and vocabulary modules for the length of
a load (the original is back afterwards, unless something else replaced it meanwhile). What the
tokenizer holds and how it splits text is spaCy's: only the conversion is made another way.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

__all__ = ["direct_intify_attrs", "special_cases_read_directly"]

_USERS = ("spacy.tokenizer", "spacy.vocab")
"""The modules whose special-case code calls ``intify_attrs`` (a module global, looked up per call)."""
_SWAPPING = threading.Lock()


def direct_intify_attrs(stringy_attrs: Any, strings_map: Any = None, _do_deprecated: bool = False) -> Any:
    """``spacy.attrs.intify_attrs(stringy_attrs, strings_map, _do_deprecated)``, made directly for a
    dict keyed by the ``ORTH`` and ``NORM`` ids only (the deprecated-name pass leaves such a dict as it
    is); anything else is spaCy's own."""
    ids, intify_attrs = _spacys()
    direct = (
        isinstance(stringy_attrs, dict)
        and all(type(key) is int and key in ids for key in stringy_attrs)
        and (strings_map is None or hasattr(strings_map, "add"))
    )
    if not direct:
        return intify_attrs(stringy_attrs, strings_map=strings_map, _do_deprecated=_do_deprecated)
    if strings_map is None:
        return dict(stringy_attrs)
    return {key: strings_map.add(v) if isinstance(v, str) else v for key, v in stringy_attrs.items()}


@cache
def _spacys() -> tuple[frozenset[int], Any]:
    """The ``ORTH`` and ``NORM`` ids and spaCy's own ``intify_attrs`` (imported once spaCy is)."""
    from spacy.attrs import NORM, ORTH, intify_attrs  # type: ignore[import-not-found]  # compiled, no stub

    return frozenset({ORTH, NORM}), intify_attrs


@contextmanager
def special_cases_read_directly() -> Iterator[None]:
    """:func:`direct_intify_attrs` in the place of ``intify_attrs`` in spaCy's tokenizer and vocabulary
    modules until the block ends (nothing where spaCy is not imported or it is already there)."""
    swapped: list[tuple[Any, Any]] = []
    with _SWAPPING:
        for name in _USERS:
            module = sys.modules.get(name)
            original = getattr(module, "intify_attrs", None)
            if original is not None and original is not direct_intify_attrs:
                module.intify_attrs = direct_intify_attrs  # type: ignore[union-attr]
                swapped.append((module, original))
    try:
        yield
    finally:
        with _SWAPPING:
            for module, original in swapped:
                if module.intify_attrs is direct_intify_attrs:
                    module.intify_attrs = original
