"""The pipeline as the claims check loads it (only the components it reads, without the vocabulary's
string table, the tokenizer built once from the package's file, spaCy imported without its CLI and
srsly's YAML API, the registries' entry points looked up by group and srsly's msgpack decoders found
once) parses exactly as spaCy's own ``spacy.load`` of the package does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRICKY = (
    "Dr. Smith's U.S.-based co. can't and won't pay $3.50 on Jan. 3rd, 2011 (see https://x.org/a?b=1), "
    "e.g. 5km at 10:30 a.m.; y'all said 'cause it's 14 March 2011 - not 2001!"
)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _texts() -> list[str]:
    """TRICKY and every question, context and response of the examples' samples."""
    texts = [TRICKY]
    for name in ("rag_samples.jsonl", "contrast_set.jsonl"):
        for line in (EXAMPLES / name).read_text().splitlines():
            row = json.loads(line)
            texts += [row["question"], *row["context"], row["response"]]
    return texts


def _parsed(nlp: Any, text: str) -> tuple[Any, ...]:
    """What the checks read of a doc: tokens, tags, dependencies, lemmas, entities, sentences."""
    doc = nlp(text)
    tokens = [
        (t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, t.norm_, t.ent_iob_, t.ent_type_)
        for t in doc
    ]
    entities = [(e.start, e.end, e.label_) for e in doc.ents]
    return tokens, entities, [(s.start, s.end) for s in doc.sents]


def _tokenizer_state(nlp: Any) -> tuple[Any, ...]:
    tk = nlp.tokenizer
    patterns = (tk.prefix_search, tk.suffix_search, tk.infix_finditer, tk.url_match)
    return (tk.rules, *(p.__self__.pattern for p in patterns), tk.token_match, tk.faster_heuristics)


def test_the_loaded_pipeline_is_spacys_own_load_of_the_read_components(claims_check: Any) -> None:
    import catalogue
    import spacy

    from trustscore.grounding.claims._pipeline import _FILLED_FROM_DISK, COMPONENTS

    ours = claims_check.pipeline.nlp()
    assert not hasattr(catalogue.AVAILABLE_ENTRY_POINTS, "original")  # the index is gone after the load
    import srsly.msgpack

    assert "get_all" not in vars(srsly.msgpack.msgpack_decoders)  # so are the decoders found once
    package = claims_check.pipeline.package
    shipped = spacy.info(package)["components"]
    theirs = spacy.load(package, exclude=[name for name in shipped if name not in COMPONENTS])
    assert ours.config["nlp"]["tokenizer"] == {"@tokenizers": _FILLED_FROM_DISK}
    assert list(ours.pipe_names) == list(theirs.pipe_names)
    assert set(ours.pipe_names) == COMPONENTS
    assert _tokenizer_state(ours) == _tokenizer_state(theirs)
    assert len(ours.tokenizer.rules) > 1000
    texts = _texts()
    assert len(texts) > 100
    for text in texts:
        assert _parsed(ours, text) == _parsed(theirs, text), text


def test_the_string_table_is_not_read_and_every_label_a_doc_can_name_is_there(claims_check: Any) -> None:
    import spacy

    from trustscore.grounding.claims._pipeline import COMPONENTS

    ours = claims_check.pipeline.nlp()
    package = claims_check.pipeline.package
    theirs = spacy.load(
        package, exclude=[name for name in spacy.info(package)["components"] if name not in COMPONENTS]
    )
    assert len(theirs.vocab.strings) > 10 * len(ours.vocab.strings)  # the package's table was left out
    labels = {label for _, pipe in ours.pipeline for label in getattr(pipe, "labels", ())}
    ruled = {
        str(value)
        for pattern in ours.get_pipe("attribute_ruler").patterns
        for value in pattern["attrs"].values()
    }
    assert len(labels) > 100
    assert not {text for text in labels | ruled if text not in ours.vocab.strings}
