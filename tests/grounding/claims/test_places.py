"""The claims check reads a place's code and its name as one name: "California" is supported by a
record's ``"state": "CA"``, "CA" by a context's "California". A code in a context counts only as a
record's value or before a postal code, never as an acronym ("MD", "IT"), and a name vouches only for
a code written in capitals ("LA", not "La")."""

from __future__ import annotations

import pytest

from trustscore import Sample, Signal
from trustscore.grounding.claims._signal import ClaimsCheck

RECORD = '{"name": "Javan\'s", "city": "Goleta", "state": "CA", "categories": "Sandwiches"}'


def score(check: ClaimsCheck, response: str, context: str) -> Signal:
    return check.score(Sample(question="Write an overview", context=[context], response=response))


def unsupported(signal: Signal) -> list[str]:
    return [s.text for s in signal.spans if s.label and s.label.startswith("unsupported")]


def test_a_state_named_where_the_record_gives_its_code_scores_as_the_code(claims_check: ClaimsCheck) -> None:
    named = score(claims_check, "Javan's is a sandwich shop located in Goleta, California.", RECORD)
    coded = score(claims_check, "Javan's is a sandwich shop located in Goleta, CA.", RECORD)
    assert named.value == coded.value == 1.0
    assert unsupported(named) == unsupported(coded) == []
    assert "California" not in str(named.raw)


def test_a_state_named_where_the_address_gives_its_code_before_a_zip(claims_check: ClaimsCheck) -> None:
    context = "Javan's is a sandwich shop at 5 Hollister Ave, Goleta, CA 93117."
    signal = score(claims_check, "Javan's is a sandwich shop in Goleta, California.", context)
    assert unsupported(signal) == []


def test_a_code_is_supported_where_the_context_writes_the_name(claims_check: ClaimsCheck) -> None:
    context = "Javan's is a sandwich shop in Goleta, California. It opened in 2004."
    signal = score(claims_check, "Javan's, a sandwich shop in Goleta, CA, opened in 2004.", context)
    assert signal.value == 1.0 and unsupported(signal) == []


@pytest.mark.parametrize(
    ("context", "response", "place"),
    [
        ("Ann Lee, MD, treats patients in Baltimore.", "Ann Lee treats patients in Maryland.", "Maryland"),
        ("The IT team moved to Rome in 2019.", "The team moved to Italy in 2019.", "Italy"),
        ("SOLD AS IS. NO RETURNS. Shipped from Reykjavik.", "It was shipped from Iceland.", "Iceland"),
    ],
)
def test_an_acronym_in_capitals_is_no_place(
    claims_check: ClaimsCheck, context: str, response: str, place: str
) -> None:
    signal = score(claims_check, response, context)
    assert place in [s.text for s in signal.spans]  # not supported (contradicted or unsupported)
    assert signal.value is not None and signal.value < 1


def test_a_name_vouches_only_for_a_code_in_capitals(claims_check: ClaimsCheck) -> None:
    context = "Marie Laveau lived in New Orleans, Louisiana, all her life."
    coded = score(claims_check, "Marie Laveau lived in New Orleans, LA, all her life.", context)
    assert unsupported(coded) == []
    other = score(claims_check, "Marie Laveau sang with Peter La in New Orleans.", context)
    assert "Peter La" in unsupported(other)


def test_a_lower_case_ca_in_running_text_is_no_code(claims_check: ClaimsCheck) -> None:
    context = "The mill in Goleta was built ca. 1900 and rebuilt in 1950."
    signal = score(claims_check, "The mill in Goleta, California, was built in 1900.", context)
    assert unsupported(signal) == ["California"]
