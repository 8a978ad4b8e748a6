"""Patronus Lynx (Llama-3-Patronus-Lynx-8B/70B-Instruct): the model-card prompt as one user turn.

Lynx answers in pseudo-JSON (``"SCORE": PASS`` unquoted, ``"REASONING": ['...', '...']`` single-quoted),
so the output is read with tolerant patterns, never ``json.loads``. Value = P(PASS) at the verdict token
after the last ``"SCORE":``: the probability of every PASS variant (" PASS", "Pass", '"PASS', "PA") over
PASS + FAIL variants; 1 or 0 from the text when the server gives no logprobs. Unparsable output is a
missing signal (NeMo Guardrails would call it a FAIL; we do not guess). A bare PASS or FAIL without the
key is read from the model's words; an output that only repeats the document is no answer; on a vLLM
server other reasoning without a verdict is continued with ``"SCORE":`` and a constrained PASS|FAIL
(judges/_verdict.py).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from pydantic import Field

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.judges._base import TEMPERATURE_RANGE, JudgeBase, JudgeLLM, fitted_context, needs_context
from trustscore.judges._parsing import label_distribution, locate_after, quote, to_unit
from trustscore.judges._templates import fill, load_template, prompt_version
from trustscore.judges._verdict import (
    CONSTRAINED_WARNING,
    WORDS_WARNING,
    VerdictSpec,
    reasoning_cost,
    stated_label,
    with_verdicts,
)
from trustscore.llm._protocol import MAX_TEMPERATURE, ChatRequest, Choice, Message
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = [
    "LynxConfig",
    "LynxJudge",
    "LynxVerdict",
    "build_lynx_messages",
    "lynx_in_words",
    "parse_lynx",
    "verdict_label",
]

PARSER_RULES = "lynx-parser-3"
TEMPLATES = ["lynx.txt"]
_SCORE = re.compile(r"""["']?SCORE["']?\s*:\s*["']?\s*(PASS|FAIL)\b""", re.IGNORECASE)
_REASONING = re.compile(r"""["']?REASONING["']?\s*:\s*\[(.*?)\]""", re.IGNORECASE | re.DOTALL)
_PASS_PIECE = re.compile(r"(?:P|PA|PAS|PASS(?:ED)?)[^A-Z]*")
_FAIL_PIECE = re.compile(r"(?:F|FA|FAI|FAIL(?:ED)?)[^A-Z]*")
_SCORE_MARKERS = ['"SCORE":', "'SCORE':", "SCORE:"]
_VERDICT_WORDS = [(re.compile(r"\bFAIL(?:S|ED)?\b"), "FAIL"), (re.compile(r"\bPASS(?:ES|ED)?\b"), "PASS")]


@dataclass(frozen=True)
class LynxVerdict:
    verdict: str
    """"PASS" or "FAIL", as written."""
    p_pass: float
    reasoning: list[str]
    from_logprobs: bool


def build_lynx_messages(*, question: str, context: str, answer: str) -> list[Message]:
    return [
        Message(
            role="user",
            content=fill(load_template("lynx.txt"), question=question, context=context, answer=answer),
        )
    ]


def verdict_label(token_text: str) -> str | None:
    """'PASS', ' Pass', 'PA', '"P' -> 'PASS'; 'FAIL', ' F' -> 'FAIL'; anything else -> None."""
    core = token_text.strip(" \t\r\n\"'*:").upper()
    if _PASS_PIECE.fullmatch(core):
        return "PASS"
    if _FAIL_PIECE.fullmatch(core):
        return "FAIL"
    return None


def _reasoning_items(text: str) -> list[str]:
    match = _REASONING.search(text)
    if match is None:
        return []
    body = "[" + match.group(1) + "]"
    try:
        items = ast.literal_eval(body)
    except (ValueError, SyntaxError):
        items = [part.strip(" \"'\n") for part in re.split(r"""['"]\s*,\s*['"]""", match.group(1))]
    return [str(i).strip() for i in items if str(i).strip()] if isinstance(items, list) else []


def parse_lynx(choice: Choice) -> LynxVerdict:
    """The last SCORE verdict and the reasoning list; ValueError quoting the output without a verdict."""
    text = choice.text
    matches = list(_SCORE.finditer(text))
    if not matches:
        raise ValueError(f'no "SCORE": PASS|FAIL in the Lynx output: {quote(text)}')
    verdict = matches[-1].group(1).upper()
    reasoning = _reasoning_items(text)
    if choice.logprobs:
        joined = "".join(t.token for t in choice.logprobs)
        for marker in _SCORE_MARKERS:
            if marker.lower() in joined.lower():
                located = locate_after(choice.logprobs, marker)
                if located is None:
                    break
                dist = label_distribution(located, verdict_label, labels=["PASS", "FAIL"])
                if dist is not None:
                    return LynxVerdict(verdict, dist["PASS"], reasoning, True)
                break
    return LynxVerdict(verdict, 1.0 if verdict == "PASS" else 0.0, reasoning, False)


def lynx_in_words(text: str) -> LynxVerdict | None:
    """PASS or FAIL written in capitals without the "SCORE": key, when the output states only one."""
    label = stated_label(text, _VERDICT_WORDS)
    if label is None:
        return None
    return LynxVerdict(label, 1.0 if label == "PASS" else 0.0, _reasoning_items(text), False)


VERDICT = VerdictSpec(
    parse=lambda c: parse_lynx(c),
    words=lynx_in_words,
    marker='\n"SCORE":',
    choices=[" PASS", " FAIL"],
    cut='"SCORE"',
)


class LynxConfig(JudgeConfig):
    max_tokens: int = Field(default=600, ge=16)
    temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False, description=TEMPERATURE_RANGE
    )
    top_logprobs: int = Field(default=10, ge=0, le=20, description="0 = verdict from the text only (1 or 0)")


