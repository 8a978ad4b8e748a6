"""A small fault storm through Scorer.score_many (429s with Retry-After, 5xx, stalls and broken
answers, at a short time scale): samples already started get their retries and second-stage calls
before new samples begin, so nearly all finish inside the budget."""

from __future__ import annotations

import pytest

from benchmarks.bench_storm import run_storm


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_fault_storm_finishes_the_samples_it_started(backend: str) -> None:
    # At the benchmark's own time scale (10 s budget): a shorter scale left the client's CPU time, which
    # does not shrink with it, too large a share of the budget on a busy machine.
    result = run_storm(30, backend, scale=1.0, seed=1)

    assert result.retryable_eligible > 50, "the storm did inject retryable faults"
    assert result.retried_share >= 0.9, result.line()
    assert result.complete_share >= 0.9, result.line()
    assert result.p99_s <= result.budget_s + 0.5, result.line()
    assert result.usage_requests >= result.server_requests, "every request the server saw is counted"
