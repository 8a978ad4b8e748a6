"""benchmarks.quality.corruption_pairs' corruptions on fixed sentences, and
benchmarks.quality.corruption's summary on generated scored rows."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.quality import corruption_pairs
from benchmarks.quality.corruption import flagged_by_source, summarise
from benchmarks.quality.corruption_losses import paraphrase_losses
from benchmarks.quality.corruption_pairs import CORRUPTORS, Source, sentences
from trustscore.rows._scored import rows_from_dicts

CONTEXT = (
    "Westfield primary school was founded in 1953 by the teacher Ruth Abara in Leeds. It has 420 pupils "
    "and 18 teachers. The playground is 40 metres long. It is open on Saturday. The mayor Tom Reed of "
    "Bradford visited it."
)
SOURCE = Source(
    CONTEXT,
    {"PERSON": ["Ruth Abara", "Tom Reed"], "GPE": ["Leeds", "Bradford"]},
    ["Helen Marsh", "Omar Diaz"],
)


@pytest.mark.parametrize(
    ("kind", "sentence", "changed_from"),
    [
        ("number", "It has 420 pupils and 18 teachers.", ("420", "18")),
        ("date", "The school was founded in 1953 by the teacher Ruth Abara.", ("1953",)),
        ("name", "The school was founded in 1953 by the teacher Ruth Abara.", ("Ruth Abara",)),
        (
            "swapped entity",
            "The school was founded by the teacher Ruth Abara in Leeds.",
            ("Ruth Abara", "Leeds"),
        ),
        ("negation", "It is open on Saturday.", ("is open",)),
        ("antonym", "It is open on Saturday.", ("open",)),
        ("unit", "The playground is 40 metres long.", ("metres",)),
    ],
)
def test_each_kind_changes_one_fact(kind: str, sentence: str, changed_from: tuple[str, ...]) -> None:
    changed = CORRUPTORS[kind](sentence, SOURCE, random.Random(0))
    assert changed is not None and changed != sentence
    assert any(old not in changed for old in changed_from)
    assert abs(len(changed.split()) - len(sentence.split())) <= 2  # one fact, not a rewrite


def test_a_kind_with_nothing_to_change_declines() -> None:
    plain = "The children like the garden behind the building very much indeed."
    for kind in ("number", "date", "name", "swapped entity", "unit"):
        assert CORRUPTORS[kind](plain, SOURCE, random.Random(0)) is None


def test_a_negation_is_removed_and_never_doubled() -> None:
    rng = random.Random(0)
    assert CORRUPTORS["negation"]("It does not have a swimming pool today.", SOURCE, rng) == (
        "It does have a swimming pool today."
    )
    assert CORRUPTORS["negation"]("There is no way to get there.", SOURCE, rng) is None


def test_a_changed_number_is_not_in_the_context_and_a_date_day_is_not_a_number() -> None:
    for seed in range(10):
        changed = CORRUPTORS["number"]("It has 420 pupils.", SOURCE, random.Random(seed))
        assert changed is not None and changed.split()[2] not in CONTEXT
    assert CORRUPTORS["number"]("It opened on 19 July.", SOURCE, random.Random(0)) is None


def test_sentences_split_on_stops() -> None:
    assert sentences("One is here. Two is there! 3 more? yes.") == [
        "One is here.",
        "Two is there!",
        "3 more? yes.",
    ]


def test_a_line_break_ends_a_sentence_and_a_list_marker_is_no_part_of_one() -> None:
    answer = (
        "Here are some uses of soybeans:\n\n1. Soy milk is made from them.\n"
        "- Feed for cattle\n\u2022 Fish food"
    )
    assert sentences(answer) == [
        "Here are some uses of soybeans:",
        "Soy milk is made from them.",
        "Feed for cattle",
        "Fish food",
    ]
    assert sentences("It opened in 1998.\n2024 was its best year.") == [
        "It opened in 1998.",
        "2024 was its best year.",
    ]


def _row(i: int, source: str, kind: str, value: float | None, of: int | None = None) -> dict[str, Any]:
    return {
        "id": f"r{i}",
        "score": value,
        "calibrated": False,
        "signals": {"claims": {"value": value, "raw": {}}},
        "source_id": source,
        "kind": kind,
        "faithful_of": None if of is None else f"r{of}",
        "hallucinated": kind not in ("verbatim", "paraphrase"),
    }


def test_summary_reads_shares_and_own_context_ranking() -> None:
    rows = rows_from_dicts(
        [
            _row(0, "a", "verbatim", 0.9),
            _row(1, "a", "number", 0.3, of=0),
            _row(2, "a", "name", 0.95, of=0),  # above the verbatim: its context's ranking fails
            _row(3, "b", "verbatim", 0.8),
            _row(4, "b", "paraphrase", 0.4),
            _row(5, "b", "number", 0.2, of=4),
        ]
    )
    s = summarise(rows, [r.score for r in rows])
    assert s["verbatim"] == 1.0 and s["paraphrase"] == 0.0
    assert s["number"] == 1.0 and s["name"] == 0.0
    assert s["verbatim above its context's errors"] == 0.5
    assert s["paraphrase above its context's errors"] == 1.0
    assert s["verbatim above its own corruption (pairs)"] == 0.5
    assert s["paraphrase above its own corruption (pairs)"] == 1.0
    assert s["auroc"] == pytest.approx(1 - 3 / 9 - 0)  # 6 of 9 (faithful, corrupted) pairs ordered right


def test_a_missing_score_is_counted_unscored_not_flagged() -> None:
    rows = rows_from_dicts([_row(0, "a", "verbatim", 0.9), _row(1, "a", "number", 0.2, of=0)])
    s = summarise(rows, [0.9, None])
    assert s["unscored"] == 0.5 and s["number"] == 0.0


def test_changed_rows_are_counted_apart_by_the_faithful_sentence_they_change() -> None:
    rows = rows_from_dicts(
        [
            _row(0, "a", "verbatim", 0.9),
            _row(1, "a", "number", 0.3, of=0),
            _row(2, "a", "paraphrase", 0.8),
            _row(3, "a", "number", 0.7, of=2),
            _row(4, "a", "number", 0.2, of=2),
            _row(5, "a", "unit", 0.1, of=2),
        ]
    )
    table = flagged_by_source(rows, [0.9, 0.3, 0.8, 0.7, None, 0.1])  # row 4 unscored: not flagged
    assert "| number | 1 of 1 | 0 of 2 |" in table
    assert "| unit | – | 1 of 1 |" in table
    assert "| date | – | – |" in table


def _signals(lexical: float, claims: float | None, outcome: dict[str, Any]) -> dict[str, Any]:
    claims_signal = (
        {"value": claims, "raw": {"outcome": "checked", **outcome}}
        if claims is not None
        else {"error": "no checkable atom"}
    )
    return {"lexical": {"value": lexical}, "claims": claims_signal}


def test_losses_say_who_beats_a_paraphrase_and_how_each_signal_orders_its_own_sentence() -> None:
    supported = {"contradicted": 0, "unsupported": 0}
    raw = [
        _row(0, "a", "paraphrase", 0.4, None),
        _row(1, "a", "negation", 0.45, of=0),  # its own sentence, above it
        _row(2, "a", "verbatim", 0.9),
        _row(3, "a", "number", 0.6, of=2),  # a copy changed, above it too
        _row(4, "b", "paraphrase", 0.7),
        _row(5, "b", "antonym", 0.0, of=4),  # a score of 0 is flagged, not unscored
        _row(6, "c", "paraphrase", 0.3),
        _row(7, "c", "antonym", None, of=6),  # unscored: counts as not flagged
    ]
    raw[0] |= {"context_domain": "qa", "signals": _signals(0.5, 1.0, supported)}
    raw[1] |= {"signals": _signals(0.5, None, {})}
    raw[6] |= {"context_domain": "qa", "signals": _signals(0.8, 0.5, {"contradicted": 1})}
    raw[7] |= {"signals": _signals(0.6, 0.5, {"contradicted": 1})}
    rows = rows_from_dicts(raw)
    report = paraphrase_losses(rows, [r.score for r in rows])
    assert "their own context (fused): 2 of 3: beaten only by their own sentence changed 1, " in report
    assert "only by a copied context sentence changed 0, by both 1." in report
    assert "(2 pairs: antonym 1, negation 1)" in report
    assert "| lexical | 1 | 1 | 0 | 0 |" in report  # c: 0.8 > 0.6; a: 0.5 == 0.5
    assert "| claims | 0 | 1 | 0 | 1 |" in report  # a's error has no claims value
    assert "| qa | 2 | 1 |" in report  # both under 0.5; only a has every checked atom supported


def test_contexts_longer_than_the_limit_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark keeps contexts of at most 300 words; a fit set may take longer ones."""

    def contexts(data: Path, mirrors: Path) -> Iterator[dict[str, Any]]:
        for words in (10, 500):
            yield {
                "source_id": f"doc-{words}",
                "context": [" ".join(["word"] * words)],
                "question": "",
                "dataset": "frank_cnndm",
                "response": "",
                "hallucinated": False,
            }

    monkeypatch.setattr(corruption_pairs, "_contexts", contexts)
    assert list(corruption_pairs._by_context(Path(), Path(), corruption_pairs.MAX_CONTEXT_WORDS)) == [
        "doc-10"
    ]
    assert list(corruption_pairs._by_context(Path(), Path(), 800)) == ["doc-10", "doc-500"]
