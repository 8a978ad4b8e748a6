"""The claims check reads a place's code and its name as one name: "California" is supported by a
record's ``"state": "CA"``, "CA" by a context's "California"; a lower-case "ca" is no code."""

from __future__ import annotations

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


def test_a_code_is_supported_where_the_context_writes_the_name(claims_check: ClaimsCheck) -> None:
    context = "Javan's is a sandwich shop in Goleta, California. It opened in 2004."
    signal = score(claims_check, "Javan's, a sandwich shop in Goleta, CA, opened in 2004.", context)
    assert signal.value == 1.0 and unsupported(signal) == []


def test_a_lower_case_ca_in_running_text_is_no_code(claims_check: ClaimsCheck) -> None:
    context = "The mill in Goleta was built ca. 1900 and rebuilt in 1950."
    signal = score(claims_check, "The mill in Goleta, California, was built in 1900.", context)
    assert unsupported(signal) == ["California"]
