"""The test kit's pure parts: tokenizer, constraints, answer rendering, judge scripts."""

from __future__ import annotations

import json
import math
import re

import pytest
from pydantic import JsonValue, ValidationError

from trustscore.llm import Constraint
from trustscore.testing import FakeAnswer, Fault, FaultSchedule, judge_policy, lynx_answer, tokenize
from trustscore.testing._constraints import UnsupportedConstraint, apply_constraint, minimal_regex_match
from trustscore.testing._tokens import block_hashes, token_id
from trustscore.testing._wire import WireError, parse_completion_request, render_choice


def _request(body: dict[str, object], endpoint: str = "chat", index: int = 0):
    return parse_completion_request(endpoint, json.dumps(body).encode(), {}, index, ["m"])


def _chat(content: str, **extra: object):
    return _request({"model": "m", "messages": [{"role": "user", "content": content}], **extra})


def test_tokenize_round_trips_and_splits_punctuation() -> None:
    text = 'Score: 4.\n  {"SCORE": PASS}'
    toks = tokenize(text)
    assert "".join(toks) == text
    assert toks[:3] == ["Score", ":", " 4"]
    assert tokenize("") == []
    assert token_id(" PASS") == token_id(" PASS") != token_id("PASS")


def test_block_hashes_chain_over_the_whole_prefix_and_skip_partial_blocks() -> None:
    a = tokenize("one two three four five six seven")
    b = tokenize("ONE two three four five six seven")
    assert len(block_hashes(a, 2)) == 3  # 7 tokens -> 3 full blocks of 2
    ha, hb = block_hashes(a, 2), block_hashes(b, 2)
    assert ha[0] != hb[0] and ha[1] != hb[1]  # a different first block changes every later hash
    assert block_hashes(a, 2) == ha


@pytest.mark.parametrize(
    "regex",
    [
        r"Score: [1-5]",
        r"(PASS|FAIL)",
        r"\{\"SCORE\": \"(PASS|FAIL)\"\}",
        r"\d{2,3} (yes|no)+",
        r"[^x]+y",
        r"\w+:\s*\S",
        r"(?:A|B)\.?",
    ],
)
def test_minimal_regex_match_matches(regex: str) -> None:
    assert re.fullmatch(regex, minimal_regex_match(regex))


def test_minimal_regex_match_refuses_lookarounds() -> None:
    with pytest.raises(UnsupportedConstraint, match="lookaround"):
        minimal_regex_match(r"(?=a)a")


def test_choice_constraint_keeps_valid_answer_else_most_likely_verdict_else_first_choice() -> None:
    c = Constraint(choice=["PASS", "FAIL"])
    assert apply_constraint("FAIL", c) == "FAIL"
    assert apply_constraint("long reasoning", c, ["maybe", "FAIL", "PASS"]) == "FAIL"
    assert apply_constraint("long reasoning", c) == "PASS"


def test_regex_constraint_prefers_answer_then_verdicts_then_generated_match() -> None:
    c = Constraint(regex=r"Score: [1-5]")
    assert apply_constraint("Score: 3", c) == "Score: 3"
    assert apply_constraint("I think 3", c, ["Score: 5"]) == "Score: 5"
    assert apply_constraint("I think 3", c) == "Score: 1"


def test_json_constraint_gives_valid_json_with_required_keys() -> None:
    schema: dict[str, JsonValue] = {
        "type": "object",
        "properties": {"score": {"type": "integer", "minimum": 1}, "verdict": {"enum": ["PASS", "FAIL"]}},
        "required": ["score", "verdict"],
    }
    c = Constraint(json_schema=schema)
    assert json.loads(apply_constraint("not json", c)) == {"score": 1, "verdict": "PASS"}
    assert json.loads(apply_constraint('{"score": 2}', c)) == {"score": 1, "verdict": "PASS"}
    kept = '{"score": 5, "verdict": "FAIL"}'
    assert apply_constraint(kept, c) == kept


