"""What a fake server is asked: :class:`FakeRequest`, the typed view of one completion request that
policies, fault selectors and the request log read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from trustscore.llm._protocol import Constraint, Message

__all__ = ["FakeRequest"]


class FakeRequest(BaseModel):
    """A typed view of one completion request, as a policy sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int
    """0-based position of this request among all the completion requests the fake received."""
    endpoint: Literal["chat", "completions"]
    model: str
    messages: list[Message] | None = None
    prompt: str | None = None
    text: str
    """What the model reads: the prompt, or the messages rendered as ``<|role|>\\ncontent`` blocks."""
    tokens: list[str]
    """``text`` in the fake's approximate tokens (:func:`~trustscore.testing._tokens.tokenize`)."""
    n: int = 1
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    prompt_logprobs: int | None = None
    echo: bool = False
    stop: list[str] = Field(default_factory=list)
    seed: int | None = None
    constraint: Constraint | None = None
    continue_final_message: bool = False
    judge: str | None = None
    """Which trustscore judge kind sent this (from the request's tag), or None."""
    tag: str | None = None
    """The caller's tag (``X-Trustscore-Tag`` header or the body's ``user`` field), e.g. ``"lynx@3f2a1c"``."""
    body: dict[str, JsonValue]
    headers: dict[str, str]

    @property
    def last_user_message(self) -> str:
        """The content of the last user message ('' for completions or when there is none)."""
        for m in reversed(self.messages or []):
            if m.role == "user":
                return m.content
        return ""
