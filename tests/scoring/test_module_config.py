"""``trustscore.score`` / ``score_sync`` score with the user's config: configure() or config=, then
$TRUSTSCORE_CONFIG, ./trustscore.toml, ./pyproject.toml's [tool.trustscore], else the offline default;
each result says which (``config_source``). Wrong argument names get an InputError naming the one meant."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from scorer_fakes import install_fake_grounding

import trustscore
from trustscore import Config, ConfigError, InputError
from trustscore.scoring import _default
from trustscore.testing import MockRouter, judge_policy, lynx_answer

pytestmark = pytest.mark.anyio

Q, C, R = "Who wrote Dune?", ["Dune is by Frank Herbert."], "Frank Herbert."
SAMPLE = {"question": Q, "context": C, "response": R}


def judge_toml(base_url: str) -> str:
    return (
        f'[endpoints.judge]\nbase_url = "{base_url}"\nmodel = "fake-judge"\n\n'
        '[judges.lynx]\nendpoint = "judge"\n\n[cache]\nmode = "off"\n'
    )


@pytest.fixture(autouse=True)
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh working directory, no $TRUSTSCORE_CONFIG, fake grounding signals, nothing configured."""
    install_fake_grounding(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(_default.CONFIG_ENV, raising=False)
    trustscore.configure(None)
    yield
    trustscore.configure(None)


@pytest.fixture
def router() -> MockRouter:
    router = MockRouter(judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.1)}))
    trustscore.configure(transport=router.transport)
    return router


async def test_a_trustscore_toml_holding_a_judge_makes_score_call_that_judge(
    tmp_path: Path, router: MockRouter
) -> None:
    (tmp_path / "trustscore.toml").write_text(judge_toml(router.base_url), encoding="utf-8")
    result = await trustscore.score(**SAMPLE)
    assert "lynx" in result.used_signals and result.signals["lynx"].value == pytest.approx(0.1)
    assert len(router.engine.completion_requests()) == 1
    assert result.config_source == str(tmp_path / "trustscore.toml")


def test_score_sync_reaches_the_judge_too_and_closes_its_clients(tmp_path: Path, router: MockRouter) -> None:
    (tmp_path / "trustscore.toml").write_text(judge_toml(router.base_url), encoding="utf-8")
    result = trustscore.score_sync(**SAMPLE)
    assert result.signals["lynx"].value == pytest.approx(0.1)
    assert result.config_source == str(tmp_path / "trustscore.toml")


async def test_without_a_config_it_is_the_offline_default() -> None:
    result = await trustscore.score(**SAMPLE)
    assert result.used_signals == ["lexical", "embedding"] and result.config_source == "default"


async def test_the_order_is_configure_then_the_variable_then_the_file_then_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, router: MockRouter
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.trustscore.limits]\nscore_budget_s = 7\n', encoding="utf-8"
    )
    source = (await trustscore.score(**SAMPLE)).config_source
    assert source == f"{tmp_path / 'pyproject.toml'} [tool.trustscore]"
    assert _default.default_scorer().config.limits.score_budget_s == 7

    (tmp_path / "trustscore.toml").write_text("[limits]\nscore_budget_s = 8\n", encoding="utf-8")
    assert (await trustscore.score(**SAMPLE)).config_source == str(tmp_path / "trustscore.toml")

    named = tmp_path / "elsewhere.toml"
    named.write_text(judge_toml(router.base_url), encoding="utf-8")
    monkeypatch.setenv(_default.CONFIG_ENV, str(named))
    result = await trustscore.score(**SAMPLE)
    assert result.config_source == f"${_default.CONFIG_ENV} {named}" and "lynx" in result.used_signals

    trustscore.configure(Config(), transport=router.transport)
    result = await trustscore.score(**SAMPLE)
    assert result.config_source == "configure()" and "lynx" not in result.signals

    mine = Config.from_dict({"limits": {"score_budget_s": 9}})
    assert (await trustscore.score(**SAMPLE, config=mine)).config_source == "config="


