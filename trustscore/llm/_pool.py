"""Replica pools: one endpoint served by several identical servers.

Each sample gets a home replica on its first call (:meth:`ReplicaPool.pick`), keyed by the
sample's age (:func:`~trustscore.llm._scheduling.request_order`), and all its later calls go there
while it is in service: a sample's judge calls share its evidence, so it is prefilled once and then
read from that server's prefix cache. The home is
- the replica rendezvous hashing (highest random weight) gives the key, so when a replica leaves or
  rejoins only the samples hashed to it move;
- or the *least loaded* replica when that one is ejected or saturated: busier than the least loaded
  by a whole window of its AIMD limit or more (load: outstanding requests, queued for a slot or in
  flight, over the replica's limit). The window of slack keeps hashing's spread under full load,
  where every replica is busy; a slow or shrunken replica sheds new samples.
A call that failed on its home, or whose home was ejected, gets a new home the same way.

Every replica has its own :class:`~trustscore.llm._limits.AdaptiveLimiter` (AIMD per server) and its
own HTTP connection pool. A replica that fails ``eject_after_failures`` requests in a row (connection
errors, HTTP 5xx, or no answer within the endpoint's ``timeout_s``) is ejected: it gets no traffic
until a health check (``GET /health``, at most one every ``health_interval_s``, made by the next
request that picks a replica, which waits for it) answers 200 within its own short timeout
(``timeout_s``, at most 2 s: that is all a hung replica's probe costs its caller).
The client sends a request a replica failed on to another replica at once
(:mod:`trustscore.llm._client`).

Timeouts: a replica that accepts connections and never answers (a wedged engine) would otherwise
hold every sample homed on it for ``timeout_s`` per call, forever. A timed-out attempt therefore
counts as a failure, and a probe whose ``/health`` is not answered in time leaves the replica out,
so a hung replica stays out until it answers again. What does *not* count is the caller's own budget
(``generate(deadline_s=...)``) running out: that cancels the attempt, it is not the server's
verdict. A *slow but alive* replica is handled by load, not ejection: its calls stay outstanding
longer, so its load (outstanding over its limit) rises and new samples go to lighter replicas; any
answer in time resets its failure count, so only a run of ``eject_after_failures`` timeouts with no
answer between ejects it, and then its ``/health`` (vLLM answers it from the API server, not the
busy engine) brings it back after ``health_interval_s``. Timeouts do not cut the AIMD limit: one
slow request (a long generation) says little about the server, and the cut would shrink every
judge's share of it; 429 and 503 are the server's own word on overload.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

import anyio

from trustscore._errors import LLMTimeout, LLMUnreachable, ServerError
from trustscore.llm._config import EndpointConfig
from trustscore.llm._limits import AdaptiveLimiter, LimiterPool
from trustscore.llm._protocol import Backend, HealthCheckedBackend, LLMError
from trustscore.llm._scheduling import PriorityGate

__all__ = ["PoolCapacity", "PoolGate", "Replica", "ReplicaPool", "is_replica_failure"]

_HEALTH_TIMEOUT_S = 2.0
"""Ceiling on a health check's wait (vLLM answers /health from its API server in milliseconds)."""
_MAX_HOMES = 65536
"""Affinity keys remembered (least recently used out): far more samples than run at once."""


def is_replica_failure(error: LLMError) -> bool:
    """The errors that say the server, not the request, is at fault: unreachable, HTTP 5xx, or no
    answer within the attempt's timeout (a hung or overwhelmed server)."""
    return isinstance(error, LLMUnreachable | LLMTimeout) or (
        isinstance(error, ServerError) and error.status >= 500
    )


class Replica:
    """One server of a pool: its URL, limiter, backend and health."""

    def __init__(self, url: str, limiter: AdaptiveLimiter, backend: Backend) -> None:
        self.url = url
        self.limiter = limiter
        self.backend = backend
        self.outstanding = 0
        """Requests assigned here and not yet answered (queued for a slot or in flight)."""
        self.failures = 0
        """Consecutive failed requests."""
        self.ejected = False
        self.next_probe = 0.0
        self.probing = False
        self.served = 0
        """Requests this replica answered (successes), for tests and benchmarks."""
        self._weight_seed = hashlib.blake2b(url.encode(), digest_size=8).digest()

    def weight(self, key: int) -> int:
        """Rendezvous weight of this replica for ``key`` (stable across processes)."""
        digest = hashlib.blake2b(key.to_bytes(8, "little", signed=True), digest_size=8, key=self._weight_seed)
        return int.from_bytes(digest.digest(), "little")

    def has_room(self) -> bool:
        """A request sent here now would get a slot at once."""
        return self.limiter.gate().has_room


