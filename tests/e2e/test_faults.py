"""End to end, unhappy paths: faults injected by the test kit's fake vLLM reach the Scorer as missing
signals with reasons (never 0), the other judges stand, and cancellation leaves nothing behind."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_helpers import CONTEXT, JUDGES, QUESTION, RESPONSE, Kit, closed_port_url, judge_kind, make_kit

from trustscore import TrustScore
from trustscore.judges._verdict import CONSTRAINED_WARNING
from trustscore.testing import FakeAnswer, FakeRequest, FakeVLLMServer, Fault, judge_policy

STALL_S = 60.0
"""A stalled server answers after this long: far past every timeout and budget in these tests."""
HANG_GUARD_S = 30.0
"""A call that waited for a stalled server would take STALL_S; the tests fail it well before then."""

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["server", "router"])
def kit(request: pytest.FixtureRequest) -> Kit:
    return make_kit(request)


def is_judge(name: str) -> Callable[[FakeRequest], bool]:
    return lambda request: (request.judge or "").split(".")[0] == name


def assert_fused_from_the_rest(result: TrustScore, missing: set[str]) -> None:
    """The missing signals have reasons and no value; the score pools the others (judges weigh the
    same, so: the sigmoid of their mean log-odds)."""
    assert set(result.missing) == missing, result.missing
    for name in missing:
        signal = result.signals[name]
        assert signal.value is None and signal.error, name
    assert result.used_signals == [n for n in JUDGES if n not in missing]
    present = [v for n in result.used_signals if (v := result.signals[n].value) is not None]
    mean_log_odds = sum(math.log(v / (1 - v)) for v in present) / len(present)
    assert result.score == pytest.approx(1 / (1 + math.exp(-mean_log_odds)))


async def score(kit: Kit, **config: Any) -> TrustScore:
    async with kit.scorer(kit.config(**config)) as scorer:
        return await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)


async def test_429_with_retry_after_is_honoured_then_succeeds(kit: Kit) -> None:
    kit.engine.faults.add(Fault.rate_limit(retry_after=0.6), when=is_judge("lynx"), times=1)
    result = await score(kit, endpoint={"max_retries": 2})

    assert result.missing == {} and result.complete
    assert result.signals["lynx"].value == pytest.approx(0.93)
    assert result.signals["lynx"].usage.requests == 2, "the 429 and the retry are both counted"
    lynx = [r for r in kit.engine.completion_requests() if judge_kind(r) == "lynx"]
    assert [r.status for r in lynx] == [429, 200]
    # Our own backoff for a first retry is at most 0.5 s: waiting 0.6 s means Retry-After was read.
    assert lynx[1].time - lynx[0].time >= 0.6


async def test_persistent_500_makes_that_judge_missing_and_the_rest_score(kit: Kit) -> None:
    kit.engine.faults.add(Fault.server_error("EngineCore died"), when=is_judge("lynx"))
    result = await score(kit, endpoint={"max_retries": 1})

    assert_fused_from_the_rest(result, {"lynx"})
    lynx = result.signals["lynx"]
    assert "HTTP 500" in (lynx.error or "") and "EngineCore died" in (lynx.error or "")
    assert lynx.usage.requests == 2, "one try and one retry, both counted"
    # A server error may pass: the row is incomplete so a resumed run scores it again.
    assert not result.complete and result.incomplete_signals == ["lynx"]


async def test_a_dropped_connection_is_a_missing_signal(kit: Kit) -> None:
    kit.engine.faults.add(Fault.disconnect(), when=is_judge("prometheus"))
    result = await score(kit, endpoint={"max_retries": 0})
    assert_fused_from_the_rest(result, {"prometheus"})
    assert "RemoteProtocolError" in (result.signals["prometheus"].error or "")


async def test_server_slower_than_the_endpoint_timeout(kit: Kit) -> None:
    kit.engine.faults.add(Fault.delay(STALL_S), when=is_judge("lynx"))
    # Lynx alone on an endpoint with a short timeout, so a busy machine cannot time out the others.
    slow = {"base_url": kit.base_url, "model": "fake-judge", "timeout_s": 1.0, "max_retries": 0}
    with anyio.fail_after(HANG_GUARD_S):  # the result comes back without waiting for the server
        result = await score(kit, endpoints={"impatient": slow}, judges={"lynx": {"endpoint": "impatient"}})

    assert_fused_from_the_rest(result, {"lynx"})
    assert "timeout" in (result.signals["lynx"].error or "").lower()
    usage = result.signals["lynx"].usage
    assert usage.requests + usage.unsent == 1
    # The timeout covers the whole attempt, connecting included: on a box loaded past it, the request
    # may never go out, and then the server never sees it. The count follows what the server saw.
    if any(judge_kind(r) == "lynx" for r in kit.engine.completion_requests()):
        assert usage.requests == 1, "the request reached the server, which was too slow: it counts as sent"


async def test_a_judge_timeout_bounds_that_judge_only(kit: Kit) -> None:
    kit.engine.faults.add(Fault.delay(STALL_S), when=is_judge("tlm"))
    with anyio.fail_after(HANG_GUARD_S):
        result = await score(kit, judges={"tlm": {"timeout_s": 0.3}})

    assert_fused_from_the_rest(result, {"tlm"})
    assert result.signals["tlm"].error == "timed out after 0.3s (judges.tlm.timeout_s)"
    assert not result.complete and result.incomplete_signals == ["tlm"]


async def test_the_overall_budget_returns_an_incomplete_result(kit: Kit) -> None:
    kit.engine.faults.add(Fault.delay(STALL_S), when=is_judge("chainpoll"))
    kit.engine.faults.add(Fault.delay(STALL_S), when=is_judge("tlm"))
    with anyio.fail_after(HANG_GUARD_S):
        async with kit.scorer(kit.config()) as scorer:
            # 5 s: lynx, likert and prometheus answer over loopback within it on a loaded box too;
            # the stalled judges stall for STALL_S, far beyond it.
            result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE, budget_s=5.0)

    assert not result.complete
    assert_fused_from_the_rest(result, {"chainpoll", "tlm"})
    assert result.signals["chainpoll"].error == "timed out after 5s budget"


async def test_budget_from_the_config_applies_too(kit: Kit) -> None:
    kit.engine.faults.add(Fault.delay(5.0))
    result = await score(kit, limits={"score_budget_s": 0.3})
    assert not result.complete and result.score is None and result.used_signals == []
    assert set(result.missing) == set(JUDGES)


async def test_malformed_and_truncated_judge_output_is_missing_never_zero(kit: Kit) -> None:
    kit.engine.faults.add(Fault.truncated(keep_tokens=4), when=is_judge("likert"))
    kit.engine.faults.add(Fault.malformed_json(), when=is_judge("prometheus"))
    result = await score(kit, endpoint={"max_retries": 1})

    assert_fused_from_the_rest(result, {"prometheus"})
    errors = {name: result.signals[name].error or "" for name in result.missing}
    # The truncated explanation never reached "Score:": its score came as a constrained continuation.
    likert = result.signals["likert"]
    assert CONSTRAINED_WARNING in likert.warnings and likert.usage.requests == 2
    assert "not JSON" in errors["prometheus"]
    assert result.signals["prometheus"].usage.requests == 2, "a 200 with a broken body is retried"
    assert not result.complete and result.incomplete_signals == ["prometheus"], "a rerun may fix it"


async def test_rambling_output_gets_its_verdict_as_a_constrained_continuation(kit: Kit) -> None:
    # Reasoning about the sample that never states a verdict (a non-answer would stay missing).
    babble = "I have read the document about Dune and Frank Herbert carefully, and the answer names him."
    kit.engine.policy = judge_policy(
        {
            "lynx": FakeAnswer(text=babble),
            "chainpoll": FakeAnswer(text="Hmm, Dune and Frank Herbert: hard to say."),
        }
    )
    result = await score(kit)
    assert not result.missing
    lynx, chainpoll = result.signals["lynx"], result.signals["chainpoll"]
    assert CONSTRAINED_WARNING in lynx.warnings and lynx.usage.requests == 2
    assert isinstance(chainpoll.raw, dict) and chainpoll.raw["verdict_paths"] == {
        "free": 0,
        "words": 0,
        "constrained": 5,
    }
    assert chainpoll.raw["abstained"] == 0 and chainpoll.usage.requests == 1 + 5
    follow = [b for b in kit.bodies() if b.get("continue_final_message")]
    lynx_follow = [b for b in follow if b["messages"][-1]["content"].endswith('"SCORE":')]
    assert len(lynx_follow) == 1 and lynx_follow[0]["messages"][-1]["content"].startswith(babble)
    assert lynx_follow[0]["structured_outputs"] == {"choice": [" PASS", " FAIL"]}


async def test_a_judge_answering_nothing_usable_at_all_is_missing(kit: Kit) -> None:
    kit.engine.faults.add(Fault.empty_choices(), when=is_judge("tlm"))
    result = await score(kit)
    assert_fused_from_the_rest(result, {"tlm"})
    assert "neither self-reflection nor consistency" in (result.signals["tlm"].error or "")
    assert not result.complete and result.incomplete_signals == ["tlm"]


async def test_an_unreachable_endpoint_is_missing_with_its_address(fake_vllm: FakeVLLMServer) -> None:
    down = closed_port_url()
    kit = Kit("server", fake_vllm.base_url, fake_vllm.engine, None)
    config = kit.config(
        endpoints={"down": {"base_url": down, "model": "fake-judge", "max_retries": 0}},
        judges={"lynx": {"endpoint": "down"}},
    )
    async with kit.scorer(config) as scorer:
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert_fused_from_the_rest(result, {"lynx"})
    error = result.signals["lynx"].error or ""
    assert down in error and "ConnectError" in error
    # The attempt never reached a server: counted as cut before sending, not as a request.
    assert result.signals["lynx"].usage.requests == 0 and result.signals["lynx"].usage.unsent == 1
    assert all(judge_kind(r) != "lynx" for r in kit.requests())


async def test_a_missing_api_key_names_the_variable(kit: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUSTSCORE_E2E_UNSET_KEY", raising=False)
    config = kit.config(
        endpoints={
            "keyed": {
                "base_url": kit.base_url,
                "model": "fake-judge",
                "api_key_env": "TRUSTSCORE_E2E_UNSET_KEY",
            }
        },
        judges={"prometheus": {"endpoint": "keyed"}},
    )
    async with kit.scorer(config) as scorer:
        assert "TRUSTSCORE_E2E_UNSET_KEY" in scorer.unavailable["prometheus"]
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert_fused_from_the_rest(result, {"prometheus"})
    assert "$TRUSTSCORE_E2E_UNSET_KEY" in (result.signals["prometheus"].error or "")
    assert all(judge_kind(r) != "prometheus" for r in kit.requests()), "nothing sent without the key"


# -- cancellation -------------------------------------------------------------------------------

_TCP_ESTABLISHED = "01"


def server_side_states(port: int) -> list[str] | None:
    """TCP states of the sockets whose local port is ``port`` (Linux /proc; None elsewhere)."""
    table = Path("/proc/net/tcp")
    if not table.exists():
        return None
    states = []
    for line in table.read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port:
            states.append(fields[3])
    return states


async def test_cancelling_score_mid_flight_exits_promptly_and_leaves_no_tasks(kit: Kit) -> None:
    kit.engine.faults.add(Fault.delay(STALL_S))
    tasks_before = len(anyio.get_running_tasks())
    async with kit.scorer(kit.config()) as scorer:
        finished: list[TrustScore] = []

        async def run() -> None:
            finished.append(await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE))

        with anyio.fail_after(HANG_GUARD_S):  # the cancelled score() does not wait for the stalled server
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                while len(kit.engine.completion_requests()) < 7:  # every judge has a request in flight
                    await anyio.sleep(0.01)
                tg.cancel_scope.cancel()
        assert finished == []
        assert len(anyio.get_running_tasks()) == tasks_before, "no task outlives the cancelled score()"
        assert all(r.status is None for r in kit.engine.completion_requests()), "nothing was answered"

        if kit.kind == "server":
            port = int(kit.base_url.rsplit(":", 1)[1].split("/")[0])
            states = server_side_states(port)
            if states is not None:
                # The client closed its sockets: the server's ends leave ESTABLISHED (CLOSE_WAIT).
                with anyio.fail_after(2):
                    while _TCP_ESTABLISHED in (server_side_states(port) or []):
                        await anyio.sleep(0.02)

        # The Scorer is still usable after a cancelled call.
        kit.engine.faults.clear()
        result = await scorer.score(question=QUESTION, context=CONTEXT, response=RESPONSE)
    assert result.missing == {} and result.complete
    assert result.score is not None
