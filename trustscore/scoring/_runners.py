"""One signal source as the Scorer runs it: a judge bound to its LLM, a local signal, or a placeholder
for one that cannot run here. Whatever a source raises becomes a missing signal with the reason;
only cancellation propagates, so one failing judge never loses the others. A local signal whose model
did not load raises :class:`~trustscore._errors.ModelLoadError`: its sample is then incomplete, so a
rerun (``--retry-incomplete``) scores it again.

Each run of a source on a sample has its :class:`SourceRun`: the records of its LLM calls, one per
call (a :class:`~trustscore.llm._call.UsageLog`), summed into the signal's usage, and the failures a
rerun may fix."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import anyio

from trustscore._errors import (
    BudgetExceeded,
    ClientError,
    ConfigError,
    LLMError,
    ModelLoadError,
    UnsafeCacheEntry,
)
from trustscore._types import Sample, Signal, Usage
from trustscore.llm._call import CallContext, UsageLog, with_usage
from trustscore.llm._protocol import LLM, ChatRequest, ChatResult, WrappedLLM
from trustscore.signals._protocols import CachedSignal, FamiliarityCheck, Judge, LocalSignal

if TYPE_CHECKING:
    from trustscore.scoring._local_cache import LocalCache

__all__ = [
    "BoundLLM",
    "CallsLLM",
    "JudgeSource",
    "LocalSource",
    "Source",
    "SourceRun",
    "UnavailableSource",
    "check_question_alone",
    "run_guarded",
]

logger = logging.getLogger("trustscore")


class BoundLLM(WrappedLLM):
    """``llm`` with the context of one run: every call opens a record in ``log`` and carries it down;
    ``on_failure`` sees each failed call's error before it propagates."""

    def __init__(
        self,
        llm: LLM,
        log: UsageLog,
        context: CallContext | None = None,
        on_failure: Callable[[LLMError], None] | None = None,
    ) -> None:
        super().__init__(llm)
        self._log = log
        self._context = context if context is not None else CallContext()
        self._on_failure = on_failure

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        record = self._log.open()
        try:
            result = await self._llm.generate(
                request.within(replace(self._context, record=record)), cache=cache
            )
        except LLMError as e:
            record.settle(e.usage)
            if self._on_failure is not None:
                self._on_failure(e)
            raise
        record.settle(result.usage)
        return result


@runtime_checkable
class CallsLLM(Protocol):
    """A local signal whose work calls LLMs: the Scorer runs it bound to each run, every LLM it holds
    handed through ``bind`` (:meth:`SourceRun.bind`), so its calls are counted there."""

    def bound(self, bind: Callable[[LLM], LLM]) -> LocalSignal: ...


class SourceRun:
    """One source's run on one sample: ``context``, handed to every LLM call it makes, ``calls``, the
    record of each of those calls (those cut off by a deadline included), and ``transient``, why it
    failed in ways a rerun may fix (server down or busy, no key)."""

    def __init__(self, context: CallContext | None = None) -> None:
        self.context = context if context is not None else CallContext()
        """What the run's LLM calls run under: the sample's deadline and ticket, the signal's name."""
        self.calls = UsageLog()
        self.transient: list[str] = []

    def bind(self, llm: LLM) -> LLM:
        """``llm`` with this run's context: its calls are recorded here, failures a rerun may fix noted."""
        return BoundLLM(llm, self.calls, self.context, on_failure=self._note)

    def counted(self, signal: Signal) -> Signal:
        """``signal`` with its usage the sum of the run's call records, where it made LLM calls: every
        request sent, those of calls cut off included. Where it made none, the signal's own usage
        stands: the work of a local model, which no record sees."""
        if not self.calls.saw_calls:
            return signal
        return with_usage(signal, self.calls.total())

    def _note(self, error: LLMError) -> None:
        if _rerun_may_fix(error):
            self.transient.append(error.reason)


class Source(ABC):
    """One named signal the Scorer runs."""

    is_judge = False

    def __init__(
        self, name: str, version: str | None, timeout_s: float | None = None, timeout_setting: str = ""
    ) -> None:
        self.name = name
        self.version = version
        self.timeout_s = timeout_s
        self.timeout_setting = timeout_setting

    @abstractmethod
    async def run(self, sample: Sample, run: SourceRun) -> Signal:
        """The signal; failures a rerun may fix are noted in ``run``."""


class JudgeSource(Source):
    is_judge = True

    def __init__(self, judge: Judge, llm: LLM, timeout_s: float | None) -> None:
        super().__init__(judge.name, judge.version, timeout_s, f"judges.{judge.name}.timeout_s")
        self.judge = judge
        self.llm = llm

    async def run(self, sample: Sample, run: SourceRun) -> Signal:
        return await self.judge.run(sample, run.bind(self.llm))


class LocalSource(Source):
    """A local signal; with a cache, the result of a signal that has a ``cache_identity()`` is read
    from it and stored in it (successful results only)."""

    def __init__(self, signal: LocalSignal, cache: LocalCache | None = None) -> None:
        super().__init__(signal.name, signal.version)
        self.signal = signal
        self._cache = cache if isinstance(signal, CachedSignal) else None

    async def run(self, sample: Sample, run: SourceRun) -> Signal:
        if isinstance(self.signal, CallsLLM):  # its LLM calls run in this run's context
            return await self.signal.bound(run.bind).run(sample)
        cache = self._cache
        if cache is None:
            return await self.signal.run(sample)
        key, hit = await anyio.to_thread.run_sync(self._lookup, sample, cache)
        if hit is not None:
            return hit
        signal = await self.signal.run(sample)
        if key is not None and isinstance(signal, Signal) and signal.version == self.version:
            await anyio.to_thread.run_sync(cache.put_signal, key, signal)
        return signal

    def _lookup(self, sample: Sample, cache: LocalCache) -> tuple[str | None, Signal | None]:
        """The sample's key and the stored result (None on a miss), in one worker-thread hop: every hop
        costs the event loop time, and a cold run makes one per local signal and sample."""
        from trustscore.scoring._local_cache import sample_key

        identity = self.signal.cache_identity()  # type: ignore[attr-defined]
        if identity is None:
            return None, None
        key = sample_key(identity, sample)
        return key, cache.get_signal(key, self.signal.name, self.version)


