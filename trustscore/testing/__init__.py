"""trustscore's public test kit: a fake vLLM server, an in-process router, scripted judges, faults.

    from trustscore.testing import FakeVLLMServer, Fault, MockRouter, judge_policy, lynx_answer

    policy = judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)})   # the other judges keep defaults
    with FakeVLLMServer(policy) as server:                              # real sockets, own thread
        server.faults.add(Fault.rate_limit(retry_after=1), first=1)
        ...  # point a client at server.base_url; read server.requests / server.stats
    router = MockRouter(policy)                                         # no sockets
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    llm = FakeLLM(answers=policy)                                       # no HTTP at all: the LLM protocol

In pytest the ``fake_vllm``, ``fake_vllm_factory`` and ``trustscore_router`` fixtures do this.

Nothing here is imported by ``import trustscore``. Names load on first use, so the pytest plugin
(which lives in this package) stays cheap to import in every test run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core.lazy import lazy_exports

if TYPE_CHECKING:
    from trustscore.testing.engine import FakeEngine, RecordedRequest, UnmatchedRequest
    from trustscore.testing.fake_llm import FakeLLM
    from trustscore.testing.faults import Fault, FaultSchedule
    from trustscore.testing.judges import (
        RulePolicy,
        chainpoll_answers,
        default_judge_answers,
        judge_of,
        judge_policy,
        likert_answer,
        lynx_answer,
        prometheus_answer,
        tlm_agreement_answer,
        tlm_reflection_answer,
        tlm_sampled_answers,
    )
    from trustscore.testing.latency import LatencyModel, ServerStats
    from trustscore.testing.router import MockRouter
    from trustscore.testing.script import FakeAnswer, FakeRequest, Policy, Reply
    from trustscore.testing.server import FakeVLLMServer
    from trustscore.testing.tokens import tokenize

_LAZY = {
    "FakeAnswer": "trustscore.testing.script",
    "FakeEngine": "trustscore.testing.engine",
    "FakeLLM": "trustscore.testing.fake_llm",
    "FakeRequest": "trustscore.testing.script",
    "FakeVLLMServer": "trustscore.testing.server",
    "Fault": "trustscore.testing.faults",
    "FaultSchedule": "trustscore.testing.faults",
    "LatencyModel": "trustscore.testing.latency",
    "MockRouter": "trustscore.testing.router",
    "Policy": "trustscore.testing.script",
    "RecordedRequest": "trustscore.testing.engine",
    "Reply": "trustscore.testing.script",
    "RulePolicy": "trustscore.testing.judges",
    "ServerStats": "trustscore.testing.latency",
    "UnmatchedRequest": "trustscore.testing.engine",
    "chainpoll_answers": "trustscore.testing.judges",
    "default_judge_answers": "trustscore.testing.judges",
    "judge_of": "trustscore.testing.judges",
    "judge_policy": "trustscore.testing.judges",
    "likert_answer": "trustscore.testing.judges",
    "lynx_answer": "trustscore.testing.judges",
    "prometheus_answer": "trustscore.testing.judges",
    "tlm_agreement_answer": "trustscore.testing.judges",
    "tlm_reflection_answer": "trustscore.testing.judges",
    "tlm_sampled_answers": "trustscore.testing.judges",
    "tokenize": "trustscore.testing.tokens",
}

__all__ = [
    "FakeAnswer",
    "FakeEngine",
    "FakeLLM",
    "FakeRequest",
    "FakeVLLMServer",
    "Fault",
    "FaultSchedule",
    "LatencyModel",
    "MockRouter",
    "Policy",
    "RecordedRequest",
    "Reply",
    "RulePolicy",
    "ServerStats",
    "UnmatchedRequest",
    "chainpoll_answers",
    "default_judge_answers",
    "judge_of",
    "judge_policy",
    "likert_answer",
    "lynx_answer",
    "prometheus_answer",
    "tlm_agreement_answer",
    "tlm_reflection_answer",
    "tlm_sampled_answers",
    "tokenize",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
