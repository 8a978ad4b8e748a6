"""Prometheus 2 absolute grading (prometheus-eval/prometheus-7b-v2.0, 8x7b-v2.0) with a faithfulness rubric.

The template is the library's ABSOLUTE_PROMPT_WO_REF, verbatim; the context goes into the instruction
("Passage: ... Question: ..."), as Cleanlab's benchmark did, because the library's RAG template cannot
be filled through its own API. Mistral chat templates refuse a system role, so by default the system
prompt is folded into the user turn with a blank line, as the prometheus-eval README does.

The grade must END the output ("... [RESULT] 4", trailing whitespace/punctuation/end-of-sequence text
tolerated): the library's parser has the same rule, so a truncated answer is not graded. Value =
(score - 1) / 4, the score being the mean over polls of each poll's expected grade (top logprobs at the
digit after "[RESULT]", floored like cleanlab/tlm) or its written grade without logprobs. A poll without
a final grade is read from its own words when it states one ("Score: 4", "Yes, the response is
faithful" = 5), is no grade when it is no answer, and otherwise, on a vLLM server, is continued with
"[RESULT]" and a constrained digit (judges/_verdict.py); ``raw.verdict_paths`` counts each path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.judges._base import TEMPERATURE_RANGE, JudgeBase, JudgeLLM, fitted_context, needs_context
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
from trustscore.judges._templates import fill, load_template, prompt_version
from trustscore.judges._verdict import VerdictSpec, reasoning_cost, stated_label, verdict_paths, with_verdicts
from trustscore.llm._protocol import MAX_TEMPERATURE, ChatRequest, Choice, Message
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = [
    "PrometheusConfig",
    "PrometheusGrade",
    "PrometheusJudge",
    "build_prometheus_messages",
    "grade_in_words",
    "parse_prometheus",
]

PARSER_RULES = "prometheus-parser-3"
TEMPLATES = ["prometheus_system.txt", "prometheus_instruction.txt", "prometheus_absolute.txt"]
DEFAULT_RUBRIC = "prometheus_faithfulness_rubric.txt"
MARKER = "[RESULT]"
_END_TEXT = r"(?:</s>|<\|eot_id\|>|<\|im_end\|>|<\|endoftext\|>|<\|end\|>)"
_RESULT_AT_END = re.compile(
    r"\[RESULT\]\s*:?\s*[\[(]?\s*([1-5])\s*[\])]?(?:\s*/\s*5|\s+out\s+of\s+5)?"
    rf"[\s.!)\]\"'*]*(?:{_END_TEXT}[\s]*)*\Z",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PrometheusGrade:
    expected: float
    grade: int
    feedback: str
    from_logprobs: bool


def build_prometheus_messages(
    *, question: str, context: str, answer: str, rubric: str, system_prompt: str
) -> list[Message]:
    """The verbatim absolute-grading prompt, with the system prompt sent as ``system_prompt`` says."""
    instruction = fill(load_template("prometheus_instruction.txt"), context=context, question=question)
    # The instruction (filled above) and the rubric are ours: Prometheus reads its rubric verbatim,
    # brackets included; only the answer is untrusted here.
    user = fill(
        load_template("prometheus_absolute.txt"),
        trusted={"instruction": instruction, "rubric": rubric},
        response=answer,
    )
    system = load_template("prometheus_system.txt")
    if system_prompt == "fold":
        return [Message(role="user", content=system + "\n\n" + user)]
    if system_prompt == "system":
        return [Message(role="system", content=system), Message(role="user", content=user)]
    return [Message(role="user", content=user)]


def parse_prometheus(choice: Choice) -> PrometheusGrade:
    """The grade that ends the output; ValueError quoting the output otherwise."""
    text = choice.text
    match = _RESULT_AT_END.search(text)
    if match is None:
        why = "does not end with '[RESULT] <1-5>'"
        if choice.finish_reason == "length":
            why += " (cut off at max_tokens)"
        raise ValueError(f"the grading {why}: {quote(text[-300:])}")
    grade = int(match.group(1))
    feedback = re.sub(r"^\s*(?:###)?feedback\s*:\s*", "", text[: match.start()], flags=re.IGNORECASE).strip()
    if choice.logprobs:
        located = locate_after(choice.logprobs, MARKER)
        if located is not None:
            dist = label_distribution(located, rating_digit, floor=RATING_FLOOR, labels=RATING_LABELS)
            if dist is not None:
                return PrometheusGrade(expected_rating(dist), grade, feedback, True)
    return PrometheusGrade(float(grade), grade, feedback, False)


_GRADE_WORDS = [
    *(
        (
            re.compile(
                rf"(?:\[RESULT\]|\bscore\b|\bgrade\b|\brat(?:e|ed|ing)\b)\W{{0,12}}(?:of\s+|is\s+|as\s+)?[\[(]?{d}\b"
                rf"(?![.,]\d)|\b{d}\s*(?:/|out\s+of)\s*5\b",
                re.IGNORECASE,
            ),
            str(d),
        )
        for d in range(1, 6)
    ),
    # The rubric's ends: score 1 is "mostly unsupported", score 5 "every claim explicitly supported".
    (
        re.compile(
            r"\b(?:not|isn't)\s+(?:\w+\s+)?(?:faithful|supported)\b|\bun(?:faithful|supported)\b",
            re.IGNORECASE,
        ),
        "1",
    ),
    (re.compile(r"\b(?:faithful|supported)\b", re.IGNORECASE), "5"),
]


def grade_in_words(text: str) -> PrometheusGrade | None:
    """A grade stated without the final "[RESULT] n": a score written elsewhere ("Score: 4", "4/5"),
    or a plain faithful / supported or not, read as the rubric's ends (5 / 1)."""
    label = stated_label(text, _GRADE_WORDS)
    if label is None:
        return None
    return PrometheusGrade(float(label), int(label), text.strip(), False)