class UnavailableSource(Source):
    """A configured signal that could not be set up (missing API key, missing extra): always missing.

    ``judge``: it stands for an LLM judge. ``transient``: a rerun may fix it without changing the
    config (an API key not exported yet). ``not_installed``: its extra is missing.
    """

    def __init__(
        self, name: str, reason: str, *, judge: bool, transient: bool = False, not_installed: bool = False
    ) -> None:
        super().__init__(name, None)
        self.reason = reason
        self.is_judge = judge
        self.transient = transient
        self.not_installed = not_installed
        """Its optional extra is not installed: the shipped calibrators are chosen as if it were not
        configured (an on-by-default signal of an extra the user never installed does not cost them
        the calibrated fusion of the others)."""

    async def run(self, sample: Sample, run: SourceRun) -> Signal:
        if self.transient:
            run.transient.append(self.reason)
        return Signal.failed(self.name, self.reason)


def _rerun_may_fix(error: LLMError) -> bool:
    """Transport and credential failures: the server was down, busy or slow, or refused the key."""
    return error.retryable or (isinstance(error, ClientError) and error.status in (401, 403))


async def run_guarded(source: Source, sample: Sample, run: SourceRun) -> Signal:
    """Run one source; every exception becomes a missing signal, with the usage its calls' records
    sum to. Cancellation propagates."""
    return run.counted(await _guarded(source, sample, run))


async def _guarded(source: Source, sample: Sample, run: SourceRun) -> Signal:
    try:
        if source.timeout_s is None:
            signal = await source.run(sample, run)
        else:
            with anyio.fail_after(source.timeout_s):
                signal = await source.run(sample, run)
    except BudgetExceeded:
        raise  # blocking work stopped by the score budget: the caller reports it as cut
    except TimeoutError:
        run.transient.append("timeout")
        return Signal.failed(source.name, f"timed out after {source.timeout_s:g}s ({source.timeout_setting})")
    except Exception as e:
        leaves = _leaves(e)
        cut = next((leaf for leaf in leaves if isinstance(leaf, BudgetExceeded)), None)
        if cut is not None:
            raise cut from None  # cut inside a task group of the source: still a budget cut
        logger.debug("signal %s failed", source.name, exc_info=True)
        reason, usage = _failure(leaves)
        if any(isinstance(leaf, ModelLoadError | UnsafeCacheEntry) for leaf in leaves):
            # A model that did not load may load on the next run; a cache entry trustscore did not
            # write is replaced by --retry-incomplete.
            run.transient.append(reason)
        return Signal.failed(source.name, reason, usage=usage)
    if not isinstance(signal, Signal):
        return Signal.failed(source.name, f"returned a {type(signal).__name__}, not a trustscore.Signal")
    if signal.name != source.name:
        signal = signal.model_copy(update={"name": source.name})
    return signal


def _failure(leaves: list[BaseException]) -> tuple[str, Usage]:
    """A readable reason (and the usage the errors carry: the signal's own figure, which stands where
    no record saw its calls) for a source's failure, from the errors it raised. A
    source that fans out with a task group raises its failures wrapped in (nested) exception groups:
    the reason names the failures inside (:func:`_leaves`), never the group ("unhandled errors in a
    TaskGroup")."""
    reasons = list(dict.fromkeys(_reason(leaf) for leaf in leaves))
    usage = Usage.total([leaf.usage for leaf in leaves if isinstance(leaf, LLMError)])
    if len(leaves) == 1:
        return reasons[0], usage
    shown = "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "")
    return f"{len(leaves)} parallel calls failed: {shown}", usage


def _leaves(error: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups; ``[error]`` for a plain one."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _reason(error: BaseException) -> str:
    return error.reason if isinstance(error, LLMError) else f"{type(error).__name__}: {error}"


async def check_question_alone(sources: Sequence[Source], question: str) -> Signal:
    """The first local signal of ``sources`` that checks a question alone (a FamiliarityCheck), run
    on ``question`` in a run of its own; a ConfigError naming what to configure when there is none."""
    local = (s for s in sources if isinstance(s, LocalSource))
    found = next(((s.name, s.signal) for s in local if isinstance(s.signal, FamiliarityCheck)), None)
    if found is None:
        unavailable = "".join(
            f"; {s.name} is unavailable here: {s.reason}"
            for s in sources
            if isinstance(s, UnavailableSource) and not s.is_judge
        )
        raise ConfigError(
            "no signal of this Scorer checks a question alone: add [signals.familiarity] (with "
            f"model_path, or an endpoint for the generator){unavailable}"
        )
    name, check = found
    run = SourceRun()
    if isinstance(check, CallsLLM):
        check = check.bound(run.bind)  # type: ignore[assignment]
    try:
        result: Signal = await check.familiarity(question)
    except LLMError as e:
        result = Signal.failed(name, e.reason, usage=e.usage)
    return run.counted(result)
