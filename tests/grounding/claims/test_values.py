"""Normal forms of numbers and dates (dateparser reads the dates)."""

from __future__ import annotations

import pytest

pytest.importorskip("dateparser", reason="the claims check needs trustscore[claims]")

from trustscore.grounding.claims._values import DateValue, parse_date, parse_number


@pytest.mark.parametrize(
    ("tokens", "value"),
    [
        (["42,000"], 42000.0),
        (["3.5", "million"], 3.5e6),
        (["five"], 5.0),
        (["twenty", "two"], 22.0),
        (["9", "am", "to", "6", "pm"], 9.0),
        (["12", "%"], 12.0),
        (["about"], None),
    ],
)
def test_numbers_read_in_one_form(tokens: list[str], value: float | None) -> None:
    assert parse_number(tokens) == value


def test_dates_in_different_formats_agree() -> None:
    iso, written, american = parse_date("2011-03-14"), parse_date("14 March 2011"), parse_date("03/14/2011")
    assert iso == written == american == DateValue(2011, 3, 14)
    assert iso is not None and iso.agrees(DateValue(2011)) and iso.agrees(DateValue(2011, 3))
    assert not iso.agrees(DateValue(2001, 3, 14)) and not iso.agrees(DateValue(2011, 4))


def test_a_partial_date_states_only_its_parts() -> None:
    assert parse_date("March 2011") == DateValue(2011, 3)
    assert parse_date("2011") == DateValue(2011)
    assert parse_date("the spring of 2011") == DateValue(2011)


def test_dates_without_a_year_are_not_checkable() -> None:
    assert parse_date("last year") is None
    assert parse_date("Sundays") is None
