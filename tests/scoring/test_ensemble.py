"""The real wiring end to end: Config -> LLMClient on the test kit's MockRouter -> real judges -> fusion."""

from __future__ import annotations

import pytest

from trustscore import Config, Scorer, registered_signals

pytestmark = pytest.mark.anyio

testing = pytest.importorskip("trustscore.testing")
JUDGES = tuple(registered_signals("judge"))
Q = "Who wrote Dune?"
CTX = ["Dune is a 1965 novel by Frank Herbert."]


def ensemble(**endpoint: object) -> Config:
    return Config.from_dict(
        {
            "endpoints": {
                "judge": {"base_url": "http://fake-vllm.test/v1", "model": "fake-judge", **endpoint}
            },
            "judges": {name: {"endpoint": "judge"} for name in JUDGES},
            "signals": {name: {"enabled": False} for name in ("lexical", "embedding", "claims")},
            "cache": {"mode": "off"},
        }
    )


async def test_full_ensemble_through_the_transport_seam() -> None:
    router = testing.MockRouter(testing.judge_policy())
    async with Scorer(ensemble(), transport=router.transport) as scorer:
        r = await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    assert list(r.signals) == list(JUDGES)
    assert r.missing == {}, r.missing
    assert r.used_signals == list(JUDGES) and r.score is not None and r.complete
    assert r.signals["lynx"].raw == "PASS"
    assert r.usage.requests == len(router.engine.completion_requests())


async def test_a_failing_judge_request_is_missing_and_the_rest_stand() -> None:
    router = testing.MockRouter(testing.judge_policy())
    router.engine.faults.add(testing.Fault.server_error(), when=lambda req: req.judge == "lynx")
    config = ensemble(max_retries=1)
    async with Scorer(config, transport=router.transport) as scorer:
        r = await scorer.score(question=Q, context=CTX, response="Frank Herbert.")
    assert r.signals["lynx"].missing and r.signals["lynx"].error
    assert r.signals["lynx"].usage.requests == 2, "one try and one retry, counted"
    assert set(r.used_signals) == set(JUDGES) - {"lynx"}
