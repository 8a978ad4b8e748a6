"""A toy model of a vLLM engine's cost, so benchmarks can show what batching choices save.

The model, in the fake tokenizer's tokens (see :mod:`trustscore.testing._tokens`):
- a request waits for one of ``capacity`` service slots (unlimited when None); one request holds
  one slot however many ``n`` choices it asks for;
- in service it costs ``overhead_s + prefilled * prefill_s_per_token + longest_choice * decode_s_per_token``:
  the ``n`` choices decode side by side and share one prefill (vLLM forks n children after the
  prompt's KV is computed);
- ``prefilled`` is the prompt minus the blocks already in the prefix cache. Blocks of ``block_size``
  tokens are hashed along the whole prefix (vLLM's automatic prefix caching); a prompt's blocks are
  entered when its service starts, so a concurrent twin that starts later already hits them.
  Requests asking for ``prompt_logprobs`` read no cache (vLLM needs the logits of every prompt
  token), but still fill it. ``cache_blocks`` bounds the cache (least recently used out).
Counters are kept even when every cost is zero (the default).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import anyio
from pydantic import BaseModel, ConfigDict, Field

from trustscore.testing._tokens import block_hashes

__all__ = ["EngineSimulator", "LatencyModel", "ServerStats"]


class LatencyModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    prefill_s_per_token: float = Field(default=0.0, ge=0)
    decode_s_per_token: float = Field(default=0.0, ge=0)
    overhead_s: float = Field(default=0.0, ge=0, description="fixed cost per request in service")
    block_size: int = Field(default=16, ge=1, description="tokens per prefix-cache block (vLLM: 16)")
    prefix_cache: bool = True
    cache_blocks: int | None = Field(
        default=None, ge=1, description="prefix-cache capacity; None = unbounded"
    )
    capacity: int | None = Field(
        default=None, ge=1, description="requests in service at once; None = unbounded"
    )


class ServerStats(BaseModel):
    """A snapshot of the server-side counters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests: int = 0
    """Completion requests that reached the model (faulted and refused ones excluded)."""
    prompt_tokens: int = 0
    prefilled_tokens: int = 0
    """Prompt tokens actually computed, after the prefix cache."""
    cached_tokens: int = 0
    completion_tokens: int = 0
    busy_s: float = 0.0
    """Sum of the modelled service times (slot-seconds)."""
    max_concurrency: int = 0
    """Most requests in service at one time."""
    max_queued: int = 0
    """Most requests waiting for a slot at one time."""

    def utilisation(self, wall_s: float, capacity: int) -> float:
        """Fraction of ``capacity`` slots kept busy over ``wall_s`` seconds."""
        if wall_s <= 0 or capacity <= 0:
            raise ValueError("utilisation needs wall_s > 0 and capacity > 0")
        return self.busy_s / (wall_s * capacity)


class EngineSimulator:
    """The live state behind a :class:`LatencyModel`: prefix cache, slots and counters.

    Used from one event loop (the server's, or the test's for the router); counters may be read
    from any thread.
    """

    def __init__(self, model: LatencyModel | None = None) -> None:
        self.model = model or LatencyModel()
        self._cache: OrderedDict[str, None] = OrderedDict()
        self._slots: anyio.CapacityLimiter | None = None  # made in the serving loop, on first use
        self._lock = threading.Lock()
        self._counts: dict[str, float] = ServerStats().model_dump()
        self._in_service = 0
        self._queued = 0

    @property
    def stats(self) -> ServerStats:
        with self._lock:
            return ServerStats.model_validate(self._counts)

    def _bump(self, **delta: float) -> None:
        with self._lock:
            counts = self._counts
            for k, v in delta.items():
                counts[k] += v
            counts["max_concurrency"] = max(counts["max_concurrency"], self._in_service)
            counts["max_queued"] = max(counts["max_queued"], self._queued)

    def reset(self) -> None:
        """Zero the counters and empty the prefix cache."""
        with self._lock:
            self._counts = ServerStats().model_dump()
            self._cache.clear()

    def _admit(self, tokens: list[str], read_cache: bool) -> int:
        """Enter the prompt's blocks into the cache; return how many tokens must be prefilled."""
        if not self.model.prefix_cache:
            return len(tokens)
        hits = 0
        counting = read_cache
        for h in block_hashes(tokens, self.model.block_size):
            if h in self._cache:
                self._cache.move_to_end(h)
                if counting:
                    hits += 1
            else:
                counting = False
                self._cache[h] = None
        limit = self.model.cache_blocks
        while limit is not None and len(self._cache) > limit:
            self._cache.popitem(last=False)
        # vLLM always recomputes at least the last prompt token, to get logits for the first output.
        return max(len(tokens) - hits * self.model.block_size, 1 if tokens else 0)

    async def serve(self, prompt: list[str], completions: list[int], *, read_cache: bool = True) -> None:
        """Account for (and, with costs set, wait out) one request's service."""
        if self.model.capacity is None:
            await self._run(prompt, completions, read_cache)
            return
        if self._slots is None:
            self._slots = anyio.CapacityLimiter(self.model.capacity)
        try:
            self._slots.acquire_nowait()
        except anyio.WouldBlock:
            with self._lock:
                self._queued += 1
            self._bump()
            try:
                await self._slots.acquire()
            finally:
                with self._lock:
                    self._queued -= 1
        try:
            await self._run(prompt, completions, read_cache)
        finally:
            self._slots.release()

    async def _run(self, prompt: list[str], completions: list[int], read_cache: bool) -> None:
        m = self.model
        with self._lock:
            self._in_service += 1
            prefilled = self._admit(prompt, read_cache)
        cost = (
            m.overhead_s
            + prefilled * m.prefill_s_per_token
            + max(completions, default=0) * m.decode_s_per_token
        )
        self._bump(
            requests=1,
            prompt_tokens=len(prompt),
            prefilled_tokens=prefilled,
            cached_tokens=len(prompt) - prefilled,
            completion_tokens=sum(completions),
            busy_s=cost,
        )
        try:
            if cost > 0:
                await anyio.sleep(cost)
        finally:
            with self._lock:
                self._in_service -= 1
