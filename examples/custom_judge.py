"""Your own judge: registered by decorator, configured from TOML, fused with the built-in signals.

.venv/bin/python examples/custom_judge.py    # serves the judge model with trustscore's fake vLLM
"""

from __future__ import annotations

import math
import tomllib

from pydantic import Field

import trustscore as ts
from trustscore.llm import ChatRequest, Constraint, Message


class YesNoConfig(ts.JudgeConfig):  # gives `endpoint`, `enabled`, `timeout_s`
    instruction: str = Field(
        default="Is every claim in the answer supported by the context? Answer yes or no.",
        description="the question put to the judge model",
    )


class YesNoJudge:
    name, version, kind = "yes_no", "yes_no@1", "judge"

    def __init__(self, config: YesNoConfig) -> None:
        self.config = config

    async def run(self, sample: ts.Sample, llm: ts.LLM) -> ts.Signal:
        prompt = f"Context:\n{sample.context_text}\n\nAnswer:\n{sample.response}\n\n{self.config.instruction}"
        out = await llm.generate(
            ChatRequest(
                messages=[Message(role="user", content=prompt)],
                max_tokens=1,
                logprobs=True,
                top_logprobs=5,
                constraint=Constraint(choice=["yes", "no"]),
                tag=self.version,
            )
        )
        first = (out.choices[0].logprobs or [None])[0]
        probs = {t.token.strip().lower(): math.exp(t.logprob) for t in first.top_logprobs} if first else {}
        p_yes = probs.get("yes", 1.0 if out.text.strip().lower() == "yes" else 0.0)
        return ts.Signal(name=self.name, value=p_yes, raw=out.text, usage=out.usage, version=self.version)


@ts.register_signal("yes_no", config=YesNoConfig, kind="judge")
def build_yes_no(config: YesNoConfig, ctx: ts.SignalContext) -> YesNoJudge:
    return YesNoJudge(config)


CONFIG = """
[endpoints.judge]
base_url = "{base_url}"
model = "fake-judge"

[judges.yes_no]
endpoint = "judge"
instruction = "Does the context support the answer? Answer yes or no."

[signals.embedding]
enabled = false   # keep the demo quick: lexical support is the built-in signal fused here

[signals.claims]
enabled = false

[cache]
mode = "off"
"""


def main() -> ts.TrustScore:
    from trustscore.testing import FakeAnswer, FakeVLLMServer, judge_policy

    yes = FakeAnswer(text="yes", verdict_probs={"yes": 0.8, "no": 0.2})
    policy = judge_policy().on("Does the context support the answer", yes)  # the TOML's instruction
    with FakeVLLMServer(policy) as server:
        config = ts.Config.from_dict(tomllib.loads(CONFIG.format(base_url=server.base_url)))
        result = ts.Scorer(config).score_sync(
            question="How long is the bridge?",
            context=["The Eastfield footbridge is 120 metres long."],
            response="It is 120 metres long.",
        )
    yes_no = result.signals["yes_no"].value
    print(f"score {result.score:.3f} from {result.used_signals}; yes_no = {yes_no:.2f}")
    return result


if __name__ == "__main__":
    main()
