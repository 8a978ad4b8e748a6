"""What every judge's ``run`` shares: calling the LLM, and failing with a reason.

What the calls cost is not added up here: the Scorer counts it once, for every signal, from the
record of each call the LLM it hands the judge makes (:mod:`trustscore.llm._call`), calls cut off by a
deadline included. A judge run alone, outside a Scorer, adds up nothing."""

from __future__ import annotations

from abc import ABC, abstractmethod

from trustscore._errors import JudgeFailure, PromptTooLong
from trustscore._types import Sample, Signal
from trustscore.judges._context_fit import ContextFit, fit_context
from trustscore.llm._protocol import LLM, ChatRequest, ChatResult, LLMError, WrappedLLM

__all__ = ["TEMPERATURE_RANGE", "JudgeBase", "JudgeLLM", "fitted_context", "needs_context"]

TEMPERATURE_RANGE = "[0, 2], the range vLLM and the OpenAI API accept"
"""How a judge's temperature setting is described (the bounds its Field enforces)."""


class JudgeLLM(WrappedLLM):
    """The one handle of one judge run: the LLM it was given, whose failed call becomes JudgeFailure
    naming the LLM's reason."""

    def __init__(self, llm: LLM, judge: str) -> None:
        super().__init__(llm)
        self.judge = judge

    async def generate(self, request: ChatRequest, *, cache: bool | None = None) -> ChatResult:
        """The result, or JudgeFailure naming the LLM's reason. Never retries: the LLM client does."""
        try:
            return await self._llm.generate(request, cache=cache)
        except LLMError as e:
            raise JudgeFailure(f"{self.judge} call failed: {e.reason}") from None


def needs_context(sample: Sample, judge: str) -> None:
    if not sample.has_context:
        raise JudgeFailure(
            f"no context: the {judge} judge checks the response against the retrieved context; "
            f"pass context=[...] or disable judges.{judge}"
        )


def fitted_context(sample: Sample, llm: LLM, *, fixed_text: str, max_tokens: int) -> ContextFit:
    """The sample's context trimmed to the judge's window (JudgeFailure when nothing can fit)."""
    try:
        return fit_context(list(sample.context), llm=llm, fixed_text=fixed_text, max_tokens=max_tokens)
    except PromptTooLong as e:
        raise JudgeFailure(str(e)) from None


class JudgeBase(ABC):
    """The shared ``run``: a judge implements ``_run`` and raises JudgeFailure when it cannot answer.

    The failure becomes a missing signal carrying the reason.
    """

    name: str
    version: str
    kind = "judge"

    async def run(self, sample: Sample, llm: LLM) -> Signal:
        """The judge's signal; a failure is a missing signal with the reason."""
        try:
            return await self._run(sample, JudgeLLM(llm, self.name))
        except JudgeFailure as e:
            return Signal.failed(self.name, e.reason, raw=e.raw, version=self.version)

    @abstractmethod
    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal: ...
