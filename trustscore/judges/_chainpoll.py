"""ChainPoll-Adherence (Friel & Sanyal 2023, arXiv 2310.18344) with our own prompt.

The official prompt is not public; ours asks for claim-by-claim reasoning against the context and a
final line ``VERDICT: supported|unsupported``. k polls come from ONE request with ``n=k`` at temperature
> 0 (the prompt is prefilled once). Value = supported / parsed votes; a poll without a verdict abstains,
and fewer than ``min_votes`` parsed votes make the signal missing. On a vLLM server a poll without a
verdict line is read from its own words when it states a vote there ("Unsupported"), is no vote when it
is no answer, and is otherwise continued with "VERDICT:" and a constrained supported|unsupported
(judges/_verdict.py); ``raw.verdict_paths`` counts each path.
"""

from __future__ import annotations

import math
import re

from pydantic import Field, JsonValue, model_validator

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.judges._base import JudgeBase, JudgeLLM, needs_context
from trustscore.judges._evidence import evidence_messages, fitted_evidence_context
from trustscore.judges._parsing import quote
from trustscore.judges._templates import load_template, prompt_version
from trustscore.judges._verdict import VerdictSpec, reasoning_cost, stated_label, verdict_paths, with_verdicts
from trustscore.llm._protocol import MAX_TEMPERATURE, ChatRequest, Choice, Message
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = ["ChainPollConfig", "ChainPollJudge", "build_chainpoll_messages", "parse_vote", "vote_in_words"]

PARSER_RULES = "chainpoll-parser-3"
TEMPLATES = ["evidence_system.txt", "evidence_user.txt", "chainpoll.txt"]
_VERDICT = re.compile(r"verdict\s*\**\s*:\s*\**\s*(supported|unsupported)\b", re.IGNORECASE)


def build_chainpoll_messages(*, question: str, context: str, answer: str) -> list[Message]:
    return evidence_messages(
        question=question, context=context, answer=answer, instruction=load_template("chainpoll.txt")
    )


def parse_vote(text: str) -> str | None:
    """'supported' or 'unsupported' from the last VERDICT line; None (abstain) when there is none."""
    matches = _VERDICT.findall(text)
    return matches[-1].lower() if matches else None


_VOTE_WORDS = [
    (re.compile(r"\b(?:unsupport\w*|not\s+(?:\w+\s+)?support\w*)", re.IGNORECASE), "unsupported"),
    (re.compile(r"\bsupport(?:ed|ive|s)\b", re.IGNORECASE), "supported"),
]


def vote_in_words(text: str) -> str | None:
    """The vote a poll stated without the VERDICT line ("Unsupported\n\nNote: ..."), if it stated one."""
    return stated_label(text, _VOTE_WORDS)


def _vote_or_raise(choice: Choice) -> str:
    vote = parse_vote(choice.text)
    if vote is None:
        raise ValueError(f"no 'VERDICT: supported|unsupported' line: {quote(choice.text)}")
    return vote


VERDICT = VerdictSpec(
    parse=_vote_or_raise,
    words=vote_in_words,
    marker="\nVERDICT:",
    choices=[" supported", " unsupported"],
    cut="VERDICT",
)


class ChainPollConfig(JudgeConfig):
    polls: int = Field(
        default=5, ge=1, le=32, description="chain-of-thought verdicts drawn in one request (n)"
    )
    min_votes: int | None = Field(
        default=None, ge=1, description="fewest parsed votes for a value; default ceil(polls / 2)"
    )
    temperature: float = Field(
        default=0.7,
        gt=0.0,
        le=MAX_TEMPERATURE,
        allow_inf_nan=False,
        description="(0, 2]: > 0, or every poll is the same",
    )
    max_tokens: int = Field(default=512, ge=16)

    @model_validator(mode="after")
    def _votes_fit(self) -> ChainPollConfig:
        if self.min_votes is not None and self.min_votes > self.polls:
            raise ValueError(f"chainpoll.min_votes ({self.min_votes}) is above polls ({self.polls})")
        return self

    @property
    def required_votes(self) -> int:
        return self.min_votes if self.min_votes is not None else math.ceil(self.polls / 2)


_SUPPORTED = "The answer's claim is stated in the context.\nVERDICT: supported"
_UNSUPPORTED = "The answer's claim is not stated in the context.\nVERDICT: unsupported"


def chainpoll_cost(config: ChainPollConfig) -> JudgeCost:
    """Worst case per sample: every poll reasons to ``max_tokens`` and is continued once."""
    return reasoning_cost(config.max_tokens, config.polls)


@register_judge(
    "chainpoll",
    config=ChainPollConfig,
    cost=chainpoll_cost,
    cpu_settings={"polls": 3, "max_tokens": 256},
    example_answers={
        "chainpoll": [
            *[ExampleAnswer(_SUPPORTED, {"supported": 0.9, "unsupported": 0.1})] * 4,
            ExampleAnswer(_UNSUPPORTED, {"unsupported": 0.9, "supported": 0.1}),
        ]
    },
)
class ChainPollJudge(JudgeBase):
    name = "chainpoll"

    def __init__(self, config: ChainPollConfig) -> None:
        self.config = config
        self.version = prompt_version(TEMPLATES, PARSER_RULES, config.value_settings())

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        needs_context(sample, self.name)
        cfg = self.config
        fit = fitted_evidence_context(
            sample, llm, instruction=load_template("chainpoll.txt"), max_tokens=cfg.max_tokens
        )
        if not fit.text:
            raise JudgeFailure("no context passage fits the judge's window")
        request = ChatRequest(
            messages=build_chainpoll_messages(
                question=sample.question, context=fit.text, answer=sample.response
            ),
            n=cfg.polls,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            tag=f"{self.name}@{self.version}",
        )
        result = await llm.generate(request)
        done = await with_verdicts(result.choices, request, VERDICT, llm=llm)
        parsed = [d.value for d in done]
        votes = [v for v in parsed if v is not None]
        abstained = len(parsed) - len(votes)
        raw: dict[str, JsonValue] = {
            "votes": list(votes),
            "abstained": abstained,
            "verdict_paths": dict(verdict_paths(done)),
        }
        if len(votes) < cfg.required_votes:
            sample_text = next((c.text for c, v in zip(result.choices, parsed, strict=True) if v is None), "")
            raise JudgeFailure(
                f"only {len(votes)} of {len(parsed)} polls gave a verdict (need {cfg.required_votes}); "
                f"an abstaining poll said: {quote(sample_text)}",
                raw=raw,
            )
        supported = votes.count("supported")
        reasons = [c.text.strip() for c, v in zip(result.choices, parsed, strict=True) if v == "unsupported"]
        return Signal(
            name=self.name,
            value=supported / len(votes),
            raw=raw,
            explanation=(reasons[0] if reasons else None),
            warnings=[fit.warning] if fit.warning else [],
            version=self.version,
        )
