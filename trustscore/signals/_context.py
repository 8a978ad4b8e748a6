"""What a signal's factory receives: the LLMs by endpoint name and the local-signal cache, never the
whole Config (a factory's own settings are its config section)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from trustscore._errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from trustscore.llm._protocol import LLM

__all__ = ["SignalContext", "VectorStore"]


@runtime_checkable
class VectorStore(Protocol):
    """The on-disk store of text embeddings a local signal may share across runs (the local cache)."""

    def get_vectors(self, model: str, texts: list[str], dim: int) -> Mapping[str, np.ndarray]: ...

    def put_vectors(self, model: str, vectors: Mapping[str, np.ndarray]) -> None: ...


class SignalContext:
    """Given to every signal factory (see :func:`trustscore.register_signal`).

    ``llm(name)`` is the LLM of ``[endpoints.<name>]`` (or the one injected under that name); it
    raises :class:`~trustscore._errors.EndpointUnavailable` when the endpoint's API key is not set,
    and :class:`~trustscore._errors.ConfigError` for a name that is not configured.
    ``endpoint_names`` lists every name ``llm`` knows; ``local_cache`` is the store a local
    signal may keep embeddings in (None when the cache is off), opened on first use.
    """

    def __init__(
        self,
        *,
        llm: Callable[[str], LLM] | None = None,
        endpoint_names: Sequence[str] = (),
        local_cache: Callable[[], VectorStore | None] | None = None,
    ) -> None:
        self._llm = llm
        self.endpoint_names = list(endpoint_names)
        self._local_cache = local_cache

    @property
    def local_cache(self) -> VectorStore | None:
        return self._local_cache() if self._local_cache is not None else None

    def llm(self, endpoint: str) -> LLM:
        if self._llm is None:
            raise ConfigError(
                f"endpoint {endpoint!r} is not available here (no endpoints); add [endpoints.{endpoint}] "
                "to the config or pass llms={name: llm} to the Scorer"
            )
        return self._llm(endpoint)
