"""Yes/no: a toy judge that asks whether the answer is supported and reads yes or no from the text.
The sixth-judge test adds it to a copy of the package as a built-in (this file, its prompt, one import)."""

from __future__ import annotations

from pydantic import Field

from trustscore._errors import JudgeFailure
from trustscore._types import Sample, Signal
from trustscore.judges._base import JudgeBase, JudgeLLM, needs_context
from trustscore.judges._templates import fill, load_template, prompt_version
from trustscore.llm._protocol import ChatRequest, Message
from trustscore.signals import ExampleAnswer, JudgeConfig, JudgeCost, register_judge

__all__ = ["YesNoConfig", "YesNoJudge", "yesno_cost"]

TEMPLATES = ["yesno.txt"]


class YesNoConfig(JudgeConfig):
    """``[judges.yesno]``: a toy judge that reads yes or no from the model's text."""

    max_tokens: int = Field(default=64, ge=1, description="tokens the answer may take")


def yesno_cost(config: YesNoConfig) -> JudgeCost:
    """One request, one sequence, at most ``max_tokens`` decoded."""
    return JudgeCost(1, 1, config.max_tokens)


@register_judge(
    "yesno",
    config=YesNoConfig,
    cost=yesno_cost,
    cpu_settings={"max_tokens": 8},
    example_answers={"yesno": ExampleAnswer("yes")},
)
class YesNoJudge(JudgeBase):
    name = "yesno"

    def __init__(self, config: YesNoConfig) -> None:
        self.config = config
        self.version = prompt_version(TEMPLATES, "yesno-parser-1", config.value_settings())

    async def _run(self, sample: Sample, llm: JudgeLLM) -> Signal:
        needs_context(sample, self.name)
        prompt = fill(
            load_template("yesno.txt"),
            question=sample.question,
            context="\n".join(sample.context),
            answer=sample.response,
        )
        request = ChatRequest(
            messages=[Message(role="user", content=prompt)],
            max_tokens=self.config.max_tokens,
            tag=f"{self.name}@{self.version}",
        )
        result = await llm.generate(request)
        words = (result.choices[0].text if result.choices else "").strip().lower().split()
        if not words or words[0].strip(".,!") not in ("yes", "no"):
            raise JudgeFailure("the answer says neither yes nor no")
        value = 1.0 if words[0].strip(".,!") == "yes" else 0.0
        return Signal(name=self.name, value=value, raw=words[0], version=self.version)
