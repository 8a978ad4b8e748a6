"""Live accounting of LLM calls: what a signal has cost so far, even when it is cut off mid-call.

The :class:`UsageMeter` is the one count of what a signal's LLM calls cost. An LLM call that ends
hands its usage back (``ChatResult.usage``, ``LLMError.usage``); a call cancelled by a deadline
hands nothing back, yet its requests were sent and the server did the work. So
:class:`~trustscore.llm._client.LLMClient` enters each call's :class:`CallTally` into the current
meter (a context variable: tasks a signal spawns inherit it) and updates it as requests go out. A
meter entered while another is current is one of its parts: the Scorer puts one meter around each
signal, and one inside it around each call of an LLM it handed a judge, which it settles with the
usage the call handed back (the figure of an LLM that counts nothing live, such as a user's own).

A request counts once it reached the server. Each attempt runs inside a :class:`Delivery`; a
backend that can tell (the HTTP backend: its request body was written, or a response came back)
marks it, and an attempt cut before that (waiting for a connection, connecting) counts as
``unsent`` instead. A backend that reports nothing has every attempt counted as sent.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from types import TracebackType

from trustscore._types import Usage

__all__ = ["CallTally", "Delivery", "UsageMeter"]

_current: ContextVar[UsageMeter | None] = ContextVar("trustscore_usage_meter", default=None)
_delivery: ContextVar[Delivery | None] = ContextVar("trustscore_delivery", default=None)


class Delivery:
    """Whether the attempt in progress reached the server: ``with Delivery() as d: await send()``."""

    def __init__(self) -> None:
        self.tracked = False
        """A backend said it reports delivery (until then every attempt counts as sent)."""
        self.reached = False
        self._token: object = None

    @property
    def sent(self) -> bool:
        return self.reached or not self.tracked

    @staticmethod
    def current() -> Delivery | None:
        """The attempt's delivery, for a backend to mark (None outside an LLMClient attempt)."""
        return _delivery.get()

    def __enter__(self) -> Delivery:
        self._token = _delivery.set(self)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _delivery.reset(self._token)  # type: ignore[arg-type]


class CallTally:
    """What one LLM call has cost so far. Made by the client; entered into the current meter."""

    def __init__(self) -> None:
        self.requests = 0
        self.unsent = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_hits = 0
        self.started = time.perf_counter()
        self.ended: float | None = None
        meter = _current.get()
        if meter is not None:
            meter._parts.append(self)

    def finish(self) -> None:
        self.ended = time.perf_counter()

    def usage(self) -> Usage:
        """The cost so far; ``seconds`` runs until :meth:`finish` (or now, for a call still running)."""
        end = self.ended if self.ended is not None else time.perf_counter()
        return Usage(
            requests=self.requests,
            unsent=self.unsent,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cache_hits=self.cache_hits,
            seconds=end - self.started,
        )


class UsageMeter:
    """Every LLM call made while this meter is current (``with meter:``), finished or not, and the
    meters entered inside it."""

    def __init__(self) -> None:
        self._parts: list[CallTally | UsageMeter] = []
        self._settled: Usage | None = None
        self._token: object = None

    @staticmethod
    def current() -> UsageMeter | None:
        """The meter LLM calls report to now (None outside every meter)."""
        return _current.get()

    @property
    def saw_calls(self) -> bool:
        """Some call reported here (a client that does not report leaves the meter empty)."""
        return self._settled is not None or any(
            isinstance(part, CallTally) or part.saw_calls for part in self._parts
        )

    def settle(self, usage: Usage) -> None:
        """For a meter around one call: the usage the call handed back, which is then its cost. An LLM
        that counts as it goes hands back what it counted; one that does not counted nothing here."""
        self._settled = usage

    def usage(self) -> Usage:
        if self._settled is not None:
            return self._settled
        return Usage.total([part.usage() for part in self._parts])

    def __enter__(self) -> UsageMeter:
        outer = _current.get()
        if outer is not None:
            outer._parts.append(self)
        self._token = _current.set(self)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _current.reset(self._token)  # type: ignore[arg-type]
