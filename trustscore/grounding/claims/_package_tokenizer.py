"""The tokenizer a pipeline package's file is loaded into: spaCy's own, with each special case checked
the fast way when it is in the form a package file holds it.

Loading the small English pipeline's tokenizer adds its 1,347 special cases one by one, and spaCy checks
each (:meth:`Tokenizer._validate_special_case`: the pieces' ``ORTH`` strings must make up the case's
text, and a piece may set no attribute but ``ORTH`` and ``NORM``) after passing every piece through
``spacy.attrs.intify_attrs`` with its deprecated-name pass (about 120 string comparisons a piece), a
third of the special cases' load. In a package file every piece is a dict keyed by the attributes' ids
(``ORTH``, ``NORM``), which that pass leaves as they are; for such a case :class:`PackageTokenizer`
makes the same two checks directly and, when they hold, accepts the case as spaCy's check would.
Any other case (names instead of ids, another attribute, pieces that do not make up the text) goes to
spaCy's own check, which accepts or raises as before. What the tokenizer holds and how it splits text
is spaCy's: only the check is made another way.
"""

from __future__ import annotations

from typing import Any

from spacy.attrs import NORM, ORTH  # type: ignore[import-not-found]  # compiled, no stub
from spacy.tokenizer import Tokenizer  # type: ignore[import-not-found]  # compiled, no stub

__all__ = ["PackageTokenizer"]

_PACKAGE_ATTRIBUTES = frozenset({ORTH, NORM})


class PackageTokenizer(Tokenizer):  # type: ignore[misc]  # spaCy's compiled class, untyped
    """spaCy's :class:`~spacy.tokenizer.Tokenizer`, checking a special case in a package file's form
    (dicts keyed by ``ORTH`` and ``NORM`` ids) without spaCy's deprecated-name pass."""

    def _validate_special_case(self, chunk: str, substrings: Any) -> None:
        if _holds_as_packaged(chunk, substrings):
            return
        super()._validate_special_case(chunk, substrings)


def _holds_as_packaged(chunk: str, substrings: Any) -> bool:
    """Whether ``substrings`` is a list of dicts keyed by ``ORTH`` and ``NORM`` ids only, each with an
    ``ORTH`` string, which together make up ``chunk``: a case spaCy's check accepts."""
    if not isinstance(substrings, list):
        return False
    for piece in substrings:
        if not isinstance(piece, dict) or not piece.keys() <= _PACKAGE_ATTRIBUTES:
            return False
        if not isinstance(piece.get(ORTH), str):
            return False
    return "".join(piece[ORTH] for piece in substrings) == chunk
