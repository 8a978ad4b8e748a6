"""The scoring service: an ASGI app over one Scorer.

``POST /v1/score`` scores one input row (the JSON object a line of ``trustscore score``'s input holds)
and answers its result row, the JSON the CLI writes. ``POST /v1/score/batch`` takes NDJSON rows and
answers NDJSON result rows in the order they finish: a row that is not a valid sample, fails
unexpectedly, or is cut by shutdown is answered ``{"id", "line", "error"}`` in its place, so every row
of an accepted batch gets a line. ``GET /healthz`` answers 200 (503 while shutting down), ``GET
/metrics`` Prometheus text, ``GET /openapi.json`` the schema. A request may set ``?budget_s=`` (at most
``max_budget_s``). With ``api_keys`` set, every route but /healthz asks for ``Authorization: Bearer KEY``.
"""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from trustscore._errors import InputError
from trustscore.api._admission import SHUTTING_DOWN, Admission
from trustscore.api._metrics import ServiceMetrics
from trustscore.api._openapi import openapi_schema
from trustscore.api._settings import ApiSettings
from trustscore.rows._input import InputRow, parse_row
from trustscore.rows._output import result_row, row_line

if TYPE_CHECKING:
    from trustscore._types import TrustScore
    from trustscore.scoring._scorer import Scorer

__all__ = ["ScoringService", "create_app"]

logger = logging.getLogger("trustscore.api")

NDJSON = "application/x-ndjson"


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> HTTPException:
    return HTTPException(status, message, headers)


