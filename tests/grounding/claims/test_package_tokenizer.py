"""The tokenizer the claims pipeline loads its package's file into accepts and refuses exactly the special
cases spaCy's own tokenizer does, checking a package file's cases without spaCy's deprecated-name pass."""

from __future__ import annotations

from typing import Any

import pytest

spacy = pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")

from spacy.attrs import NORM, ORTH, TAG  # noqa: E402
from spacy.tokenizer import Tokenizer  # noqa: E402
from spacy.vocab import Vocab  # noqa: E402

from trustscore.grounding.claims._package_tokenizer import PackageTokenizer, _holds_as_packaged  # noqa: E402

CASES: list[tuple[str, Any]] = [
    ("can't", [{ORTH: "ca", NORM: "can"}, {ORTH: "n't", NORM: "not"}]),  # a package file's form
    ("a.m.", [{ORTH: "a.m."}]),
    ("can't", [{"ORTH": "ca"}, {"ORTH": "n't", "NORM": "not"}]),  # names, not ids
    ("can't", [{ORTH: "can"}, {ORTH: "t"}]),  # the pieces do not make up the text
    ("can't", [{ORTH: "ca", TAG: "MD"}, {ORTH: "n't"}]),  # an attribute a special case may not set
    ("can't", [{NORM: "can"}]),  # no ORTH
    ("can't", [{ORTH: 7}]),  # an ORTH that is no string
    ("can't", ({ORTH: "ca"}, {ORTH: "n't"})),  # not a list
    ("", []),
]


def _outcome(tokenizer: Any, chunk: str, substrings: Any) -> str:
    try:
        tokenizer._validate_special_case(chunk, substrings)
    except Exception as e:  # the outcome compared is the error itself
        return f"{type(e).__name__}: {e}"
    return "accepted"


@pytest.mark.parametrize(("chunk", "substrings"), CASES)
def test_a_special_case_is_accepted_or_refused_as_spacys_tokenizer_does(chunk: str, substrings: Any) -> None:
    theirs = _outcome(Tokenizer(Vocab()), chunk, _copy(substrings))
    ours = _outcome(PackageTokenizer(Vocab()), chunk, _copy(substrings))
    assert ours == theirs


def test_only_a_package_files_form_skips_spacys_pass() -> None:
    assert _holds_as_packaged("can't", [{ORTH: "ca", NORM: "can"}, {ORTH: "n't"}])
    assert not _holds_as_packaged("can't", [{"ORTH": "ca"}, {"ORTH": "n't"}])
    assert not _holds_as_packaged("can't", [{ORTH: "ca", TAG: "MD"}, {ORTH: "n't"}])
    assert not _holds_as_packaged("can't", [{ORTH: "can"}, {ORTH: "t"}])
    assert not _holds_as_packaged("can't", ({ORTH: "ca"}, {ORTH: "n't"}))


def test_every_special_case_of_the_loaded_package_is_in_a_package_files_form(claims_check: Any) -> None:
    tokenizer = claims_check.pipeline.nlp().tokenizer
    assert isinstance(tokenizer, PackageTokenizer)
    rules = tokenizer.rules
    assert len(rules) > 1000
    assert all(_holds_as_packaged(chunk, list(substrings)) for chunk, substrings in rules.items())


def test_the_loaded_tokenizer_refuses_a_bad_special_case_as_spacys_does(claims_check: Any) -> None:
    tokenizer = claims_check.pipeline.nlp().tokenizer
    with pytest.raises(ValueError, match="E997"):
        tokenizer.add_special_case("gimme", [{ORTH: "gim"}, {ORTH: "e"}])
    assert "gimme" not in tokenizer.rules


def _copy(substrings: Any) -> Any:
    """spaCy's pass may rename keys in place: each tokenizer gets its own copy."""
    copied = [dict(piece) if isinstance(piece, dict) else piece for piece in substrings]
    return tuple(copied) if isinstance(substrings, tuple) else copied
