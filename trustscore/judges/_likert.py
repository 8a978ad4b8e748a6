"""Likert LLM-as-judge: a 1..5 confidence rating with the context shown (Cleanlab's RAG benchmark scale).

Value = (E - 1) / 4 where E is the expected rating from the top logprobs at the token after the last
"Score:" (digits 1-5, each floored at 1e-3 as cleanlab/tlm does); the text rating when there are no
logprobs. With ``prefill_score`` on a vLLM server the assistant turn is prefilled with "Score:" and the
next token constrained to " 1".." 5", so the rating is the first (and only) generated token. Without
the prefill, an explained answer that never writes its score is continued with "Score:" and a
constrained digit on a vLLM server (judges/_verdict.py).

``verdict_only`` (for endpoints billed per token) drops the explanation: on a vLLM server it is the
prefilled one-token answer; elsewhere the scale is followed by "reply with 'Score: <rating>' only"
(prompts/likert_verdict_only.txt) and the answer may take at most :data:`VERDICT_ONLY_MAX_TOKENS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import Field

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.core._hashing import canonical_json
from trustscore.judges._base import TEMPERATURE_RANGE, JudgeBase, JudgeLLM, needs_context
from trustscore.judges._evidence import evidence_messages, fitted_evidence_context
from trustscore.judges._parsing import (
    RATING_FLOOR,
    RATING_LABELS,
    expected_rating,
    label_distribution,
    locate_after,
    quote,
    rating_digit,
    to_unit,
)
from trustscore.judges._templates import load_template, prompt_version
from trustscore.judges._verdict import (
    CONSTRAINED_WARNING,
    WORDS_WARNING,
    VerdictSpec,
    reasoning_cost,
    stated_label,
    with_verdicts,
)
from trustscore.llm._protocol import (
    MAX_TEMPERATURE,
    ChatRequest,
    Choice,
    Constraint,
    Message,
    TokenLogprob,
)
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = [
    "LikertConfig",
    "LikertJudge",
    "LikertRating",
    "build_likert_request",
    "likert_instruction",
    "parse_likert",
    "rating_in_words",
]

PARSER_RULES = "likert-parser-3"
TEMPLATES = ["evidence_system.txt", "evidence_user.txt", "likert.txt"]
VERDICT_ONLY_TEMPLATE = "likert_verdict_only.txt"
VERDICT_ONLY_MAX_TOKENS = 8
_OUTPUT_LINE = "\nThe output should strictly use the following template:"
MARKER = "Score:"
PREFILL_CHOICES = [" 1", " 2", " 3", " 4", " 5"]
_TEXT_SCORE = re.compile(r"score[\s*]*[:=][\s*]*([1-5])(?![0-9])(?![.,][0-9])", re.IGNORECASE)


@dataclass(frozen=True)
class LikertRating:
    expected: float
    """Expected rating on 1..5 (the text rating when no logprobs were read)."""
    rating: int
    """The rating the judge wrote."""
    explanation: str
    from_logprobs: bool


def likert_instruction(verdict_only: bool) -> str:
    """likert.txt; for ``verdict_only``, its scale with the output line asking for the rating alone."""
    text = load_template("likert.txt")
    if not verdict_only:
        return text
    scale, found, _ = text.partition(_OUTPUT_LINE)
    if not found:
        raise ValueError(f"likert.txt has no line starting {_OUTPUT_LINE.strip()!r} to replace")
    return f"{scale}\n{load_template(VERDICT_ONLY_TEMPLATE).strip()}"


def build_likert_request(
    *, question: str, context: str, answer: str, config: LikertConfig, prefill: bool, tag: str
) -> ChatRequest:
    """The chat request: shared evidence block, then the Likert instruction (then a "Score:" prefix)."""
    verdict_only = config.verdict_only and not prefill
    messages = evidence_messages(
        question=question, context=context, answer=answer, instruction=likert_instruction(verdict_only)
    )
    wants_logprobs = config.top_logprobs > 0
    if prefill:
        return ChatRequest(
            messages=[*messages, Message(role="assistant", content=MARKER)],
            continue_final_message=True,
            constraint=Constraint(choice=PREFILL_CHOICES),
            max_tokens=2,
            temperature=config.temperature,
            logprobs=wants_logprobs,
            top_logprobs=config.top_logprobs,
            tag=tag,
        )
    return ChatRequest(
        messages=messages,
        max_tokens=VERDICT_ONLY_MAX_TOKENS if verdict_only else config.max_tokens,
        temperature=config.temperature,
        logprobs=wants_logprobs,
        top_logprobs=config.top_logprobs,
        tag=tag,
    )


def parse_likert(choice: Choice, *, prefilled: bool = False) -> LikertRating:
    """Read the rating after the last "Score:"; ValueError quoting the output when there is none."""
    text = MARKER + choice.text if prefilled else choice.text
    matches = list(_TEXT_SCORE.finditer(text))
    if not matches:
        raise ValueError(f"no 'Score: 1..5' in the judge's output: {quote(choice.text)}")
    last = matches[-1]
    rating = int(last.group(1))
    explanation = text[: last.start()].strip()
    explanation = re.sub(r"^\**explanation\**\s*:\s*", "", explanation, flags=re.IGNORECASE).strip()
    tokens = choice.logprobs
    if tokens:
        if prefilled:
            tokens = [TokenLogprob(token=MARKER, logprob=0.0), *tokens]
        located = locate_after(tokens, MARKER)
        if located is not None:
            dist = label_distribution(located, rating_digit, floor=RATING_FLOOR, labels=RATING_LABELS)
            if dist is not None:
                return LikertRating(expected_rating(dist), rating, explanation, True)
    return LikertRating(float(rating), rating, explanation, False)


_RATING_WORDS = [
    (
        re.compile(
            rf"\b(?:score|rat(?:e|ed|ing)|confidence)\b\W{{0,12}}(?:of\s+|is\s+|as\s+)?{d}\b(?![.,]\d)"
            rf"|\b{d}\s*(?:/|out\s+of)\s*5\b",
            re.IGNORECASE,
        ),
        str(d),
    )
    for d in range(1, 6)
]


def rating_in_words(text: str) -> LikertRating | None:
    """A rating stated without "Score: n" ("I rate it 4", "4/5"), when the output states only one."""
    label = stated_label(text, _RATING_WORDS)
    if label is None:
        return None
    return LikertRating(float(label), int(label), text.strip(), False)


VERDICT = VerdictSpec(
    parse=lambda c: parse_likert(c),
    words=rating_in_words,
    marker="\nScore: ",
    choices=RATING_LABELS,
    cut=MARKER,
)


class LikertConfig(JudgeConfig):
    max_tokens: int = Field(default=512, ge=8, description="room for the explanation and the 'Score:' line")
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=TEMPERATURE_RANGE
    )
    top_logprobs: int = Field(default=5, ge=0, le=20, description="0 = score from the text only")
    prefill_score: bool = Field(
        default=False,
        description="vLLM only: skip the explanation, prefill the assistant turn with 'Score:' and constrain "
        "the next token to a digit 1-5 (one-token answer, most graded expected score)",
    )
    verdict_only: bool = Field(
        default=False,
        description="ask for the rating alone, no explanation (for endpoints billed per token): the "
        "prefilled one-token answer on a vLLM server, elsewhere a 'Score: <rating>' line in at most 8 tokens",
    )

    def value_settings(self) -> str:
        # Off by default and left out then, so the explained judge keeps its version (and calibrators).
        settings = self.model_dump(mode="json", exclude={"endpoint", "enabled", "timeout_s"})
        if not self.verdict_only:
            del settings["verdict_only"]
        return canonical_json(settings)


def likert_cost(config: LikertConfig) -> JudgeCost:
    """Worst case per sample: the one-token rating, or free reasoning to ``max_tokens`` continued once."""
    if config.prefill_score or config.verdict_only:
        return JudgeCost(1, 1, 2)
    return reasoning_cost(config.max_tokens)


@register_judge(
    "likert",
    config=LikertConfig,
    cost=likert_cost,
    cpu_settings={"prefill_score": True},
    example_answers={
        "likert": ExampleAnswer(
            "Explanation: The answer matches what the context says about the question.\nScore: 4",
            {"4": 0.7, "1": 0.075, "2": 0.075, "3": 0.075, "5": 0.075},
        )
    },
)
class LikertJudge(JudgeBase):
    name = "likert"

    def __init__(self, config: LikertConfig) -> None:
        self.config = config
        templates = [*TEMPLATES, VERDICT_ONLY_TEMPLATE] if config.verdict_only else TEMPLATES
        self.version = prompt_version(templates, PARSER_RULES, config.value_settings())

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        needs_context(sample, self.name)
        cfg = self.config
        prefill = (cfg.prefill_score or cfg.verdict_only) and llm.flavour == "vllm"
        warnings: list[str] = []
        if cfg.prefill_score and not prefill:
            asked = "the rating alone" if cfg.verdict_only else "an explained score"
            warnings.append(f"prefill_score needs a vLLM server; asked for {asked} instead")
        verdict_only = cfg.verdict_only and not prefill
        fit = fitted_evidence_context(
            sample,
            llm,
            instruction=likert_instruction(verdict_only) + (MARKER if prefill else ""),
            max_tokens=2 if prefill else VERDICT_ONLY_MAX_TOKENS if verdict_only else cfg.max_tokens,
        )
        if not fit.text:
            raise JudgeFailure("no context passage fits the judge's window")
        request = build_likert_request(
            question=sample.question,
            context=fit.text,
            answer=sample.response,
            config=self.config,
            prefill=prefill,
            tag=f"{self.name}@{self.version}",
        )
        result = await llm.generate(request)
        if not result.choices:
            raise JudgeFailure("the likert judge returned no choices")
        if prefill:
            try:
                rating = parse_likert(result.choices[0], prefilled=True)
            except ValueError as e:
                raise JudgeFailure(str(e)) from None
        else:
            [done] = await with_verdicts(result.choices[:1], request, VERDICT, llm=llm)
            if done.value is None:
                raise JudgeFailure(done.error or "no rating")
            rating = done.value
            if done.path == "constrained":
                warnings.append(CONSTRAINED_WARNING)
            if done.path == "words":
                warnings.append(WORDS_WARNING)
        if not rating.from_logprobs and self.config.top_logprobs > 0:
            warnings.append("no logprobs at the rating token: used the written rating")
        if fit.warning:
            warnings.append(fit.warning)
        return Signal(
            name=self.name,
            value=to_unit((rating.expected - 1.0) / 4.0),
            raw=round(rating.expected, 4),
            explanation=rating.explanation or None,
            warnings=warnings,
            version=self.version,
        )
