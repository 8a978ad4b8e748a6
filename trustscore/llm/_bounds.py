"""What one response may be: its size, its number of choices and the token counts it reports.

A server is not trusted to keep an answer small or its numbers true. Each request gets bounds
derived from what it asked for (:class:`ResponseBounds`); a response beyond them is a server fault
(:class:`~trustscore._errors.BadResponse`) with the reason. :func:`read_bounded` reads a streamed body
and stops at the limit, decompressing gzip or deflate itself in steps no larger than what is left of
the limit, so a gzip bomb costs no more memory than an honest answer of the limit's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from trustscore.core._bounded_body import BoundedBody
from trustscore.llm._protocol import ChatRequest

__all__ = ["ResponseBounds", "read_bounded"]

_OVERHEAD_BYTES = 64 * 1024
"""Room for the envelope: ids, usage, the model name, fields a server adds."""
_TEXT_BYTES_PER_TOKEN = 256
"""A generated token as JSON text: the longest tokens of real vocabularies, escaped."""
_LOGPROB_BYTES_PER_ENTRY = 1024
"""One logprob entry: the token, its bytes list, its value (chat's shape is the larger)."""
_TEMPLATE_TOKENS = 4096
"""Prompt tokens a chat template may add to the messages' own (roles, system text, markers)."""


@dataclass(frozen=True)
class ResponseBounds:
    max_bytes: int
    """Body size after decompression."""
    max_choices: int
    max_prompt_tokens: int
    max_completion_tokens: int

    @classmethod
    def of(cls, request: ChatRequest, body: dict[str, Any], *, context_window: int) -> ResponseBounds:
        """The bounds of the answer to ``request`` (sent as ``body``) from a server of ``context_window``.

        Every token of a prompt is at least one byte of its text, so a prompt cannot be more tokens
        than bytes, plus what the chat template adds; a completion is at most ``max_tokens`` per choice."""
        completion_tokens = request.n * request.max_tokens
        per_token = _TEXT_BYTES_PER_TOKEN
        if request.logprobs:
            per_token += _LOGPROB_BYTES_PER_ENTRY * (1 + request.top_logprobs)
        size = _OVERHEAD_BYTES + completion_tokens * per_token
        if request.prompt_logprobs is not None:
            size += request.n * context_window * _LOGPROB_BYTES_PER_ENTRY * (1 + request.prompt_logprobs)
        if request.echo:
            size += request.n * context_window * per_token
        return cls(
            max_bytes=size,
            max_choices=request.n,
            max_prompt_tokens=_prompt_bytes(body) + _TEMPLATE_TOKENS,
            max_completion_tokens=completion_tokens,
        )


def _prompt_bytes(body: dict[str, Any]) -> int:
    if "messages" in body:
        return sum(len(str(m.get("content", "")).encode("utf-8")) for m in body["messages"])
    return len(str(body.get("prompt", "")).encode("utf-8"))


async def read_bounded(response: httpx.Response, limit: int, *, refuse: bool = True) -> bytes:
    """A streamed response's body, decoded, at most ``limit`` bytes of it held at any time.

    Over the limit: BadResponse when ``refuse``, else the first ``limit`` bytes (an error body,
    read only for its message). A content-encoding other than gzip or deflate is refused."""
    over = "the most this request can need: n, max_tokens and logprobs bound it; a server fault"
    if response.is_stream_consumed:  # built from bytes (a test transport's answer): decoded already
        body = BoundedBody(limit, refuse=refuse, over=over)
        body.feed(response.content)
        return body.finish()
    body = BoundedBody(limit, response.headers.get("content-encoding", ""), refuse=refuse, over=over)
    async for chunk in response.aiter_raw():
        if not body.feed(chunk):
            break
    return body.finish()