class ReplicaPool:
    """The replicas of one endpoint, with picking, ejection and re-admission (see the module doc)."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        replicas: Sequence[Replica],
    ) -> None:
        if not replicas:
            raise ValueError("a replica pool needs at least one replica")
        self._endpoint = endpoint
        self.replicas = list(replicas)
        self.capacity = PoolCapacity(self)
        self._homes: OrderedDict[int, Replica] = OrderedDict()

    @classmethod
    def build(
        cls,
        endpoint: EndpointConfig,
        make_backend: Callable[[str], Backend],
        limiters: LimiterPool | None = None,
    ) -> ReplicaPool:
        """One replica per URL of ``endpoint``, each with its backend and the limiter ``limiters``
        holds for its URL (a fresh one when no limiter pool is given)."""

        def limiter(url: str) -> AdaptiveLimiter:
            if limiters is not None:
                return limiters.for_url(url, endpoint)
            return AdaptiveLimiter(endpoint.initial_concurrency, endpoint.max_concurrency)

        return cls(
            endpoint, [Replica(url, limiter(url), make_backend(url)) for url in endpoint.replica_urls()]
        )

    async def pick(self, key: int, exclude: Sequence[Replica] = ()) -> Replica:
        """The replica for a request with affinity ``key``, avoiding ``exclude`` (replicas this call
        already failed on) while any other is left."""
        if len(self.replicas) == 1:
            return self.replicas[0]
        await self._probe_due()
        candidates = [r for r in self.replicas if not r.ejected and r not in exclude]
        if not candidates:  # every other replica is down: try the failed ones rather than give up
            candidates = [r for r in self.replicas if r not in exclude] or list(self.replicas)
        home = self._homes.get(key)
        if home is not None and home in candidates:
            self._homes.move_to_end(key)
            return home
        preferred = max(candidates, key=lambda r: r.weight(key))
        lightest = min(candidates, key=_load)
        home = preferred if _load(preferred) < _load(lightest) + 1 else lightest
        self._homes[key] = home
        if len(self._homes) > _MAX_HOMES:
            self._homes.popitem(last=False)
        return home

    def succeeded(self, replica: Replica) -> None:
        replica.failures = 0
        replica.served += 1

    def failed(self, replica: Replica, error: LLMError) -> None:
        """Count a failure when it is the server's fault; eject after enough in a row."""
        if len(self.replicas) == 1 or not is_replica_failure(error):
            return
        replica.failures += 1
        if not replica.ejected and replica.failures >= self._endpoint.eject_after_failures:
            replica.ejected = True
            replica.next_probe = time.monotonic() + self._endpoint.health_interval_s

    def others_left(self, exclude: Sequence[Replica]) -> bool:
        """Some replica not in ``exclude`` is not ejected."""
        return any(not r.ejected and r not in exclude for r in self.replicas)

    async def _probe_due(self) -> None:
        now = time.monotonic()
        for replica in self.replicas:
            if replica.ejected and not replica.probing and now >= replica.next_probe:
                replica.probing = True
                try:
                    ok = await _healthy(replica.backend, min(_HEALTH_TIMEOUT_S, self._endpoint.timeout_s))
                finally:
                    replica.probing = False
                if ok:
                    replica.ejected = False
                    replica.failures = 0
                else:
                    replica.next_probe = time.monotonic() + self._endpoint.health_interval_s


def _load(replica: Replica) -> float:
    """Outstanding requests in windows of the replica's current AIMD limit (1.0: every slot taken)."""
    return replica.outstanding / replica.limiter.limit


async def _healthy(backend: Backend, timeout_s: float) -> bool:
    if not isinstance(backend, HealthCheckedBackend):
        return True  # a backend without a health route: let traffic decide again
    with anyio.move_on_after(timeout_s):  # the backend's own timeout may not cover a stuck connect
        return await backend.healthy(timeout_s)
    return False


class PoolGate:
    """What :class:`~trustscore.llm._scheduling.SampleAdmission` watches for a pool: room when any
    replica in service (not ejected) has a free slot; listeners hear every replica's changes."""

    def __init__(self, pool: ReplicaPool) -> None:
        self._pool = pool

    def _gates(self) -> list[PriorityGate]:
        return [r.limiter.gate() for r in self._pool.replicas]

    @property
    def has_room(self) -> bool:
        return any(r.has_room() for r in self._pool.replicas if not r.ejected)

    def listen(self, callback: Callable[[], None]) -> None:
        for gate in self._gates():
            gate.listen(callback)

    def unlisten(self, callback: Callable[[], None]) -> None:
        for gate in self._gates():
            gate.unlisten(callback)


class PoolCapacity:
    """A pool's stand-in for a limiter in sample admission (``gate()`` as on AdaptiveLimiter)."""

    def __init__(self, pool: ReplicaPool) -> None:
        self._pool = pool

    def gate(self) -> PoolGate:
        return PoolGate(self._pool)
