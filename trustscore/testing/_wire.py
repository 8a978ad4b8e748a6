"""The OpenAI/vLLM wire format, in one place for the loopback server and the in-process router.

Request parsing follows vLLM's OpenAI-compatible server (``vllm/entrypoints/openai``, v0.12+):
``structured_outputs`` / ``response_format`` constraints, ``prompt_logprobs`` and ``echo`` extras.
Response bodies carry the same fields vLLM returns. Where vLLM puts ``prompt_logprobs`` differs by
endpoint, and the fake follows it: top level for chat, inside each choice for completions.
Deliberately stricter than vLLM: the ``guided_*`` fields (removed in vLLM 0.12, where they are
silently ignored) are refused with 400 so a client still sending them is caught in tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from trustscore.core._hashing import short_hash
from trustscore.llm._protocol import Constraint, Message
from trustscore.testing._constraints import apply_constraint
from trustscore.testing._judges import judge_of
from trustscore.testing._script import FakeAnswer, FakeRequest
from trustscore.testing._tokens import token_id, tokenize

__all__ = [
    "RenderedChoice",
    "WireError",
    "WireResponse",
    "completion_body",
    "error_response",
    "json_response",
    "models_body",
    "parse_completion_request",
    "render_choice",
    "render_messages",
]

MAX_LOGPROBS = 20
"""vLLM's default ``--max-logprobs``."""

_LEGACY_GUIDED = ("guided_choice", "guided_regex", "guided_json", "guided_grammar", "guided_decoding_backend")


@dataclass(frozen=True)
class WireResponse:
    """One HTTP answer. ``disconnect``: close the connection instead of answering."""

    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    disconnect: bool = False


class WireError(Exception):
    """A request the server refuses, with the status and vLLM error type it would answer."""

    def __init__(self, status: int, err_type: str, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.err_type = err_type
        self.message = message
        self.param = param


def json_response(status: int, payload: Any, headers: Sequence[tuple[str, str]] = ()) -> WireResponse:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return WireResponse(status, body, [("content-type", "application/json"), *headers])


def error_response(
    status: int,
    err_type: str,
    message: str,
    param: str | None = None,
    headers: Sequence[tuple[str, str]] = (),
) -> WireResponse:
    """vLLM's error envelope: ``{"error": {"message", "type", "param", "code": <status>}}``."""
    payload = {"error": {"message": message, "type": err_type, "param": param, "code": status}}
    return json_response(status, payload, headers)


def models_body(models: Sequence[str], max_model_len: int, created: int) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {
                "id": m,
                "object": "model",
                "created": created,
                "owned_by": "vllm",
                "root": m,
                "parent": None,
                "max_model_len": max_model_len,
                "permission": [],
            }
            for m in models
        ],
    }


def _bad(message: str, param: str | None = None) -> WireError:
    return WireError(400, "BadRequestError", message, param)


def _message_content(raw: Any, i: int) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        parts = [p.get("text", "") for p in raw if isinstance(p, dict) and p.get("type") == "text"]
        if len(parts) == len(raw):
            return "".join(parts)
    raise _bad(f"messages[{i}].content must be a string or a list of text parts", "messages")


def render_messages(messages: Sequence[Message]) -> str:
    """The prompt text the fake 'model' reads for a chat: one ``<|role|>`` block per message."""
    return "".join(f"<|{m.role}|>\n{m.content}\n" for m in messages)


