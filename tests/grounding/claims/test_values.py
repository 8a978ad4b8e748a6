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
        # a range in words is its first number, as in digits; "and a half" goes on
        (["eight", "to", "ten", "minutes"], 8.0),
        (["two", "and", "a", "half", "million"], 2.5e6),
        (["twenty", "-", "two"], 22.0),
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


@pytest.mark.parametrize(
    ("tokens", "value"),
    [
        (["6.4bn"], 6.4e9),
        (["40k"], 4e4),
        (["4", "m"], 4e6),
        (["2tn"], 2e12),
        (["12"], 12.0),
        (["£20m."], 2e7),
        (["$", "20", "m."], 2e7),
    ],
)
def test_an_amount_reads_a_scale_written_onto_its_digits(tokens: list[str], value: float) -> None:
    assert parse_number(tokens, money=True) == value


@pytest.mark.parametrize(
    ("tokens", "value"),
    [(["100-$300"], 100.0), (["£4m–£6m"], 4e6), (["$", "100", "to", "$", "300"], 100.0)],
)
def test_a_span_of_amounts_in_one_token_is_read_as_its_first_end(tokens: list[str], value: float) -> None:
    """The tokenizer leaves "$100-$300" as "$", "100-$300": the span's first end is the amount stated,
    as for "$100 to $300"."""
    assert parse_number(tokens, money=True) == value


def test_a_letter_after_digits_is_no_scale_outside_an_amount() -> None:
    """ "4m" may be four metres and "5k" five kilometres: only money reads the letter as a scale."""
    assert parse_number(["4m"]) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Feb 14", DateValue(None, 2, 14)),
        ("14th of March", DateValue(None, 3, 14)),
        ("in May", None),
        ("March 3, 4 and 5", None),
        ("3-9 June", None),
        ("Marvel", None),
        ("14 days", None),
        ("last March", None),
    ],
)
def test_a_day_without_its_year_is_a_date(text: str, value: DateValue | None) -> None:
    assert parse_date(text) == value


def test_a_date_agrees_only_where_both_give_a_part() -> None:
    """ "Feb 14" says nothing of 2011, so it neither agrees with it nor can differ from it."""
    day = DateValue(None, 2, 14)
    assert day.agrees(DateValue(2011, 2, 14)) and day.agrees(DateValue(2011, 2))
    assert not day.agrees(DateValue(2011)) and not day.speaks_of(DateValue(2011))
    assert not day.agrees(DateValue(None, 3, 14)) and day.speaks_of(DateValue(None, 3, 14))
    assert str(day) == "February 14"


def test_a_date_without_its_year_states_no_year() -> None:
    """ "On 16 October" agrees with "16 October 1993" but does not vouch for its year."""
    day = DateValue(None, 10, 16)
    assert day.agrees(DateValue(1993, 10, 16)) and not day.states(DateValue(1993, 10, 16))
    assert DateValue(1983, 10, 16).states(DateValue(None, 10, 16))
