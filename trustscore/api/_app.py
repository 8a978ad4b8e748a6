"""The scoring service: an ASGI app over one Scorer.

``POST /v1/score`` scores one input row (the JSON object a line of ``trustscore score``'s input holds)
and answers its result row, the JSON the CLI writes. ``POST /v1/score/batch`` takes NDJSON rows and
answers NDJSON result rows in the order they finish (:mod:`trustscore.api._batch`). ``GET /healthz``
answers 200 while the process serves (503 while shutting down), ``GET /readyz`` 200 once the signals
are warm (503 before, and while shutting down), ``GET /metrics`` Prometheus text, ``GET /openapi.json``
the schema. A request may set ``?budget_s=`` (at most ``max_budget_s``). With ``api_keys`` set, every
route but /healthz and /readyz asks for ``Authorization: Bearer KEY``.

A request is checked in the order that costs least: key, parameters, room in the queue (429 before a
byte of the body is read), then the body within its bounds (:mod:`trustscore.api._bodies`). A client
that goes away stops its scoring at once.
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

from trustscore._errors import InputError
from trustscore.api._admission import SHUTTING_DOWN, Admission
from trustscore.api._batch import BatchResponse, watch_disconnect
from trustscore.api._bodies import BodyBudget, HeldBody, http_error, read_body
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

GONE = "the client went away"


class ScoringService:
    """The routes' state: one Scorer, its admission queue, its body budget and metrics."""

    def __init__(self, scorer: Scorer, settings: ApiSettings) -> None:
        self.scorer = scorer
        self.settings = settings
        self.admission = Admission(settings.max_in_flight, settings.max_queued)
        self.bodies = BodyBudget(settings.max_body_buffer_bytes)
        self.metrics = ServiceMetrics(self.admission)
        self.warming: anyio.Event | None = None
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
            raise http_error(401, "missing or wrong API key: send 'Authorization: Bearer KEY'")

    def budget(self, request: Request) -> float | None:
        raw = request.query_params.get("budget_s")
        if raw is None:
            return None
        try:
            budget = float(raw)
        except ValueError:
            raise http_error(400, f"budget_s={raw!r} is not a number of seconds") from None
        cap = self.settings.max_budget_s
        if not math.isfinite(budget) or budget <= 0:
            raise http_error(400, f"budget_s={raw!r}: give a positive number of seconds")
        if cap is not None and budget > cap:
            raise http_error(400, f"budget_s={budget:g} is over this service's max_budget_s={cap:g}")
        return budget

    def _full(self) -> HTTPException:
        self.metrics.rejected.inc()
        retry = {"Retry-After": str(self.settings.retry_after_s)}
        return http_error(429, "the scoring queue is full; retry later", retry, close=True)

    def check_room(self) -> None:
        """503 while draining, 429 when the queue is full: answered before the body is read."""
        if self.admission.draining:
            raise http_error(503, SHUTTING_DOWN, close=True)
        if not self.admission.has_room():
            raise self._full()

    def reserve(self, room: int) -> int:
        """Room for up to ``room`` samples of this request; 503 while draining, 429 when full."""
        if self.admission.draining:
            raise http_error(503, SHUTTING_DOWN)
        given = self.admission.try_reserve(room)
        if not given:
            raise self._full()
        return given

    async def body_text(self, request: Request, held: HeldBody) -> str:
        s = self.settings
        with self.admission.reading():
            body = await read_body(
                request,
                held,
                limit=s.max_body_bytes,
                timeout_s=s.body_timeout_s,
                retry_after_s=s.retry_after_s,
            )
            try:
                return body.decode("utf-8")
            except UnicodeDecodeError as e:
                raise http_error(400, f"the body is not UTF-8 (byte {e.start})") from None
        raise http_error(503, SHUTTING_DOWN, close=True)  # the drain stopped the reading

    # -- scoring ------------------------------------------------------------------------------

    async def score_row(self, row: InputRow, budget: float | None) -> TrustScore:
        if self.warming is not None:  # the signals load once, for everyone, before the first sample
            await self.warming.wait()
        async with self.admission.slots:
            result = await self.scorer.score_sample(row.sample, budget_s=budget)
        self.metrics.record(result)
        return result

    async def warm_up(self) -> None:
        """Warm the scorer's signals; /readyz answers 200 once done."""
        warming = self.warming = self.warming or anyio.Event()
        started = anyio.current_time()
        try:
            await self.scorer.warm_up()
        finally:
            self.warming = None
            warming.set()
        logger.info("ready: signals warmed in %.1f s", anyio.current_time() - started)

    # -- routes -------------------------------------------------------------------------------

    async def score(self, request: Request) -> Response:
        self.check_key(request)
        budget = self.budget(request)
        self.check_room()
        with self.bodies.hold() as held:
            text = await self.body_text(request, held)
            try:
                row = parse_row(text, "body")
            except InputError as e:
                raise http_error(400, str(e)) from None
            del text
            self.reserve(1)
            result: TrustScore | None = None
            async with self.admission.work(1) as cancel, anyio.create_task_group() as tg:
                gone = anyio.Event()
                tg.start_soon(watch_disconnect, request.receive, gone, tg.cancel_scope)
                with cancel:
                    try:
                        result = await self.score_row(row, budget)
                    except Exception as e:  # the sample's own failure, answered with its reason
                        logger.exception("scoring %s failed", row.sample.id)
                        self.metrics.failed.inc()
                        return _json({"id": row.sample.id, "error": f"{type(e).__name__}: {e}"}, 500)
                    finally:
                        tg.cancel_scope.cancel()
            if result is None:
                self.metrics.failed.inc()
                why = GONE if gone.is_set() else SHUTTING_DOWN
                return _json({"id": row.sample.id, "error": f"not scored: {why}"}, 503)
            return Response(
                row_line(result_row(row.sample.id or "", result, row.carried)), media_type="application/json"
            )

    async def score_batch(self, request: Request) -> Response | BatchResponse:
        self.check_key(request)
        budget = self.budget(request)
        self.check_room()
        held = self.bodies.hold()
        try:
            rows, refused = self._batch_rows(await self.body_text(request, held))
            room = self.reserve(min(self.settings.batch_concurrency, len(rows))) if rows else 0
        except BaseException:
            held.release()
            raise
        return BatchResponse(self, rows, refused, room, budget, held)

    def _batch_rows(self, text: str) -> tuple[list[InputRow], list[dict[str, Any]]]:
        rows: list[InputRow] = []
        refused: list[dict[str, Any]] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            if len(rows) + len(refused) == self.settings.max_batch_rows:
                raise http_error(413, f"more than {self.settings.max_batch_rows} rows (max_batch_rows)")
            try:
                rows.append(parse_row(line, f"line {number}", number))
            except InputError as e:
                refused.append({"id": None, "line": number, "error": str(e)})
        return rows, refused

    async def healthz(self, request: Request) -> Response:
        a = self.admission
        body = {"status": "shutting down" if a.draining else "ok", "in_flight": a.running, "queued": a.queued}
        return _json(body, 503 if a.draining else 200)

    async def readyz(self, request: Request) -> Response:
        if self.admission.draining:
            return _json({"status": "shutting down"}, 503)
        if self.warming is not None:
            return _json({"status": "warming up"}, 503)
        return _json({"status": "ready"}, 200)

    async def prometheus(self, request: Request) -> Response:
        self.check_key(request)
        return Response(self.metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def openapi(self, request: Request) -> Response:
        self.check_key(request)
        return _json(openapi_schema(), 200)


def _json(body: dict[str, Any], status: int) -> Response:
    return JSONResponse(body, status_code=status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)


def create_app(
    scorer: Scorer, settings: ApiSettings | None = None, *, own_scorer: bool = False, warm_up: bool = False
) -> Starlette:
    """The ASGI app serving ``scorer``. With ``warm_up`` its start warms the scorer's signals in the
    background (/readyz says when; samples that arrive before wait for it). On shutdown it drains its
    work (``shutdown_grace_s``); with ``own_scorer`` it then closes the scorer."""
    service = ScoringService(scorer, settings or ApiSettings())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            async with anyio.create_task_group() as tg:
                if warm_up:
                    service.warming = anyio.Event()  # before the first request can look
                    tg.start_soon(service.warm_up)
                yield
                tg.cancel_scope.cancel()
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
            Route("/readyz", service.readyz, methods=["GET"]),
            Route("/metrics", service.prometheus, methods=["GET"]),
            Route("/openapi.json", service.openapi, methods=["GET"]),
        ],
        exception_handlers={HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.state.service = service
    return app
