"""The usage meter: the one count of what a signal's LLM calls cost, live, nested and settled."""

from __future__ import annotations

from trustscore._types import Usage
from trustscore.llm._accounting import CallTally, UsageMeter


def test_calls_report_to_the_meter_that_is_current_and_an_outer_one_sums_the_inner() -> None:
    with UsageMeter() as outer:
        CallTally().requests = 1
        with UsageMeter() as inner:
            tally = CallTally()
            tally.requests, tally.prompt_tokens = 2, 30
    assert inner.usage().requests == 2 and inner.usage().prompt_tokens == 30
    assert outer.usage().requests == 3 and outer.usage().prompt_tokens == 30
    assert outer.saw_calls and inner.saw_calls and not UsageMeter().saw_calls


def test_a_settled_call_counts_what_it_handed_back_once_and_an_unsettled_one_what_ran_live() -> None:
    with UsageMeter() as signal:
        with UsageMeter() as counted_live:  # an LLM client's call: live, then handed back the same
            tally = CallTally()
            tally.requests = 1
            tally.finish()
        counted_live.settle(tally.usage())
        with UsageMeter() as own_llm:  # an LLM that counts nothing live hands back its own figure
            pass
        own_llm.settle(Usage(requests=1, completion_tokens=5))
        with UsageMeter():  # a call cut off: nothing handed back, what was counted live stands
            CallTally().requests = 1
    usage = signal.usage()
    assert (usage.requests, usage.completion_tokens) == (3, 5)
    assert own_llm.saw_calls
