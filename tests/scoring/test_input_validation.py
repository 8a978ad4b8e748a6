"""Damaged or oversized input is refused up front with the field named, never half-scored."""

from __future__ import annotations

import pytest

from trustscore import InputError
from trustscore._types import MAX_PASSAGES, MAX_SAMPLE_CHARS
from trustscore.scoring._scorer import make_sample


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"response": "Paris\udc80"}, r"response: contains a lone surrogate .*U\+DC80 at character 5"),
        ({"question": "why\x00"}, r"question: contains a control character U\+0000 at character 3"),
        ({"context": ["fine", "bad\x1b[31m"]}, r"context: passage 1 contains a control character U\+001B"),
        ({"metadata": {"label": ["ok", "\ud800"]}}, r"metadata: value at \['label'\]\[1\]: contains a lone"),
        ({"id": "row\x07"}, r"id: contains a control character U\+0007"),
    ],
)
def test_bad_characters_are_refused_naming_the_field(kwargs: dict[str, object], expected: str) -> None:
    fields: dict[str, object] = {"question": "q", "response": "r", "context": ["c"], **kwargs}
    with pytest.raises(InputError, match=expected):
        make_sample(**fields)  # type: ignore[arg-type]


def test_ordinary_whitespace_and_unicode_pass() -> None:
    sample = make_sample(question="Où?\t", context=["line one\nline two\r\n\x0cpage"], response="Zürich 😀.")
    assert sample.response == "Zürich 😀."


def test_size_caps_name_the_limit() -> None:
    with pytest.raises(InputError, match=f"at most {MAX_SAMPLE_CHARS:,} are accepted"):
        make_sample(question="q", response="x" * (MAX_SAMPLE_CHARS + 1))
    with pytest.raises(InputError, match=f"at most {MAX_PASSAGES} are accepted"):
        make_sample(question="q", response="r", context=["p"] * (MAX_PASSAGES + 1))
    assert make_sample(question="q", response="x" * 5_000_000).response  # 5 MB is accepted


def test_metadata_nested_too_deeply_is_an_input_error() -> None:
    deep: object = "x"
    for _ in range(900):  # shallow enough to build, too deep for the checks that walk it
        deep = [deep]
    with pytest.raises(InputError, match=r"invalid sample: metadata is nested too deeply"):
        make_sample(question="q", response="r", metadata={"extra": deep})
