"""The process's parse cache: a text is parsed once however many callers want it at once, the cache
holds at most its characters, and a failed parse leaves the text to the next caller."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from trustscore import Sample
from trustscore._errors import BudgetExceeded
from trustscore.compute._deadline import Deadline, bound
from trustscore.grounding.claims import _signal as claims_signal
from trustscore.grounding.claims._parse_cache import ParseCache


class GatedParser:
    """Counts its calls; each call blocks until ``release`` is set (so callers pile up on one text)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, text: str) -> str:
        self.calls.append(text)
        self.entered.set()
        self.release.wait(10)
        return text.upper()


def test_callers_of_one_text_at_once_share_one_parse() -> None:
    cache: ParseCache[str] = ParseCache(max_chars=1_000)
    parser = GatedParser()
    results: list[str] = []
    first = threading.Thread(target=lambda: results.append(cache.get("p", "the context", parser)))
    first.start()
    assert parser.entered.wait(10)
    others = [
        threading.Thread(target=lambda: results.append(cache.get("p", "the context", parser)))
        for _ in range(5)
    ]
    for t in others:
        t.start()
    parser.release.set()
    for t in [first, *others]:
        t.join(10)
    assert parser.calls == ["the context"]
    assert results == ["THE CONTEXT"] * 6
    assert cache.get("p", "the context", parser) == "THE CONTEXT" and len(parser.calls) == 1


def test_the_cache_holds_at_most_its_characters_least_recent_out() -> None:
    cache: ParseCache[str] = ParseCache(max_chars=10)
    calls: list[str] = []

    def parse(text: str) -> str:
        calls.append(text)
        return text

    for text in ("aaaa", "bbbb", "aaaa", "cccc"):  # "aaaa" used again: "bbbb" is the least recent
        cache.get("p", text, parse)
    assert cache.chars <= 10 and len(cache) == 2
    cache.get("p", "aaaa", parse)
    cache.get("p", "bbbb", parse)
    assert calls == ["aaaa", "bbbb", "cccc", "bbbb"]
    cache.get("p", "x" * 11, parse)  # larger than the whole cache: parsed, not kept
    assert cache.chars <= 10 and "x" * 11 in calls


def test_the_namespace_keeps_two_pipelines_apart() -> None:
    cache: ParseCache[str] = ParseCache(max_chars=100)
    assert cache.get("a", "text", lambda t: "from a") == "from a"
    assert cache.get("b", "text", lambda t: "from b") == "from b"


def test_a_failed_parse_is_not_kept_and_a_waiting_caller_parses_it_again() -> None:
    cache: ParseCache[str] = ParseCache(max_chars=100)
    entered, release = threading.Event(), threading.Event()

    def failing(text: str) -> str:
        entered.set()
        release.wait(10)
        raise BudgetExceeded("time budget over")

    errors: list[BaseException] = []

    def first() -> None:
        try:
            cache.get("p", "text", failing)
        except BudgetExceeded as e:
            errors.append(e)

    thread = threading.Thread(target=first)
    thread.start()
    assert entered.wait(10)
    waiter_result: list[str] = []
    waiter = threading.Thread(target=lambda: waiter_result.append(cache.get("p", "text", str.upper)))
    waiter.start()
    release.set()
    thread.join(10)
    waiter.join(10)
    assert len(errors) == 1 and waiter_result == ["TEXT"]
    assert cache.get("p", "text", failing) == "TEXT"  # kept from the waiter's parse


def test_a_caller_waiting_on_another_parse_stops_when_its_budget_is_cancelled() -> None:
    cache: ParseCache[str] = ParseCache(max_chars=100)
    parser = GatedParser()
    thread = threading.Thread(target=lambda: cache.get("p", "text", parser))
    thread.start()
    assert parser.entered.wait(10)
    deadline = Deadline(60.0)
    deadline.cancel()
    with bound(deadline), pytest.raises(BudgetExceeded):
        cache.get("p", "text", parser)
    parser.release.set()
    thread.join(10)
    assert parser.calls == ["text"]


def test_six_answers_of_one_context_in_flight_parse_it_once(
    claims_check: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an empty cache of parsed contexts: an earlier parse of this context in the process would
    # answer every one of the six
    monkeypatch.setattr(claims_signal, "_PARSED", ParseCache(claims_signal._PARSED_CHARS))
    context = (
        "Westfield primary school, in Harrow Vale, was founded in 1953 by Ruth Abara. It has 420 pupils."
    )
    parsed: list[str] = []
    parse = claims_check.pipeline.parse

    def counting(text: str) -> Any:
        parsed.append(text)
        return parse(text)

    claims_check.pipeline.parse = counting
    answers = [f"It has {n} pupils." for n in (420, 240, 421, 400, 99, 4200)]
    results: dict[str, float | None] = {}
    try:

        async def all_at_once() -> None:
            async with anyio.create_task_group() as tg:
                for answer in answers:

                    async def one(answer: str = answer) -> None:
                        signal = await claims_check.run(
                            Sample(question="", context=[context], response=answer)
                        )
                        results[answer] = signal.value

                    tg.start_soon(one)

        anyio.run(all_at_once)
    finally:
        del claims_check.pipeline.parse
    assert parsed.count(context) == 1
    assert len(results) == 6 and results["It has 420 pupils."] == 1.0


def test_the_pipeline_loads_once_in_the_background_and_a_parse_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("spacy", reason="the claims check needs trustscore[claims]")
    from trustscore.grounding.claims import _pipeline

    try:
        package = _pipeline.find_pipeline(None)
    except ImportError as e:
        pytest.skip(str(e))
    loads: list[str] = []
    release = threading.Event()

    def slow_load(name: str) -> Any:
        loads.append(name)
        release.wait(10)
        return str.split  # stands in for the pipeline: text in, a "doc" out

    monkeypatch.setattr(_pipeline, "_loaded", {})
    monkeypatch.setattr(_pipeline, "_load", slow_load)
    pipeline = _pipeline.Pipeline(package)
    pipeline.start_loading()
    parsed: list[Any] = []
    parse = threading.Thread(target=lambda: parsed.append(pipeline.parse("two words")))
    parse.start()
    release.set()
    parse.join(10)
    assert parsed == [["two", "words"]] and loads == [package]
    pipeline.start_loading()  # loaded: nothing more
    assert _pipeline.Pipeline(package).nlp() is str.split and loads == [package]


def test_a_pipeline_that_cannot_load_leaves_the_signal_missing_with_the_reason(claims_check: Any) -> None:
    from trustscore.grounding.claims._signal import ClaimsCheck

    check = ClaimsCheck(claims_check.config)

    def broken() -> Any:
        raise OSError("[E050] Can't find model")

    check.pipeline.nlp = broken  # type: ignore[method-assign]
    signal = check.score(Sample(question="", context=["It opened in 1998."], response="It opened in 1998."))
    assert signal.missing and "did not load: [E050] Can't find model" in (signal.error or "")
