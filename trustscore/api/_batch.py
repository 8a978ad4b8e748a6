"""``POST /v1/score/batch``'s answer: result rows streamed as they finish.

The rows are scored in the request's room of the queue while a sender writes each finished row; the
room is given back as soon as the scoring ends, not when the client has read the answer. The body's
share of the body budget is kept until the answer is written (or cut): an answer carries its rows'
fields, so it is about as large as the body. A client
that goes away cancels the scoring at once; one that reads nothing for ``send_timeout_s`` is cut
off (its scoring cancelled, its connection closed). Every row of a batch whose client stays gets a
line: its result, or why it was not scored.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.types import Receive, Scope, Send

from trustscore.api._admission import SHUTTING_DOWN
from trustscore.rows import IdIndex
from trustscore.rows._output import result_row, row_line

if TYPE_CHECKING:
    from trustscore._types import TrustScore
    from trustscore.api._admission import Admission
    from trustscore.api._bodies import HeldBody
    from trustscore.api._metrics import ServiceMetrics
    from trustscore.api._settings import ApiSettings
    from trustscore.rows._input import InputRow

__all__ = ["BatchResponse", "watch_disconnect"]

logger = logging.getLogger("trustscore.api")

NDJSON = b"application/x-ndjson"


async def watch_disconnect(receive: Receive, gone: anyio.Event, scope: anyio.CancelScope) -> None:
    """Cancel ``scope`` when the client disconnects (after its body has been read)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()
    scope.cancel()


class BatchService(Protocol):
    """What a batch needs of the service (:class:`~trustscore.api._app.ScoringService`)."""

    settings: ApiSettings
    admission: Admission
    metrics: ServiceMetrics

    async def score_row(self, row: InputRow, budget: float | None) -> TrustScore: ...


@dataclass(eq=False)
class BatchResponse:
    """An ASGI response that scores a batch's rows and streams a line per row."""

    service: BatchService
    rows: list[InputRow]
    """The valid rows to score (emptied once scored: their answers hold the body's budget then)."""
    refused: list[dict[str, Any]]
    """Answers already made: the rows refused as invalid."""
    room: int
    """Samples of the queue this batch may score at once."""
    budget: float | None
    held: HeldBody
    """The body's bytes, released when the answer is done."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Room for every row: a finished row is handed over without waiting (so never lost to a cancel).
        out, lines = anyio.create_memory_object_stream[dict[str, Any]](len(self.rows) + len(self.refused) + 1)
        for line in self.refused:
            out.send_nowait(line)
        sent_all = False
        try:
            async with anyio.create_task_group() as tg:
                gone = anyio.Event()
                tg.start_soon(watch_disconnect, receive, gone, tg.cancel_scope)
                stopped = tg.cancel_scope

                async def sender() -> None:
                    nonlocal sent_all
                    with self.service.admission.sending():  # the drain cuts it when the grace is over
                        sent_all = await self._send_all(lines, send)
                    stopped.cancel()  # answered, or cut off: the scoring and the watcher stop

                tg.start_soon(sender)
                async with self.service.admission.work(self.room) as cancel:
                    await self._score_all(out, cancel)
                self.rows = []  # scored; their answers (which carry their fields) hold the budget now
        finally:
            self.held.release()
        if sent_all:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _send_all(self, lines: MemoryObjectReceiveStream[dict[str, Any]], send: Send) -> bool:
        """Send every line; False when the client read none of it for ``send_timeout_s``."""
        timeout = self.service.settings.send_timeout_s
        async with lines:
            with anyio.move_on_after(timeout) as timer:
                await send(
                    {"type": "http.response.start", "status": 200, "headers": [(b"content-type", NDJSON)]}
                )
            if timer.cancelled_caught:
                return self._cut_off(timeout)
            async for line in lines:
                with anyio.move_on_after(timeout) as timer:
                    await send(
                        {"type": "http.response.body", "body": row_line(line).encode(), "more_body": True}
                    )
                if timer.cancelled_caught:
                    return self._cut_off(timeout)
        return True

    def _cut_off(self, timeout: float) -> bool:
        logger.warning(
            "a batch client read nothing for %g s (send_timeout_s): closing its connection", timeout
        )
        return False

    async def _score_all(
        self, out: MemoryObjectSendStream[dict[str, Any]], cancel: anyio.CancelScope
    ) -> None:
        pending = list(reversed(self.rows))
        answered: set[int] = set()
        sink = AnswerStream(out)
        try:
            with cancel:

                async def worker() -> None:
                    while pending:
                        row = pending.pop()
                        answer = await self._answer(row)
                        with anyio.CancelScope(shield=True):  # never waits: a cancel cannot cut it
                            await sink.write(answer)
                        answered.add(row.line)

                async with anyio.create_task_group() as tg:
                    for _ in range(self.room):
                        tg.start_soon(worker)
            for row in self.rows:
                if row.line not in answered:
                    self.service.metrics.failed.inc()
                    line = {"id": row.sample.id, "line": row.line, "error": f"not scored: {SHUTTING_DOWN}"}
                    await sink.write(line)
        finally:
            await sink.close()

    async def _answer(self, row: InputRow) -> dict[str, Any]:
        try:
            result = await self.service.score_row(row, self.budget)
        except Exception as e:  # one sample's unexpected failure is its row's answer, not the batch's
            logger.exception("scoring line %d failed", row.line)
            self.service.metrics.failed.inc()
            return {"id": row.sample.id, "line": row.line, "error": f"{type(e).__name__}: {e}"}
        return result_row(row.sample.id or "", result, row.carried)


class AnswerStream:
    """The batch's streamed answer as a :class:`~trustscore.rows.ResultSink`: each row is handed to the
    sender without waiting (room for every row is made up front, so a finished row is never lost to a
    cancel) and dropped when the sender is gone (client gone or cut off); nothing to resume from."""

    name = "the batch's answer stream"

    def __init__(self, out: MemoryObjectSendStream[dict[str, Any]]) -> None:
        self._out = out

    async def open(self) -> IdIndex:
        return IdIndex()

    async def write(self, row: dict[str, Any]) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._out.send_nowait(row)

    async def flush(self) -> None:
        """The sender sends each row as it comes."""

    async def close(self) -> None:
        self._out.close()
