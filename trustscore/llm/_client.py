"""LLMClient: a model behind cache, adaptive limiter, retries and deadlines. What judges hold."""

from __future__ import annotations

import math
from dataclasses import replace
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

import anyio
import httpx
from pydantic import ValidationError

from trustscore._errors import BudgetExceeded, ConfigError, LLMTimeout, UnsupportedRequest
from trustscore.llm._cache import ResponseCache, cache_key
from trustscore.llm._call import CallContext, CallUsage, with_usage
from trustscore.llm._config import EndpointConfig
from trustscore.llm._http import HttpBackend
from trustscore.llm._limits import AdaptiveLimiter, LimiterPool, RetryPolicy, is_overload
from trustscore.llm._pool import PoolCapacity, Replica, ReplicaPool, is_replica_failure
from trustscore.llm._protocol import Backend, ChatRequest, ChatResult, LLMError, LoopBoundBackend
from trustscore.llm._scheduling import request_order
from trustscore.llm._wire import unsupported_reason
from trustscore.telemetry import chat_span

if TYPE_CHECKING:
    import openai

    from trustscore.compute._deadline import Deadline

__all__ = ["LLMClient", "from_openai"]

_BYTES_PER_TOKEN = 3

BUDGET_GRACE_S = 0.5
"""How long past the sample's budget an attempt's own limit waits, so the Scorer's cut lands first."""


