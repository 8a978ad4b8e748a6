"""Two fakes used one after the other with the default, persistent response cache each get their own
answers: the cache keys answers by the server's URL, and every fake has a URL of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from trustscore import Config, Scorer, TrustScore
from trustscore.llm._config import CACHE_DIR_ENV
from trustscore.testing import FakeVLLMServer, Fault, MockRouter, judge_policy, lynx_answer

pytestmark = pytest.mark.anyio

SAMPLE = {"question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], "response": "Herbert."}
PASS = judge_policy({"lynx": lynx_answer("PASS", p_pass=0.95)})
FAIL = judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.05)})


@pytest.fixture(autouse=True)
def default_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The cache a user gets with no setting at all, in a temporary $XDG_CACHE_HOME."""
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "trustscore" / "responses"


def config(base_url: str) -> Config:
    return Config.from_dict(
        {
            "endpoints": {"judge": {"base_url": base_url, "model": "fake-judge", "max_retries": 0}},
            "judges": {"lynx": {"endpoint": "judge"}},
            "signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}},
        }
    )


async def score_with(router: MockRouter) -> TrustScore:
    async with Scorer(config(router.base_url), transport=router.transport) as scorer:
        return await scorer.score(**SAMPLE)


async def test_two_routers_with_different_policies_each_get_their_own_answers(default_cache: Path) -> None:
    first = await score_with(MockRouter(PASS))
    assert first.signals["lynx"].value == pytest.approx(0.95)
    assert default_cache.exists()  # the persistent cache was written

    second = MockRouter(FAIL)
    assert (await score_with(second)).signals["lynx"].value == pytest.approx(0.05)
    assert len(second.requests) == 1  # asked, not replayed

    down = MockRouter(PASS)
    down.faults.add(Fault.server_error())
    assert (await score_with(down)).signals["lynx"].missing


def test_a_fake_server_on_a_reused_port_does_not_replay_the_last_ones_answers(default_cache: Path) -> None:
    import anyio

    async def score_at(server: FakeVLLMServer) -> TrustScore:
        async with Scorer(config(server.base_url)) as scorer:
            return await scorer.score(**SAMPLE)

    with FakeVLLMServer(PASS) as first:
        port = first.port
        assert anyio.run(score_at, first).signals["lynx"].value == pytest.approx(0.95)
    with FakeVLLMServer(FAIL, port=port) as second:
        assert anyio.run(score_at, second).signals["lynx"].value == pytest.approx(0.05)
        assert len(second.requests) == 1
