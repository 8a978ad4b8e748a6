"""The fake vLLM behind both the loopback server and the in-process router: one request in, one answer out.

Transport-free: :meth:`FakeEngine.handle` takes a method, path, headers and body and returns a
:class:`~trustscore.testing._wire.WireResponse`, so the server and the router answer identically.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from trustscore.testing._faults import Fault, FaultSchedule
from trustscore.testing._judges import judge_policy
from trustscore.testing._latency import EngineSimulator, LatencyModel, ServerStats
from trustscore.testing._script import FakeAnswer, FakeRequest, Policy, Reply
from trustscore.testing._tokens import tokenize
from trustscore.testing._wire import (
    WireError,
    WireResponse,
    completion_body,
    error_response,
    json_response,
    models_body,
    parse_completion_request,
    render_choice,
)

__all__ = ["FakeEngine", "RecordedRequest", "UnmatchedRequest"]

_ERROR_KINDS = frozenset({"rate_limit", "server_error", "unavailable", "disconnect"})
"""Faults that replace the answer: the policy is not consulted."""
_NEEDS_ANSWER = {
    "delay": "a policy returned Fault.delay, which leaves no answer to give after it; schedule the delay "
    "(faults.add(Fault.delay(s))) or sleep in an async policy",
    "truncated": "a policy returned Fault.truncated, which has no text to cut; schedule it "
    "(faults.add(Fault.truncated())) or return FakeAnswer(text=partial, finish_reason='length')",
}
"""Faults that alter a scripted answer, so a policy cannot return them instead of one."""
_HANG_POLL_S = 0.005
_ENDPOINTS = {"/v1/chat/completions": "chat", "/v1/completions": "completions"}


class UnmatchedRequest(AssertionError):
    """The policy had no answer for a request (it returned None)."""

    def __init__(self, request: FakeRequest) -> None:
        snippet = request.text[-300:].replace("\n", "\\n")
        super().__init__(
            f"fake vLLM: no policy answer for {request.endpoint} request #{request.index} "
            f"(judge={request.judge!r}, tag={request.tag!r}, n={request.n}); "
            f"prompt ends with: ...{snippet!r}. "
            f"Add a rule (RulePolicy.on / on_judge) or a fallback answer."
        )
        self.request = request


@dataclass
class RecordedRequest:
    """One HTTP request as the fake received it (``status`` is filled when it is answered)."""

    method: str
    path: str
    body: Any
    """The parsed JSON body, or None (no body, or not JSON)."""
    headers: dict[str, str]
    time: float
    """``time.time()`` at arrival."""
    status: int | None = None
    """HTTP status sent; 0 for a dropped connection (``disconnect``); None while still in service."""
    fault: str | None = None
    """The kind of fault injected into this request, if any."""


def _continuation(request: FakeRequest, answer: FakeAnswer) -> FakeAnswer:
    """With ``continue_final_message``, answer only what follows the assistant prefix.

    The scripted text is continued after the last occurrence of the longest tail of the prefix
    (at least 3 characters, whitespace-trimmed) that it contains: a prefix ending in ``"SCORE": ``
    continues a Lynx answer with ``PASS}``. When no such tail occurs, the whole text is the continuation.
    """
    if not request.continue_final_message or not request.messages:
        return answer
    prefix = request.messages[-1].content
    tail = prefix.rstrip()[-200:]
    for start in range(len(tail) - 2):
        at = answer.text.rfind(tail[start:])
        if at >= 0:
            rest = answer.text[at + len(tail) - start :]
            return answer.model_copy(update={"text": rest.lstrip() if prefix != prefix.rstrip() else rest})
    return answer


class FakeEngine:
    """Policy, faults, latency model, request log and counters of one fake vLLM server.

    policy: answers completion requests (default: :func:`~trustscore.testing._judges.judge_policy`).
    models: the served model name(s); requests naming another model get vLLM's 404.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        models: str | Sequence[str] = "fake-judge",
        latency: LatencyModel | None = None,
        max_model_len: int = 8192,
    ) -> None:
        self.policy: Policy = policy if policy is not None else judge_policy()
        self.models = [models] if isinstance(models, str) else list(models)
        if not self.models:
            raise ValueError("FakeEngine needs at least one served model name")
        self.max_model_len = max_model_len
        self.faults = FaultSchedule()
        self.simulator = EngineSimulator(latency)
        self.created = int(time.time())
        self._lock = threading.Lock()
        self._log: list[RecordedRequest] = []
        self._index = 0
        self.unmatched: list[FakeRequest] = []
        self.policy_errors: list[BaseException] = []
        self._hung = threading.Event()

    def hang(self) -> None:
        """Stop answering anything (``/health`` included) until :meth:`resume`: requests are still
        received and logged, then held. A server whose process is alive but stuck (a wedged engine,
        a GPU fault) behaves so: connections open, no answer comes."""
        self._hung.set()

    def resume(self) -> None:
        """Answer again; requests held since :meth:`hang` are answered now (late)."""
        self._hung.clear()

    @property
    def hung(self) -> bool:
        return self._hung.is_set()

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every HTTP request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._log)

    def completion_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path in _ENDPOINTS]

    @property
    def stats(self) -> ServerStats:
        return self.simulator.stats

    def reset(self) -> None:
        """Forget the request log, the counters, the prefix cache and the scheduled faults; answer
        again if hung."""
        self._hung.clear()
        with self._lock:
            self._log.clear()
            self._index = 0
            self.unmatched.clear()
            self.policy_errors.clear()
        self.faults.clear()
        self.simulator.reset()

    async def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> WireResponse:
        """Answer one HTTP request. Raises :class:`UnmatchedRequest` and policy errors (callers decide)."""
        try:
            parsed = json_body(body)
        except ValueError:
            parsed = None
        record = RecordedRequest(method, path, parsed, headers, time.time())
        with self._lock:
            self._log.append(record)
        while self._hung.is_set():  # set and cleared from the test's thread: poll, no loop-bound event
            await anyio.sleep(_HANG_POLL_S)
        response = await self._route(method, path, headers, body, record)
        record.status = response.status
        return response

    async def _route(
        self, method: str, path: str, headers: dict[str, str], body: bytes, record: RecordedRequest
    ) -> WireResponse:
        if path == "/health":
            return WireResponse(200) if method == "GET" else _not_allowed()
        if path == "/v1/models":
            return (
                json_response(200, models_body(self.models, self.max_model_len, self.created))
                if method == "GET"
                else _not_allowed()
            )
        endpoint = _ENDPOINTS.get(path)
        if endpoint is None:
            return json_response(404, {"detail": "Not Found"})
        if method != "POST":
            return _not_allowed()
        with self._lock:
            index = self._index
            self._index += 1
        try:
            request = parse_completion_request(
                endpoint,
                body,
                headers,
                index,
                self.models,
                self.max_model_len,
            )
        except WireError as e:
            return error_response(e.status, e.err_type, e.message, e.param)
        return await self._complete(request, record)

    async def _ask(self, request: FakeRequest) -> Reply:
        try:
            reply = self.policy(request)
            if inspect.isawaitable(reply):
                reply = await reply
        except Exception as e:
            with self._lock:
                self.policy_errors.append(e)
            raise
        return reply  # type: ignore[return-value]

    async def _complete(self, request: FakeRequest, record: RecordedRequest) -> WireResponse:
        fault = self.faults.take(request)
        reply: Reply = None
        if fault is None or fault.kind not in _ERROR_KINDS:
            reply = await self._ask(request)
            if isinstance(reply, Fault):
                if reply.kind in _NEEDS_ANSWER:
                    return error_response(500, "InternalServerError", _NEEDS_ANSWER[reply.kind])
                fault, reply = reply, FakeAnswer(text="")
            elif reply is None:
                with self._lock:
                    self.unmatched.append(request)
                raise UnmatchedRequest(request)
        if fault is not None:
            record.fault = fault.kind
            if fault.kind == "delay":
                await anyio.sleep(fault.delay_s)
            early = self._fault_response(fault)
            if early is not None:
                return early
        answers = _answers_for(request, reply)
        keep = None
        if fault is not None and fault.kind == "truncated":
            keep = (
                fault.keep_tokens
                if fault.keep_tokens is not None
                else max(len(tokenize(answers[0].text)) // 2, 1)
            )
        choices = [render_choice(request, a, keep) for a in answers]
        await self.simulator.serve(
            request.tokens,
            [len(c.tokens) for c in choices],
            read_cache=request.prompt_logprobs is None,
        )
        if fault is not None and fault.kind == "empty_choices":
            answers, choices = [], []
        body = completion_body(request, answers, choices, self.created)
        response = json_response(200, body)
        if fault is not None and fault.kind == "malformed_json":
            return WireResponse(200, response.body[: max(len(response.body) // 2, 1)], response.headers)
        return response

    @staticmethod
    def _fault_response(fault: Fault | None) -> WireResponse | None:
        if fault is None:
            return None
        if fault.kind == "disconnect":
            return WireResponse(0, disconnect=True)
        if fault.kind in ("rate_limit", "server_error", "unavailable"):
            headers = []
            if fault.retry_after is not None:
                ra = fault.retry_after
                headers.append(("retry-after", str(int(ra)) if ra == int(ra) else f"{ra:g}"))
            err_type = {
                "rate_limit": "RateLimitError",
                "server_error": "InternalServerError",
                "unavailable": "ServiceUnavailableError",
            }[fault.kind]
            return error_response(fault.status, err_type, fault.message, None, headers)
        return None


def json_body(body: bytes) -> Any:
    """The parsed JSON body, or None for an empty body; ValueError when it is not JSON."""
    return json.loads(body) if body else None


def _not_allowed() -> WireResponse:
    return json_response(405, {"detail": "Method Not Allowed"})


def _answers_for(request: FakeRequest, reply: Reply) -> list[FakeAnswer]:
    if isinstance(reply, FakeAnswer):
        base = [reply]
    elif isinstance(reply, Sequence) and reply and all(isinstance(a, FakeAnswer) for a in reply):
        base = list(reply)
    else:
        raise TypeError(
            f"a policy must return FakeAnswer, a non-empty list of them, a Fault or None; got {reply!r}"
        )
    return [_continuation(request, base[i % len(base)]) for i in range(request.n)]


class EngineView:
    """What a fake exposes of its engine for scripting and assertions (the server and the router)."""

    engine: FakeEngine

    @property
    def policy(self) -> Policy:
        """What answers completion requests; assign a new one to re-script the fake."""
        return self.engine.policy

    @policy.setter
    def policy(self, policy: Policy) -> None:
        self.engine.policy = policy

    @property
    def model(self) -> str:
        """The (first) served model name."""
        return self.engine.models[0]

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.engine.requests

    @property
    def faults(self) -> FaultSchedule:
        return self.engine.faults

    @property
    def stats(self) -> ServerStats:
        return self.engine.stats

    @property
    def unmatched(self) -> list[FakeRequest]:
        return list(self.engine.unmatched)

    @property
    def policy_errors(self) -> list[BaseException]:
        return list(self.engine.policy_errors)

    def hang(self) -> None:
        """See :meth:`FakeEngine.hang`: hold every request, ``/health`` included, until :meth:`resume`."""
        self.engine.hang()

    def resume(self) -> None:
        self.engine.resume()

    def reset(self) -> None:
        self.engine.reset()
