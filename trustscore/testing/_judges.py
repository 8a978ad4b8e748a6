"""Ready-made answers for trustscore's judges, as data that is easy to adjust.

A request is recognised by its tag (the ``X-Trustscore-Tag`` header every trustscore judge sends,
``<kind>@<version>``; :func:`judge_of`), never by its wording. :func:`judge_policy` answers each
kind with the example answers its judge registered (``register_signal(..., example_answers=...)``,
so a new judge brings its own), in the output shape the real judge model produces; the builders
below make variations of the built-in judges' answers:

- likert: ``Explanation: ...`` then ``Score: 4`` on the last line;
- prometheus: feedback then ``[RESULT] 4`` at the very end;
- lynx: pseudo-JSON ``{"REASONING": ['...'], "SCORE": PASS}`` (unquoted verdict, single-quoted list);
- chainpoll: reasoning then ``VERDICT: supported`` on the last line, one answer per vote (``n``);
- tlm: ``tlm.answer`` sampled answers, ``tlm.reflection`` ``explanation: ... answer: A``,
  ``tlm.agreement`` one word (agree / neutral / contradict).

Override one kind: ``judge_policy({"lynx": lynx_answer("FAIL", p_pass=0.2)})``, or add rules to
the returned :class:`RulePolicy` (the newest rule wins).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeAlias

from trustscore.testing._script import FakeAnswer, FakeRequest, Reply

__all__ = [
    "RulePolicy",
    "chainpoll_answers",
    "default_judge_answers",
    "judge_of",
    "judge_policy",
    "likert_answer",
    "lynx_answer",
    "prometheus_answer",
    "tlm_agreement_answer",
    "tlm_reflection_answer",
    "tlm_sampled_answers",
]

def judge_of(tag: str | None) -> str | None:
    """The judge kind a request tag names (``"tlm.reflection@3f2a1c/verdict"`` -> ``"tlm.reflection"``)."""
    return tag.split("@", 1)[0] if tag and "@" in tag else None


def _spread(top: str, p_top: float, others: Sequence[str]) -> dict[str, float]:
    rest = (1.0 - p_top) / len(others) if others else 0.0
    return {top: p_top, **{o: rest for o in others if rest > 0}}


def likert_answer(score: int = 4, probs: Mapping[str, float] | None = None) -> FakeAnswer:
    """A Likert rating; ``probs`` over "1".."5" defaults to 0.7 on ``score``, the rest spread."""
    if not 1 <= score <= 5:
        raise ValueError(f"likert score {score} is outside 1..5")
    dist = dict(probs) if probs else _spread(str(score), 0.7, [str(s) for s in range(1, 6) if s != score])
    return FakeAnswer(
        text=f"Explanation: The answer matches what the context says about the question.\nScore: {score}",
        verdict_probs=dist,
    )


def prometheus_answer(score: int = 4, probs: Mapping[str, float] | None = None) -> FakeAnswer:
    """Prometheus 2 absolute grading: feedback, then ``[RESULT] n`` last."""
    if not 1 <= score <= 5:
        raise ValueError(f"prometheus score {score} is outside 1..5")
    dist = dict(probs) if probs else _spread(str(score), 0.7, [str(s) for s in range(1, 6) if s != score])
    return FakeAnswer(
        text=f"The response sticks to the passage and answers the instruction. [RESULT] {score}",
        verdict_probs=dist,
    )


def lynx_answer(verdict: str = "PASS", p_pass: float | None = None) -> FakeAnswer:
    """Lynx's pseudo-JSON with an unquoted verdict. ``p_pass`` defaults to 0.93 for PASS, 0.07 for FAIL."""
    if verdict not in ("PASS", "FAIL"):
        raise ValueError(f"lynx verdict {verdict!r} must be 'PASS' or 'FAIL'")
    p = p_pass if p_pass is not None else (0.93 if verdict == "PASS" else 0.07)
    reason = (
        "The answer is stated in the document." if verdict == "PASS" else "The document does not say this."
    )
    text = '{"REASONING": [\'' + reason + '\'], "SCORE": ' + verdict + "}"
    return FakeAnswer(text=text, verdict_probs={"PASS": p, "FAIL": 1.0 - p} if 0 < p < 1 else {verdict: 1.0})


