"""One signal source as the Scorer runs it: a judge bound to its LLM, a local signal, or a placeholder
for one that cannot run here. Whatever a source raises becomes a missing signal with the reason;
only cancellation propagates, so one failing judge never loses the others."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Literal

import anyio

from trustscore.errors import LLMError
from trustscore.llm.protocol import LLM, ChatRequest, ChatResult
from trustscore.sources import Judge, LocalSignal
from trustscore.types import Sample, Signal, Usage

__all__ = ["JudgeSource", "LocalSource", "Source", "UnavailableSource", "run_guarded"]

logger = logging.getLogger("trustscore")


class Source(ABC):
    """One named signal the Scorer runs."""

    def __init__(
        self, name: str, version: str | None, timeout_s: float | None = None, timeout_setting: str = ""
    ) -> None:
        self.name = name
        self.version = version
        self.timeout_s = timeout_s
        self.timeout_setting = timeout_setting

    @abstractmethod
    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        """The signal; LLM calls that complete on the way are recorded in ``spent``, so a run cut
        off by a deadline still reports what it cost."""


class _MeteredLLM:
    """An LLM that records the usage of every completed call (failed ones included)."""

    def __init__(self, llm: LLM, spent: list[Usage]) -> None:
        self._llm = llm
        self._spent = spent

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
        try:
            result = await self._llm.generate(request, cache=cache)
        except LLMError as e:
            self._spent.append(e.usage)
            raise
        self._spent.append(result.usage)
        return result


class JudgeSource(Source):
    def __init__(self, judge: Judge, llm: LLM, timeout_s: float | None) -> None:
        super().__init__(judge.name, judge.version, timeout_s, f"judges.{judge.name}.timeout_s")
        self.judge = judge
        self.llm = llm

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return await self.judge.run(sample, _MeteredLLM(self.llm, spent))


class LocalSource(Source):
    def __init__(self, signal: LocalSignal) -> None:
        super().__init__(signal.name, signal.version)
        self.signal = signal

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return await self.signal.run(sample)


class UnavailableSource(Source):
    """A configured signal that could not be set up (missing API key, missing extra): always missing."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(name, None)
        self.reason = reason

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return Signal.failed(self.name, self.reason)


async def run_guarded(source: Source, sample: Sample, spent: list[Usage]) -> Signal:
    """Run one source; every exception becomes a missing signal. Cancellation propagates."""
    try:
        if source.timeout_s is None:
            signal = await source.run(sample, spent)
        else:
            with anyio.fail_after(source.timeout_s):
                signal = await source.run(sample, spent)
    except TimeoutError:
        return Signal.failed(
            source.name,
            f"timed out after {source.timeout_s:g}s ({source.timeout_setting})",
            usage=Usage.total(spent),
        )
    except Exception as e:
        logger.debug("signal %s failed", source.name, exc_info=True)
        cause = _sole_cause(e)
        if isinstance(cause, LLMError):
            return Signal.failed(source.name, cause.reason, usage=cause.usage)
        return Signal.failed(source.name, f"{type(cause).__name__}: {cause}")
    if not isinstance(signal, Signal):
        return Signal.failed(source.name, f"returned a {type(signal).__name__}, not a trustscore.Signal")
    if signal.name != source.name:
        signal = signal.model_copy(update={"name": source.name})
    return signal


def _sole_cause(error: Exception) -> Exception:
    """The one error inside (nested) single-error groups: a source that fans out with a task group
    raises its failure wrapped, and the reason should name the failure, not the group."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
