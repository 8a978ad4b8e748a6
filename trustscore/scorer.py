"""The Scorer: runs every configured signal on a sample concurrently, then fuses them into one score.

    scorer = Scorer.from_config("trustscore.toml")
    result = await scorer.score(question=q, context=[p1, p2], response=r)

Every signal runs in its own task of one anyio task group. A source that raises becomes a missing
signal with the reason; only cancellation propagates, so one failing judge never loses the others.
An overall time budget (``limits.score_budget_s``) bounds the whole call: signals still running when
it ends are reported missing and the result is marked incomplete.
"""

from __future__ import annotations

import inspect
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, overload

import anyio
from anyio.lowlevel import RunVar
from pydantic import ValidationError

from trustscore.config import Config, ConfigError
from trustscore.fusion.fuser import DefaultFuser, Fuser
from trustscore.llm.accounting import UsageMeter
from trustscore.llm.limits import AdaptiveLimiter
from trustscore.llm.pool import PoolCapacity
from trustscore.llm.protocol import LLM, ChatRequest, ChatResult, LLMError
from trustscore.llm.scheduling import SampleAdmission, Ticket, sample_ticket
from trustscore.sources import Judge, LocalSignal
from trustscore.types import Sample, Signal, TrustScore, Usage

if TYPE_CHECKING:
    import httpx

    from trustscore.llm.cache import ResponseCache

__all__ = ["ResultCallback", "Scorer", "default_scorer", "make_sample", "score", "validate_sample"]

logger = logging.getLogger("trustscore")

ResultCallback = Callable[[int, TrustScore], Awaitable[None] | None]
"""Called as each sample of ``score_many`` finishes, in completion order, with its input index."""


# ---------------------------------------------------------------------------------------------
# Input validation


_FIELD_FIXES = {
    "question": "pass the user's question as a string",
    "context": "pass the retrieved passages as a string or a list of strings",
    "response": "pass the model's answer text as a non-empty string",
    "id": "pass the sample id as a string (or leave it out)",
    "metadata": "pass metadata as a dict",
}


def make_sample(
    *,
    question: Any,
    response: Any,
    context: Any = None,
    id: Any = None,
    metadata: Mapping[str, Any] | None = None,
) -> Sample:
    """Build a :class:`Sample`, turning pydantic's errors into one ValueError naming field and fix."""
    data: dict[str, Any] = {"question": question, "context": context, "response": response, "id": id}
    if metadata is not None:
        data["metadata"] = dict(metadata)
    return validate_sample(data, where="")


def validate_sample(data: Mapping[str, Any], *, where: str = "") -> Sample:
    """A :class:`Sample` from a dict; errors name the field (prefixed by ``where``) and the fix."""
    try:
        return Sample.model_validate(data)
    except ValidationError as e:
        raise ValueError(_explain_sample_error(e, where)) from None


def _explain_sample_error(e: ValidationError, where: str) -> str:
    lines = []
    for err in e.errors():
        loc = [str(p) for p in err["loc"]]
        field = loc[0] if loc else "(sample)"
        path = field + "".join(f"[{p}]" for p in loc[1:])
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "is required"
        elif err["type"] == "extra_forbidden":
            msg = "is not a Sample field"
        fix = _FIELD_FIXES.get(field, "see trustscore.Sample for the fields")
        lines.append(f"{where}{path}: {msg} (got {_describe(err.get('input'))}); {fix}")
    return "invalid sample: " + "; ".join(lines)


def _describe(value: Any) -> str:
    if value is None:
        return "None"
    text = repr(value)
    return f"{type(value).__name__} {text[:40] + '...' if len(text) > 40 else text}"


def _coerce_sample(item: Sample | Mapping[str, Any], index: int) -> Sample:
    if isinstance(item, Sample):
        return item
    if isinstance(item, Mapping):
        return validate_sample(item, where=f"samples[{index}].")
    raise TypeError(
        f"samples[{index}] is a {type(item).__name__}; pass a trustscore.Sample or a dict with "
        f"question, context and response"
    )


# ---------------------------------------------------------------------------------------------
# Signal sources as the Scorer runs them


class _Source(ABC):
    """One named signal the Scorer runs: a judge bound to its LLM, a local signal, or a placeholder."""

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


