"""The process's parsed contexts: what the claims check read from a text, kept by the text's hash so
that the answers sharing one context (many answers to one question, arriving together) parse it once.

Bounded by the characters of the texts it holds (what a parse's size grows with), least recently used
first out. A text being parsed is parsed by its first caller only: the others wait for that result
(their budget's clock stopped, as for a model another caller loads) instead of parsing it again; if
the first caller fails (its budget ran out) the next one parses it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar, cast

from trustscore.compute._deadline import checkpoint, clock_stopped

__all__ = ["ParseCache", "text_key"]

T = TypeVar("T")

_WAIT_S = 0.05
"""How often a caller waiting on another's parse checks its own budget (cancellation included)."""


def text_key(namespace: str, text: str) -> bytes:
    """The cache key of ``text`` parsed by ``namespace`` (the pipeline): a 16-byte BLAKE2b digest."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(namespace.encode())
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


class _Flight(Generic[T]):
    """One parse in progress: ``done`` is set when it ends, with ``result`` when it succeeded."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.ok = False
        self.result: T | None = None


class ParseCache(Generic[T]):
    """A thread-safe, character-bounded LRU of parse results with one parse per text at a time."""

    def __init__(self, max_chars: int) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be at least 1, got {max_chars}")
        self.max_chars = max_chars
        self._kept: OrderedDict[bytes, tuple[T, int]] = OrderedDict()
        self._chars = 0
        self._flights: dict[bytes, _Flight[T]] = {}
        self._lock = threading.Lock()

    @property
    def chars(self) -> int:
        """Characters of the texts whose results are kept now."""
        return self._chars

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, namespace: str, text: str, parse: Callable[[str], T]) -> T:
        """The kept result for ``text``, else ``parse(text)`` (kept when the text fits the bound);
        waits instead when another thread is parsing the same text."""
        key = text_key(namespace, text)
        while True:
            with self._lock:
                kept = self._kept.get(key)
                if kept is not None:
                    self._kept.move_to_end(key)
                    return kept[0]
                flight = self._flights.get(key)
                if flight is None:
                    flight = self._flights[key] = _Flight[T]()
                    break
            _wait(flight)
            if flight.ok:
                return cast(T, flight.result)  # set with ok
            # that parse failed (its caller's budget ran out): parse it here
        try:
            result = parse(text)
        except BaseException:
            with self._lock:
                del self._flights[key]
            flight.done.set()
            raise
        with self._lock:
            self._store(key, result, len(text))
            del self._flights[key]
        flight.result, flight.ok = result, True
        flight.done.set()
        return result

    def _store(self, key: bytes, result: T, chars: int) -> None:
        if chars > self.max_chars:
            return
        self._kept[key] = (result, chars)
        self._chars += chars
        while self._chars > self.max_chars:
            _, (_, dropped) = self._kept.popitem(last=False)
            self._chars -= dropped


def _wait(flight: _Flight[T]) -> None:
    with clock_stopped():
        while not flight.done.wait(_WAIT_S):
            checkpoint()
