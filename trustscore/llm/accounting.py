"""Live accounting of LLM calls: what a signal has cost so far, even when it is cut off mid-call.

An LLM call that ends hands its usage back (``ChatResult.usage``, ``LLMError.usage``). A call
cancelled by a deadline hands nothing back, yet its requests were sent and the server did the work.
So :class:`~trustscore.llm.client.LLMClient` also enters each call's :class:`CallTally` into the
current :class:`UsageMeter` (a context variable: tasks a signal spawns inherit it) and updates it
as requests go out. The Scorer puts one meter around each signal and reads it when the signal ends,
however it ends.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from types import TracebackType

from trustscore.types import Usage

__all__ = ["CallTally", "UsageMeter"]

_current: ContextVar[UsageMeter | None] = ContextVar("trustscore_usage_meter", default=None)


class CallTally:
    """What one LLM call has cost so far. Made by the client; entered into the current meter."""

    def __init__(self) -> None:
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_hits = 0
        self.started = time.perf_counter()
        self.ended: float | None = None
        meter = _current.get()
        if meter is not None:
            meter.calls.append(self)

    def finish(self) -> None:
        self.ended = time.perf_counter()

    def usage(self) -> Usage:
        """The cost so far; ``seconds`` runs until :meth:`finish` (or now, for a call still running)."""
        end = self.ended if self.ended is not None else time.perf_counter()
        return Usage(
            requests=self.requests,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cache_hits=self.cache_hits,
            seconds=end - self.started,
        )


class UsageMeter:
    """Every LLM call made while this meter is current (``with meter:``), finished or not."""

    def __init__(self) -> None:
        self.calls: list[CallTally] = []
        self._token: object = None

    @property
    def saw_calls(self) -> bool:
        """Some call reported here (a client that does not report leaves the meter empty)."""
        return bool(self.calls)

    def usage(self) -> Usage:
        return Usage.total([call.usage() for call in self.calls])

    def __enter__(self) -> UsageMeter:
        self._token = _current.set(self)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _current.reset(self._token)  # type: ignore[arg-type]
