"""A client wrapper that keeps every request a judge sent with what came back, for reading a real
model's outputs after a run."""

from __future__ import annotations

from typing import Any

from trustscore.llm._client import LLMClient
from trustscore.llm._protocol import ChatRequest, ChatResult

__all__ = ["RecordingClient"]


class RecordingClient:
    """Forwards to ``inner``; ``seen`` holds each ``(request, result)`` in the order they completed."""

    def __init__(self, inner: LLMClient) -> None:
        self.inner = inner
        self.seen: list[tuple[ChatRequest, ChatResult]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        result = await self.inner.generate(request, cache=cache)
        self.seen.append((request, result))
        return result
