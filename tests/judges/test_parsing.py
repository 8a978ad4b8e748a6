"""Pure output parsers over real-looking, malformed and truncated judge outputs, and logprob readings."""

from __future__ import annotations

import pytest
from judges_fakes import choice, tokens

from trustscore.judges._chainpoll import parse_vote
from trustscore.judges._likert import parse_likert
from trustscore.judges._lynx import parse_lynx, verdict_label
from trustscore.judges._parsing import label_distribution, locate_after, quote, rating_digit
from trustscore.judges._prometheus import parse_prometheus
from trustscore.judges._tlm import exact_match, parse_agreement, parse_reflection
from trustscore.llm import Choice


def expected_with_floor(probs: dict[int, float], floor: float = 1e-3) -> float:
    mass = {k: max(probs.get(k, 0.0), floor) for k in range(1, 6)}
    return sum(k * v for k, v in mass.items()) / sum(mass.values())


# --- locating the verdict token --------------------------------------------------------------------------


def test_locate_after_uses_the_last_marker_and_skips_filler_tokens() -> None:
    toks = tokens("Score", ": 2 was my first guess. ", "Score", ":", " ", ("4", {"4": 0.9, "3": 0.1}), "\n")
    located = locate_after(toks, "Score:")
    assert located is not None and located.token.token == "4"


def test_locate_after_reads_a_token_that_spans_the_marker_end() -> None:
    toks = tokens("Score", (": 4", {": 4": 0.7, ": 3": 0.2, "ly": 0.1}))
    located = locate_after(toks, "Score:")
    assert located is not None
    assert sorted(located.alternatives()) == sorted(
        [(" 4", pytest.approx(-0.3567, abs=1e-3)), (" 3", pytest.approx(-1.6094, abs=1e-3))]
    )


def test_locate_after_is_none_without_marker_or_without_anything_after_it() -> None:
    assert locate_after(tokens("no ", "marker ", "here"), "Score:") is None
    assert locate_after(tokens("all done. Score:", " "), "Score:") is None


def test_rating_digit_accepts_1_to_5_only() -> None:
    assert [rating_digit(t) for t in ["4", " 4", "4.", "**5", "1/"]] == ["4", "4", "4", "5", "1"]
    assert [rating_digit(t) for t in ["10", "45", "4.5", "0", "6", "four", ""]] == [None] * 7


def test_label_distribution_is_none_when_no_alternative_is_recognised() -> None:
    located = locate_after(tokens("Score:", ("four", {"four": 0.8, "five": 0.2})), "Score:")
    assert located is not None
    assert label_distribution(located, rating_digit, labels=list("12345")) is None


def test_quote_truncates_and_names_empty_output() -> None:
    assert quote("  ") == "(empty output)"
    assert quote("x" * 500).endswith("...'") and len(quote("x" * 500)) < 210


# --- Likert ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rating"),
    [
        ("Explanation: it matches the passage.\nScore: 4", 4),
        ("Explanation: fine.\nScore: 4.", 4),
        ("Explanation: fine.\nScore: 4/5", 4),
        ("Explanation: fine.\n**Score:** 5", 5),
        ("explanation: meh\nscore:2\n", 2),
        ("Explanation: I first thought Score: 2, but on reflection\nScore: 5", 5),
        ("Explanation: 3 of the 5 claims hold.\nScore: 3", 3),
    ],
)
def test_likert_text_rating(text: str, rating: int) -> None:
    parsed = parse_likert(choice(text))
    assert parsed.rating == rating and parsed.expected == rating and not parsed.from_logprobs


@pytest.mark.parametrize(
    "text",
    [
        "Explanation: the answer is good. Score: 10",
        "Explanation: ok\nScore: 4.5",
        "I would say four.",
        "",
        "Explanation: The answer restates the passage and",
    ],
)
def test_likert_unparsable_output_raises_quoting_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"no 'Score: 1\.\.5'") as err:
        parse_likert(choice(text))
    assert quote(text) in str(err.value)


def test_likert_explanation_is_the_text_before_the_score() -> None:
    assert (
        parse_likert(choice("Explanation: cites the passage.\nScore: 5")).explanation == "cites the passage."
    )


def test_likert_expected_score_reads_the_token_after_score_not_earlier_digits() -> None:
    toks = tokens(
        "Explanation",
        ":",
        " ",
        ("3", {"3": 0.5, "5": 0.5}),
        " of ",
        ("5", {"5": 0.99, "4": 0.01}),
        " claims hold",
        ".\n",
        "Score",
        ":",
        " ",
        ("4", {"4": 0.6, "5": 0.3, "3": 0.1}),
    )
    text = "".join(t.token for t in toks)
    parsed = parse_likert(choice(text, toks))
    assert parsed.from_logprobs and parsed.rating == 4
    assert parsed.expected == pytest.approx(expected_with_floor({4: 0.6, 5: 0.3, 3: 0.1}))


