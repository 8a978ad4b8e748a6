"""The one mapping between ChatRequest and the wire, in the vLLM and OpenAI dialects.

``build_request_body`` turns a :class:`ChatRequest` into the JSON body of the vLLM or OpenAI dialect;
``parse_response`` turns the server's JSON into a :class:`ChatResult`. The HTTP backend
(:mod:`trustscore.llm._http`) and the openai adapter both send what these build and read.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from trustscore._errors import BadResponse, UnsupportedRequest
from trustscore.llm._bounds import ResponseBounds
from trustscore.llm._protocol import (
    LOGPROB_TOLERANCE,
    ChatRequest,
    ChatResult,
    Choice,
    Constraint,
    TokenLogprob,
    TopLogprob,
)
from trustscore.llm._special_tokens import TURN_MARKERS, neutralise

__all__ = [
    "TAG_HEADER",
    "build_request_body",
    "parse_response",
    "request_path",
    "server_text",
    "tag_headers",
    "truncated",
    "unsupported_reason",
]

_MAX_ERROR_CHARS = 300

Flavour = Literal["vllm", "openai"]

_MAX_ERROR_CHARS = 300
_MAX_ERROR_BODY_BYTES = 64 * 1024
"""How much of an error answer is read: its message is cut to _MAX_ERROR_CHARS anyway."""
_CLOSE_ELSEWHERE_S = 5.0
"""How long aclose() waits for another event loop to close its client (it may be blocked on us)."""

# vLLM fills any sampling parameter a request leaves out from the model's generation_config.json
# (vLLM PR #12622; see research/judges.md section 8). These are the neutral values we always send.
# top_k=-1 means "disabled" on every vLLM release (newer ones also accept 0).
_VLLM_NEUTRAL_SAMPLING: dict[str, Any] = {"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0}


TAG_HEADER = "X-Trustscore-Tag"
"""Carries ``ChatRequest.tag`` (who asks, e.g. ``lynx@3f2a1c``): for server logs, and what the test
kit's fake server answers by."""


def tag_headers(request: ChatRequest) -> dict[str, str]:
    """The header that names the request's sender; none for an untagged request."""
    return {TAG_HEADER: request.tag} if request.tag else {}


def request_path(request: ChatRequest) -> str:
    return "/chat/completions" if request.endpoint == "chat" else "/completions"


def build_request_body(
    request: ChatRequest, *, model: str, flavour: Flavour, special_tokens: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The JSON body for ``request`` in the dialect of ``flavour``. Sampling params are always explicit.

    Message content never carries a control token: turn markers of every model family, and the
    served model's own ``special_tokens``, are broken (:mod:`trustscore.llm._special_tokens`). A raw
    ``prompt`` is sent as given: it is the caller's own rendering of a turn format."""
    body: dict[str, Any] = {"model": model}
    if request.messages is not None:
        body["messages"] = [
            {"role": m.role, "content": neutralise(m.content, TURN_MARKERS, special_tokens)}
            for m in request.messages
        ]
    else:
        body["prompt"] = request.prompt
    body.update(
        n=request.n,
        temperature=request.temperature,
        top_p=request.top_p,
        max_tokens=request.max_tokens,
    )
    if request.seed is not None:
        body["seed"] = request.seed
    if request.stop:
        body["stop"] = list(request.stop)
    if request.logprobs:
        if request.endpoint == "chat":
            body["logprobs"] = True
            body["top_logprobs"] = request.top_logprobs
        else:
            body["logprobs"] = request.top_logprobs
    if request.echo:
        body["echo"] = True
    if flavour == "vllm":
        _add_vllm_extensions(body, request)
    else:
        _add_openai_dialect(body, request)
    return body


def _add_vllm_extensions(body: dict[str, Any], request: ChatRequest) -> None:
    body.update(_VLLM_NEUTRAL_SAMPLING)
    if request.constraint is not None:
        # vLLM >= 0.12 removed guided_choice/guided_regex/guided_json in favour of this field.
        body["structured_outputs"] = _vllm_structured_outputs(request.constraint)
    if request.continue_final_message:
        body["continue_final_message"] = True
        body["add_generation_prompt"] = False
    if request.prompt_logprobs is not None:
        body["prompt_logprobs"] = request.prompt_logprobs


def _vllm_structured_outputs(constraint: Constraint) -> dict[str, Any]:
    if constraint.choice is not None:
        return {"choice": list(constraint.choice)}
    if constraint.regex is not None:
        return {"regex": constraint.regex}
    return {"json": constraint.json_schema}


def unsupported_reason(request: ChatRequest, flavour: Flavour) -> str | None:
    """Why ``flavour`` cannot serve ``request`` at all, or None when it can."""
    if flavour == "openai":
        if request.prompt_logprobs is not None:
            return "prompt_logprobs needs a vLLM endpoint (flavour='vllm'); the OpenAI API has no equivalent"
        if request.echo and request.endpoint == "chat":
            return "echo is a completions-only option on OpenAI endpoints; send a prompt instead of messages"
    return None


def _add_openai_dialect(body: dict[str, Any], request: ChatRequest) -> None:
    """OpenAI cannot enforce choice/regex (dropped: the judges' tolerant parsers cope) nor continue
    an assistant prefix (dropped: the judge parses the full answer)."""
    reason = unsupported_reason(request, "openai")
    if reason is not None:
        raise UnsupportedRequest(reason)
    constraint = request.constraint
    if constraint is not None and constraint.json_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "trustscore_output", "schema": constraint.json_schema},
        }