def _constraint(body: dict[str, Any]) -> Constraint | None:
    for legacy in _LEGACY_GUIDED:
        if legacy in body:
            raise _bad(
                f"{legacy} was removed in vLLM 0.12; send structured_outputs "
                f'(e.g. {{"choice": [...]}}) instead',
                legacy,
            )
    so = body.get("structured_outputs")
    rf = body.get("response_format")
    if so is not None and rf not in (None, {"type": "text"}):
        raise _bad("send either structured_outputs or response_format, not both", "response_format")
    if so is not None:
        if not isinstance(so, dict):
            raise _bad("structured_outputs must be an object", "structured_outputs")
        given = {
            k: v
            for k, v in so.items()
            if v is not None and k in ("choice", "regex", "json", "grammar", "json_object", "structural_tag")
        }
        if len(given) != 1:
            raise _bad(
                f"structured_outputs takes exactly one of choice, regex, json (got {sorted(given)})",
                "structured_outputs",
            )
        ((kind, value),) = given.items()
        if kind == "choice" and isinstance(value, list) and not value:
            raise _bad("Choice '[]' cannot be an empty list")
        try:
            if kind == "choice":
                return Constraint(choice=[str(c) for c in value])
            if kind == "regex":
                return Constraint(regex=str(value))
            if kind == "json":
                return Constraint(json_schema=json.loads(value) if isinstance(value, str) else value)
            if kind == "json_object":
                return Constraint(json_schema={"type": "object"})
        except (ValidationError, ValueError) as e:
            raise _bad(f"structured_outputs.{kind} is invalid: {e}", "structured_outputs") from e
        raise _bad(
            f"structured_outputs.{kind} is not supported by the fake server (choice, regex, json are)",
            "structured_outputs",
        )
    if rf is not None and isinstance(rf, dict):
        if rf.get("type") == "json_schema":
            schema = (rf.get("json_schema") or {}).get("schema")
            if not isinstance(schema, dict):
                raise _bad("response_format.json_schema.schema must be an object", "response_format")
            return Constraint(json_schema=schema)
        if rf.get("type") == "json_object":
            return Constraint(json_schema={"type": "object"})
    return None


def _int(
    body: dict[str, Any], key: str, default: int | None, low: int | None = None, high: int | None = None
) -> int | None:
    v = body.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(f"{key} must be an integer (got {v!r})", key)
    if (low is not None and v < low) or (high is not None and v > high):
        raise _bad(f"{key}={v} is out of range [{low}, {high}]", key)
    return v


def _chat_request(body: dict[str, Any]) -> tuple[list[Message], bool, int]:
    """A chat body's messages, whether it asks for logprobs, and how many top logprobs."""
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise _bad("messages must be a non-empty list", "messages")
    try:
        messages = [
            Message(role=m.get("role"), content=_message_content(m.get("content"), i))
            for i, m in enumerate(raw_messages)
        ]
    except (ValidationError, AttributeError) as e:
        raise _bad(f"messages are malformed: {e}", "messages") from e
    logprobs = bool(body.get("logprobs") or False)
    top = _int(body, "top_logprobs", 0, 0, MAX_LOGPROBS) or 0
    if top and not logprobs:
        raise _bad("when using `top_logprobs`, `logprobs` must be set to true", "top_logprobs")
    # vLLM's add_generation_prompt defaults to true, so continuing needs it set to false.
    if body.get("continue_final_message") and body.get("add_generation_prompt", True):
        raise _bad("Cannot set both `continue_final_message` and `add_generation_prompt` to True.")
    return messages, logprobs, top


def _completion_request(body: dict[str, Any]) -> tuple[str, bool, int]:
    """A completions body's prompt, whether it asks for logprobs, and how many."""
    raw_prompt = body.get("prompt")
    if isinstance(raw_prompt, list) and len(raw_prompt) == 1 and isinstance(raw_prompt[0], str):
        raw_prompt = raw_prompt[0]
    if not isinstance(raw_prompt, str):
        raise _bad("prompt must be one string (the fake serves no batched or token-id prompts)", "prompt")
    k = _int(body, "logprobs", None, 0, MAX_LOGPROBS)
    return raw_prompt, k is not None, k or 0


