"""The Scorer: runs every signal on a sample concurrently, then fuses them into one score.

    scorer = Scorer.from_config("trustscore.toml")
    result = await scorer.score(question=q, context=[p1, p2], response=r)

Every signal runs in its own task of one anyio task group; a source that raises becomes a missing
signal with the reason (:mod:`trustscore.scoring._runners`). An overall time budget
(``limits.score_budget_s``) bounds the whole call: signals still running when it ends are reported
missing and the result is marked incomplete. It measures the sample's own work: waiting in a local
lane's queue or for a one-time model load stops its clock, up to twice the budget in all
(:class:`~trustscore.compute._deadline.Deadline`). Local signals work in worker threads no event loop can
interrupt, so the budget is also a :class:`~trustscore.compute._deadline.Deadline` they check between chunks.
With a ``[cascade]`` the signals run in stages, a later stage only while the score is unsure
(:mod:`trustscore.scoring._cascade`), all within that one budget.
Building the sources from the config lives in :mod:`trustscore.scoring._wiring`, input checks in
:mod:`~trustscore.scoring._inputs`, batches in :mod:`~trustscore.scoring._batch` and the blocking
facade (:func:`score_sync`, :meth:`Scorer.score_sync`) runs on :mod:`trustscore.scoring._sync`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterable, Iterable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, overload

import anyio

from trustscore._config import Config
from trustscore._errors import BudgetExceeded, InputError
from trustscore._types import Sample, Signal, TrustScore
from trustscore.compute._deadline import Deadline, bound, watch_deadline
from trustscore.fusion._fuser import Fuser
from trustscore.llm._call import CallContext
from trustscore.llm._scheduling import Ticket
from trustscore.scoring._batch import (
    ProgressBar,
    ResultCallback,
    ResultStream,
    admission_capacities,
    call_back,
)
from trustscore.scoring._cascade import CascadeRun, build_cascade
from trustscore.scoring._endpoints import Endpoints
from trustscore.scoring._inputs import (
    check_budget,
    check_concurrency,
    check_samples,
    checked_arguments,
    coerce_sample,
    make_sample,
    validate_sample,
)
from trustscore.scoring._result import OUTSIDE_DOMAIN, fused_result
from trustscore.scoring._runners import (
    Source,
    SourceRun,
    UnavailableSource,
    check_question_alone,
    run_guarded,
)
from trustscore.scoring._warm import warm_up
from trustscore.scoring._wiring import build_sources, pick_fuser
from trustscore.signals._protocols import Judge, LocalSignal
from trustscore.telemetry import score_span, signal_span

if TYPE_CHECKING:
    import httpx

    from trustscore.llm._protocol import LLM

__all__ = [
    "OUTSIDE_DOMAIN",
    "ResultCallback",
    "Scorer",
    "make_sample",
    "validate_sample",
]


class Scorer:
    """Scores samples with the configured judges and local signals, fused into one TrustScore.

    ``signals`` adds sources (judges or local signals) to the configured ones. To replace the
    configured ones instead, pass ``judges=[...]`` and/or ``local_signals=[...]`` (``[]`` = none).
    An injected judge is bound to the LLM of its ``[judges.<name>].endpoint``, or to the only LLM.
    ``llms`` (by endpoint name) and ``fuser`` replace what the config would build; ``transport``
    (an httpx transport) is handed to every LLM client the Scorer builds: this is how the test
    kit's router plugs in. A fitted cascade (``cascade.calibrator``) scores with its stages'
    calibrators, in place of ``fuser`` and ``fusion.calibrator``.

    A Scorer holds no per-call state: one instance may serve many concurrent ``score`` calls.
    Use ``async with Scorer(...)`` (or ``await scorer.aclose()``) to close the LLM clients it built.
    """

    def __init__(
        self,
        config: Config | None = None,
        *,
        signals: Sequence[Judge | LocalSignal] = (),
        judges: Sequence[Judge] | None = None,
        local_signals: Sequence[LocalSignal] | None = None,
        llms: Mapping[str, LLM] | None = None,
        fuser: Fuser | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        warn_skipped: bool = True,
    ) -> None:
        if config is not None and not isinstance(config, Config):
            raise InputError(
                f"config is a {type(config).__name__}; pass a trustscore.Config "
                "(Scorer.from_config(path) reads a TOML file)"
            )
        for field, given in (("signals", signals), ("judges", judges), ("local_signals", local_signals)):
            if given is not None and (isinstance(given, str | bytes) or not isinstance(given, Sequence)):
                raise InputError(f"{field} must be a list of signal sources (got {type(given).__name__})")
        if llms is not None and not isinstance(llms, Mapping):
            raise InputError(f"llms must be a dict of endpoint name -> LLM (got {type(llms).__name__})")
        self.config = config if config is not None else Config()
        self.config_source = "default" if config is None else "Config object"
        """Where :attr:`config` came from, as each result's ``config_source`` says: a TOML file's path,
        ``pyproject.toml [tool.trustscore]`` with its path, ``configure()`` or the ``config=``
        argument, a ``Config object`` passed in code, or ``default`` (the offline default)."""
        self._endpoints = Endpoints(self.config.endpoints, self.config.cache, llms=llms, transport=transport)
        self.skipped: dict[str, str] = {}
        """Signals on by default that do not run here because their extra is not installed (and the
        config does not name them), with how to add each: no result is degraded for them. Each is
        warned about once a process, unless ``warn_skipped=False`` (for a caller that says them itself,
        as the CLI's run summary does)."""
        self._sources = build_sources(
            self.config,
            self._endpoints,
            judges=judges,
            local_signals=local_signals,
            extra=signals,
            skipped=self.skipped,
            warn_skipped=warn_skipped,
        )
        self._fuser = fuser if fuser is not None else pick_fuser(self.config, self._sources)
        self._cascade = build_cascade(self.config, self._sources, self._fuser)

    @classmethod
    def from_config(
        cls,
        config: str | Path | Config | None = None,
        *,
        no_cache: bool = False,
        transport: httpx.AsyncBaseTransport | None = None,
        warn_skipped: bool = True,
    ) -> Scorer:
        """Build from a TOML file (or a Config; None = the offline default: local signals only)."""
        cfg = config if isinstance(config, Config) else (Config.from_toml(config) if config else Config())
        if no_cache:
            cfg = cfg.model_copy(update={"cache": cfg.cache.model_copy(update={"mode": "off"})})
        scorer = cls(cfg, transport=transport, warn_skipped=warn_skipped)
        if isinstance(config, str | Path) and config:
            scorer.config_source = str(config)
        return scorer

    # -- introspection ------------------------------------------------------------------------

    @property
    def signal_names(self) -> list[str]:
        """The signals every result carries, in order (with a ``[cascade]``, those a sample's stage
        reached: see ``TrustScore.cascade``)."""
        return [s.name for s in self._sources]

    @property
    def signal_versions(self) -> dict[str, str | None]:
        """Each signal's version (what its results carry in ``Signal.version``), by name."""
        return {s.name: s.version for s in self._sources}

    @property
    def fusions(self) -> list[str]:
        """The ``fusion`` its results carry: its fuser's description (with a fitted ``[cascade]``,
        each stage's); empty when a fuser passed in has no ``description``."""
        fusers = [s.fuser for s in self._cascade.stages] if self._cascade is not None else [self._fuser]
        names = (getattr(f, "description", None) for f in fusers)
        return list(dict.fromkeys(n for n in names if isinstance(n, str)))

    @property
    def judge_names(self) -> list[str]:
        """The signals that are LLM judges."""
        return [s.name for s in self._sources if s.is_judge]

    @property
    def unavailable(self) -> dict[str, str]:
        """Configured signals that cannot run in this environment, and why."""
        return {s.name: s.reason for s in self._sources if isinstance(s, UnavailableSource)}

    # -- scoring ------------------------------------------------------------------------------

    async def familiarity(self, question: str) -> Signal:
        """Self-Familiarity of ``question`` before any response exists (pre-detection).

        Returns the "familiarity" Signal: how well the generator knows the question's concepts; a
        low value means it is likely to make things up. Needs a signal that checks a question alone
        (a :class:`~trustscore.signals.FamiliarityCheck`, e.g. ``[signals.familiarity]``).
        """
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"question must be a non-empty string (got {type(question).__name__})")
        return await check_question_alone(self._sources, question)

    @checked_arguments
    async def score(
        self,
        *,
        question: str,
        response: str,
        context: str | Sequence[str] | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        budget_s: float | None = None,
        domain: str | None = None,
    ) -> TrustScore:
        """Score one answer. Bad input raises InputError naming the field; signal failures do not raise:
        the result is ``degraded`` (with ``fusion.on_missing = "raise"``: DegradedScoreError).
        ``domain`` names the sample's domain: an adapted calibrator is calibrated through the adaptation
        of that name (``trustscore calibrate --adapt --domain NAME``)."""
        sample = make_sample(
            question=question, context=context, response=response, id=id, metadata=metadata, domain=domain
        )
        return await self.score_sample(sample, budget_s=budget_s)

    async def score_sample(self, sample: Sample, *, budget_s: float | None = None) -> TrustScore:
        """Score a validated :class:`Sample` within the time budget (default ``limits.score_budget_s``)."""
        if not isinstance(sample, Sample):
            raise InputError(
                f"sample is a {type(sample).__name__}; pass a trustscore.Sample (or use score())"
            )
        with Ticket() as ticket:  # this sample's place in line among the LLM requests of others
            return await self._score_in_line(sample, budget_s, ticket)

    async def _score_in_line(self, sample: Sample, budget_s: float | None, ticket: Ticket) -> TrustScore:
        """:meth:`score_sample`, its LLM requests queued by ``ticket`` (the sample's place in line)."""
        budget = check_budget(budget_s, self.config.limits.score_budget_s)
        with score_span(sample) as span:
            result = await self._score_sample(sample, budget, ticket)
            span.done(result)
        return result

    async def _score_sample(self, sample: Sample, budget: float, ticket: Ticket) -> TrustScore:
        started = time.perf_counter()
        finished: dict[str, Signal] = {}
        deadline = Deadline(budget)
        capture = self.config.telemetry.capture_content
        # One run per source: the context its LLM calls run under, the record of each call, and
        # why it failed in ways a rerun may fix.
        runs = {
            s.name: SourceRun(CallContext(deadline, ticket, signal=s.name, capture_content=capture))
            for s in self._sources
        }

        async def run_one(source: Source) -> None:
            with suppress(BudgetExceeded), bound(deadline), signal_span(source.name, source.is_judge) as span:
                finished[source.name] = span.done(await run_guarded(source, sample, runs[source.name]))

        async def run_all(sources: Sequence[Source]) -> None:
            async with anyio.create_task_group() as tg:
                for source in sources:
                    tg.start_soon(run_one, source)

        progress = CascadeRun()
        with anyio.CancelScope() as budget_scope:
            async with anyio.create_task_group() as watch:
                # Worker threads cannot be interrupted: when this scope is cancelled (budget over, or
                # the caller cancelled) the watcher tells them through the deadline they check.
                watch.start_soon(watch_deadline, deadline, budget_scope)
                if self._cascade is None:
                    await run_all(self._sources)
                else:
                    await self._cascade.run(run_all, finished, progress)
                watch.cancel_scope.cancel()
        stop = self._cascade.outcome(progress) if self._cascade is not None else None
        fuser = self._cascade.fuser_at(progress) if self._cascade is not None else self._fuser
        timed_out = f"timed out after {budget:g}s budget"
        signals = {
            s.name: finished.get(s.name) or runs[s.name].counted(Signal.failed(s.name, timed_out))
            for s in self._sources
            if stop is None or s.name not in stop.skipped
        }
        # Cut by the budget, or missing for a reason a rerun may fix (server down or busy, no key).
        incomplete = [
            name
            for name, signal in signals.items()
            if name not in finished or (signal.missing and runs[name].transient)
        ]
        return fused_result(
            sample,
            signals,
            fuser,
            incomplete=incomplete,
            cascade=stop,
            seconds=time.perf_counter() - started,
            on_missing=self.config.fusion.on_missing,
            config_source=self.config_source,
            judges=self.judge_names,
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
        one raises InputError naming its index. Signal failures never raise (they are missing
        signals); an unexpected error in one sample raises. With ``return_exceptions=True`` nothing
        raises for one sample: an invalid sample's InputError, a ``DegradedScoreError``
        (``fusion.on_missing = "raise"``) or an unexpected error is returned in its place and the
        others are scored. ``on_result(index, result)`` is called as each sample finishes.
        This holds every result until the end: :meth:`stream` does not.
        """
        check_samples(samples, "a list")
        if on_result is not None and not callable(on_result):
            got = type(on_result).__name__
            raise InputError(f"on_result must be a function of (index, result) (got {got})")
        batch = list(samples) if return_exceptions else [coerce_sample(x, i) for i, x in enumerate(samples)]
        results: list[TrustScore | Exception | None] = [None] * len(batch)
        stream = self.stream(
            batch, concurrency=concurrency, budget_s=budget_s, return_exceptions=return_exceptions
        )
        bar = ProgressBar(len(batch)) if progress else None
        try:
            async with stream:
                async for index, result in stream:
                    results[index] = result
                    if on_result is not None and isinstance(result, TrustScore):
                        await call_back(on_result, index, result)
                    if bar is not None:
                        bar.advance()
        finally:
            if bar is not None:
                bar.stop()
        if return_exceptions:
            return [r for r in results if r is not None]
        return [r for r in results if isinstance(r, TrustScore)]

    def stream(
        self,
        samples: Iterable[Sample | Mapping[str, Any]] | AsyncIterable[Sample | Mapping[str, Any]],
        *,
        concurrency: int | None = None,
        budget_s: float | None = None,
        return_exceptions: bool = False,
    ) -> ResultStream:
        """Results as they finish, each with its input index; memory stays flat however many samples.

        ::

            async with scorer.stream(read_jsonl(path)) as results:
                async for index, result in results:
                    ...

        ``samples`` may be any iterable or async iterable (a generator reading a huge file): the next
        one is pulled only when a sample may start (at most ``concurrency`` in flight, and only as the
        judges' endpoints have room), and a result is dropped once handed over. An invalid sample
        stops the stream from taking more: the samples before it are yielded, then InputError names
        its index. An unexpected error in one sample ends the stream with that error. With
        ``return_exceptions=True`` the stream goes on past both: an invalid sample's InputError (or
        the sample's error) is yielded in its result's place. Leaving the block (``break`` included)
        or ``await results.aclose()`` cancels the samples in flight.
        """
        check_samples(samples, "an iterable or async iterable")
        limit = check_concurrency(concurrency, self.config.limits.max_concurrent_samples)
        check_budget(budget_s, self.config.limits.score_budget_s)

        async def score_one(sample: Sample, ticket: Ticket) -> TrustScore:
            return await self._score_in_line(sample, budget_s, ticket)

        return ResultStream(
            score_one,
            samples,
            limiters=admission_capacities(self._endpoints.llms),
            limit=limit,
            return_exceptions=return_exceptions,
        )

    def score_sync(self, **kwargs: Any) -> TrustScore:
        """Blocking :meth:`score`; works inside a running event loop too (see trustscore.scoring._sync)."""
        from trustscore.scoring._sync import run_sync_releasing

        result: TrustScore = run_sync_releasing(self.score, self._endpoints.release_clients, **kwargs)
        return result

    @overload
    def score_many_sync(
        self,
        samples: Iterable[Sample | Mapping[str, Any]],
        *,
        return_exceptions: Literal[False] = ...,
        **kwargs: Any,
    ) -> list[TrustScore]: ...

    @overload
    def score_many_sync(
        self,
        samples: Iterable[Sample | Mapping[str, Any]],
        *,
        return_exceptions: Literal[True],
        **kwargs: Any,
    ) -> list[TrustScore | Exception]: ...

    def score_many_sync(
        self, samples: Iterable[Sample | Mapping[str, Any]], *, return_exceptions: bool = False, **kwargs: Any
    ) -> list[TrustScore] | list[TrustScore | Exception]:
        """Blocking :meth:`score_many` (``return_exceptions`` as there)."""
        from trustscore.scoring._sync import run_sync_releasing

        check_samples(samples, "a list")
        result: list[TrustScore] | list[TrustScore | Exception] = run_sync_releasing(
            self.score_many,
            self._endpoints.release_clients,
            list(samples),
            return_exceptions=return_exceptions,
            **kwargs,
        )
        return result

    def replace_unsafe_cache_entries(self) -> None:
        """Let this Scorer's caches replace an entry trustscore did not write (it reads as a miss and
        the fresh answer is stored over it) instead of leaving its signal missing with
        ``UnsafeCacheEntry``: what ``score --retry-incomplete`` does."""
        self._endpoints.replace_unsafe_cache_entries()

    async def warm_up(self) -> None:
        """Load now what the local signals load on their first sample (models, language pipelines),
        so the first score does not pay for it; no judge is called (:mod:`trustscore.scoring._warm`)."""
        await warm_up(self._sources)

    # -- lifetime -----------------------------------------------------------------------------

    async def aclose(self) -> None:
        """Close the LLM clients and the cache this Scorer built (injected ones belong to the caller),
        on every event loop they were used on, the sync facade's background loop included."""
        await self._endpoints.aclose_clients()
        self._endpoints.close_cache()

    async def __aenter__(self) -> Scorer:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
