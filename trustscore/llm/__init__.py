"""The one seam to remote models: request/result types, the HTTP backend, cache, limits, client.

The request/result types load eagerly; the parts that pull in httpx and diskcache (about 0.3 s of
imports) load on first access, so ``import trustscore`` and the judges' imports stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore.core.lazy import lazy_exports
from trustscore.errors import BadResponse, ClientError, LLMTimeout, LLMUnreachable, RateLimited, ServerError
from trustscore.llm.config import CacheConfig, EndpointConfig
from trustscore.llm.protocol import (
    LLM,
    Backend,
    ChatRequest,
    ChatResult,
    Choice,
    Constraint,
    GatedLLM,
    HealthCheckedBackend,
    LLMError,
    LoopBoundBackend,
    Message,
    TokenLogprob,
    TopLogprob,
)

__all__ = [
    "LLM",
    "AdaptiveLimiter",
    "Backend",
    "BadResponse",
    "CacheConfig",
    "ChatRequest",
    "ChatResult",
    "Choice",
    "ClientError",
    "Constraint",
    "EndpointConfig",
    "GatedLLM",
    "HealthCheckedBackend",
    "HttpBackend",
    "LLMClient",
    "LLMError",
    "LLMTimeout",
    "LLMUnreachable",
    "LimiterPool",
    "LoopBoundBackend",
    "Message",
    "RateLimited",
    "ReplicaPool",
    "ResponseCache",
    "RetryPolicy",
    "SafeDisk",
    "ServerError",
    "TokenLogprob",
    "TopLogprob",
    "UnsafeCacheEntry",
    "UnsupportedRequest",
    "UsageMeter",
    "build_request_body",
    "cache_key",
    "parse_response",
]

_LAZY = {
    "AdaptiveLimiter": "trustscore.llm.limits",
    "RetryPolicy": "trustscore.llm.limits",
    "LimiterPool": "trustscore.llm.limits",
    "UsageMeter": "trustscore.llm.accounting",
    "ReplicaPool": "trustscore.llm.pool",
    "HttpBackend": "trustscore.llm.http",
    "UnsupportedRequest": "trustscore.errors",
    "build_request_body": "trustscore.llm.http",
    "parse_response": "trustscore.llm.http",
    "LLMClient": "trustscore.llm.client",
    "ResponseCache": "trustscore.llm.cache",
    "SafeDisk": "trustscore.llm.cache",
    "UnsafeCacheEntry": "trustscore.errors",
    "cache_key": "trustscore.llm.cache",
}

if TYPE_CHECKING:
    from trustscore.errors import UnsafeCacheEntry, UnsupportedRequest
    from trustscore.llm.accounting import UsageMeter
    from trustscore.llm.cache import ResponseCache, SafeDisk, cache_key
    from trustscore.llm.client import LLMClient
    from trustscore.llm.http import HttpBackend, build_request_body, parse_response
    from trustscore.llm.limits import AdaptiveLimiter, LimiterPool, RetryPolicy
    from trustscore.llm.pool import ReplicaPool

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