class _JudgeSource(_Source):
    def __init__(self, judge: Judge, llm: LLM, timeout_s: float | None) -> None:
        super().__init__(judge.name, judge.version, timeout_s, f"judges.{judge.name}.timeout_s")
        self.judge = judge
        self.llm = llm

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return await self.judge.run(sample, _MeteredLLM(self.llm, spent))


class _LocalSource(_Source):
    def __init__(self, signal: LocalSignal) -> None:
        super().__init__(signal.name, signal.version)
        self.signal = signal

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return await self.signal.run(sample)


class _UnavailableSource(_Source):
    """A configured signal that could not be set up (missing API key, missing extra): always missing."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(name, None)
        self.reason = reason

    async def run(self, sample: Sample, spent: list[Usage]) -> Signal:
        return Signal.failed(self.name, self.reason)


async def _run_guarded(source: _Source, sample: Sample, spent: list[Usage]) -> Signal:
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
        reason, usage = _failure(e)
        return Signal.failed(source.name, reason, usage=usage)
    if not isinstance(signal, Signal):
        return Signal.failed(source.name, f"returned a {type(signal).__name__}, not a trustscore.Signal")
    if signal.name != source.name:
        signal = signal.model_copy(update={"name": source.name})
    return signal


def _metered(signal: Signal, meter: UsageMeter, *, finished: bool = True) -> Signal:
    """``signal`` with the requests, tokens and cache hits its LLM calls reported to ``meter``: every
    request sent, including those of calls cut off by a deadline (which hand back no usage) and of
    signals that count their own usage incompletely. ``seconds`` stays the signal's own measure when
    it ``finished``; for a signal cut off, it is the time its calls ran. LLMs that do not report to
    meters leave the signal's own usage."""
    if not meter.saw_calls:
        return signal
    usage = meter.usage()
    if finished:
        usage = usage.model_copy(update={"seconds": signal.usage.seconds})
    return signal.model_copy(update={"usage": usage})


def _limiters_of(llms: Iterable[LLM]) -> list[AdaptiveLimiter | PoolCapacity]:
    """The adaptive limiters (or replica pools) behind these LLMs (LLMs without one do not take part
    in admission)."""
    limiters = [getattr(llm, "capacity", None) for llm in llms]
    return [limiter for limiter in limiters if isinstance(limiter, AdaptiveLimiter | PoolCapacity)]


def _failure(error: Exception) -> tuple[str, Usage]:
    """A readable reason (and the LLM usage) for a source's failure. A source that fans out with a
    task group raises its failures wrapped in (nested) exception groups: the reason names the
    failures inside, never the group ("unhandled errors in a TaskGroup")."""
    leaves = _leaves(error)
    reasons = list(dict.fromkeys(_reason(leaf) for leaf in leaves))
    usage = Usage.total([leaf.usage for leaf in leaves if isinstance(leaf, LLMError)])
    if len(leaves) == 1:
        return reasons[0], usage
    shown = "; ".join(reasons[:3]) + ("; ..." if len(reasons) > 3 else "")
    return f"{len(leaves)} parallel calls failed: {shown}", usage


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _reason(error: BaseException) -> str:
    return error.reason if isinstance(error, LLMError) else f"{type(error).__name__}: {error}"


# ---------------------------------------------------------------------------------------------
# Building sources from a Config (imports are lazy: heavy modules load only when enabled)


_EXTRA_FOR = {"embedding": "embed", "redeep": "whitebox", "familiarity": "whitebox"}
_SECTION_OF = {
    "lexical": "grounding",
    "embedding": "grounding",
    "redeep": "whitebox.redeep",
    "familiarity": "whitebox.familiarity",
}


def _build_llms(
    config: Config,
    names: Iterable[str],
    transport: httpx.AsyncBaseTransport | None,
) -> tuple[dict[str, LLM], dict[str, str], ResponseCache | None]:
    """One LLM client per named endpoint, sharing one response cache (unless the cache is off).

    Endpoints whose API key is missing are reported as unavailable instead of built.
    """
    llms: dict[str, LLM] = {}
    unavailable: dict[str, str] = {}
    wanted: list[str] = []
    for name in dict.fromkeys(names):
        if name not in config.endpoints:
            continue
        try:
            config.endpoints[name].api_key()
        except ValueError as e:
            unavailable[name] = str(e)
            logger.warning("endpoints.%s is unavailable: %s", name, e)
        else:
            wanted.append(name)
    if not wanted:
        return llms, unavailable, None
    from trustscore.llm.client import LLMClient
    from trustscore.llm.limits import LimiterPool

    cache = None
    if config.cache.mode != "off":
        from trustscore.llm.cache import ResponseCache

        cache = ResponseCache(config.cache)
    limiters = LimiterPool()
    for name in wanted:
        endpoint = config.endpoints[name]
        llms[name] = LLMClient(endpoint, cache=cache, transport=transport, limiters=limiters)
    return llms, unavailable, cache