def parse_completion_request(
    endpoint: str,
    raw: bytes,
    headers: dict[str, str],
    index: int,
    models: Sequence[str],
    max_model_len: int | None = None,
) -> FakeRequest:
    """Validate one POST body the way vLLM would; raise :class:`WireError` for what it would refuse."""
    try:
        body = json.loads(raw)
    except ValueError as e:
        raise _bad(f"request body is not JSON: {e}") from e
    if not isinstance(body, dict):
        raise _bad("request body must be a JSON object")
    model = body.get("model") or models[0]
    if model not in models:
        raise WireError(404, "NotFoundError", f"The model `{model}` does not exist.", "model")
    if body.get("stream"):
        raise _bad("stream=true is not supported by the fake server", "stream")

    messages: list[Message] | None = None
    prompt: str | None = None
    if endpoint == "chat":
        messages, logprobs, top = _chat_request(body)
        text = render_messages(messages)
    else:
        prompt, logprobs, top = _completion_request(body)
        text = prompt

    stop = body.get("stop") or []
    if isinstance(stop, str):
        stop = [stop]
    tag = headers.get("x-trustscore-tag") or (body.get("user") if isinstance(body.get("user"), str) else None)
    judge = judge_of(tag)
    max_tokens = _int(body, "max_tokens", None, 1) or _int(body, "max_completion_tokens", None, 1)
    if max_model_len is not None and max_tokens is not None and max_tokens > max_model_len:
        raise _bad(
            f"max_tokens={max_tokens} cannot be greater than max_model_len={max_model_len}. "
            f"Please request fewer output tokens.",
            "max_tokens",
        )
    return FakeRequest(
        index=index,
        endpoint="chat" if endpoint == "chat" else "completions",
        model=model,
        messages=messages,
        prompt=prompt,
        text=text,
        tokens=tokenize(text),
        n=_int(body, "n", 1, 1, 128) or 1,
        temperature=body.get("temperature"),
        top_p=body.get("top_p"),
        max_tokens=max_tokens,
        logprobs=logprobs,
        top_logprobs=top,
        prompt_logprobs=_int(body, "prompt_logprobs", None, 0, MAX_LOGPROBS),
        echo=bool(body.get("echo") or False),
        stop=[str(s) for s in stop],
        seed=_int(body, "seed", None),
        constraint=_constraint(body),
        continue_final_message=bool(body.get("continue_final_message") or False),
        judge=judge,
        tag=tag,
        body=body,
        headers=headers,
    )


@dataclass(frozen=True)
class RenderedChoice:
    """One choice after constraints, stop strings and token limits, with its per-token logprobs."""

    text: str
    tokens: list[str]
    logprobs: list[tuple[str, float, list[tuple[str, float]]]]
    """Per generated token: (token, logprob, top alternatives)."""
    finish_reason: str
    stop_reason: str | None


def render_choice(request: FakeRequest, answer: FakeAnswer, keep_tokens: int | None = None) -> RenderedChoice:
    """Turn a scripted answer into what the server generates for ``request``.

    ``keep_tokens``: truncate to this many tokens with finish_reason "length" (the truncation fault).
    """
    verdicts = [tok for tok, _ in answer.verdict_logprobs()]
    text = apply_constraint(answer.text, request.constraint, verdicts)
    stop_reason: str | None = None
    cuts = [(text.find(s), s) for s in request.stop if s and s in text]
    if cuts:
        at, stop_reason = min(cuts)
        text = text[:at]
    tokens = tokenize(text)
    finish = "stop"
    limit = request.max_tokens
    if keep_tokens is not None:
        limit = keep_tokens if limit is None else min(limit, keep_tokens)
    if limit is not None and (len(tokens) > limit or keep_tokens is not None):
        tokens = tokens[:limit]
        text = "".join(tokens)
        finish, stop_reason = "length", None
    if answer.finish_reason is not None:
        finish = answer.finish_reason

    allowed = request.constraint.choice if request.constraint is not None else None
    dist = answer.verdict_logprobs(allowed)
    dist_map = dict(dist)
    verdict_at = max((i for i, t in enumerate(tokens) if t.strip() in dist_map), default=None)
    k = request.top_logprobs
    entries: list[tuple[str, float, list[tuple[str, float]]]] = []
    for i, tok in enumerate(tokens):
        if i == verdict_at:
            lead = tok[: len(tok) - len(tok.lstrip())]
            top = [(lead + v, p) for v, p in dist][:k]
        else:
            top = [(tok, answer.token_logprob)][:k]
        if allowed is not None:
            top = _pad_masked(top, allowed, k)
        entries.append((tok, dist_map[tok.strip()] if i == verdict_at else answer.token_logprob, top))
    return RenderedChoice(text, tokens, entries, finish, stop_reason)


MASKED_LOGPROB = -9999.0
"""What vLLM reports for a token its grammar masked out."""


def _pad_masked(top: list[tuple[str, float]], allowed: Sequence[str], k: int) -> list[tuple[str, float]]:
    """Fill ``top`` up to k entries with masked tokens at -9999, as vLLM does under a choice constraint.

    vLLM computes logprobs after the grammar bitmask, so top_logprobs always lists k tokens: the allowed
    ones with their renormalised logprobs, then masked ones at -9999 (special tokens, pieces of the
    allowed words, anything). Pieces of the choices are used here, so a parser that counts entries
    instead of probability mass, or reads the first letters of any listed token, is caught.
    """
    seen = {t for t, _ in top}
    fillers = [c.strip()[:n] for c in allowed for n in (1, 2)] + ["<|end|>", "<|pad|>", "\n", " "]
    out = list(top)
    for filler in fillers:
        if len(out) >= k:
            break
        if filler and filler not in seen:
            out.append((filler, MASKED_LOGPROB))
            seen.add(filler)
    return out