def chainpoll_answers(
    votes: Sequence[bool] = (True, True, True, True, False), confidence: float = 0.9
) -> list[FakeAnswer]:
    """One ChainPoll completion per vote (True = supported), for a request with ``n`` choices."""
    out = []
    for supported in votes:
        word, other = ("supported", "unsupported") if supported else ("unsupported", "supported")
        out.append(
            FakeAnswer(
                text=f"The answer's claim is {'stated' if supported else 'not stated'} in the context.\n"
                f"VERDICT: {word}",
                verdict_probs={word: confidence, other: 1.0 - confidence},
            )
        )
    return out


def tlm_reflection_answer(letter: str = "A", probs: Mapping[str, float] | None = None) -> FakeAnswer:
    """A self-reflection verdict: A correct, B incorrect, C not sure."""
    if letter not in ("A", "B", "C"):
        raise ValueError(f"tlm reflection letter {letter!r} must be A, B or C")
    dist = dict(probs) if probs else _spread(letter, 0.85, [c for c in "ABC" if c != letter])
    return FakeAnswer(
        text=f"explanation: The proposed answer agrees with the context.\nanswer: {letter}",
        verdict_probs=dist,
    )


def tlm_agreement_answer(word: str = "agree", probs: Mapping[str, float] | None = None) -> FakeAnswer:
    """The one-word comparison of a sampled answer with the original one."""
    words = ("agree", "neutral", "contradict")
    if word not in words:
        raise ValueError(f"tlm agreement {word!r} must be one of {words}")
    dist = dict(probs) if probs else _spread(word, 0.9, [w for w in words if w != word])
    return FakeAnswer(text=word, verdict_probs=dist)


def tlm_sampled_answers(texts: Sequence[str] = ("Paris is the capital of France.",)) -> list[FakeAnswer]:
    """Answers drawn for TLM's consistency check, one per choice (cycled over ``n``)."""
    return [FakeAnswer(text=t) for t in texts]


def default_judge_answers() -> dict[str, Reply]:
    """Judge kind -> the reply :func:`judge_policy` gives by default: the example answers every
    registered judge carries (one answer, or one per choice for a judge that asks for ``n``)."""
    from trustscore.signals import registered_signals

    out: dict[str, Reply] = {}
    for spec in registered_signals("judge").values():
        for kind, answers in spec.example_answers.items():
            fakes = [
                FakeAnswer(text=a.text, verdict_probs=dict(a.verdict_probs) if a.verdict_probs else None)
                for a in answers
            ]
            out[kind] = fakes[0] if len(fakes) == 1 else fakes
    return out


RuleReply: TypeAlias = Reply | Callable[[FakeRequest], Reply | Awaitable[Reply]]


class RulePolicy:
    """A policy made of rules: (regex on the prompt text and/or judge kind) -> reply.

    The newest matching rule wins, so adding a rule overrides earlier ones. A reply may be a
    callable of the request (sync or async). No rule matching -> ``fallback`` (None = unmatched).
    """

    def __init__(self, fallback: RuleReply = None) -> None:
        self._rules: list[tuple[re.Pattern[str] | None, str | None, RuleReply]] = []
        self.fallback = fallback

    def on(
        self, pattern: str | None = None, reply: RuleReply = None, *, judge: str | None = None
    ) -> RulePolicy:
        """Answer requests whose text matches ``pattern`` (searched) and whose judge kind is ``judge``.

        ``judge="tlm"`` matches every ``tlm.*`` kind. Returns self, for chaining.
        """
        if pattern is None and judge is None:
            raise ValueError("RulePolicy.on needs a pattern, a judge, or both (use fallback= for a default)")
        self._rules.append((re.compile(pattern) if pattern is not None else None, judge, reply))
        return self

    def on_judge(self, judge: str, reply: RuleReply) -> RulePolicy:
        return self.on(None, reply, judge=judge)

    def __call__(self, request: FakeRequest) -> Reply | Awaitable[Reply]:
        for pattern, judge, reply in reversed(self._rules):
            if judge is not None:
                kind = request.judge or ""
                if kind != judge and not kind.startswith(judge + "."):
                    continue
            if pattern is not None and not pattern.search(request.text):
                continue
            return reply(request) if callable(reply) else reply
        return self.fallback(request) if callable(self.fallback) else self.fallback


def judge_policy(answers: Mapping[str, RuleReply] | None = None, *, fallback: RuleReply = None) -> RulePolicy:
    """A :class:`RulePolicy` answering every registered judge's kinds; ``answers`` overrides kinds."""
    policy = RulePolicy(fallback=fallback)
    for kind, reply in {**default_judge_answers(), **(answers or {})}.items():
        policy.on_judge(kind, reply)
    return policy