VERDICT = VerdictSpec(
    parse=lambda c: parse_prometheus(c),
    words=grade_in_words,
    marker="\n[RESULT] ",
    choices=RATING_LABELS,
    cut=MARKER,
)


class PrometheusConfig(JudgeConfig):
    system_prompt: Literal["fold", "system", "omit"] = Field(
        default="fold",
        description="fold: prepend the system prompt to the user turn (Mistral chat templates refuse a "
        "system role); system: send it as a system message; omit: leave it out",
    )
    rubric: str | None = Field(
        default=None,
        description="a rubric in Prometheus format ('[criteria]' then 'Score 1: ...' .. 'Score 5: ...'); "
        "default: a faithfulness-to-the-passage rubric",
    )
    polls: int = Field(default=1, ge=1, le=16, description="gradings drawn in one request (n) and averaged")
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=TEMPERATURE_RANGE
    )
    top_p: float = Field(default=1.0, gt=0.0, le=1.0, allow_inf_nan=False)
    max_tokens: int = Field(default=1024, ge=16)
    top_logprobs: int = Field(default=5, ge=0, le=20, description="0 = score from the text only")

    @model_validator(mode="after")
    def _polls_need_sampling(self) -> PrometheusConfig:
        if self.polls > 1 and self.temperature == 0.0:
            raise ValueError(
                "prometheus.polls > 1 draws identical gradings at temperature 0: set temperature > 0"
            )
        if self.rubric is not None and "Score 5:" not in self.rubric:
            raise ValueError(
                "prometheus.rubric must list the levels as 'Score 1: ...' through 'Score 5: ...'"
            )
        return self


def prometheus_cost(config: PrometheusConfig) -> JudgeCost:
    """Worst case per sample: every poll reasons to ``max_tokens`` and is continued once."""
    return reasoning_cost(config.max_tokens, config.polls)


@register_judge(
    "prometheus",
    config=PrometheusConfig,
    cost=prometheus_cost,
    cpu_settings={"polls": 1, "max_tokens": 256},
    example_answers={
        "prometheus": ExampleAnswer(
            "The response sticks to the passage and answers the instruction. [RESULT] 4",
            {"4": 0.7, "1": 0.075, "2": 0.075, "3": 0.075, "5": 0.075},
        )
    },
)
class PrometheusJudge(JudgeBase):
    name = "prometheus"

    def __init__(self, config: PrometheusConfig) -> None:
        self.config = config
        self.rubric = config.rubric if config.rubric is not None else load_template(DEFAULT_RUBRIC)
        self.version = prompt_version(TEMPLATES, PARSER_RULES, self.rubric, config.value_settings())

    def _messages(self, sample: Sample, context: str) -> list[Message]:
        return build_prometheus_messages(
            question=sample.question,
            context=context,
            answer=sample.response,
            rubric=self.rubric,
            system_prompt=self.config.system_prompt,
        )

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        needs_context(sample, self.name)
        cfg = self.config
        fixed = "".join(m.content for m in self._messages(sample, ""))
        fit = fitted_context(sample, llm, fixed_text=fixed, max_tokens=cfg.max_tokens)
        if not fit.text:
            raise JudgeFailure("no context passage fits the judge's window")
        request = ChatRequest(
            messages=self._messages(sample, fit.text),
            n=cfg.polls,
            temperature=cfg.temperature,
            top_p=cfg.top_p,
            max_tokens=cfg.max_tokens,
            logprobs=cfg.top_logprobs > 0,
            top_logprobs=cfg.top_logprobs,
            tag=f"{self.name}@{self.version}",
        )
        result = await llm.generate(request)
        done = await with_verdicts(result.choices, request, VERDICT, llm=llm)
        grades = [d.value for d in done]
        errors = [d.error for d in done if d.value is None and d.error]
        parsed = [g for g in grades if g is not None]
        if not parsed:
            raise JudgeFailure(errors[0] if errors else "the prometheus judge returned no choices")
        mean = sum(g.expected for g in parsed) / len(parsed)
        warnings = [f"{len(errors)} of {len(grades)} gradings unparsable: {errors[0]}"] if errors else []
        if cfg.top_logprobs > 0 and not all(g.from_logprobs for g in parsed):
            warnings.append("no logprobs at the grade token: used the written grade")
        if fit.warning:
            warnings.append(fit.warning)
        return Signal(
            name=self.name,
            value=to_unit((mean - 1.0) / 4.0),
            raw={
                "score": round(mean, 4),
                "polls": [g.grade if g else None for g in grades],
                "verdict_paths": dict(verdict_paths(done)),
            },
            explanation=parsed[0].feedback or None,
            warnings=warnings,
            version=self.version,
        )
