from __future__ import annotations

import pytest

from trustscore.llm import ChatRequest, EndpointConfig, LLMClient
from trustscore.testing import FakeAnswer, MockRouter, RulePolicy
from trustscore.testing._recording import RecordingClient

pytestmark = pytest.mark.anyio


async def test_it_keeps_each_request_with_what_came_back_and_forwards_the_rest() -> None:
    router = MockRouter(RulePolicy(fallback=FakeAnswer(text="PASS")))
    async with LLMClient(
        EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport
    ) as client:
        recording = RecordingClient(client)
        request = ChatRequest(prompt="judge this")
        result = await recording.generate(request)
        assert result.text == "PASS"
        assert recording.seen == [(request, result)]
        assert recording.model == client.model == "fake-judge"
