"""The Scorer's LLMs by endpoint name and its caches: built on first request, shared, closed together.

LLM clients are built on first request for an endpoint and shared by every signal that asks for it;
they share one response cache, built with the first client (none when ``[cache] mode = "off"``), and
one limiter pool, so endpoints on one server share its adaptive limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from trustscore._errors import ConfigError
from trustscore.llm._config import CacheConfig, EndpointConfig

if TYPE_CHECKING:
    import httpx

    from trustscore.llm._cache import ResponseCache
    from trustscore.llm._client import LLMClient
    from trustscore.llm._limits import LimiterPool
    from trustscore.llm._protocol import LLM
    from trustscore.scoring._local_cache import LocalCache

__all__ = ["Endpoints"]


class Endpoints:
    """The configured endpoints (``[endpoints.<name>]``) and the injected LLMs, by name."""

    def __init__(
        self,
        endpoints: Mapping[str, EndpointConfig],
        cache: CacheConfig,
        *,
        llms: Mapping[str, LLM] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = dict(endpoints)
        self._cache_config = cache
        self._given: dict[str, LLM] = dict(llms or {})
        self._built: dict[str, LLMClient] = {}
        self._transport = transport
        self._cache: ResponseCache | None = None
        self._limiters: LimiterPool | None = None
        self._local_cache: LocalCache | None = None
        self._replace_unsafe = False

    @property
    def names(self) -> list[str]:
        """Every endpoint a signal may ask for: the configured ones and the injected ones."""
        return list(dict.fromkeys([*self._settings, *self._given]))

    @property
    def llms(self) -> list[LLM]:
        """The LLMs handed out so far (built and injected), e.g. for admission control."""
        return [*self._built.values(), *self._given.values()]

    @property
    def cache(self) -> ResponseCache | None:
        """The response cache the LLM clients share; None when the cache is off."""
        if self._cache is None and self._cache_config.mode != "off":
            from trustscore.llm._cache import ResponseCache

            self._cache = ResponseCache(self._cache_config)
            self._cache.replace_unsafe = self._replace_unsafe
        return self._cache

    @property
    def local_cache(self) -> LocalCache | None:
        """The local-signal cache (embeddings, local-signal results); None when the cache is off."""
        if self._local_cache is None and self._cache_config.mode != "off":
            from trustscore.scoring._local_cache import LocalCache

            self._local_cache = LocalCache(self._cache_config)
            self._local_cache.replace_unsafe = self._replace_unsafe
        return self._local_cache

    def replace_unsafe_cache_entries(self) -> None:
        """From now on both caches read an entry trustscore did not write as a miss and store the
        fresh answer over it (see :mod:`trustscore.core._disk_cache`)."""
        self._replace_unsafe = True
        for cache in (self._cache, self._local_cache):
            if cache is not None:
                cache.replace_unsafe = True

    def llm(self, endpoint: str) -> LLM:
        if endpoint in self._given:
            return self._given[endpoint]
        if endpoint in self._built:
            return self._built[endpoint]
        settings = self._settings.get(endpoint)
        if settings is None:
            known = ", ".join(self.names) or "none defined"
            raise ConfigError(
                f"endpoint {endpoint!r} is neither under [endpoints] nor in llms= (known: {known}); "
                f"add [endpoints.{endpoint}] or fix the name"
            )
        settings.api_key()  # EndpointUnavailable before anything is built
        from trustscore.llm._client import LLMClient
        from trustscore.llm._limits import LimiterPool

        if self._limiters is None:
            self._limiters = LimiterPool()
        client = LLMClient(settings, cache=self.cache, transport=self._transport, limiters=self._limiters)
        self._built[endpoint] = client
        return client

    async def aclose_clients(self) -> None:
        """Close the clients built here, on every event loop they were used on."""
        for client in self._built.values():
            await client.aclose()

    async def release_clients(self) -> None:
        """Close only the current event loop's connections of the clients built here (they reopen on
        next use): run before a temporary loop of a sync call ends."""
        for client in self._built.values():
            await client.release_loop()

    def close_cache(self) -> None:
        if self._cache is not None:
            self._cache.close()
        if self._local_cache is not None:
            self._local_cache.close()