class LLMClient:
    """The :class:`~trustscore.llm._protocol.LLM` for one endpoint.

    ``generate`` goes: cache lookup -> adaptive limiter slot -> one backend attempt under the
    endpoint's per-attempt timeout -> retry (bounded, jittered, honouring Retry-After) -> cache store.
    The returned result's ``usage`` counts requests actually sent (retries included), tokens,
    cache hits and wall-clock seconds; a final failure raises the LLMError with that usage attached.
    The count is the call's :class:`~trustscore.llm._call.CallUsage` record, the one the request's
    context carries (a fresh one otherwise), kept up to date as requests go out, so the caller that
    handed it down still sees a call cut off by cancellation. Waiting requests get a slot in the order of the
    sample they belong to (:mod:`trustscore.llm._scheduling`); ``limiter`` shares one adaptive limit
    between clients of one server, ``limiters`` one per server for every server of the endpoint
    (see :class:`~trustscore.llm._limits.LimiterPool`).

    An endpoint with several replicas is served by a :class:`~trustscore.llm._pool.ReplicaPool`
    (affinity, least outstanding, ejection). A request that fails on a replica with a server fault
    (unreachable, 5xx, no answer within ``timeout_s``) is sent at once to another replica in
    service, without waiting or using up a retry, until every replica has been tried; then the
    retry policy takes over. ``deadline_s`` running out is the caller's budget, not a server fault.

    Timeouts are congestion: an attempt with no answer within ``timeout_s`` halves the server's limit
    as a 429 does (unless the server answered another request meanwhile: then it was one stuck
    request), so the retry, and every other request, waits for a slot under the lowered limit while
    the server still works on what it was sent.

    Inside a sample's time budget (the ``deadline`` of the request's
    :class:`~trustscore.llm._call.CallContext`) an attempt
    waits at most ``min(timeout_s, what is left of the budget + 0.5 s)``. The grace lets the Scorer's
    own cut (which cancels the sample at the budget's end) land first; where nothing cuts from outside,
    or the loop was too busy to, the attempt's own limit ends it with :class:`BudgetExceeded`, which the
    Scorer reports exactly as its own cut ("timed out after the budget"), on asyncio and trio alike.
    Either way the budget's end is no sign of the server's state: neither congestion nor retried, and
    a failure once the budget is spent is not retried either. If the sample's clock stopped while the
    attempt ran (another of its signals waited in a lane), the budget has more left when the limit
    fires: the request is sent again for what is left, not counted as a retry.
    """

    def __init__(
        self,
        endpoint: EndpointConfig,
        backend: Backend | None = None,
        cache: ResponseCache | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        limiter: AdaptiveLimiter | None = None,
        limiters: LimiterPool | None = None,
    ) -> None:
        if backend is not None and transport is not None:
            raise ValueError("pass either backend or transport (a transport configures the built-in backend)")
        if limiter is not None and limiters is not None:
            raise ValueError("pass either limiter (one server's) or limiters (a LimiterPool), not both")
        replicas = len(endpoint.replica_urls())
        if replicas > 1 and (backend is not None or limiter is not None):
            raise ValueError(
                f"endpoint {endpoint.model!r} has {replicas} replicas: a backend or a limiter serves one "
                "server; pass limiters= (a LimiterPool) or nothing"
            )
        self._endpoint = endpoint
        self._cache = cache
        self._retry = retry if retry is not None else RetryPolicy(max_retries=endpoint.max_retries)
        if replicas > 1:
            self._pool = ReplicaPool.build(
                endpoint, lambda url: HttpBackend(endpoint, transport=transport, base_url=url), limiters
            )
        else:
            if limiter is None:
                limiter = (
                    limiters.for_endpoint(endpoint)
                    if limiters is not None
                    else AdaptiveLimiter(endpoint.initial_concurrency, endpoint.max_concurrency)
                )
            one = backend if backend is not None else HttpBackend(endpoint, transport=transport)
            self._pool = ReplicaPool(endpoint, [Replica(endpoint.base_url, limiter, one)])

    @property
    def endpoint(self) -> EndpointConfig:
        return self._endpoint

    @property
    def model(self) -> str:
        return self._endpoint.model

    @property
    def flavour(self) -> Literal["vllm", "openai"]:
        return self._endpoint.flavour

    @property
    def context_window(self) -> int:
        return self._endpoint.context_window

    @property
    def limiter(self) -> AdaptiveLimiter:
        """The adaptive limiter of a one-server endpoint (a pool has one per replica: :attr:`pool`)."""
        if len(self._pool.replicas) > 1:
            raise AttributeError(f"endpoint {self.model!r} is a pool of replicas: see .pool and .capacity")
        return self._pool.replicas[0].limiter

    @property
    def pool(self) -> ReplicaPool:
        return self._pool

    @property
    def capacity(self) -> AdaptiveLimiter | PoolCapacity:
        """What sample admission watches: the one limiter, or the pool's combined gate."""
        if len(self._pool.replicas) == 1:
            return self._pool.replicas[0].limiter
        return self._pool.capacity

    def count_tokens(self, text: str) -> int:
        """ceil(UTF-8 bytes / 3): above the true count for the BPE tokenizers judges run (about 4
        bytes per token on English, 3 bytes per CJK character that rarely splits), so trimming to
        this estimate keeps a prompt inside the context window without needing the tokenizer."""
        return math.ceil(len(text.encode("utf-8")) / _BYTES_PER_TOKEN)

    async def generate(
        self, request: ChatRequest, *, cache: bool | None = None, deadline_s: float | None = None
    ) -> ChatResult:
        """One answer for ``request``.

        ``cache``: None follows the cache's mode; False neither reads nor writes for this call;
        True is like None but fails when no cache is configured. ``deadline_s`` bounds the whole
        call (lookups, attempts and backoff); it ends in LLMTimeout.
        """
        if cache is True and (self._cache is None or not self._cache.readable):
            raise ValueError(
                "generate(cache=True) but this client has no response cache (or its mode is 'off')"
            )
        reason = unsupported_reason(request, self._endpoint.flavour)
        if reason is not None:
            raise UnsupportedRequest(f"endpoint {self._endpoint.model!r}: {reason}")
        context = request.context or CallContext()
        with chat_span(
            self._endpoint, request, signal=context.signal, capture_content=context.capture_content
        ) as span:
            try:
                result = await self._generate_within(request, cache, deadline_s)
            except LLMError as e:
                span.failed(e, e.usage)
                raise
            span.done(result)
            return result

    async def _generate_within(
        self, request: ChatRequest, cache: bool | None, deadline_s: float | None
    ) -> ChatResult:
        store = self._cache if cache is not False else None
        context = request.context or CallContext()
        record = context.record
        if record is None:  # the backend marks delivery on the record the request carries
            record = CallUsage()
            request = request.within(replace(context, record=record))
        order = request_order(context.ticket)
        if deadline_s is None:
            return await self._generate(request, store, record, order)
        with anyio.move_on_after(deadline_s):
            return await self._generate(request, store, record, order)
        # Only the deadline's cancellation leaves the scope without a return or an exception.
        record.finish()
        raise LLMTimeout(
            f"deadline of {deadline_s}s ran out after {record.requests} request(s)", usage=record.usage()
        )

    async def _generate(
        self, request: ChatRequest, store: ResponseCache | None, record: CallUsage, order: int
    ) -> ChatResult:
        try:
            key = cache_key(self._endpoint, request) if store is not None else ""
            cached = await store.get(key) if store is not None else None
            if cached is not None:
                record.cache_hits += 1
                result = cached
            else:
                result = await self._send_with_retries(request, record, order)
                record.prompt_tokens += result.prompt_tokens
                record.completion_tokens += result.completion_tokens
                if store is not None:
                    await store.put(key, result)
        except LLMError as e:
            record.finish()
            e.usage = record.usage()
            raise
        record.finish()
        return with_usage(result, record.usage())

    async def _send_with_retries(self, request: ChatRequest, record: CallUsage, order: int) -> ChatResult:
        """Attempts until one succeeds or the policy gives up. The wait before a retry (Retry-After
        or backoff) holds no slot; the retry then queues at its sample's age, ahead of younger work."""
        retries = 0
        failed_on: list[Replica] = []
        deadline = request.context.deadline if request.context is not None else None
        while True:
            replica = await self._pool.pick(order, failed_on)
            try:
                return await self._attempt(replica, request, record, order, deadline)
            except LLMError as e:
                if is_replica_failure(e) and len(self._pool.replicas) > 1:
                    failed_on.append(replica)
                    if self._pool.others_left(failed_on):
                        continue  # fail over at once: another server, not a later try
                    failed_on.clear()
                if not self._retry.should_retry(e, retries) or _budget_spent(deadline):
                    raise
                await anyio.sleep(self._retry.delay(e, retries))
                retries += 1

    async def _attempt(
        self, replica: Replica, request: ChatRequest, record: CallUsage, order: int, deadline: Deadline | None
    ) -> ChatResult:
        replica.outstanding += 1
        try:
            async with replica.limiter.slot(order) as permit:
                timeout_s = self._endpoint.timeout_s
                gives_up_at = anyio.current_time() + timeout_s
                while True:
                    wait_s = gives_up_at - anyio.current_time()
                    budget_s = _budget_left(deadline)
                    cut_by_budget = budget_s is not None and budget_s + BUDGET_GRACE_S < wait_s
                    if budget_s is not None and cut_by_budget:
                        wait_s = max(budget_s, 0.0) + BUDGET_GRACE_S
                    record.begin_attempt()
                    with anyio.move_on_after(wait_s) as attempt:
                        try:
                            result = await replica.backend.send(request)
                        except LLMError as e:
                            if isinstance(e, LLMTimeout):
                                permit.timed_out()
                            elif is_overload(e):
                                permit.overloaded(getattr(e, "retry_after", None))
                            self._pool.failed(replica, e)
                            raise
                        finally:
                            record.end_attempt()  # however it ends, a deadline's cancellation included
                    if not attempt.cancelled_caught:
                        break
                    if not cut_by_budget:
                        timed_out = LLMTimeout(f"no answer within the endpoint's timeout_s={timeout_s}")
                        permit.timed_out()
                        self._pool.failed(replica, timed_out)
                        raise timed_out
                    # The budget's end, not the server's: no congestion, no retry.
                    if _budget_spent(deadline):
                        raise BudgetExceeded("the sample's time budget ran out during an LLM request")
                    # Not over after all: the sample's clock stopped meanwhile. Ask again for what is left.
                permit.success()
                self._pool.succeeded(replica)
                return result
        finally:
            replica.outstanding -= 1

    async def aclose(self) -> None:
        """Close the backend, on every event loop it was used on (the cache may be shared: its owner
        closes it)."""
        for replica in self._pool.replicas:
            await replica.backend.aclose()

    async def release_loop(self) -> None:
        """Close only the current event loop's connections (they reopen on next use): for a loop
        that is about to end while the client lives on."""
        for replica in self._pool.replicas:
            if isinstance(replica.backend, LoopBoundBackend):
                await replica.backend.release_loop()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def _budget_left(deadline: Deadline | None) -> float | None:
    """Seconds left of the time budget of the sample this call works for (None outside a budget)."""
    return None if deadline is None else deadline.seconds_left()


