"""A fault storm through Scorer.score_many (429s with Retry-After, 5xx, stalls and broken answers, at
the benchmark's own times: 1 s request timeout, 10 s budget) on a virtual clock: samples already
started get their retries and second-stage calls before new samples begin, so nearly all finish
inside the budget. Every wait is virtual (tests/virtual_time.py), so a loaded box cannot fail it."""

from __future__ import annotations

import pytest
from virtual_time import run_on_virtual_time

from benchmarks.judges.bench_storm import (
    add_storm,
    log_entries,
    make_samples,
    storm_config,
    storm_policy,
    summarise,
)
from trustscore import Scorer, TrustScore
from trustscore.compute import _deadline as deadline
from trustscore.llm import _limits as limits
from trustscore.llm import _pool as pool
from trustscore.scoring import _scorer as scorer
from trustscore.testing import MockRouter

BUDGET_S = 10.0


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_fault_storm_finishes_the_samples_it_started(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    router = MockRouter(storm_policy())
    add_storm(router, scale=1.0, seed=1)

    async def storm() -> list[TrustScore]:
        config = storm_config(router.base_url, router.model, scale=1.0)
        async with Scorer(config, transport=router.transport) as scoring:
            return await scoring.score_many(make_samples(30))

    results = run_on_virtual_time(storm, backend, monkeypatch, [deadline, scorer, limits, pool])
    result = summarise(backend, results, 0.0, log_entries(router), BUDGET_S)

    assert result.retryable_eligible > 50, "the storm did inject retryable faults"
    assert result.retried_share >= 0.9, result.line()
    assert result.complete_share >= 0.9, result.line()
    assert result.p99_s <= result.budget_s + 0.5, result.line()  # virtual seconds
    assert result.usage_requests >= result.server_requests, "every request the server saw is counted"
