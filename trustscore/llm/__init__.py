"""The one seam to remote models: request/result types, the HTTP backend, cache, limits, client.

The request/result types load eagerly; the parts that pull in httpx and diskcache (about 0.3 s of
imports) load on first access, so ``import trustscore`` and the judges' imports stay light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trustscore._errors import BadResponse, ClientError, LLMTimeout, LLMUnreachable, RateLimited, ServerError
from trustscore.core._lazy import lazy_exports
from trustscore.llm._config import CacheConfig, EndpointConfig
from trustscore.llm._protocol import (
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
    "build_request_body",
    "cache_key",
    "parse_response",
]

_LAZY = {
    "AdaptiveLimiter": "trustscore.llm._limits",
    "RetryPolicy": "trustscore.llm._limits",
    "LimiterPool": "trustscore.llm._limits",
    "ReplicaPool": "trustscore.llm._pool",
    "HttpBackend": "trustscore.llm._http",
    "UnsupportedRequest": "trustscore._errors",
    "build_request_body": "trustscore.llm._wire",
    "parse_response": "trustscore.llm._wire",
    "LLMClient": "trustscore.llm._client",
    "ResponseCache": "trustscore.llm._cache",
    "SafeDisk": "trustscore.llm._cache",
    "UnsafeCacheEntry": "trustscore._errors",
    "cache_key": "trustscore.llm._cache",
}

if TYPE_CHECKING:
    from trustscore._errors import UnsafeCacheEntry, UnsupportedRequest
    from trustscore.llm._cache import ResponseCache, SafeDisk, cache_key
    from trustscore.llm._client import LLMClient
    from trustscore.llm._http import HttpBackend
    from trustscore.llm._limits import AdaptiveLimiter, LimiterPool, RetryPolicy
    from trustscore.llm._pool import ReplicaPool
    from trustscore.llm._wire import build_request_body, parse_response

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
