"""The test kit's fixtures never leak answers: not into the user's cache, not into a later test."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

_TESTS = """
import anyio
from trustscore import Config, Scorer
from trustscore.testing import judge_policy, lynx_answer


def lynx_value(base_url):
    config = Config.from_dict({
        "endpoints": {"judge": {"base_url": base_url, "model": "fake-judge"}},
        "judges": {"lynx": {"endpoint": "judge"}},
        "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
    })  # the default cache: readwrite

    async def go():
        async with Scorer(config) as scorer:
            return await scorer.score(question="Who wrote Dune?", context=["Dune is by Frank Herbert."],
                                      response="Frank Herbert.")
    return anyio.run(go)


def test_a_judge_says_pass(fake_vllm):
    result = lynx_value(fake_vllm.base_url)
    assert result.signals["lynx"].raw == "PASS" and result.usage.requests == 1


def test_then_a_judge_says_fail(fake_vllm):
    fake_vllm.policy = judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)})
    result = lynx_value(fake_vllm.base_url)
    assert result.signals["lynx"].raw == "FAIL", "replayed another test's answer"
    assert result.usage.cache_hits == 0 and result.usage.requests == 1


def test_two_fakes_in_one_test_never_share(fake_vllm_factory):
    passing = fake_vllm_factory()
    failing = fake_vllm_factory(judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)}))
    assert lynx_value(passing.base_url).signals["lynx"].raw == "PASS"
    assert lynx_value(failing.base_url).signals["lynx"].raw == "FAIL"
"""


# In a subprocess: an in-process run re-imports httpcore, and the outer httpx then stops mapping its errors.
def test_fake_answers_stay_in_their_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    user_cache = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(user_cache))
    monkeypatch.delenv("TRUSTSCORE_CACHE_DIR", raising=False)
    pytester.makepyfile(test_kit=_TESTS)
    for _ in range(2):  # and a later pytest run does not replay the first one's answers either
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
        result.assert_outcomes(passed=3)
    assert not (user_cache / "trustscore").exists(), "a fixture wrote to the user's cache"
