"""The pipeline as the claims check loads it (only the components it reads, the tokenizer built once
from the package's file) parses exactly as spaCy's own ``spacy.load`` of the package does."""

from __future__ import annotations

from typing import Any

TRICKY = (
    "Dr. Smith's U.S.-based co. can't and won't pay $3.50 on Jan. 3rd, 2011 (see https://x.org/a?b=1), "
    "e.g. 5km at 10:30 a.m.; y'all said 'cause it's 14 March 2011 - not 2001!"
)


def _tokens(nlp: Any, text: str) -> list[tuple[Any, ...]]:
    return [
        (t.text, t.whitespace_, t.tag_, t.dep_, t.head.i, t.lemma_, t.ent_type_, t.is_sent_start, t.norm_)
        for t in nlp(text)
    ]


def _tokenizer_state(nlp: Any) -> tuple[Any, ...]:
    tk = nlp.tokenizer
    patterns = (tk.prefix_search, tk.suffix_search, tk.infix_finditer, tk.url_match)
    return (tk.rules, *(p.__self__.pattern for p in patterns), tk.token_match, tk.faster_heuristics)


def test_the_loaded_pipeline_is_spacys_own_load_of_the_read_components(claims_check: Any) -> None:
    import spacy

    from trustscore.grounding.claims._pipeline import _FILLED_FROM_DISK, COMPONENTS

    ours = claims_check.pipeline.nlp()
    package = claims_check.pipeline.package
    shipped = spacy.info(package)["components"]
    theirs = spacy.load(package, exclude=[name for name in shipped if name not in COMPONENTS])
    assert ours.config["nlp"]["tokenizer"] == {"@tokenizers": _FILLED_FROM_DISK}
    assert list(ours.pipe_names) == list(theirs.pipe_names)
    assert set(ours.pipe_names) == COMPONENTS
    assert _tokenizer_state(ours) == _tokenizer_state(theirs)
    assert len(ours.tokenizer.rules) > 1000
    assert _tokens(ours, TRICKY) == _tokens(theirs, TRICKY)
