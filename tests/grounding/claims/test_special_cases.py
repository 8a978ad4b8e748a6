"""The tokenizer's special cases are read while the pipeline loads with an attribute conversion that
gives what spaCy's ``intify_attrs`` gives (or raises what it raises) for every piece, and spaCy's own is
back afterwards."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")

import spacy.tokenizer
import spacy.vocab
from spacy.attrs import ENT_IOB, NORM, ORTH, TAG, intify_attrs
from spacy.strings import StringStore

from trustscore.grounding.claims._special_cases import (
    direct_intify_attrs,
    special_cases_read_directly,
)

PIECES: list[Any] = [
    {ORTH: "ca", NORM: "can"},  # a package file's form
    {ORTH: "n't"},
    {NORM: "not"},
    {},
    {ORTH: 12},  # an ORTH that is already a hash
    {"ORTH": "ca", "NORM": "can"},  # names, not ids
    {"F": "ca"},  # a deprecated name
    {ORTH: "ca", TAG: "MD"},  # another attribute
    {ENT_IOB: "B"},
    {ENT_IOB: "X"},  # spaCy refuses it
    {65.0: "ca"},  # a float equal to ORTH's id
    {True: "ca"},
]


def _outcome(convert: Any, piece: Any, strings_map: Any) -> Any:
    try:
        return convert(dict(piece), strings_map=strings_map, _do_deprecated=True)
    except Exception as e:  # the outcome compared is the error itself
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("piece", PIECES)
@pytest.mark.parametrize("with_strings", [False, True])
def test_a_piece_converts_as_spacys_intify_attrs_converts_it(piece: Any, with_strings: bool) -> None:
    theirs_store, ours_store = (StringStore(), StringStore()) if with_strings else (None, None)
    theirs = _outcome(intify_attrs, piece, theirs_store)
    ours = _outcome(direct_intify_attrs, piece, ours_store)
    assert ours == theirs
    if with_strings:
        assert list(ours_store) == list(theirs_store)  # type: ignore[arg-type]


def test_the_conversion_is_spacys_again_after_the_load_and_left_alone_if_replaced_meanwhile() -> None:
    with special_cases_read_directly():
        assert spacy.tokenizer.intify_attrs is direct_intify_attrs
        assert spacy.vocab.intify_attrs is direct_intify_attrs
    assert spacy.tokenizer.intify_attrs is intify_attrs
    assert spacy.vocab.intify_attrs is intify_attrs

    def someone_elses(*args: Any, **kwargs: Any) -> Any:
        return intify_attrs(*args, **kwargs)

    try:
        with special_cases_read_directly():
            spacy.vocab.intify_attrs = someone_elses
        assert spacy.vocab.intify_attrs is someone_elses
        assert spacy.tokenizer.intify_attrs is intify_attrs
    finally:
        spacy.vocab.intify_attrs = intify_attrs


def test_the_conversion_is_spacys_again_after_a_failed_load_and_after_overlapping_loads() -> None:
    with pytest.raises(RuntimeError), special_cases_read_directly():
        raise RuntimeError("the load failed")
    assert spacy.tokenizer.intify_attrs is intify_attrs and spacy.vocab.intify_attrs is intify_attrs
    with special_cases_read_directly():
        with special_cases_read_directly():  # a second load while the first runs swaps nothing
            assert spacy.tokenizer.intify_attrs is direct_intify_attrs
        assert spacy.tokenizer.intify_attrs is direct_intify_attrs
    assert spacy.tokenizer.intify_attrs is intify_attrs and spacy.vocab.intify_attrs is intify_attrs


def test_every_special_case_of_the_loaded_package_is_read_directly(claims_check: Any) -> None:
    tokenizer = claims_check.pipeline.nlp().tokenizer
    assert type(tokenizer) is spacy.tokenizer.Tokenizer
    rules = tokenizer.rules
    assert len(rules) > 1000
    ids = {ORTH, NORM}
    assert all(
        type(key) is int and key in ids for pieces in rules.values() for piece in pieces for key in piece
    )
    assert spacy.tokenizer.intify_attrs is intify_attrs


def test_a_bad_special_case_is_refused_after_the_load_as_spacy_refuses_it(
    claims_check: Any,
) -> None:
    tokenizer = claims_check.pipeline.nlp().tokenizer
    with pytest.raises(ValueError, match="E997"):
        tokenizer.add_special_case("gimme", [{ORTH: "gim"}, {ORTH: "e"}])
    assert "gimme" not in tokenizer.rules