def lynx_cost(config: LynxConfig) -> JudgeCost:
    """Worst case per sample: the reasoning to ``max_tokens``, continued once."""
    return reasoning_cost(config.max_tokens)


@register_judge(
    "lynx",
    config=LynxConfig,
    cost=lynx_cost,
    cpu_settings={"max_tokens": 256},
    example_answers={
        "lynx": ExampleAnswer(
            '{"REASONING": [\'The answer is stated in the document.\'], "SCORE": PASS}',
            {"PASS": 0.93, "FAIL": 0.07},
        )
    },
)
class LynxJudge(JudgeBase):
    name = "lynx"

    def __init__(self, config: LynxConfig) -> None:
        self.config = config
        self.version = prompt_version(TEMPLATES, PARSER_RULES, config.value_settings())

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        needs_context(sample, self.name)
        cfg = self.config
        fixed = build_lynx_messages(question=sample.question, context="", answer=sample.response)[0].content
        fit = fitted_context(sample, llm, fixed_text=fixed, max_tokens=cfg.max_tokens)
        if not fit.text:
            raise JudgeFailure("no context passage fits the judge's window")
        request = ChatRequest(
            messages=build_lynx_messages(question=sample.question, context=fit.text, answer=sample.response),
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            logprobs=cfg.top_logprobs > 0,
            top_logprobs=cfg.top_logprobs,
            tag=f"{self.name}@{self.version}",
        )
        result = await llm.generate(request)
        if not result.choices:
            raise JudgeFailure("the lynx judge returned no choices")
        [done] = await with_verdicts(result.choices[:1], request, VERDICT, llm=llm)
        if done.value is None:
            raise JudgeFailure(done.error or "no verdict")
        verdict = done.value
        warnings = {"constrained": [CONSTRAINED_WARNING], "words": [WORDS_WARNING]}.get(done.path or "", [])
        if cfg.top_logprobs > 0 and not verdict.from_logprobs:
            warnings.append("no logprobs at the verdict token: value is 1 or 0 from the text")
        if fit.warning:
            warnings.append(fit.warning)
        return Signal(
            name=self.name,
            value=to_unit(verdict.p_pass),
            raw=verdict.verdict,
            explanation="\n".join(f"- {r}" for r in verdict.reasoning) or None,
            warnings=warnings,
            version=self.version,
        )
