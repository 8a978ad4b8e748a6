"""TLM-style trust (BSDetector, Chen & Mueller, ACL 2024, arXiv 2308.16175): consistency + self-reflection.

- Self-reflection S: two questions on the evidence block ("is the answer (A) correct (B) incorrect (C) not
  sure", then "are you really sure"), each scored A=1, B=0, C=0.5, as P(A) + 0.5 P(C) from the top logprobs
  at the letter after the last "answer:" when available, else from the written letter. S = their mean.
- Observed consistency O: k answers to the original question (and context) drawn in ONE request with
  n=k at temperature 1.0; that prompt is the evidence block cut before the answer (the response is never
  shown), so it shares the system message, context and question with the other evidence prompts. Each
  is compared with the given response: o_i = alpha * s_i + (1 - alpha) * r_i,
  where s_i = 1 - P(contradict) from an LLM agreement question (one request per answer, run concurrently,
  each starting with the shared evidence block) or a similarity callable, and r_i = exact match after
  normalising case, spaces and punctuation. O = mean of o_i.
- Trust = beta * O + (1 - beta) * S with beta = 0.7, alpha = 0.8 (the paper's constants).

Without context the judge still runs (BSDetector was designed for open questions): the model judges on
its own knowledge and the signal says so in a warning; ``require_context`` makes it missing instead.
When one part fails, the value comes from the other part alone and a warning says which.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import anyio
from pydantic import Field, JsonValue

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.judges._base import JudgeBase, JudgeLLM
from trustscore.judges._evidence import evidence_messages, fitted_evidence_context, question_messages
from trustscore.judges._parsing import FILLER, label_distribution, locate_after, quote, to_unit
from trustscore.judges._templates import fill, load_template, prompt_version
from trustscore.judges._verdict import (
    VERDICT_MAX_TOKENS,
    Verdicted,
    VerdictSpec,
    stated_label,
    verdict_paths,
    with_verdicts,
)
from trustscore.llm._protocol import MAX_TEMPERATURE, ChatRequest, Choice, Constraint, Message
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = [
    "AGREEMENT_LABELS",
    "Similarity",
    "TLMConfig",
    "TLMJudge",
    "build_agreement_messages",
    "build_answer_messages",
    "build_reflection_messages",
    "exact_match",
    "parse_agreement",
    "parse_reflection",
    "reflection_in_words",
]

Similarity = Callable[[str, str], float]
"""similarity(sampled_answer, response) in [0, 1]; may block (it runs in a worker thread)."""

PARSER_RULES = "tlm-parser-4"
"""Bumped with any change to how the prompts are put together or parsed (3: answer sampling on the evidence
block; 4: a reflection's choice read from its own words before any continuation)."""
REFLECTIONS = ["tlm_reflection_1.txt", "tlm_reflection_2.txt"]
TEMPLATES = [
    "evidence_system.txt",
    "evidence_user.txt",
    "evidence_user_no_context.txt",
    *REFLECTIONS,
    "tlm_answer.txt",
    "tlm_answer_no_context.txt",
    "tlm_agreement.txt",
]
AGREEMENT_LABELS = ["agree", "neutral", "contradict"]
LETTER_SCORES = {"A": 1.0, "B": 0.0, "C": 0.5}
_LETTER = re.compile(r"answer\s*\**\s*:\s*\**\s*\(?([ABC])\b", re.IGNORECASE)
_NORMALISE = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Reflection:
    score: float
    letter: str
    explanation: str
    from_logprobs: bool


def build_reflection_messages(*, question: str, context: str, answer: str, which: int) -> list[Message]:
    return evidence_messages(
        question=question, context=context, answer=answer, instruction=load_template(REFLECTIONS[which])
    )


def build_answer_messages(*, question: str, context: str) -> list[Message]:
    """The original task, without the response: what the k consistency samples answer.

    It starts with the same bytes as the judges' evidence prompts up to the question, so the engine's
    prefix cache serves the context prefilled for them."""
    instruction = load_template("tlm_answer.txt" if context else "tlm_answer_no_context.txt")
    return question_messages(question=question, context=context, instruction=instruction)


def build_agreement_messages(*, question: str, context: str, answer: str, other: str) -> list[Message]:
    return evidence_messages(
        question=question,
        context=context,
        answer=answer,
        instruction=fill(load_template("tlm_agreement.txt"), other=other),
    )


def _letter(token_text: str) -> str | None:
    core = token_text.strip(FILLER + ").").upper()
    return core if core in LETTER_SCORES else None


def parse_reflection(choice: Choice) -> Reflection:
    """A=1, B=0, C=0.5 for the letter after the last "answer:"; ValueError quoting the output otherwise."""
    matches = list(_LETTER.finditer(choice.text))
    if not matches:
        raise ValueError(f"no 'answer: A|B|C' in the self-reflection: {quote(choice.text)}")
    last = matches[-1]
    letter = last.group(1).upper()
    explanation = re.sub(
        r"^\s*explanation\s*:\s*", "", choice.text[: last.start()], flags=re.IGNORECASE
    ).strip()
    if choice.logprobs:
        located = locate_after(choice.logprobs, "answer:")
        if located is not None:
            dist = label_distribution(located, _letter, labels=list(LETTER_SCORES))
            if dist is not None:
                score = sum(LETTER_SCORES[k] * p for k, p in dist.items())
                return Reflection(score, letter, explanation, True)
    return Reflection(LETTER_SCORES[letter], letter, explanation, False)


def _agreement_label(token_text: str) -> str | None:
    core = token_text.strip(FILLER).lower()
    if not core:
        return None
    hits = [label for label in AGREEMENT_LABELS if label.startswith(core) or core.startswith(label)]
    return hits[0] if len(hits) == 1 else None


def parse_agreement(choice: Choice) -> float:
    """Non-contradiction 1 - P(contradict) in [0, 1]; ValueError when the reply is none of the labels."""
    label = _agreement_label(choice.text.strip().split()[0] if choice.text.strip() else "")
    if label is None:
        raise ValueError(f"agreement reply is not agree/neutral/contradict: {quote(choice.text)}")
    if choice.logprobs:
        located = locate_after(choice.logprobs, "")
        if located is not None:
            dist = label_distribution(located, _agreement_label, labels=AGREEMENT_LABELS)
            if dist is not None:
                return 1.0 - dist["contradict"]
    return 0.0 if label == "contradict" else 1.0


_REFLECTION_WORDS = [
    (re.compile(r"\(B\)|\bincorrect\b|\bnot\s+correct\b|\bwrong\b", re.IGNORECASE), "B"),
    (re.compile(r"\(C\)|\bnot\s+sure\b|\bunsure\b", re.IGNORECASE), "C"),
    (re.compile(r"\(A\)|\bcorrect\b", re.IGNORECASE), "A"),
]


_REFLECTION_HEADS = [(re.compile(rf"\(?{k}\)?"), k) for k in LETTER_SCORES]


def reflection_in_words(text: str) -> Reflection | None:
    """The choice stated without "answer:" ("(B) Incorrect ... The answer is incorrect", a bare "A"),
    if only one is."""
    letter = stated_label(text, _REFLECTION_WORDS, _REFLECTION_HEADS)
    if letter is None:
        return None
    return Reflection(LETTER_SCORES[letter], letter, text.strip(), False)


REFLECTION_VERDICT = VerdictSpec(
    parse=lambda c: parse_reflection(c),
    words=reflection_in_words,
    marker="\nanswer:",
    choices=[f" {k}" for k in LETTER_SCORES],
    cut="answer:",
)


def exact_match(a: str, b: str) -> bool:
    """Equal after lower-casing and dropping punctuation and spacing (BSDetector's indicator)."""
    return _NORMALISE.sub(" ", a.lower()).strip() == _NORMALISE.sub(" ", b.lower()).strip()


@dataclass
class _Parts:
    reflections: list[Reflection | None] = field(default_factory=lambda: [None, None])
    reflection_errors: list[str] = field(default_factory=list)
    reflection_paths: list[Verdicted[Reflection]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    agreement: list[float | None] = field(default_factory=list)
    agreement_errors: list[str] = field(default_factory=list)
    consistency_error: str | None = None


class TLMConfig(JudgeConfig):
    samples: int = Field(
        default=5, ge=0, le=20, description="answers drawn for consistency (0 = reflection only)"
    )
    sample_temperature: float = Field(
        default=1.0, gt=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description="(0, 2], as vLLM accepts"
    )
    beta: float = Field(
        default=0.7, ge=0.0, le=1.0, description="weight of observed consistency (BSDetector)"
    )
    alpha: float = Field(
        default=0.8, ge=0.0, le=1.0, description="per sample: weight of agreement vs exact match (BSDetector)"
    )
    consistency: Literal["llm", "similarity"] = Field(
        default="llm",
        description="llm: the judge says whether each sampled answer agrees with the response; similarity: "
        "a similarity callable given to the judge's constructor (e.g. embeddings)",
    )
    require_context: bool = Field(
        default=False,
        description="True: missing signal without context; False: judge on the model's knowledge",
    )
    answer_max_tokens: int = Field(default=384, ge=8)
    reflection_max_tokens: int = Field(default=384, ge=8)
    top_logprobs: int = Field(default=5, ge=0, le=20)


def tlm_cost(config: TLMConfig) -> JudgeCost:
    """Worst case per sample: two reflections, the answers sampled, and their agreement checks, each
    free output continued once."""
    k = config.samples
    reflections = 2 * (config.reflection_max_tokens + VERDICT_MAX_TOKENS)
    return JudgeCost(
        2 + 2 + (1 + k if k else 0),
        4 + 2 * k,
        reflections + k * (config.answer_max_tokens + VERDICT_MAX_TOKENS),
    )


@register_judge(
    "tlm",
    config=TLMConfig,
    cost=tlm_cost,
    cpu_settings={"samples": 3, "answer_max_tokens": 128, "reflection_max_tokens": 256},
    example_answers={
        "tlm.answer": ExampleAnswer("Paris is the capital of France."),
        "tlm.reflection": ExampleAnswer(
            "explanation: The proposed answer agrees with the context.\nanswer: A",
            {"A": 0.85, "B": 0.075, "C": 0.075},
        ),
        "tlm.agreement": ExampleAnswer("agree", {"agree": 0.9, "neutral": 0.05, "contradict": 0.05}),
    },
)
class TLMJudge(JudgeBase):
    name = "tlm"

    def __init__(self, config: TLMConfig, *, similarity: Similarity | None = None) -> None:
        if config.consistency == "similarity" and similarity is None and config.samples > 0:
            raise ValueError(
                "tlm.consistency = 'similarity' needs a similarity callable: "
                "TLMJudge(config, similarity=fn); or set consistency = 'llm'"
            )
        self.config = config
        self.similarity = similarity
        self.version = prompt_version(TEMPLATES, PARSER_RULES, config.value_settings())

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        cfg = self.config
        warnings: list[str] = []
        context = ""
        if sample.has_context:
            # the agreement prompt also carries one sampled answer (up to answer_max_tokens)
            reflection_need = llm.count_tokens(load_template(REFLECTIONS[1])) + cfg.reflection_max_tokens
            agreement_need = llm.count_tokens(load_template("tlm_agreement.txt")) + cfg.answer_max_tokens + 3
            fit = fitted_evidence_context(
                sample, llm, instruction="", max_tokens=max(reflection_need, agreement_need)
            )
            if not fit.text:
                raise JudgeFailure("no context passage fits the judge's window")
            context = fit.text
            if fit.warning:
                warnings.append(fit.warning)
        elif cfg.require_context:
            raise JudgeFailure("no context: tlm.require_context is set; pass context=[...] or unset it")
        else:
            warnings.append("no context: judged on the model's own knowledge")

        parts = _Parts()
        async with anyio.create_task_group() as tg:
            for which in (0, 1):
                tg.start_soon(self._reflect, sample, context, which, llm, parts)
            if cfg.samples > 0:
                tg.start_soon(self._consistency, sample, context, llm, parts)
        return self._combine(parts, warnings)

    async def _reflect(self, sample: Sample, context: str, which: int, llm: JudgeLLM, parts: _Parts) -> None:
        request = ChatRequest(
            messages=build_reflection_messages(
                question=sample.question, context=context, answer=sample.response, which=which
            ),
            temperature=0.0,
            max_tokens=self.config.reflection_max_tokens,
            logprobs=self.config.top_logprobs > 0,
            top_logprobs=self.config.top_logprobs,
            tag=f"{self.name}.reflection@{self.version}",
        )
        try:
            result = await llm.generate(request)
            if not result.choices:
                raise JudgeFailure("self-reflection returned no choices")
        except JudgeFailure as e:
            parts.reflection_errors.append(e.reason)
            return
        [done] = await with_verdicts(result.choices[:1], request, REFLECTION_VERDICT, llm=llm)
        if done.value is None:
            parts.reflection_errors.append(done.error or "no verdict")
            return
        parts.reflections[which] = done.value
        parts.reflection_paths.append(done)

    async def _consistency(self, sample: Sample, context: str, llm: JudgeLLM, parts: _Parts) -> None:
        cfg = self.config
        request = ChatRequest(
            messages=build_answer_messages(question=sample.question, context=context),
            n=cfg.samples,
            temperature=cfg.sample_temperature,
            max_tokens=cfg.answer_max_tokens,
            tag=f"{self.name}.answer@{self.version}",
        )
        try:
            result = await llm.generate(request)
        except JudgeFailure as e:
            parts.consistency_error = e.reason
            return
        parts.answers = [c.text.strip() for c in result.choices]
        parts.agreement = [None] * len(parts.answers)

        async def score(i: int, answer: str) -> None:
            if not answer:
                parts.agreement_errors.append(f"sampled answer {i + 1} is empty")
                return
            try:
                s = await self._agreement(sample, context, answer, llm)
            except JudgeFailure as e:
                parts.agreement_errors.append(e.reason)
                return
            r = 1.0 if exact_match(answer, sample.response) else 0.0
            parts.agreement[i] = cfg.alpha * s + (1.0 - cfg.alpha) * r

        async with anyio.create_task_group() as tg:
            for i, answer in enumerate(parts.answers):
                tg.start_soon(score, i, answer)

    async def _agreement(self, sample: Sample, context: str, answer: str, llm: JudgeLLM) -> float:
        """s_i for one sampled answer; JudgeFailure with the reason when it cannot be judged (the
        sample abstains, and the reason reaches the signal's warnings)."""
        if self.config.consistency == "similarity" and self.similarity is not None:
            similarity = self.similarity
            try:
                value = float(await anyio.to_thread.run_sync(lambda: similarity(answer, sample.response)))
            except Exception as e:  # a user's callable: any failure is this sample's abstention
                raise JudgeFailure(f"similarity failed: {type(e).__name__}: {e}") from None
            if not math.isfinite(value):
                raise JudgeFailure(f"similarity returned {value}")
            return to_unit(value)
        request = ChatRequest(
            messages=build_agreement_messages(
                question=sample.question, context=context, answer=sample.response, other=answer
            ),
            temperature=0.0,
            max_tokens=VERDICT_MAX_TOKENS,  # a real tokenizer splits "contradict" into several tokens
            logprobs=self.config.top_logprobs > 0,
            top_logprobs=self.config.top_logprobs,
            constraint=Constraint(choice=AGREEMENT_LABELS),
            tag=f"{self.name}.agreement@{self.version}",
        )
        result = await llm.generate(request)
        if not result.choices:
            raise JudgeFailure("the agreement check returned no choices")
        try:
            return parse_agreement(result.choices[0])
        except ValueError as e:
            hint = (
                " (an OpenAI-flavour endpoint cannot enforce the agree/neutral/contradict choice: serve the "
                "judge with vLLM, or set tlm.consistency = 'similarity')"
                if llm.flavour == "openai"
                else ""
            )
            raise JudgeFailure(f"{e}{hint}") from None

    def _combine(self, parts: _Parts, warnings: list[str]) -> Signal:
        cfg = self.config
        parsed = [r for r in parts.reflections if r is not None]
        reflection = sum(r.score for r in parsed) / len(parsed) if parsed else None
        scored = [a for a in parts.agreement if a is not None]
        consistency = sum(scored) / len(scored) if scored else None
        if cfg.samples > 0 and consistency is None:
            why = parts.consistency_error or (
                f"none of the {len(parts.answers)} sampled answers could be compared"
                + (f": {parts.agreement_errors[0]}" if parts.agreement_errors else "")
            )
            warnings.append(f"consistency missing ({why}): value from self-reflection only")
        if consistency is not None and parts.agreement_errors:
            failed = len(parts.agreement_errors)
            warnings.append(
                f"{failed} of {len(parts.answers)} agreement checks failed ({parts.agreement_errors[0]}): "
                f"consistency from the other {len(parts.answers) - failed}"
            )
        if reflection is not None and parts.reflection_errors:
            warnings.append(f"1 of 2 self-reflections failed: {parts.reflection_errors[0]}")
        if reflection is None and parts.reflection_errors:
            warnings.append(
                f"self-reflection missing ({parts.reflection_errors[0]}): value from consistency only"
            )
        if reflection is not None and consistency is not None:
            value = cfg.beta * consistency + (1.0 - cfg.beta) * reflection
        elif reflection is not None:
            value = reflection
        elif consistency is not None:
            value = consistency
        else:
            reasons = parts.reflection_errors[:1] + (
                [parts.consistency_error] if parts.consistency_error else []
            )
            raise JudgeFailure(
                "tlm: neither self-reflection nor consistency could be computed: " + "; ".join(reasons)
            )
        raw: dict[str, JsonValue] = {
            "consistency": consistency,
            "self_reflection": reflection,
            "reflections": [r.letter if r else None for r in parts.reflections],
            "answers": list(parts.answers),
            "agreement": list(parts.agreement),
            "agreement_errors": list(parts.agreement_errors),
            "verdict_paths": dict(verdict_paths(parts.reflection_paths)),
        }
        return Signal(
            name=self.name,
            value=to_unit(value),
            raw=raw,
            explanation=next((r.explanation for r in parsed if r.explanation), None),
            warnings=warnings,
            version=self.version,
        )
