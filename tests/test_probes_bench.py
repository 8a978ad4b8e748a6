"""benchmarks.quality.probes: the hand-written probes and how their answers are tallied."""

from __future__ import annotations

from collections import Counter

from benchmarks.quality.probes import PROBES, Probe, tally


def test_every_context_has_correct_and_wrong_answers_and_no_answer_twice() -> None:
    kinds: dict[str, set[bool]] = {}
    for probe in PROBES:
        kinds.setdefault(probe.context, set()).add(probe.faithful)
    assert len(kinds) == 7 and all(seen == {True, False} for seen in kinds.values())
    assert max(Counter((p.context, p.question, p.answer) for p in PROBES).values()) == 1


def test_a_wrong_answer_is_read_right_under_the_line_and_a_correct_one_at_or_above_it() -> None:
    probes = [
        Probe("c", "q", "number", False, "a"),
        Probe("c", "q", "number", False, "b"),
        Probe("c", "q", "paraphrase", True, "c"),
        Probe("c", "q", "paraphrase", True, "d"),
    ]
    counts = tally(probes, [0.49, 0.5, 0.5, None])
    assert counts == {
        "number": (1, 2),
        "all wrong": (1, 2),
        "paraphrase": (1, 2),
        "all correct": (1, 2),
    }
