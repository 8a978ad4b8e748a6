"""The pytest plugin (entry point ``trustscore``): its fixtures and marker, run in a pytester sandbox."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest_plugins = ["pytester"]

_CONFTEST = """
import pytest

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param
"""

_TESTS = """
import httpx
import pytest
from trustscore.testing import FakeAnswer, Fault, LatencyModel, RulePolicy, UnmatchedRequest

pytestmark = pytest.mark.anyio

LYNX = "Given the following QUESTION, DOCUMENT and ANSWER you must analyze"
TAG = {"X-Trustscore-Tag": "lynx@test"}


async def test_fake_vllm(fake_vllm):
    async with httpx.AsyncClient(base_url=fake_vllm.base_url) as http:
        resp = await http.post("/chat/completions", headers=TAG, json={
            "model": fake_vllm.model, "messages": [{"role": "user", "content": LYNX}]})
    assert resp.json()["choices"][0]["message"]["content"].endswith('"SCORE": PASS}')
    assert fake_vllm.stats.requests == 1


async def test_factory_and_policy_swap(fake_vllm_factory):
    a = fake_vllm_factory(RulePolicy(fallback=FakeAnswer(text="from a")), models="a")
    b = fake_vllm_factory(latency=LatencyModel(capacity=1), models=["b"])
    b.policy = RulePolicy(fallback=FakeAnswer(text="from b"))
    assert a.port != b.port
    async with httpx.AsyncClient() as http:
        for server, name in ((a, "a"), (b, "b")):
            resp = await http.post(server.base_url + "/chat/completions", json={
                "model": name, "messages": [{"role": "user", "content": "hi"}]})
            assert resp.json()["choices"][0]["message"]["content"] == "from " + name


async def test_router(trustscore_router):
    trustscore_router.faults.add(Fault.server_error(), first=1)
    async with trustscore_router.client() as http:
        body = {"model": "fake-judge", "messages": [{"role": "user", "content": LYNX}]}
        assert (await http.post("/chat/completions", json=body, headers=TAG)).status_code == 500
        assert (await http.post("/chat/completions", json=body, headers=TAG)).status_code == 200
        with pytest.raises(UnmatchedRequest):
            await http.post(
                "/chat/completions", json={**body, "messages": [{"role": "user", "content": "?"}]}
            )
"""

_LIVE_TEST = """
import pytest


@pytest.mark.trustscore_live
def test_live(trustscore_live_base_url):
    assert trustscore_live_base_url.startswith("http")
"""


# In a subprocess: an in-process run re-imports httpcore, and the outer httpx then stops mapping its errors.
def test_fixtures_and_marker(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUSTSCORE_LIVE_BASE_URL", raising=False)
    pytester.makeconftest(_CONFTEST)
    pytester.makepyfile(test_kit=_TESTS, test_live=_LIVE_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=6, skipped=1)
    result.stdout.fnmatch_lines(["*trustscore_live: set TRUSTSCORE_LIVE_BASE_URL*"])


def test_live_marker_runs_when_the_url_is_set(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRUSTSCORE_LIVE_BASE_URL", "http://127.0.0.1:9/v1")
    pytester.makepyfile(test_live=_LIVE_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_plugin_import_is_light() -> None:
    # httpx is left out: ``import trustscore`` itself loads it, before the plugin module runs.
    code = (
        "import sys, trustscore.testing.pytest_plugin; "
        "heavy = [m for m in ('torch', 'transformers', 'openai', 'h11', 'trustscore.testing._server', "
        "'trustscore.testing._engine') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
