"""Reading a server's answer without trusting it: at most a size limit held, decoded in bounded steps.

:class:`BoundedBody` takes the raw (still compressed) pieces of a body as they arrive and keeps at most
``limit`` decoded bytes, decompressing gzip or deflate itself in steps no larger than what is left of
the limit, so a gzip bomb costs no more memory than an honest answer of the limit's size. The judge
client reads its answers through it (``trustscore.llm._bounds.read_bounded``), and so do the score
writers, which also give the whole read a deadline (:func:`read_bounded_sync`).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable
from typing import Any

from trustscore._errors import BadResponse

__all__ = ["BoundedBody", "read_bounded_sync"]


class BoundedBody:
    """Over the limit: BadResponse naming ``over`` when ``refuse``, else the first ``limit`` bytes are
    kept and :meth:`feed` answers False (read no further). A content-encoding other than gzip or
    deflate is refused."""

    def __init__(
        self, limit: int, content_encoding: str = "", *, refuse: bool = True, over: str = "a server fault"
    ) -> None:
        self._limit = limit
        self._refuse = refuse
        self._over = over
        self._out = bytearray()
        self._decoder = _decoder(content_encoding)
        self._full = False

    def feed(self, chunk: bytes) -> bool:
        """Take one raw piece; False once the limit is reached (stop reading)."""
        if self._decoder is None:
            return self._take(chunk)
        data = chunk
        while data:
            try:
                piece = self._decoder.decompress(data, self._limit - len(self._out) + 1)
            except zlib.error as e:
                raise BadResponse(f"the response's compressed body is corrupt: {e}") from None
            if not self._take(piece):
                return False
            data = self._decoder.unconsumed_tail
        return True

    def finish(self) -> bytes:
        """The body (what a compressed stream still holds is decoded first, within the limit)."""
        if self._decoder is not None and not self._full:
            self._take(self._decoder.flush())
        return bytes(self._out)

    def _take(self, piece: bytes) -> bool:
        room = self._limit - len(self._out)
        if len(piece) <= room:
            self._out.extend(piece)
            return True
        if self._refuse:
            raise BadResponse(f"the response is over {self._limit:,} bytes ({self._over}); not read further")
        self._out.extend(piece[:room])
        self._full = True
        return False


def read_bounded_sync(
    chunks: Iterable[bytes],
    content_encoding: str,
    *,
    limit: int,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
) -> bytes:
    """A body from ``chunks`` (raw pieces), refused when over ``limit`` decoded bytes or when it is
    still arriving at ``deadline`` (of ``clock``): each piece is checked as it comes, so a server that
    trickles holds the reader until the deadline and, at worst, one read timeout more."""
    body = BoundedBody(limit, content_encoding)
    for chunk in chunks:
        if clock() > deadline:
            raise BadResponse("the response was still arriving at its deadline; not read further")
        if not body.feed(chunk):
            break
    return body.finish()


def _decoder(encoding: str) -> Any:
    name = encoding.strip().lower()
    if name in ("", "identity"):
        return None
    if name in ("gzip", "x-gzip"):
        return zlib.decompressobj(zlib.MAX_WBITS | 16)
    if name == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS | 32)  # zlib-wrapped (RFC 9110) or gzip, by header
    raise BadResponse(
        f"the response's content-encoding {encoding[:40]!r} is not gzip or deflate, which were asked for"
    )
