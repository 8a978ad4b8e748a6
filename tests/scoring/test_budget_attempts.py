"""A judge's attempt and the Scorer's budget: whichever of the two cuts lands first (the Scorer's,
at the budget's end, or the attempt's own limit, the budget left plus a grace), the sample reads the
same: the judge missing with the budget's reason, incomplete, and the server's limit untouched."""

from __future__ import annotations

import anyio
import pytest

from trustscore import Config, Scorer, TrustScore
from trustscore.compute._deadline import Deadline
from trustscore.scoring import _scorer as scorer_module
from trustscore.testing import Fault, MockRouter, judge_policy

pytestmark = pytest.mark.anyio

BUDGET_S = 0.2


async def _watcher_that_never_cuts(deadline: Deadline, scope: anyio.CancelScope) -> None:
    """The Scorer's watcher on an event loop too busy to cut in time: it never cancels the sample."""
    try:
        await anyio.sleep_forever()
    finally:
        deadline.cancel()


async def score_against_a_hanging_judge() -> tuple[TrustScore, int]:
    router = MockRouter(judge_policy())
    router.engine.faults.add(Fault.delay(3600.0))  # never answers within the budget
    config = Config.from_dict(
        {
            "endpoints": {
                "judge": {
                    "base_url": router.base_url,
                    "model": "fake-judge",
                    "timeout_s": 600,
                    "max_retries": 3,
                    "initial_concurrency": 4,
                    "max_concurrency": 8,
                }
            },
            "judges": {"lynx": {"endpoint": "judge"}},
            "signals": {
                "lexical": {"enabled": False},
                "embedding": {"enabled": False},
                "claims": {"enabled": False},
            },
            "cache": {"mode": "off"},
        }
    )
    async with Scorer(config, transport=router.transport) as scorer:
        with anyio.fail_after(60):
            result = await scorer.score(
                question="Who founded Zorblax?",
                context=["Ada Brook founded Zorblax."],
                response="Ada Brook.",
                budget_s=BUDGET_S,
            )
        limiter = scorer._endpoints.llm("judge").limiter  # type: ignore[attr-defined]
        return result, limiter.limit


def assert_cut_by_the_budget(result: TrustScore) -> None:
    lynx = result.signals["lynx"]
    assert lynx.value is None and lynx.error == f"timed out after {BUDGET_S:g}s budget"
    assert not result.complete and result.incomplete_signals == ["lynx"]
    assert lynx.usage.requests == 1, "sent once: a budget cut is not retried"


async def test_the_scorers_cut_at_the_budget_is_no_congestion() -> None:
    result, limit = await score_against_a_hanging_judge()
    assert_cut_by_the_budget(result)
    assert limit == 4  # the initial concurrency: the budget's end halved nothing


async def test_the_attempts_own_limit_reads_as_the_scorers_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scorer_module, "watch_deadline", _watcher_that_never_cuts)
    result, limit = await score_against_a_hanging_judge()
    assert_cut_by_the_budget(result)
    assert limit == 4
