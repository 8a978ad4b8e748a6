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

from trustscore.core._lazy import lazy_exports

if TYPE_CHECKING:
    from trustscore.testing._engine import FakeEngine, RecordedRequest, UnmatchedRequest
    from trustscore.testing._fake_llm import FakeLLM
    from trustscore.testing._faults import Fault, FaultSchedule
    from trustscore.testing._judges import (
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
    from trustscore.testing._latency import LatencyModel, ServerStats
    from trustscore.testing._router import MockRouter
    from trustscore.testing._script import FakeAnswer, FakeRequest, Policy, Reply
    from trustscore.testing._server import FakeVLLMServer
    from trustscore.testing._tokens import tokenize

_LAZY = {
    "FakeAnswer": "trustscore.testing._script",
    "FakeEngine": "trustscore.testing._engine",
    "FakeLLM": "trustscore.testing._fake_llm",
    "FakeRequest": "trustscore.testing._script",
    "FakeVLLMServer": "trustscore.testing._server",
    "Fault": "trustscore.testing._faults",
    "FaultSchedule": "trustscore.testing._faults",
    "LatencyModel": "trustscore.testing._latency",
    "MockRouter": "trustscore.testing._router",
    "Policy": "trustscore.testing._script",
    "RecordedRequest": "trustscore.testing._engine",
    "Reply": "trustscore.testing._script",
    "RulePolicy": "trustscore.testing._judges",
    "ServerStats": "trustscore.testing._latency",
    "UnmatchedRequest": "trustscore.testing._engine",
    "chainpoll_answers": "trustscore.testing._judges",
    "default_judge_answers": "trustscore.testing._judges",
    "judge_of": "trustscore.testing._judges",
    "judge_policy": "trustscore.testing._judges",
    "likert_answer": "trustscore.testing._judges",
    "lynx_answer": "trustscore.testing._judges",
    "prometheus_answer": "trustscore.testing._judges",
    "tlm_agreement_answer": "trustscore.testing._judges",
    "tlm_reflection_answer": "trustscore.testing._judges",
    "tlm_sampled_answers": "trustscore.testing._judges",
    "tokenize": "trustscore.testing._tokens",
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