def _build_judge(name: str, config: Config) -> Judge:
    from trustscore.judges import build_judge

    try:
        return build_judge(name, getattr(config.judges, name))
    except (KeyError, ValueError) as e:
        raise ConfigError(f"judges.{name}: {e}") from e


def _local_signal_factories(
    config: Config, familiarity_llm: LLM | None
) -> dict[str, Callable[[], LocalSignal]]:
    """The local signals the config enables, by registry name, each as a lazy constructor."""
    factories: dict[str, Callable[[], LocalSignal]] = {}
    if config.grounding.lexical:

        def lexical() -> LocalSignal:
            from trustscore.grounding.lexical import LexicalSupport

            return LexicalSupport(config.grounding)

        factories["lexical"] = lexical
    if config.grounding.embedding:

        def embedding() -> LocalSignal:
            from trustscore.grounding.embedding import EmbeddingGrounding

            return EmbeddingGrounding(config.grounding)

        factories["embedding"] = embedding
    whitebox = config.whitebox
    if whitebox.model_path is not None and whitebox.redeep.enabled:

        def redeep() -> LocalSignal:
            from trustscore.whitebox.redeep import RedeepSignal

            return RedeepSignal.from_config(whitebox)

        factories["redeep"] = redeep
    if whitebox.familiarity.enabled:

        def familiarity() -> LocalSignal:
            from trustscore.whitebox.familiarity import FamiliaritySignal

            return FamiliaritySignal.from_config(whitebox, familiarity_llm)

        factories["familiarity"] = familiarity
    return factories


def _build_local_sources(config: Config, familiarity_llm: LLM | None) -> list[_Source]:
    sources: list[_Source] = []
    for key, factory in _local_signal_factories(config, familiarity_llm).items():
        try:
            sources.append(_LocalSource(factory()))
        except (ValueError, OSError) as e:
            raise ConfigError(f"{_SECTION_OF[key]}: {e}") from e
        except ImportError as e:
            extra = _EXTRA_FOR.get(key)
            hint = f"; install it with pip install 'trustscore[{extra}]'" if extra else ""
            reason = f"{key} signal is enabled but cannot be loaded ({e}){hint}"
            logger.warning("%s", reason)
            sources.append(_UnavailableSource(key, reason))
    return sources


def _load_fuser(config: Config, signal_versions: Mapping[str, str | None]) -> Fuser:
    """The configured calibrator (checked against these signal versions); else the shipped calibrator
    fitted on exactly these signals and versions (trustscore.calibrators); else the default mean."""
    if config.fusion.calibrator is None:
        from trustscore.calibrators import shipped_calibrator

        return shipped_calibrator(signal_versions) or DefaultFuser()
    from trustscore.fusion import load_fuser

    try:
        fuser: Fuser = load_fuser(config.fusion, signal_versions=signal_versions)
    except ValueError as e:
        raise ConfigError(f"fusion.calibrator: {e}") from e
    return fuser


# ---------------------------------------------------------------------------------------------
# The Scorer