def _budget_spent(deadline: Deadline | None) -> bool:
    """The time budget of the sample this call works for is over (never outside a budget)."""
    return deadline is not None and deadline.over


def from_openai(
    client: openai.AsyncOpenAI,
    model: str,
    *,
    flavour: Literal["vllm", "openai"] = "openai",
    cache: ResponseCache | None = None,
    retry: RetryPolicy | None = None,
    **settings: Any,
) -> LLMClient:
    """An :class:`LLMClient` that sends through your ``openai.AsyncOpenAI`` (its base URL, key and
    HTTP client): the one way to wrap one.

    ``settings`` are further EndpointConfig fields (``context_window``, ``max_retries``, ...).
    Retries, deadlines and caching are trustscore's: the adapter turns the openai client's own
    retries off.
    """
    from trustscore.llm._openai_adapter import OpenAIBackend

    try:
        endpoint = EndpointConfig(base_url=str(client.base_url), model=model, flavour=flavour, **settings)
    except ValidationError as e:
        problems = "; ".join(f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors())
        raise ConfigError(f"from_openai: {problems}") from None
    backend = OpenAIBackend(client, endpoint.flavour, endpoint.model, endpoint.context_window)
    return LLMClient(endpoint, backend=backend, cache=cache, retry=retry)