def _bytes(tok: str) -> list[int]:
    return list(tok.encode("utf-8"))


def _chat_logprobs(choice: RenderedChoice) -> dict[str, Any]:
    return {
        "content": [
            {
                "token": tok,
                "logprob": lp,
                "bytes": _bytes(tok),
                "top_logprobs": [{"token": t, "logprob": p, "bytes": _bytes(t)} for t, p in top],
            }
            for tok, lp, top in choice.logprobs
        ]
    }


def _prompt_logprobs(request: FakeRequest, answer: FakeAnswer) -> list[dict[str, Any] | None]:
    toks = request.tokens
    out: list[dict[str, Any] | None] = [None]
    for tok in toks[1:]:
        out.append(
            {str(token_id(tok)): {"logprob": answer.prompt_token_logprob, "rank": 1, "decoded_token": tok}}
        )
    return out[: len(toks)]


def _completion_logprobs(request: FakeRequest, answer: FakeAnswer, choice: RenderedChoice) -> dict[str, Any]:
    tokens: list[str] = []
    token_logprobs: list[float | None] = []
    top: list[dict[str, float] | None] = []
    if request.echo:
        for i, tok in enumerate(request.tokens):
            tokens.append(tok)
            token_logprobs.append(None if i == 0 else answer.prompt_token_logprob)
            top.append(None if i == 0 else {tok: answer.prompt_token_logprob})
    for tok, lp, alts in choice.logprobs:
        tokens.append(tok)
        token_logprobs.append(lp)
        top.append({tok: lp, **dict(alts)})
    offsets: list[int] = []
    pos = 0
    for tok in tokens:
        offsets.append(pos)
        pos += len(tok)
    return {"text_offset": offsets, "token_logprobs": token_logprobs, "tokens": tokens, "top_logprobs": top}


def completion_body(
    request: FakeRequest, answers: Sequence[FakeAnswer], choices: Sequence[RenderedChoice], created: int
) -> dict[str, Any]:
    """The 200 body for a chat or text completion with the given rendered choices."""
    n_prompt = len(request.tokens)
    n_completion = sum(len(c.tokens) for c in choices)
    usage = {
        "prompt_tokens": n_prompt,
        "total_tokens": n_prompt + n_completion,
        "completion_tokens": n_completion,
        "prompt_tokens_details": None,
    }
    rid = short_hash(f"{request.index}:{request.text}", 24)
    first = answers[0] if answers else FakeAnswer(text="")
    plp = _prompt_logprobs(request, first) if request.prompt_logprobs is not None else None
    if request.endpoint == "chat":
        return {
            "id": f"chatcmpl-{rid}",
            "object": "chat.completion",
            "created": created,
            "model": request.model,
            "choices": [
                {
                    "index": i,
                    "message": {
                        "role": "assistant",
                        "content": c.text,
                        "refusal": None,
                        "annotations": None,
                        "audio": None,
                        "function_call": None,
                        "tool_calls": [],
                        "reasoning_content": None,
                    },
                    "logprobs": _chat_logprobs(c) if request.logprobs else None,
                    "finish_reason": c.finish_reason,
                    "stop_reason": c.stop_reason,
                    "token_ids": None,
                }
                for i, c in enumerate(choices)
            ],
            "service_tier": None,
            "system_fingerprint": None,
            "usage": usage,
            "prompt_logprobs": plp,
            "prompt_token_ids": None,
            "kv_transfer_params": None,
        }
    return {
        "id": f"cmpl-{rid}",
        "object": "text_completion",
        "created": created,
        "model": request.model,
        "choices": [
            {
                "index": i,
                "text": (request.text if request.echo else "") + c.text,
                "logprobs": _completion_logprobs(request, answers[i], c) if request.logprobs else None,
                "finish_reason": c.finish_reason,
                "stop_reason": c.stop_reason,
                "token_ids": None,
                "prompt_logprobs": plp,
                "prompt_token_ids": None,
            }
            for i, c in enumerate(choices)
        ],
        "service_tier": None,
        "system_fingerprint": None,
        "usage": usage,
        "kv_transfer_params": None,
    }
