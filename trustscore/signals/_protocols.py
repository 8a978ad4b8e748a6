"""The two kinds of signal source the Scorer runs: LLM judges and local (in-process) signals.

Built-in and third-party sources alike are built by the factories of :mod:`trustscore.signals._registry`.

Both return a :class:`~trustscore.types.Signal`; a source that cannot answer returns a missing
signal with its reason instead of raising. Only cancellation propagates.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from trustscore.llm.protocol import LLM
from trustscore.types import Sample, Signal

__all__ = ["CachedSignal", "FamiliarityCheck", "Judge", "LocalSignal"]


@runtime_checkable
class Judge(Protocol):
    """An LLM judge. Prompt building and parsing are pure functions beside it.

    A judge never sleeps, retries or caches: the :class:`~trustscore.llm.protocol.LLM` does.
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
