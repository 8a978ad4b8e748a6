"""The school table: with the default offline configuration (lexical, embedding and claims, the shipped
claims calibrator), the context's own words and a correct paraphrase pass README's line (score >= 0.5)
and each answer with one fact changed is flagged (score < 0.5); so is a yes or no the context refutes,
while one it bears out passes."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest

import trustscore as ts

pytest.importorskip("spacy", reason="the claims signal needs the claims extra")

CONTEXT = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 420 pupils and 18 "
    "teachers. It has no swimming pool."
)
QUESTION = "What does the context say about Westfield primary school?"
FAITHFUL = {
    "verbatim": CONTEXT,
    "paraphrase": "The teacher Ruth Abara founded Westfield primary school in 1953; it has 18 teachers and "
    "420 pupils, and no swimming pool.",
}
WRONG = {
    "changed number": "Westfield primary school was founded in 1953 by the teacher Ruth Abara. It has 240 "
    "pupils and 18 teachers.",
    "changed date": "Westfield primary school was founded in 1935 by the teacher Ruth Abara. It has 420 "
    "pupils and 18 teachers.",
    "changed name": "Westfield primary school was founded in 1953 by the teacher Helen Marsh. It has 420 "
    "pupils and 18 teachers.",
    "polarity": "Westfield primary school has a swimming pool.",
    "values exchanged": "Westfield primary school has 420 teachers and 18 pupils.",
    "polarity beside a true fact": "It has 420 pupils and a swimming pool.",
}
POLAR = [  # (question, answer, whether the context bears the answer out)
    ("Was the school founded in 1953?", "Yes, it was.", True),
    ("Was the school founded in 1953?", "No, it was not.", False),
    ("Does the school have a swimming pool?", "No.", True),
    ("Does the school have a swimming pool?", "Yes, it does.", False),
    ("Was the school founded in 1935?", "No.", True),
    ("Was the school founded in 1935?", "Yes.", False),
    ("Does the school have 420 pupils?", "Yes.", True),
    ("Does the school have 420 pupils?", "No, it doesn't.", False),
    ("Was the school founded by the teacher Helen Marsh?", "No, the teacher Ruth Abara founded it.", True),
]


@cache
def scorer() -> ts.Scorer:
    return ts.Scorer(ts.Config())


def score(response: str, question: str = QUESTION) -> ts.TrustScore:
    return scorer().score_sync(question=question, context=[CONTEXT], response=response)


def test_the_default_runs_the_claims_calibrator() -> None:
    result = score(FAITHFUL["verbatim"])
    assert "claims" in result.signals and result.fusion.startswith("calibrator:local_multidomain_claims")


@pytest.mark.parametrize("kind", sorted(FAITHFUL))
def test_a_faithful_answer_passes(kind: str) -> None:
    result = score(FAITHFUL[kind])
    assert result.score is not None and result.score >= 0.5, (kind, result.score)


@pytest.mark.parametrize("kind", sorted(WRONG))
def test_an_answer_with_one_fact_changed_is_flagged(kind: str) -> None:
    result = score(WRONG[kind])
    assert result.score is not None and result.score < 0.5, (kind, result.score, result.signals["claims"].raw)


@pytest.mark.parametrize(("question", "answer", "right"), POLAR)
def test_a_yes_or_no_is_read_as_the_statement_it_makes(question: str, answer: str, right: bool) -> None:
    result = score(answer, question)
    assert result.score is not None and (result.score >= 0.5) is right, (result.score, result.reason)
    if not right:
        assert result.reason.startswith(f"contradicted: {answer} ("), result.reason


@dataclass(frozen=True)
class _Source:
    name: str
    version: str | None
    is_judge: bool


async def _lynx(p_pass: float, response: str) -> ts.Signal:
    from trustscore.judges import build_judge
    from trustscore.llm import EndpointConfig, LLMClient
    from trustscore.testing import MockRouter, judge_policy, lynx_answer

    router = MockRouter(judge_policy({"lynx": lynx_answer("PASS", p_pass=p_pass)}))
    llm = LLMClient(EndpointConfig(base_url=router.base_url, model="fake-judge"), transport=router.transport)
    sample = ts.Sample(question=QUESTION, context=[CONTEXT], response=response)
    return await build_judge("lynx", {"endpoint": "fake"}).run(sample, llm)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["changed number", "changed date", "changed name"])
async def test_a_judge_wrongly_passing_a_changed_fact_is_still_pulled_under_the_line(kind: str) -> None:
    """The pool a Scorer with a judge builds: the test kit's Lynx passing the answer at P(pass) = 0.9."""
    from trustscore.scoring._wiring import pick_fuser

    offline = score(WRONG[kind])
    lynx = await _lynx(0.9, WRONG[kind])
    assert lynx.value == pytest.approx(0.9)
    sources = [_Source(n, s.version, False) for n, s in offline.signals.items()]
    fuser = pick_fuser(ts.Config(), [*sources, _Source("lynx", lynx.version, True)])  # type: ignore[list-item]
    fused = fuser.predict({**offline.signals, "lynx": lynx})
    assert fused.description == "default:logodds" and fused.score is not None and fused.score < 0.5
    faithful = score(FAITHFUL["verbatim"])
    passed = fuser.predict({**faithful.signals, "lynx": await _lynx(0.9, FAITHFUL["verbatim"])})
    assert passed.score is not None and passed.score > 0.5
