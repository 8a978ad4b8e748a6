"""One record per LLM call: a bound LLM opens it in its run's log, the client keeps it live, the call
settles it with the usage it handed back, and the log sums the records."""

from __future__ import annotations

import anyio
import pytest

from trustscore import Usage
from trustscore._errors import RateLimited
from trustscore.llm import ChatRequest, ChatResult, Choice, Message
from trustscore.llm._call import CallUsage, UsageLog
from trustscore.scoring._runners import BoundLLM

pytestmark = pytest.mark.anyio

REQUEST = ChatRequest(messages=[Message(role="user", content="q")])


class HandsBack:
    """An LLM that counts nothing live and hands back its own figure (or fails with one)."""

    model, flavour, context_window = "m", "vllm", 4096

    def __init__(self, outcome: Usage | Exception) -> None:
        self.outcome = outcome
        self.contexts: list[object] = []

    def count_tokens(self, text: str) -> int:
        return len(text)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        self.contexts.append(request.context)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return ChatResult(choices=[Choice(text="a")], usage=self.outcome)


class Hangs(HandsBack):
    """An LLM that counts one request live on the record it is handed, then never answers."""

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        assert request.context is not None and request.context.record is not None
        request.context.record.begin_attempt()
        request.context.record.end_attempt()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")


async def test_each_call_is_one_record_settled_with_what_it_handed_back_and_the_log_sums_them() -> None:
    log = UsageLog()
    llm = BoundLLM(HandsBack(Usage(requests=1, completion_tokens=5)), log)
    await llm.generate(REQUEST)
    await llm.generate(REQUEST)
    failed: list[str] = []
    broken = BoundLLM(
        HandsBack(RateLimited("429", usage=Usage(requests=3))),
        log,
        on_failure=lambda e: failed.append(e.reason),
    )
    with pytest.raises(RateLimited):
        await broken.generate(REQUEST)
    total = log.total()
    assert (total.requests, total.completion_tokens) == (5, 10) and failed == ["429"]


async def test_a_call_cut_off_keeps_what_was_counted_live_on_its_record() -> None:
    log = UsageLog()
    with anyio.move_on_after(0.05):
        await BoundLLM(Hangs(Usage()), log).generate(REQUEST)
    assert log.saw_calls and log.total().requests == 1


async def test_the_context_rides_on_the_request_and_leaves_its_content_alone() -> None:
    inner = HandsBack(Usage())
    await BoundLLM(inner, UsageLog()).generate(REQUEST)
    (context,) = inner.contexts
    assert isinstance(getattr(context, "record", None), CallUsage)
    assert REQUEST.context is None and REQUEST.model_dump() == REQUEST.within(context).model_dump()  # type: ignore[arg-type]


def test_an_attempt_a_backend_never_delivered_counts_as_unsent() -> None:
    record = CallUsage()
    record.begin_attempt()
    record.track_delivery()
    record.end_attempt()
    record.begin_attempt()  # a backend that reports nothing: sent
    record.end_attempt()
    usage = record.usage()
    assert (usage.requests, usage.unsent) == (1, 1)
