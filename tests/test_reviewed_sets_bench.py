"""benchmarks.quality.reviewed_sets: the reviewer-written sets load whole, and their report counts right."""

from __future__ import annotations

from collections import Counter

from benchmarks.quality.reviewed_sets import SETS, Answer, Scored, load, report


def test_each_set_loads_with_faithful_and_wrong_answers_to_every_question() -> None:
    summaries, short = load(SETS["summaries"]), load(SETS["short answers"])
    assert (len(summaries), len(short)) == (216, 450)
    for answers in (summaries, short):
        seen: dict[str, set[bool]] = {}
        for a in answers:
            seen.setdefault(a.group, set()).add(a.faithful)
            assert (a.edit is None or a.edit == "abstention") == a.faithful, a.text
        assert all(kinds == {True, False} for kinds in seen.values())
        assert max(Counter((a.group, a.text) for a in answers).values()) == 1


def test_the_report_counts_each_measure() -> None:
    answers = [
        Answer("c/0", "ctx", "q", "right", True, None),
        Answer("c/0", "ctx", "q", "also right", True, None),
        Answer("c/0", "ctx", "q", "wrong date", False, "date"),
        Answer("c/0", "ctx", "q", "wrong name", False, "name"),
    ]
    scored = [
        Scored(0.9, {"claims": 1.0}, False),
        Scored(0.4, {"claims": 0.15}, True),
        Scored(0.3, {"claims": 0.15}, True),
        Scored(0.6, {"claims": None}, False),
    ]
    table = report(answers, scored)
    assert "| AUROC, fused | 0.750 |" in table
    assert "| AUROC, claims alone | 0.750 |" in table  # the unscored answer is left out
    assert "| faithful at or above 0.5 | 1 of 2 (50%) |" in table
    assert "| faithful with a contradiction | 1 of 2 (50%) |" in table
    assert "| date: under 0.5 / contradicted | 1 of 1 (100%) / 1 of 1 (100%) |" in table
    assert "| name: under 0.5 / contradicted | 0 of 1 (0%) / 0 of 1 (0%) |" in table
    assert "| faithful above every wrong answer to its question | 1 of 2 (50%) |" in table