def test_likert_expected_score_sums_space_variants_of_a_digit() -> None:
    toks = tokens("Explanation: ok\nScore:", (" 4", {" 4": 0.5, "4": 0.2, " 2": 0.3}))
    parsed = parse_likert(choice("Explanation: ok\nScore: 4", toks))
    assert parsed.expected == pytest.approx(expected_with_floor({4: 0.7, 2: 0.3}))


def test_likert_prefilled_reply_is_read_after_the_prefix() -> None:
    parsed = parse_likert(choice(" 4", tokens((" 4", {" 4": 0.5, " 5": 0.5}))), prefilled=True)
    assert parsed.rating == 4 and parsed.expected == pytest.approx(expected_with_floor({4: 0.5, 5: 0.5}))


def test_likert_falls_back_to_text_when_logprobs_do_not_cover_the_rating() -> None:
    toks = tokens("Explanation: ok\nScore: ", ("4", {"4": 1.0}))
    assert parse_likert(choice("Explanation: ok\nScore: 4", toks)).from_logprobs
    # token strings that do not spell the text (byte tokens): no marker found, so the written rating
    unreadable = Choice(text="Explanation: ok\nScore: 4", logprobs=tokens("bytes:\\xe2", "bytes:\\x80"))
    parsed = parse_likert(unreadable)
    assert not parsed.from_logprobs and parsed.expected == 4.0


def test_likert_markdown_around_the_rating_token_is_skipped() -> None:
    toks = tokens("Explanation: ok\n**Score:**", " **", ("3", {"3": 0.5, "2": 0.5}), "**")
    parsed = parse_likert(choice("".join(t.token for t in toks), toks))
    assert parsed.rating == 3 and parsed.expected == pytest.approx(expected_with_floor({3: 0.5, 2: 0.5}))


# --- Prometheus --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ("The response is faithful to the passage. [RESULT] 5", 5),
        ("Feedback: Mostly supported. [RESULT] 4</s>", 4),
        ("Supported. [RESULT] 4.\n", 4),
        ("Supported. [RESULT] (3)", 3),
        ("Supported. [RESULT] 4/5", 4),
        ("Supported. [RESULT] 2 out of 5  ", 2),
        ("Supported. [RESULT]: 1<|eot_id|>", 1),
        ("It scores [RESULT] 2 in my view... no. [RESULT] 3", 3),
    ],
)
def test_prometheus_grade_at_the_end(text: str, grade: int) -> None:
    parsed = parse_prometheus(choice(text))
    assert parsed.grade == grade and parsed.expected == grade


@pytest.mark.parametrize(
    "text",
    [
        "Good. [RESULT] 4\nI hope this feedback helps the student improve.",
        "Good. [RESULT] 7",
        "Good. [RESULT] 2.5",
        "Good. Score: 4",
        "",
    ],
)
def test_prometheus_grade_not_at_the_end_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"\[RESULT\]"):
        parse_prometheus(choice(text))


def test_prometheus_truncated_output_says_it_was_cut_off() -> None:
    with pytest.raises(ValueError, match="cut off at max_tokens"):
        parse_prometheus(choice("The response claims that the passage [RES", finish_reason="length"))


def test_prometheus_feedback_and_logprob_weighted_grade() -> None:
    toks = tokens(
        "Two of ",
        ("5", {"5": 1.0}),
        " claims are unsupported. ",
        "[RESULT]",
        " ",
        ("2", {"2": 0.8, "1": 0.15, "3": 0.05}),
    )
    parsed = parse_prometheus(choice("".join(t.token for t in toks), toks))
    assert parsed.feedback == "Two of 5 claims are unsupported."
    assert parsed.from_logprobs and parsed.expected == pytest.approx(
        expected_with_floor({2: 0.8, 1: 0.15, 3: 0.05})
    )


# --- Lynx --------------------------------------------------------------------------------------------------


def test_lynx_pseudo_json_with_unquoted_verdict_and_single_quoted_reasoning() -> None:
    text = (
        '{"REASONING": [\'The document says Shakespeare wrote Hamlet.\', "The answer\'s claim matches."], '
        '"SCORE": PASS}'
    )
    parsed = parse_lynx(choice(text))
    assert parsed.verdict == "PASS" and parsed.p_pass == 1.0 and not parsed.from_logprobs
    assert parsed.reasoning == ["The document says Shakespeare wrote Hamlet.", "The answer's claim matches."]


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ('{"REASONING": ["x"], "SCORE": "FAIL"}', "FAIL"),
        ("{'REASONING': ['x'], 'SCORE': 'Pass'}", "PASS"),
        ('{"REASONING": [\'unterminated, "SCORE": FAIL}', "FAIL"),
        ('Some preamble.\n{"REASONING": ["a", "b"],\n "SCORE": PASS\n}\n', "PASS"),
    ],
)
def test_lynx_verdict_variants(text: str, verdict: str) -> None:
    parsed = parse_lynx(choice(text))
    assert parsed.verdict == verdict and parsed.p_pass == (1.0 if verdict == "PASS" else 0.0)


@pytest.mark.parametrize("text", ['{"REASONING": ["x"], "SCORE": PARTIAL}', '{"REASONING": ["cut off', ""])
def test_lynx_without_verdict_raises_quoting_output(text: str) -> None:
    with pytest.raises(ValueError, match="SCORE"):
        parse_lynx(choice(text))


