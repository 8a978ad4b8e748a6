"""The copy check cuts a context into its words once for all the answers to it, keeps only the last
contexts (bounded by their characters), and cuts a context anew where another parse split it
otherwise."""

from __future__ import annotations

from trustscore.grounding.claims._context_words import _KEPT_CHARS, context_words
from trustscore.grounding.claims._copies import Side

TEXT = "Put the tray in at 350 F. Put the lid on after Dana Reyes checks it. The Oven Club meets at noon."


def side(text: str = TEXT, bounds: list[tuple[int, int]] | None = None) -> Side:
    first = text.index("Put the lid")
    cut = [(0, first - 1), (first, len(text))] if bounds is None else bounds
    start = text.index("Dana Reyes")
    return Side(text=text, bounds=cut, names=[(start, start + len("Dana Reyes"))], tokens={})


def test_the_answers_to_one_context_share_one_cut_of_its_words() -> None:
    first = context_words(side())
    assert context_words(side()) is first  # a Side built anew from the same parse


def test_the_cut_holds_what_the_copy_check_reads() -> None:
    words = context_words(side())
    assert words.whole.startswith(" put the tray in at 350 f . put the lid ")
    assert [name.split() for name in words.known] == [["dana", "reyes"]]
    assert {"dana", "reyes", "oven", "club"} <= words.proper
    assert "put" not in words.proper  # "Put" opens its sentences
    assert [keys[:3] for keys in words.keys] == [["put", "the", "tray"], ["put", "the", "lid"]]
    assert [[t.key for t in s] for s in words.sentences] == words.keys


def test_a_context_split_otherwise_is_cut_anew() -> None:
    one = context_words(side())
    whole = context_words(side(bounds=[(0, len(TEXT))]))
    assert whole is not one
    assert len(whole.sentences) == 1 and len(one.sentences) == 2


def test_only_the_last_contexts_are_kept() -> None:
    first = context_words(side())
    filler = "Word after word. " * (_KEPT_CHARS // 4 // 17)
    for n in range(4):
        context_words(side(f"{TEXT} Batch {n}. {filler}", [(0, len(TEXT))]))
    assert context_words(side()) is not first


def test_a_context_longer_than_the_bound_is_cut_for_each_answer_and_pushes_none_out() -> None:
    first = context_words(side())
    huge = f"{TEXT} " + "Word after word. " * (_KEPT_CHARS // 17 + 1)
    cut = context_words(side(huge, [(0, len(TEXT))]))
    assert context_words(side(huge, [(0, len(TEXT))])) is not cut
    assert context_words(side()) is first