async def test_an_edited_file_is_read_again_and_the_old_scorer_closed(
    tmp_path: Path, router: MockRouter
) -> None:
    path = tmp_path / "trustscore.toml"
    path.write_text("[limits]\nscore_budget_s = 8\n", encoding="utf-8")
    await trustscore.score(**SAMPLE)
    first = _default.default_scorer()
    assert _default.default_scorer() is first  # kept while nothing changes
    path.write_text(judge_toml(router.base_url), encoding="utf-8")
    result = await trustscore.score(**SAMPLE)
    assert "lynx" in result.used_signals and _default.default_scorer() is not first


async def test_each_event_loop_has_its_own_scorer() -> None:
    mine = _default.default_scorer()

    async def other_loop() -> trustscore.Scorer:
        return _default.default_scorer()

    assert await anyio.to_thread.run_sync(anyio.run, other_loop) is not mine


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"TRUSTSCORE_CONFIG": "missing.toml"}, r"\$TRUSTSCORE_CONFIG names missing.toml, which is not a"),
        ({"trustscore.toml": "[fusion]\ncalibrater = 'x'\n"}, r"fusion\.calibrater: unknown setting: did"),
        ({"pyproject.toml": "[tool.trustscore]\nlimts = 1\n"}, r"limts: unknown setting: did you mean 'li"),
    ],
)
async def test_a_bad_config_is_a_config_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: dict[str, str], message: str
) -> None:
    for name, text in bad.items():
        if name.isupper():
            monkeypatch.setenv(name, text)
        else:
            (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        await trustscore.score(**SAMPLE)


def test_configure_refuses_what_is_not_a_config() -> None:
    with pytest.raises(InputError, match=r"configure: pass a trustscore.Config or a TOML file's path"):
        trustscore.configure(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="does not exist"):
        trustscore.configure("nope.toml")


@pytest.mark.parametrize(
    ("kwargs", "wrong", "meant"),
    [
        ({"question": Q, "context": C, "answer": R}, "answer", "response"),
        ({"question": Q, "contexts": C, "response": R}, "contexts", "context"),
        ({"question": Q, "retrieved_contexts": C, "response": R}, "retrieved_contexts", "context"),
        ({"user_input": Q, "context": C, "response": R}, "user_input", "question"),
    ],
)
def test_another_tools_argument_names_get_the_one_meant(
    kwargs: dict[str, object], wrong: str, meant: str
) -> None:
    with pytest.raises(InputError) as e:
        trustscore.score_sync(**kwargs)  # type: ignore[arg-type]
    assert str(e.value).startswith(f"score_sync() has no argument {wrong!r}: did you mean {meant}=?")


async def test_the_async_calls_and_the_scorer_refuse_them_too() -> None:
    with pytest.raises(InputError, match=r"score\(\) has no argument 'answer': did you mean response=\?"):
        await trustscore.score(question="q", answer="a")  # type: ignore[call-arg]
    async with trustscore.Scorer(Config()) as scorer:
        with pytest.raises(InputError, match=r"score\(\) takes keyword arguments only"):
            await scorer.score("q", "a")  # type: ignore[misc]
        with pytest.raises(InputError, match=r"missing a required argument: 'response'"):
            await scorer.score(question="q")  # type: ignore[call-arg]


async def test_a_domain_reaches_the_sample_from_either_call() -> None:
    """``domain=`` names the sample's domain (an adapted calibrator's adaptation); refused like a
    Sample's own, so the keyword is not silently dropped on its way."""
    with pytest.raises(InputError, match=r"domain.*--adapt --domain NAME"):
        await trustscore.score(**SAMPLE, domain="")
    with pytest.raises(InputError, match=r"domain.*--adapt --domain NAME"):
        trustscore.score_sync(**SAMPLE, domain="")
    named = await trustscore.score(**SAMPLE, domain="support")
    assert named.score is not None and named.score == (await trustscore.score(**SAMPLE)).score