@pytest.mark.parametrize(
    "probs, message",
    [
        ({"PASS": 1.5}, "not a probability"),
        ({"PASS": 0.7, "FAIL": 0.6}, "sum to"),
        ({" ": 0.5}, "non-blank"),
        ({}, "empty"),
    ],
)
def test_fake_answer_rejects_bad_verdict_probs(probs: dict[str, float], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        FakeAnswer(text="x", verdict_probs=probs)


def test_render_choice_puts_verdict_distribution_on_the_last_verdict_token() -> None:
    answer = FakeAnswer(text="Score 4 looks low. Score: 4", verdict_probs={"4": 0.6, "5": 0.3, "3": 0.1})
    choice = render_choice(_chat("x", logprobs=True, top_logprobs=2), answer)
    verdict_positions = [i for i, (_, _, top) in enumerate(choice.logprobs) if len(top) == 2]
    assert verdict_positions == [
        len(choice.tokens) - 1
    ]  # the rating at the end, not the "4" in the reasoning
    tok, lp, top = choice.logprobs[-1]
    assert tok == " 4" and lp == pytest.approx(math.log(0.6))
    assert [t for t, _ in top] == [" 4", " 5"]  # most likely first, capped at top_logprobs
    assert choice.finish_reason == "stop"


def test_render_choice_applies_stop_strings_and_max_tokens() -> None:
    answer = FakeAnswer(text="alpha beta gamma delta")
    stopped = render_choice(_chat("x", stop=[" gamma"]), answer)
    assert (
        stopped.text == "alpha beta" and stopped.finish_reason == "stop" and stopped.stop_reason == " gamma"
    )
    cut = render_choice(_chat("x", max_tokens=2), answer)
    assert cut.text == "alpha beta" and cut.finish_reason == "length"


def test_render_choice_masks_verdicts_outside_a_choice_constraint() -> None:
    answer = FakeAnswer(text="long reasoning", verdict_probs={"maybe": 0.5, "PASS": 0.3, "FAIL": 0.2})
    req = _chat("x", logprobs=True, top_logprobs=5, structured_outputs={"choice": ["PASS", "FAIL"]})
    choice = render_choice(req, answer)
    assert choice.text == "PASS"
    _, lp, top = choice.logprobs[0]
    assert lp == pytest.approx(math.log(0.6))
    # As vLLM: k entries, the allowed ones renormalised, the rest masked at -9999.
    assert len(top) == 5 and {t for t, p in top if p > -9999.0} == {"PASS", "FAIL"}
    assert [p for _, p in top[2:]] == [-9999.0] * 3


def test_parse_refuses_what_vllm_0_32_refuses_in_continuations_choices_and_lengths() -> None:
    user = [{"role": "user", "content": "x"}]
    cont = [*user, {"role": "assistant", "content": "Score:"}]
    with pytest.raises(WireError, match="Cannot set both `continue_final_message` and `add_generation"):
        _request({"model": "m", "messages": cont, "continue_final_message": True})  # the default is true
    ok = _request(
        {"model": "m", "messages": cont, "continue_final_message": True, "add_generation_prompt": False}
    )
    assert ok.continue_final_message
    with pytest.raises(WireError, match="cannot be an empty list"):
        _request({"model": "m", "messages": user, "structured_outputs": {"choice": []}})
    with pytest.raises(WireError, match="cannot be greater than max_model_len=4096") as info:
        body = json.dumps({"model": "m", "messages": user, "max_tokens": 5000}).encode()
        parse_completion_request("chat", body, {}, 0, ["m"], 4096)
    assert info.value.status == 400 and info.value.param == "max_tokens"


@pytest.mark.parametrize(
    "body, param",
    [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 3}, "top_logprobs"),
        (
            {"messages": [{"role": "user", "content": "x"}], "logprobs": True, "top_logprobs": 21},
            "top_logprobs",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "guided_choice": ["a"]}, "guided_choice"),
        (
            {
                "messages": [{"role": "user", "content": "x"}],
                "structured_outputs": {"choice": ["a"], "regex": "a"},
            },
            "structured_outputs",
        ),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages"),
        ({"messages": [{"role": "user", "content": "x"}], "n": 0}, "n"),
    ],
)
def test_parse_refuses_what_vllm_refuses(body: dict[str, object], param: str) -> None:
    with pytest.raises(WireError) as info:
        _request({"model": "m", **body})
    assert info.value.status == 400 and info.value.param == param


def test_parse_refuses_unknown_model_with_404() -> None:
    with pytest.raises(WireError) as info:
        _request({"model": "other", "messages": [{"role": "user", "content": "x"}]})
    assert info.value.status == 404 and "other" in info.value.message


def test_parse_reads_constraints_from_response_format_and_tag_from_user() -> None:
    schema: dict[str, JsonValue] = {"type": "object", "properties": {}}
    req = _request(
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "user": "lynx@abc123",
            "response_format": {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}},
        }
    )
    assert req.constraint == Constraint(json_schema=schema)
    assert req.judge == "lynx" and req.tag == "lynx@abc123"


def test_the_judge_kind_comes_from_the_tag_header_never_from_the_wording() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "QUESTION, DOCUMENT and ANSWER"}]}
    raw = json.dumps(body).encode()
    header = {"x-trustscore-tag": "tlm.reflection@ab12/verdict"}
    tagged = parse_completion_request("chat", raw, header, 0, ["m"])
    assert tagged.judge == "tlm.reflection" and tagged.tag == "tlm.reflection@ab12/verdict"
    assert parse_completion_request("chat", raw, {}, 0, ["m"]).judge is None


def test_judge_policy_newest_rule_wins_and_unknown_is_unmatched() -> None:
    policy = judge_policy({"lynx": lynx_answer("FAIL")})
    body = {"model": "m", "messages": [{"role": "user", "content": "QUESTION, DOCUMENT and ANSWER"}]}
    tag = {"x-trustscore-tag": "lynx@v"}
    lynx_req = parse_completion_request("chat", json.dumps(body).encode(), tag, 0, ["m"])
    reply = policy(lynx_req)
    assert isinstance(reply, FakeAnswer) and reply.text.endswith('"SCORE": FAIL}')
    policy.on(r"DOCUMENT", FakeAnswer(text="override"))
    assert policy(lynx_req) == FakeAnswer(text="override")
    assert policy(_chat("an untagged request")) is None
    with pytest.raises(ValueError, match="needs a pattern"):
        policy.on()


def test_fault_schedule_selectors_and_times() -> None:
    schedule = FaultSchedule()
    schedule.add(Fault.rate_limit(), first=2)
    schedule.add(Fault.server_error(), every=3, times=1)
    body: dict[str, object] = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    kinds = [getattr(schedule.take(_request(body, index=i)), "kind", None) for i in range(7)]
    assert kinds == ["rate_limit", "rate_limit", "server_error", None, None, None, None]
    with pytest.raises(ValueError, match="first=0"):
        schedule.add(Fault.server_error(), first=0)


def test_choice_constraint_matches_verdicts_up_to_whitespace() -> None:
    answer = FakeAnswer(text="Explanation: fine.\nScore: 4", verdict_probs={"4": 0.6, "5": 0.4})
    req = _chat("x", logprobs=True, top_logprobs=5, structured_outputs={"choice": [" 1", " 4", " 5"]})
    choice = render_choice(req, answer)
    assert choice.text == " 4"
    _, lp, top = choice.logprobs[0]
    assert lp == pytest.approx(math.log(0.6)) and [t for t, p in top if p > -9999.0] == [" 4", " 5"]
