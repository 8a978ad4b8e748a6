"""Reading request bodies within bounds: size, time, and the memory all bodies hold at once.

Every body may use its first :data:`UNCOUNTED_BYTES` freely (the connection cap bounds those); beyond
that it takes room from one :class:`BodyBudget` shared by the service, as its bytes arrive (or at
once, for the length it declares), and keeps it until its request is done, parsed rows included. A
body that does not fit is answered 429 before more of it is read, one over ``max_body_bytes`` 413,
one that does not arrive within ``body_timeout_s`` 408: each with ``Connection: close``, since the
rest of the body is never read.
"""

from __future__ import annotations

from types import TracebackType

import anyio
from starlette.exceptions import HTTPException
from starlette.requests import Request

__all__ = ["UNCOUNTED_BYTES", "BodyBudget", "HeldBody", "http_error", "read_body"]

UNCOUNTED_BYTES = 64 * 1024
"""Bytes of each body not counted against the budget: an ordinary sample fits, whatever else waits."""


def http_error(
    status: int, message: str, headers: dict[str, str] | None = None, *, close: bool = False
) -> HTTPException:
    """An error answer; ``close`` ends the connection after it (the body was not read to its end)."""
    return HTTPException(status, message, {**(headers or {}), **({"Connection": "close"} if close else {})})


class BodyBudget:
    """The body bytes beyond each body's first :data:`UNCOUNTED_BYTES` held at once, across requests."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def hold(self) -> HeldBody:
        return HeldBody(self)


class HeldBody:
    """One request's share of the budget; given back by :meth:`release` (or leaving ``with``)."""

    def __init__(self, budget: BodyBudget) -> None:
        self.budget = budget
        self.bytes = 0

    def cover(self, size: int) -> bool:
        """Take room for a body of ``size`` bytes (what is not yet taken); False when it does not fit."""
        more = max(0, size - UNCOUNTED_BYTES) - self.bytes
        if more <= 0:
            return True
        if self.budget.held + more > self.budget.limit:
            return False
        self.budget.held += more
        self.bytes += more
        return True

    def release(self) -> None:
        self.budget.held -= self.bytes
        self.bytes = 0

    def __enter__(self) -> HeldBody:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _too_many_bodies(retry_after_s: int) -> HTTPException:
    return http_error(
        429,
        "the service holds as many request bodies as it may; retry later",
        {"Retry-After": str(retry_after_s)},
        close=True,
    )


async def read_body(
    request: Request, held: HeldBody, *, limit: int, timeout_s: float, retry_after_s: int
) -> bytes:
    """The body of ``request``, its room taken from ``held`` as it arrives."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit():
        if int(declared) > limit:
            raise http_error(
                413, f"the body is {declared} bytes; the limit is {limit} (max_body_bytes)", close=True
            )
        if not held.cover(int(declared)):
            raise _too_many_bodies(retry_after_s)
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(timeout_s) as timer:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise http_error(413, f"the body is over {limit} bytes (max_body_bytes)", close=True)
            if not held.cover(size):
                raise _too_many_bodies(retry_after_s)
            chunks.append(chunk)
    if timer.cancelled_caught:
        raise http_error(408, f"the body did not arrive within {timeout_s:g} s (body_timeout_s)", close=True)
    return b"".join(chunks)
