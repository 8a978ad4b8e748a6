"""Bad input to the Scorer is an InputError (a ValueError) naming the field and the fix; never a
bare TypeError, AttributeError or a message from deep inside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scorer_fakes import FakeLocal

from trustscore import Config, ConfigError, InputError, Sample, Scorer, TrustscoreError

pytestmark = pytest.mark.anyio

Q, R = "Who wrote Dune?", "Frank Herbert wrote Dune."


@pytest.fixture
def scorer() -> Scorer:
    return Scorer(Config(), local_signals=[FakeLocal("x")])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"metadata": ["a", "b"]},
            r"metadata: is not a mapping \(got list \['a', 'b'\]\); pass metadata as a dict",
        ),
        ({"budget_s": "10"}, r"budget_s must be a number of seconds \(got str '10'\)"),
        ({"budget_s": float("nan")}, r"budget_s must be a number of seconds"),
        ({"budget_s": True}, r"budget_s must be a number of seconds"),
        ({"budget_s": 0}, r"budget_s must be a positive number of seconds \(got 0\)"),
        ({"question": 3}, r"question: .*pass the user's question as a string"),
        ({"response": None}, r"response: .*pass the model's answer text"),
        ({"context": {"a": 1}}, r"context: .*pass the retrieved passages"),
    ],
)
async def test_score_refuses_bad_arguments_with_an_input_error(
    scorer: Scorer, kwargs: dict[str, Any], message: str
) -> None:
    args: dict[str, Any] = {"question": Q, "response": R, **kwargs}
    with pytest.raises(InputError, match=message) as e:
        await scorer.score(**args)
    assert isinstance(e.value, ValueError) and isinstance(e.value, TrustscoreError)


@pytest.mark.parametrize(
    ("samples", "kwargs", "message"),
    [
        (3, {}, r"samples must be a list of samples \(got int\)"),
        ("text", {}, r"samples must be a list of samples \(got str\)"),
        ({"question": Q, "response": R}, {}, r"samples must be a list of samples \(got dict\)"),
        ([Sample(question=Q, response=R), 7], {}, r"samples\[1\] is a int"),
        ([{"question": Q}], {}, r"samples\[0\]\.response: is required; pass the model's answer"),
        ([], {"concurrency": "4"}, r"concurrency must be a whole number \(got str '4'\)"),
        ([], {"concurrency": 0}, r"concurrency must be at least 1 \(got 0\)"),
        ([], {"budget_s": "1"}, r"budget_s must be a number of seconds"),
        ([], {"on_result": "print"}, r"on_result must be a function of \(index, result\) \(got str\)"),
    ],
)
async def test_score_many_refuses_bad_arguments_before_scoring(
    scorer: Scorer, samples: Any, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        await scorer.score_many(samples, **kwargs)


async def test_score_sample_and_familiarity_refuse_the_wrong_types(scorer: Scorer) -> None:
    with pytest.raises(InputError, match=r"sample is a dict; pass a trustscore.Sample"):
        await scorer.score_sample({"question": Q, "response": R})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="question must be a non-empty string"):
        await scorer.familiarity(None)  # type: ignore[arg-type]


def test_the_scorer_refuses_a_config_path_and_non_lists() -> None:
    with pytest.raises(InputError, match=r"config is a str; pass a trustscore.Config \(Scorer.from_config"):
        Scorer("trustscore.toml")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"signals must be a list of signal sources \(got FakeLocal\)"):
        Scorer(Config(), signals=FakeLocal("x"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"llms must be a dict of endpoint name -> LLM \(got list\)"):
        Scorer(Config(), llms=[object()])  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"signals\[0\] is a object: a signal source needs a name"):
        Scorer(Config(), signals=[object()])  # type: ignore[list-item]


def test_config_files_are_named_by_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"a config file is named by a path \(got int\)"):
        Scorer.from_config(123)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"is a directory; give the path of the file"):
        Scorer.from_config(tmp_path)


async def test_familiarity_of_a_signal_without_the_check_is_a_config_error() -> None:
    scorer = Scorer(Config(), local_signals=[FakeLocal("familiarity")])  # the name alone is not the check
    with pytest.raises(ConfigError, match=r"no signal of this Scorer checks a question alone"):
        await scorer.familiarity("Who founded Zorblax?")
