"""The LLM a judge is handed: each call metered on its own and settled with the usage it handed back.

A call through :class:`~trustscore.llm._client.LLMClient` reports to the current meter as it goes; a
user's own LLM may count nothing live and only hand its usage back. Wrapping each call in its own
:class:`~trustscore.llm._accounting.UsageMeter`, settled with what the call handed back (a failed call's
too), counts both the same way, once, and a call cut off keeps what the LLM counted live.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from trustscore._errors import LLMError
from trustscore.llm._accounting import UsageMeter
from trustscore.llm._protocol import LLM, ChatRequest, ChatResult

__all__ = ["MeteredLLM"]


class MeteredLLM:
    """``llm`` with every call metered inside the current meter; ``on_failure`` sees each failed call's
    error before it propagates."""

    def __init__(self, llm: LLM, on_failure: Callable[[LLMError], None] | None = None) -> None:
        self._llm = llm
        self._on_failure = on_failure

    @property
    def model(self) -> str:
        return self._llm.model

    @property
    def flavour(self) -> Literal["vllm", "openai"]:
        return self._llm.flavour

    @property
    def context_window(self) -> int:
        return self._llm.context_window

    def count_tokens(self, text: str) -> int:
        return self._llm.count_tokens(text)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        with UsageMeter() as call:
            try:
                result = await self._llm.generate(request, cache=cache)
            except LLMError as e:
                call.settle(e.usage)
                if self._on_failure is not None:
                    self._on_failure(e)
                raise
            call.settle(result.usage)
            return result
