"""A Backend that sends through the caller's own ``openai.AsyncOpenAI`` client.

The body is the same one :func:`trustscore.llm._wire.build_request_body` builds for our HTTP backend
(one mapping, two transports); only ``model`` and ``messages``/``prompt`` travel as typed arguments,
the rest as ``extra_body``; the request's tag and, when tracing is on, the W3C ``traceparent`` of the
current span go as ``extra_headers``, as our HTTP backend sends them. The openai package is an optional
extra, imported only when a call is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from trustscore._errors import BadResponse, LLMTimeout, LLMUnreachable
from trustscore.llm._bounds import ResponseBounds
from trustscore.llm._http import error_for_status
from trustscore.llm._protocol import ChatRequest, ChatResult, LLMError
from trustscore.llm._wire import build_request_body, parse_response, tag_headers
from trustscore.telemetry import trace_headers

if TYPE_CHECKING:
    import openai


__all__ = ["OpenAIBackend"]


class OpenAIBackend:
    """One attempt per ``send`` through an AsyncOpenAI client whose own retries are turned off."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        flavour: Literal["vllm", "openai"],
        model: str,
        context_window: int = 8192,
    ) -> None:
        self._client = client.with_options(max_retries=0)  # retries, backoff and deadlines are ours
        self._flavour = flavour
        self._model = model
        self._context_window = context_window

    async def send(self, request: ChatRequest) -> ChatResult:
        import openai

        body = build_request_body(request, model=self._model, flavour=self._flavour)
        bounds = ResponseBounds.of(request, body, context_window=self._context_window)
        model = body.pop("model")
        headers = trace_headers(tag_headers(request))  # the W3C traceparent too, when tracing is on
        try:
            if request.endpoint == "chat":
                messages = body.pop("messages")
                response: Any = await self._client.chat.completions.create(
                    model=model, messages=messages, extra_body=body, extra_headers=headers
                )
            else:
                prompt = body.pop("prompt")
                response = await self._client.completions.create(
                    model=model, prompt=prompt, extra_body=body, extra_headers=headers
                )
        except openai.APITimeoutError as e:  # a subclass of APIConnectionError: test it first
            raise LLMTimeout(f"openai client timed out: {e}") from None
        except openai.APIConnectionError as e:
            raise LLMUnreachable(f"openai client could not connect: {e}") from None
        except openai.APIStatusError as e:  # RateLimitError, InternalServerError, ... included
            raise _status_error(e) from None
        except openai.APIResponseValidationError as e:
            raise BadResponse(f"openai client could not read the response: {e}") from None
        return parse_response(response.model_dump(mode="json"), bounds)

    async def aclose(self) -> None:
        """Nothing to release: the AsyncOpenAI client belongs to the caller, who closes it."""


def _status_error(e: Any) -> LLMError:
    response = e.response
    try:
        text = response.text
    except Exception:  # a streamed body that was never read
        text = str(e.message)
    return error_for_status(e.status_code, response.headers, text)