class Scorer:
    """Scores samples with the configured judges and local signals, fused into one TrustScore.

    Everything can be injected instead of built from ``config``: ``judges`` (each bound to the LLM
    of its ``[judges.<name>].endpoint``, or to the only LLM when there is one), ``local_signals``,
    ``llms`` (by endpoint name) and ``fuser``. ``transport`` (an httpx transport) is handed to every
    LLM client the Scorer builds: this is how the test kit's router plugs in.

    A Scorer holds no per-call state: one instance may serve many concurrent ``score`` calls.
    Use ``async with Scorer(...)`` (or ``await scorer.aclose()``) to close the LLM clients it built.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        judges: Sequence[Judge] | None = None,
        local_signals: Sequence[LocalSignal] | None = None,
        llms: Mapping[str, LLM] | None = None,
        fuser: Fuser | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config if config is not None else Config()
        given_llms = dict(llms or {})
        if judges is None:
            judges = [_build_judge(name, self.config) for name in self.config.judges.enabled()]
        judge_endpoints = [self._endpoint_name_for(j.name, given_llms) for j in judges]
        familiarity_endpoint = self._familiarity_endpoint() if local_signals is None else None
        wanted = [*judge_endpoints, familiarity_endpoint]
        built, unavailable, self._owned_cache = _build_llms(
            self.config, [n for n in wanted if n is not None and n not in given_llms], transport
        )
        self._owned_llms = list(built.values())
        self._llms: dict[str, LLM] = {**built, **given_llms}

        sources = [
            self._judge_source(judge, endpoint, unavailable)
            for judge, endpoint in zip(judges, judge_endpoints, strict=True)
        ]
        if local_signals is not None:
            sources.extend(_LocalSource(s) for s in local_signals)
        else:
            familiarity_llm = self._llms.get(familiarity_endpoint) if familiarity_endpoint else None
            sources.extend(_build_local_sources(self.config, familiarity_llm))
        names = [s.name for s in sources]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ConfigError(f"two signal sources share the name(s) {duplicates}; give each a unique name")
        self._sources = sources
        self._fuser = (
            fuser if fuser is not None else _load_fuser(self.config, {s.name: s.version for s in sources})
        )

    @classmethod
    def from_config(
        cls,
        config: str | Path | Config | None = None,
        *,
        no_cache: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> Scorer:
        """Build from a TOML file (or a Config; None = the offline default: local signals only)."""
        cfg = config if isinstance(config, Config) else (Config.from_toml(config) if config else Config())
        if no_cache:
            cfg = cfg.model_copy(update={"cache": cfg.cache.model_copy(update={"mode": "off"})})
        return cls(cfg, transport=transport)

    # -- wiring helpers -----------------------------------------------------------------------

    def _endpoint_name_for(self, judge_name: str, given_llms: Mapping[str, LLM]) -> str | None:
        judge_cfg = getattr(self.config.judges, judge_name, None)
        if judge_cfg is not None:
            endpoint: str = judge_cfg.endpoint
            return endpoint
        candidates = set(given_llms) | set(self.config.endpoints)
        if len(candidates) == 1:
            return next(iter(candidates))
        return None

    def _familiarity_endpoint(self) -> str | None:
        """The endpoint Self-Familiarity asks (concept extraction, remote backend), if any.

        ``[whitebox.familiarity] endpoint`` when set, else the only endpoint.
        """
        familiarity = self.config.whitebox.familiarity
        if not familiarity.enabled:
            return None
        named = familiarity.endpoint
        if named is None and len(self.config.endpoints) == 1:
            named = next(iter(self.config.endpoints))
        return named

    def _judge_source(self, judge: Judge, endpoint: str | None, unavailable: Mapping[str, str]) -> _Source:
        if endpoint is None:
            raise ConfigError(
                f'judge {judge.name!r} has no LLM: add [judges.{judge.name}] endpoint = "..." to the config '
                f"or pass llms={{endpoint_name: llm}}"
            )
        if endpoint in unavailable:
            return _UnavailableSource(judge.name, unavailable[endpoint])
        if endpoint not in self._llms:
            raise ConfigError(
                f"judge {judge.name!r} uses endpoint {endpoint!r}, "
                "which is neither in [endpoints] nor in llms="
            )
        judge_cfg = getattr(self.config.judges, judge.name, None)
        timeout = judge_cfg.timeout_s if judge_cfg is not None else None
        return _JudgeSource(judge, self._llms[endpoint], timeout)

    # -- introspection ------------------------------------------------------------------------

    @property
    def signal_names(self) -> list[str]:
        """The signals every result carries, in order."""
        return [s.name for s in self._sources]

    @property
    def unavailable(self) -> dict[str, str]:
        """Configured signals that cannot run in this environment, and why."""
        return {s.name: s.reason for s in self._sources if isinstance(s, _UnavailableSource)}

    # -- scoring ------------------------------------------------------------------------------

    async def familiarity(self, question: str) -> Signal:
        """Self-Familiarity of ``question`` before any response exists (pre-detection).

        Returns the "familiarity" Signal: how well the generator knows the question's concepts; a
        low value means it is likely to make things up. Needs ``[whitebox.familiarity] enabled``.
        """
        for source in self._sources:
            if source.name != "familiarity":
                continue
            if isinstance(source, _UnavailableSource):
                return Signal.failed(source.name, source.reason)
            signal = source.signal if isinstance(source, _LocalSource) else None
            check = getattr(signal, "familiarity", None)
            if check is None:
                raise TypeError("the 'familiarity' signal source has no familiarity(question) method")
            with UsageMeter() as meter:
                try:
                    result: Signal = await check(question)
                except LLMError as e:
                    result = Signal.failed(source.name, e.reason, usage=e.usage)
            return _metered(result, meter)
        raise ValueError(
            "Self-Familiarity is off: set [whitebox.familiarity] enabled = true (and whitebox.model_path "
            "or an endpoint for the generator)"
        )

    async def score(
        self,
        *,
        question: str,
        response: str,
        context: str | Sequence[str] | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        budget_s: float | None = None,
    ) -> TrustScore:
        """Score one answer. Input errors raise ValueError naming the field; signal failures do not raise."""
        sample = make_sample(question=question, context=context, response=response, id=id, metadata=metadata)
        return await self.score_sample(sample, budget_s=budget_s)

    async def score_sample(self, sample: Sample, *, budget_s: float | None = None) -> TrustScore:
        """Score a validated :class:`Sample` within the time budget (default ``limits.score_budget_s``)."""
        budget = self._budget(budget_s)
        started = time.perf_counter()
        finished: dict[str, Signal] = {}
        spent: dict[str, list[Usage]] = {s.name: [] for s in self._sources}
        meters = {s.name: UsageMeter() for s in self._sources}

        async def run_one(source: _Source) -> None:
            with meters[source.name]:
                finished[source.name] = await _run_guarded(source, sample, spent[source.name])

        with sample_ticket(), anyio.move_on_after(budget):
            async with anyio.create_task_group() as tg:
                for source in self._sources:
                    tg.start_soon(run_one, source)
        timed_out = f"timed out after {budget:g}s budget"
        signals = {
            s.name: _metered(
                finished.get(s.name) or Signal.failed(s.name, timed_out, usage=Usage.total(spent[s.name])),
                meters[s.name],
                finished=s.name in finished,
            )
            for s in self._sources
        }
        fused = self._fuser.predict(signals)
        return TrustScore(
            score=fused.score,
            calibrated=fused.calibrated,
            signals=signals,
            used_signals=list(fused.used),
            fusion=fused.description,
            usage=Usage.total([s.usage for s in signals.values()]),
            seconds=time.perf_counter() - started,
            complete=len(finished) == len(self._sources),
            sample_id=sample.id,
        )

    @overload
    async def score_many(
        self,
        samples: Iterable[Sample | Mapping[str, Any]],
        *,
        progress: bool = ...,
        concurrency: int | None = ...,
        budget_s: float | None = ...,
        return_exceptions: Literal[False] = ...,
        on_result: ResultCallback | None = ...,
    ) -> list[TrustScore]: ...

    @overload
    async def score_many(
        self,
        samples: Iterable[Sample | Mapping[str, Any]],
        *,
        progress: bool = ...,
        concurrency: int | None = ...,
        budget_s: float | None = ...,
        return_exceptions: Literal[True],
        on_result: ResultCallback | None = ...,
    ) -> list[TrustScore | Exception]: ...

    async def score_many(
        self,
        samples: Iterable[Sample | Mapping[str, Any]],
        *,
        progress: bool = False,
        concurrency: int | None = None,
        budget_s: float | None = None,
        return_exceptions: bool = False,
        on_result: ResultCallback | None = None,
    ) -> list[TrustScore] | list[TrustScore | Exception]:
        """Score many samples, at most ``concurrency`` at a time (default ``limits.max_concurrent_samples``).

        Results come back in input order. Every sample is validated before any is scored; an invalid
        one raises ValueError naming its index. Signal failures never raise (they are missing
        signals); an unexpected error in one sample raises, or is returned in its place with
        ``return_exceptions=True``. ``on_result(index, result)`` is called as each sample finishes.
        """
        batch = [_coerce_sample(item, i) for i, item in enumerate(samples)]
        limit = concurrency if concurrency is not None else self.config.limits.max_concurrent_samples
        if limit < 1:
            raise ValueError(f"concurrency must be at least 1 (got {limit})")
        self._budget(budget_s)
        admission = SampleAdmission(_limiters_of(self._llms.values()), limit)
        results: list[TrustScore | Exception | None] = [None] * len(batch)
        first_error: list[Exception] = []
        bar = _ProgressBar(len(batch)) if progress else None

        async def run_one(index: int, sample: Sample, ticket: Ticket, cancel: anyio.CancelScope) -> None:
            with ticket:
                try:
                    result = await self.score_sample(sample, budget_s=budget_s)
                except Exception as e:
                    if not return_exceptions:
                        first_error.append(e)
                        cancel.cancel()
                        return
                    results[index] = e
                else:
                    results[index] = result
                    try:
                        if on_result is not None:
                            maybe = on_result(index, result)
                            if inspect.isawaitable(maybe):
                                await maybe
                    except Exception as e:
                        first_error.append(e)
                        cancel.cancel()
                        return
            if bar is not None:
                bar.advance()

        try:
            async with anyio.create_task_group() as tg:
                with admission.watching():
                    for i, sample in enumerate(batch):
                        tg.start_soon(run_one, i, sample, await admission.next(), tg.cancel_scope)
        finally:
            if bar is not None:
                bar.stop()
        if first_error:
            raise first_error[0]
        if return_exceptions:
            return [r for r in results if r is not None]
        return [r for r in results if isinstance(r, TrustScore)]

    def score_sync(self, **kwargs: Any) -> TrustScore:
        """Blocking :meth:`score`; works inside a running event loop too (see trustscore.sync)."""
        from trustscore.sync import run_sync_releasing

        result: TrustScore = run_sync_releasing(self.score, self._close_llms, **kwargs)
        return result

    def score_many_sync(
        self, samples: Iterable[Sample | Mapping[str, Any]], **kwargs: Any
    ) -> list[TrustScore]:
        """Blocking :meth:`score_many`."""
        from trustscore.sync import run_sync_releasing

        result: list[TrustScore] = run_sync_releasing(
            self.score_many, self._close_llms, list(samples), **kwargs
        )
        return result

    def _budget(self, budget_s: float | None) -> float:
        if budget_s is None:
            return self.config.limits.score_budget_s
        if not budget_s > 0:
            raise ValueError(f"budget_s must be a positive number of seconds (got {budget_s!r})")
        return float(budget_s)

    # -- lifetime -----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the LLM clients and the cache this Scorer built (injected ones belong to the caller),
        on every event loop they were used on, the sync facade's background loop included."""
        for llm in self._owned_llms:
            close = getattr(llm, "aclose", None)
            if close is not None:
                await close()
        if self._owned_cache is not None:
            self._owned_cache.close()

    async def _close_llms(self) -> None:
        """Close the current event loop's connections of the LLM clients this Scorer built (they
        reopen on next use): run before a temporary loop of a sync call ends."""
        for llm in self._owned_llms:
            release = getattr(llm, "release_loop", None)
            if release is not None:
                await release()

    async def __aenter__(self) -> Scorer:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class _ProgressBar:
    """A rich progress bar on stderr (rich is imported only when a bar is asked for)."""

    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        )
        self._task = self._progress.add_task("scoring", total=total)
        self._progress.start()

    def advance(self) -> None:
        self._progress.advance(self._task)

    def stop(self) -> None:
        self._progress.stop()


# ---------------------------------------------------------------------------------------------
# Module-level scoring with a default Scorer


_default_scorer: RunVar[Scorer] = RunVar("trustscore_default_scorer")


def default_scorer() -> Scorer:
    """The Scorer behind :func:`score`: the offline default config, one per event loop.

    Built on first use in each event loop, because clients and limiters belong to the loop that
    made them.
    """
    try:
        return _default_scorer.get()
    except LookupError:
        scorer = Scorer(Config())
        _default_scorer.set(scorer)
        return scorer


async def score(
    *,
    question: str,
    response: str,
    context: str | Sequence[str] | None = None,
    id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
    budget_s: float | None = None,
) -> TrustScore:
    """Score one answer with the default Scorer (fast local signals only; no LLM judge)."""
    return await default_scorer().score(
        question=question, context=context, response=response, id=id, metadata=metadata, budget_s=budget_s
    )