# ---------------------------------------------------------------------------------------------
# Responses


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def server_text(value: str) -> str:
    """A server's text as valid Unicode: a lone surrogate (JSON escapes can spell one; it cannot be
    written as UTF-8, to the cache or to an output file) becomes U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", value)


def _logprob(value: Any) -> float:
    """A log-probability from the wire; BadResponse unless it is finite and <= 0 (rounding allowed)."""
    number = float(value)
    if not (math.isfinite(number) and number <= LOGPROB_TOLERANCE):
        raise BadResponse(f"the server sent a log-probability of {value!r} (must be finite and <= 0)")
    return min(number, 0.0)


def parse_response(data: object, bounds: ResponseBounds | None = None) -> ChatResult:
    """A chat or text completion JSON body as a ChatResult; BadResponse when it is not one.

    Log-probabilities must be finite and <= 0; text is made valid Unicode (see :func:`server_text`); token
    counts must be non-negative integers. With the request's ``bounds``, more choices than it asked
    for, or token counts it cannot have cost, are a server fault too."""
    if not isinstance(data, dict):
        raise BadResponse(f"expected a JSON object, got {type(data).__name__}")
    raw_choices = data.get("choices")
    if not isinstance(raw_choices, list) or not raw_choices:
        raise BadResponse("the response has no choices")
    if bounds is not None and len(raw_choices) > bounds.max_choices:
        raise BadResponse(
            f"the server sent {len(raw_choices):,} choices for a request of n={bounds.max_choices}"
        )
    try:
        ordered = sorted(raw_choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)
        choices = [_parse_choice(c) for c in ordered]
        usage = data.get("usage") or {}
        if not isinstance(usage, dict):
            raise BadResponse("the response's usage is not a JSON object")
        prompt_logprobs, prompt_token_strs = _parse_prompt_logprobs(data, ordered[0])
        return ChatResult(
            choices=choices,
            model=server_text(str(data.get("model") or "")),
            prompt_tokens=_token_count(
                usage, "prompt_tokens", None if bounds is None else bounds.max_prompt_tokens
            ),
            completion_tokens=_token_count(
                usage, "completion_tokens", None if bounds is None else bounds.max_completion_tokens
            ),
            cached_prompt_tokens=_token_count(
                usage.get("prompt_tokens_details") or {},
                "cached_tokens",
                None if bounds is None else bounds.max_prompt_tokens,
            ),
            prompt_logprobs=prompt_logprobs,
            prompt_token_strs=prompt_token_strs,
        )
    except BadResponse:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise BadResponse(f"malformed completion: {type(e).__name__}: {truncated(str(e))}") from None


def _token_count(usage: dict[str, Any], field: str, bound: int | None) -> int:
    """A token count the server reports: a non-negative integer within what the request allows."""
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadResponse(f"the server reports usage.{field} = {truncated(repr(value))}: not a token count")
    if bound is not None and value > bound:
        raise BadResponse(
            f"the server reports usage.{field} = {value:,}, more than the request can cost ({bound:,})"
        )
    return value


def _parse_choice(raw: Any) -> Choice:
    if not isinstance(raw, dict):
        raise BadResponse("a choice is not a JSON object")
    message = raw.get("message")
    if isinstance(message, dict):
        text = message.get("content") or ""
        logprobs = _chat_logprobs(raw.get("logprobs"))
    elif "text" in raw:
        text = raw["text"] or ""
        logprobs = _completion_logprobs(raw.get("logprobs"))
    else:
        raise BadResponse("a choice has neither message nor text")
    if not isinstance(text, str):
        raise BadResponse("a choice's text is not a string")
    finish = raw.get("finish_reason")
    reason = None if finish is None else server_text(str(finish))
    return Choice(text=server_text(text), logprobs=logprobs, finish_reason=reason)


def _chat_logprobs(raw: Any) -> list[TokenLogprob] | None:
    """Chat shape: {"content": [{token, logprob, top_logprobs: [{token, logprob}]}]}."""
    if not raw or raw.get("content") is None:
        return None
    return [
        TokenLogprob(
            token=server_text(entry["token"]),
            logprob=_logprob(entry["logprob"]),
            top_logprobs=[
                TopLogprob(token=server_text(t["token"]), logprob=_logprob(t["logprob"]))
                for t in entry.get("top_logprobs") or []
            ],
        )
        for entry in raw["content"]
    ]


def _completion_logprobs(raw: Any) -> list[TokenLogprob] | None:
    """Completions shape: {tokens: [...], token_logprobs: [...], top_logprobs: [{token: lp} | None]}.

    Positions whose logprob is null (the first prompt token when ``echo`` is on: it has no context
    to be predicted from) are left out rather than given an invented value.
    """
    if not raw:
        return None
    tokens = raw.get("tokens") or []
    values = raw.get("token_logprobs") or []
    tops = raw.get("top_logprobs") or [None] * len(tokens)
    if not (len(tokens) == len(values) == len(tops)):
        raise BadResponse("completion logprobs: tokens, token_logprobs and top_logprobs differ in length")
    out = []
    for token, value, top in zip(tokens, values, tops, strict=True):
        if value is None:
            continue
        alternatives = [
            TopLogprob(token=server_text(t), logprob=_logprob(lp)) for t, lp in (top or {}).items()
        ]
        out.append(TokenLogprob(token=server_text(token), logprob=_logprob(value), top_logprobs=alternatives))
    return out


def _parse_prompt_logprobs(
    data: dict[str, Any], first_choice: dict[str, Any]
) -> tuple[list[dict[str, float] | None] | None, list[str] | None]:
    """vLLM's prompt_logprobs: per prompt token None | {token_id: {logprob, rank, decoded_token}}.

    Completions put it on each choice, chat on the response. vLLM lists the prompt's own token
    first in each position's dict (then the top-k), so that entry gives ``prompt_token_strs``. When
    two ids decode to the same string, the first (the prompt's own token) keeps its logprob. The
    first position has no logprobs; its token string comes from echoed logprobs when the request
    had ``echo``, else it is unknown ("").
    """
    raw = first_choice.get("prompt_logprobs")
    if raw is None:
        raw = data.get("prompt_logprobs")
    if raw is None:
        return None, None
    if not isinstance(raw, list):
        raise BadResponse("prompt_logprobs is not a list")
    logprobs: list[dict[str, float] | None] = []
    token_strs: list[str] = []
    for position in raw:
        if position is None:
            logprobs.append(None)
            token_strs.append("")
            continue
        by_token: dict[str, float] = {}
        for token_id, entry in position.items():
            by_token.setdefault(_decoded(token_id, entry), _logprob(entry["logprob"]))
        logprobs.append(by_token)
        token_strs.append(next(iter(by_token), ""))
    echoed = _echoed_first_token(first_choice.get("logprobs"))
    if token_strs and not token_strs[0] and echoed is not None:
        token_strs[0] = echoed
    return logprobs, token_strs


def _echoed_first_token(logprobs: Any) -> str | None:
    """The prompt's first token when completion logprobs begin with the echoed prompt (its first
    token is the one without a logprob), else None."""
    if not isinstance(logprobs, dict) or not logprobs.get("tokens"):
        return None
    values = logprobs.get("token_logprobs") or []
    return server_text(str(logprobs["tokens"][0])) if values and values[0] is None else None


def _decoded(token_id: str, entry: dict[str, Any]) -> str:
    token = entry.get("decoded_token")
    return server_text(token) if isinstance(token, str) else f"token_id:{server_text(str(token_id))}"


def truncated(text: str) -> str:
    """A server's text (a message, a value it sent), valid Unicode and at most a few hundred characters."""
    text = server_text(text)
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 3] + "..."