class ScoringService:
    """The routes' state: one Scorer, its admission queue and metrics."""

    def __init__(self, scorer: Scorer, settings: ApiSettings) -> None:
        self.scorer = scorer
        self.settings = settings
        self.admission = Admission(settings.max_in_flight, settings.max_queued)
        self.metrics = ServiceMetrics(self.admission)
        self._keys = [key.get_secret_value().encode() for key in settings.api_keys]

    # -- checks -------------------------------------------------------------------------------

    def check_key(self, request: Request) -> None:
        """401 unless the request carries one of the keys (compared in constant time, all of them)."""
        if not self._keys:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        offered = given.strip().encode() if scheme.lower() == "bearer" else b""
        matched = False
        for key in self._keys:
            matched |= hmac.compare_digest(offered, key)
        if not matched:
            raise _error(401, "missing or wrong API key: send 'Authorization: Bearer KEY'")

    async def read_body(self, request: Request) -> str:
        limit = self.settings.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _error(413, f"the body is {declared} bytes; the limit is {limit} (max_body_bytes)")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _error(413, f"the body is over {limit} bytes (max_body_bytes)")
            chunks.append(chunk)
        try:
            return b"".join(chunks).decode("utf-8")
        except UnicodeDecodeError as e:
            raise _error(400, f"the body is not UTF-8 (byte {e.start})") from None

    def budget(self, request: Request) -> float | None:
        raw = request.query_params.get("budget_s")
        if raw is None:
            return None
        try:
            budget = float(raw)
        except ValueError:
            raise _error(400, f"budget_s={raw!r} is not a number of seconds") from None
        cap = self.settings.max_budget_s
        if not math.isfinite(budget) or budget <= 0:
            raise _error(400, f"budget_s={raw!r}: give a positive number of seconds")
        if cap is not None and budget > cap:
            raise _error(400, f"budget_s={budget:g} is over this service's max_budget_s={cap:g}")
        return budget

    def reserve(self, room: int) -> int:
        """Room for up to ``room`` samples of this request; 503 while draining, 429 when full."""
        if self.admission.draining:
            raise _error(503, SHUTTING_DOWN)
        given = self.admission.try_reserve(room)
        if not given:
            self.metrics.rejected.inc()
            retry = str(self.settings.retry_after_s)
            raise _error(429, "the scoring queue is full; retry later", {"Retry-After": retry})
        return given

    # -- scoring ------------------------------------------------------------------------------

    async def score_row(self, row: InputRow, budget: float | None) -> TrustScore:
        async with self.admission.slots:
            result = await self.scorer.score_sample(row.sample, budget_s=budget)
        self.metrics.record(result)
        return result

    # -- routes -------------------------------------------------------------------------------

    async def score(self, request: Request) -> Response:
        self.check_key(request)
        text = await self.read_body(request)
        budget = self.budget(request)
        try:
            row = parse_row(text, "body")
        except InputError as e:
            raise _error(400, str(e)) from None
        self.reserve(1)
        result: TrustScore | None = None
        async with self.admission.work(1) as cancel:
            with cancel:
                try:
                    result = await self.score_row(row, budget)
                except Exception as e:  # the sample's own failure, answered with its reason
                    logger.exception("scoring %s failed", row.sample.id)
                    self.metrics.failed.inc()
                    return _json({"id": row.sample.id, "error": f"{type(e).__name__}: {e}"}, 500)
        if result is None:
            self.metrics.failed.inc()
            return _json({"id": row.sample.id, "error": f"not scored: {SHUTTING_DOWN}"}, 503)
        return Response(
            row_line(result_row(row.sample.id or "", result, row.carried)), media_type="application/json"
        )

    async def score_batch(self, request: Request) -> Response | BatchResponse:
        self.check_key(request)
        text = await self.read_body(request)
        budget = self.budget(request)
        rows: list[InputRow] = []
        refused: list[dict[str, Any]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            if len(rows) + len(refused) == self.settings.max_batch_rows:
                raise _error(413, f"more than {self.settings.max_batch_rows} rows (max_batch_rows)")
            try:
                rows.append(parse_row(line, f"line {number}", number))
            except InputError as e:
                refused.append({"id": None, "line": number, "error": str(e)})
        room = self.reserve(min(self.settings.batch_concurrency, len(rows))) if rows else 0
        return BatchResponse(self, rows, refused, room, budget)

    async def healthz(self, request: Request) -> Response:
        a = self.admission
        body = {"status": "shutting down" if a.draining else "ok", "in_flight": a.running, "queued": a.queued}
        return _json(body, 503 if a.draining else 200)

    async def prometheus(self, request: Request) -> Response:
        self.check_key(request)
        return Response(self.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def openapi(self, request: Request) -> Response:
        return _json(openapi_schema(), 200)


class BatchResponse:
    """Streams a batch's result rows as they finish (an ASGI response: the scoring runs in the task
    group that sends, so a client that goes away cancels it)."""

    def __init__(
        self,
        service: ScoringService,
        rows: list[InputRow],
        refused: list[dict[str, Any]],
        room: int,
        budget: float | None,
    ) -> None:
        self.service = service
        self.rows = rows
        self.refused = refused
        self.room = room
        self.budget = budget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", NDJSON.encode())]}
        )
        for line in self.refused:
            await _send_line(send, line)
        # Room for every row: a finished row is handed over without waiting (so never lost to a cancel).
        out, lines = anyio.create_memory_object_stream[dict[str, Any]](max(len(self.rows), 1))
        async with self.service.admission.work(self.room) as cancel, anyio.create_task_group() as tg:
            tg.start_soon(self._score_all, out, cancel)
            async with lines:
                async for line in lines:
                    await _send_line(send, line)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _score_all(self, out: Any, cancel: anyio.CancelScope) -> None:
        pending = list(reversed(self.rows))
        answered: set[int] = set()
        async with out:
            with cancel:

                async def worker() -> None:
                    while pending:
                        row = pending.pop()
                        out.send_nowait(await self._answer(row))
                        answered.add(row.line)

                async with anyio.create_task_group() as tg:
                    for _ in range(self.room):
                        tg.start_soon(worker)
            for row in self.rows:
                if row.line not in answered:
                    self.service.metrics.failed.inc()
                    out.send_nowait(
                        {"id": row.sample.id, "line": row.line, "error": f"not scored: {SHUTTING_DOWN}"}
                    )

    async def _answer(self, row: InputRow) -> dict[str, Any]:
        try:
            result = await self.service.score_row(row, self.budget)
        except Exception as e:  # one sample's unexpected failure is its row's answer, not the batch's
            logger.exception("scoring line %d failed", row.line)
            self.service.metrics.failed.inc()
            return {"id": row.sample.id, "line": row.line, "error": f"{type(e).__name__}: {e}"}
        return result_row(row.sample.id or "", result, row.carried)


async def _send_line(send: Send, row: dict[str, Any]) -> None:
    await send({"type": "http.response.body", "body": row_line(row).encode(), "more_body": True})


def _json(body: dict[str, Any], status: int) -> Response:
    return JSONResponse(body, status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def create_app(scorer: Scorer, settings: ApiSettings | None = None, *, own_scorer: bool = False) -> Starlette:
    """The ASGI app serving ``scorer``. On shutdown it drains its work (``shutdown_grace_s``); with
    ``own_scorer`` it then closes the scorer."""
    service = ScoringService(scorer, settings or ApiSettings())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await service.admission.drain(service.settings.shutdown_grace_s)
            if own_scorer:
                await scorer.aclose()

    def counted(
        route: str, handler: Callable[[Request], Awaitable[Any]]
    ) -> Callable[[Request], Awaitable[Any]]:
        async def run(request: Request) -> Any:
            try:
                response = await handler(request)
            except HTTPException as e:
                service.metrics.requests.labels(route, str(e.status_code)).inc()
                raise
            service.metrics.requests.labels(route, str(getattr(response, "status_code", 200))).inc()
            return response

        return run

    app = Starlette(
        routes=[
            Route("/v1/score", counted("/v1/score", service.score), methods=["POST"]),
            Route("/v1/score/batch", counted("/v1/score/batch", service.score_batch), methods=["POST"]),
            Route("/healthz", service.healthz, methods=["GET"]),
            Route("/metrics", service.prometheus, methods=["GET"]),
            Route("/openapi.json", service.openapi, methods=["GET"]),
        ],
        exception_handlers={HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.state.service = service
    return app
