"""The two kinds of signal source the Scorer runs: LLM judges and local (in-process) signals.

Built-in and third-party sources alike are built by the factories of :mod:`trustscore.signals._registry`.

Both return a :class:`~trustscore._types.Signal`; a source that cannot answer returns a missing
signal with its reason instead of raising. Only cancellation propagates.

Optional capabilities are protocols of their own, checked with ``isinstance``: a source that
declares its kind (:class:`DeclaresKind`), a local signal whose results may be cached
(:class:`CachedSignal`) or that checks a question alone (:class:`FamiliarityCheck`). A structural
protocol gives no defaults to the classes that match it, so a capability that is a protocol of its
own asks nothing of a source that does not have it.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from trustscore._types import Sample, Signal
from trustscore.llm._protocol import LLM

__all__ = ["CachedSignal", "DeclaresKind", "FamiliarityCheck", "Judge", "LocalSignal", "SignalKind"]

SignalKind = Literal["judge", "local"]
"""A judge (``run(sample, llm)``) or a local signal (``run(sample)``)."""


@runtime_checkable
class Judge(Protocol):
    """An LLM judge. Prompt building and parsing are pure functions beside it.

    A judge never sleeps, retries or caches: the :class:`~trustscore.llm._protocol.LLM` does.
    """

    name: str
    version: str
    """Content hash of the prompt template(s) and parsing rules: calibrators are tied to it."""

    async def run(self, sample: Sample, llm: LLM) -> Signal: ...


@runtime_checkable
class LocalSignal(Protocol):
    """A signal computed in this process (CPU features, a local model's internals).

    Blocking work runs in a worker thread behind the source's own limiter.
    """

    name: str
    version: str

    async def run(self, sample: Sample) -> Signal: ...


@runtime_checkable
class DeclaresKind(Protocol):
    """A source that says which kind it is: ``kind = "judge"`` for a :class:`Judge`, ``kind =
    "local"`` for a :class:`LocalSignal`. Where judges and local signals come in one list
    (``Scorer(signals=[...])``) this is how each is told apart; the built-ins declare it. A source
    built by a registered factory, or passed in ``judges=[...]`` / ``local_signals=[...]``, needs it
    not: its kind is known there."""

    kind: SignalKind


@runtime_checkable
class CachedSignal(LocalSignal, Protocol):
    """A local signal whose results the Scorer may cache on disk: ``cache_identity()`` names everything
    besides the sample that its result depends on (None: do not cache). It may block (hash a weights
    file)."""

    def cache_identity(self) -> str | None: ...


@runtime_checkable
class FamiliarityCheck(LocalSignal, Protocol):
    """A local signal that can also judge a question alone, before any response exists
    (Self-Familiarity): what :meth:`trustscore.Scorer.familiarity` calls."""

    async def familiarity(self, question: str) -> Signal: ...
