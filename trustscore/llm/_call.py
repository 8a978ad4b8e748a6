"""What one LLM call runs under and what it cost: the call context, passed down with the request, and
the call's usage record.

A :class:`CallContext` rides on the request (:meth:`~trustscore.llm._protocol.ChatRequest.within`)
as httpx carries per-request policy in ``request.extensions``: the LLM client and its backend read it,
an LLM that does not know it ignores it. The Scorer hands a judge one LLM, bound to the context of the
signal's run on the sample (:class:`~trustscore.scoring._runners.SourceRun`).

Every call has one :class:`CallUsage` record. The bound LLM opens it in the run's :class:`UsageLog`
and hands it down in the context; the :class:`~trustscore.llm._client.LLMClient` keeps it up to date as
requests go out, so a call cut off by a deadline, which hands nothing back, still shows what it sent.
A call that ends hands its usage back (``ChatResult.usage``, ``LLMError.usage``) and the bound LLM
settles the record with it: the same figure for the client, the only one for an LLM that counts
nothing live (a user's own). The log sums its records; :func:`with_usage` is the one place usage is
written onto a result.

A request counts once it reached the server. A backend that can tell (the HTTP backend: its request
body was written, or a response came back) marks the record's attempt in progress; an attempt cut
before that (waiting for a connection, connecting) counts as ``unsent``. A backend that reports
nothing has every attempt counted as sent.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel

from trustscore._types import Usage

if TYPE_CHECKING:
    from trustscore.compute._deadline import Deadline
    from trustscore.llm._scheduling import Ticket

__all__ = ["CallContext", "CallUsage", "UsageLog", "with_usage"]


class CallUsage:
    """What one LLM call has cost so far; ``usage()`` is the record's figure."""

    def __init__(self) -> None:
        self.requests = 0
        self.unsent = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cache_hits = 0
        self.started = time.perf_counter()
        self.ended: float | None = None
        self._settled: Usage | None = None
        self._tracked = False
        self._reached = False

    def begin_attempt(self) -> None:
        self._tracked = self._reached = False

    def track_delivery(self) -> None:
        """A backend says it reports whether the attempt in progress reached the server."""
        self._tracked = True

    def delivered(self) -> None:
        """The attempt in progress reached the server."""
        self._reached = True

    def end_attempt(self) -> None:
        """Count the attempt, however it ended (a deadline's cancellation included)."""
        if self._reached or not self._tracked:
            self.requests += 1
        else:
            self.unsent += 1

    def finish(self) -> None:
        self.ended = time.perf_counter()

    def settle(self, usage: Usage) -> None:
        """The usage the call handed back, which is then its cost."""
        self._settled = usage

    def usage(self) -> Usage:
        """The cost so far; ``seconds`` runs until :meth:`finish` (or now, for a call still running)."""
        if self._settled is not None:
            return self._settled
        end = self.ended if self.ended is not None else time.perf_counter()
        return Usage(
            requests=self.requests,
            unsent=self.unsent,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cache_hits=self.cache_hits,
            seconds=end - self.started,
        )


class UsageLog:
    """The records of every LLM call of one run (a signal on a sample), finished or cut off."""

    def __init__(self) -> None:
        self._records: list[CallUsage] = []

    def open(self) -> CallUsage:
        record = CallUsage()
        self._records.append(record)
        return record

    @property
    def saw_calls(self) -> bool:
        return bool(self._records)

    def total(self) -> Usage:
        return Usage.total([record.usage() for record in self._records])


@dataclass(frozen=True)
class CallContext:
    """What one LLM call runs under, handed down explicitly with its request: the Scorer makes one
    per signal of a sample; every field may be left out (a call outside any sample)."""

    deadline: Deadline | None = None
    """The sample's time budget: an attempt waits no longer than what is left of it."""
    ticket: Ticket | None = None
    """The sample's place in line: its requests queue for a slot by the sample's age."""
    signal: str | None = None
    """The signal that asks, named on the call's telemetry."""
    capture_content: bool | None = None
    """The Scorer's ``[telemetry] capture_content`` (None: the environment variable decides)."""
    record: CallUsage | None = None
    """The call's usage record, kept up to date by the client and its backend."""


_Result = TypeVar("_Result", bound=BaseModel)


def with_usage(result: _Result, usage: Usage) -> _Result:
    """``result`` (a call's ChatResult, a signal) carrying ``usage``: the one place usage is written
    onto a result."""
    return result.model_copy(update={"usage": usage})