def test_lynx_p_pass_sums_variants_and_renormalises() -> None:
    toks = tokens(
        '{"REASONING": [\'ok\'], "SCORE":',
        (" PASS", {" PASS": 0.6, "PASS": 0.1, " FAIL": 0.2, " Pass": 0.05, ' "': 0.05}),
        "}",
    )
    parsed = parse_lynx(choice("".join(t.token for t in toks), toks))
    assert parsed.from_logprobs and parsed.p_pass == pytest.approx(0.75 / 0.95)


def test_lynx_p_pass_from_partial_tokens_and_quoted_verdicts() -> None:
    partial = tokens(
        '{"REASONING": [\'ok\'], "SCORE":', (" PA", {" PA": 0.5, " FA": 0.3, " P": 0.1, " the": 0.1}), "SS}"
    )
    assert parse_lynx(choice("".join(t.token for t in partial), partial)).p_pass == pytest.approx(0.6 / 0.9)
    quoted = tokens('{"REASONING": ["ok"], "SCORE":', ' "', ("FAIL", {"FAIL": 0.9, "PASS": 0.1}), '"}')
    assert parse_lynx(choice("".join(t.token for t in quoted), quoted)).p_pass == pytest.approx(0.1)


def test_lynx_verdict_mentioned_in_reasoning_does_not_count() -> None:
    toks = tokens(
        '{"REASONING": [\'A ',
        ("PASS", {"PASS": 1.0}),
        ' would be wrong\'], "SCORE":',
        (" FAIL", {" FAIL": 0.8, " PASS": 0.2}),
        "}",
    )
    parsed = parse_lynx(choice("".join(t.token for t in toks), toks))
    assert parsed.verdict == "FAIL" and parsed.p_pass == pytest.approx(0.2)


def test_verdict_label() -> None:
    assert [verdict_label(t) for t in [" PASS", "Pass", "PA", '"P', "FAIL", " F", "fail"]] == [
        "PASS",
        "PASS",
        "PASS",
        "PASS",
        "FAIL",
        "FAIL",
        "FAIL",
    ]
    assert [verdict_label(t) for t in [' "', "the", "", "PAR", " passage", "Failure", "PASSAGE"]] == [
        None
    ] * 7
    assert [verdict_label(t) for t in ['PASS"', "FAIL}", "Passed"]] == ["PASS", "FAIL", "PASS"]


# --- ChainPoll ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "vote"),
    [
        ("Claim 1 is in the context.\nVERDICT: supported", "supported"),
        ("Claim 2 is not stated.\nVERDICT: unsupported\n", "unsupported"),
        ("**Verdict:** Supported", "supported"),
        ("verdict: unsupported.", "unsupported"),
        ("VERDICT: supported... wait, claim 3.\nVERDICT: unsupported", "unsupported"),
        ("I think it is supported.", None),
        ("VERDICT: partially", None),
        ("Claim 1 is in the cont", None),
    ],
)
def test_chainpoll_vote(text: str, vote: str | None) -> None:
    assert parse_vote(text) == vote


# --- TLM ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("explanation: right\nanswer: A", 1.0),
        ("explanation: wrong\nanswer: B", 0.0),
        ("Explanation: unsure\nAnswer: (C) I am not sure", 0.5),
        ("explanation: A or B?\n**answer:** A", 1.0),
    ],
)
def test_reflection_letters(text: str, score: float) -> None:
    assert parse_reflection(choice(text)).score == score


@pytest.mark.parametrize("text", ["explanation: hmm\nanswer: Because it is", "The answer is correct.", ""])
def test_reflection_without_letter_raises(text: str) -> None:
    with pytest.raises(ValueError, match="A\\|B\\|C"):
        parse_reflection(choice(text))


def test_reflection_logprob_weighting_a1_b0_c_half() -> None:
    toks = tokens("explanation: (B) is tempting\nanswer:", (" A", {" A": 0.6, " B": 0.1, " C": 0.3}))
    parsed = parse_reflection(choice("".join(t.token for t in toks), toks))
    assert parsed.from_logprobs and parsed.score == pytest.approx(0.6 + 0.5 * 0.3)
    assert parsed.explanation == "(B) is tempting"


def test_agreement_labels_and_logprobs() -> None:
    assert parse_agreement(choice("agree")) == 1.0
    assert parse_agreement(choice('"neutral"')) == 1.0
    assert parse_agreement(choice("contradict")) == 0.0
    toks = tokens(("agree", {"agree": 0.5, "contradict": 0.3, "neutral": 0.2}))
    assert parse_agreement(choice("agree", toks)) == pytest.approx(0.7)
    with pytest.raises(ValueError, match="agree/neutral/contradict"):
        parse_agreement(choice("maybe"))
    with pytest.raises(ValueError):
        parse_agreement(choice(""))


def test_exact_match_ignores_case_spacing_and_punctuation() -> None:
    assert exact_match("William Shakespeare.", "william  shakespeare")
    assert not exact_match("Shakespeare", "Marlowe")
