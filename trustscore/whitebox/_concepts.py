"""Concepts in a question, for Self-Familiarity: extraction, grouping, common-word filtering, rarity.

Luo et al. (2023, "Zero-Resource Hallucination Prevention for Large Language Models") score how well
the model knows the *concepts* a question relies on, rarest first. The released code ships
pre-extracted entities; here they come from the judge LLM (an ordered-entity prompt, parsed and
checked against the question) or, offline, from a heuristic (capitalised spans and rare-word n-grams).
Then, following the paper's processing (../shared/research/redeep_selffam.md, section 4.2):

1. entities are put in question order; two adjacent ones are merged when their concatenation (with
   or without a space) occurs in the question; entities inside longer ones are dropped;
2. single very common lower-case words (the ``common_top_n`` most frequent English words, from
   ``wordfreq``) are dropped, unless that would drop everything;
3. concepts are ordered rarest first, rarity = sum over words of rank / 100 (the paper's
   ``prod exp(-rank/100)`` in log space), where a capitalised or unlisted word gets rank 100,000.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from trustscore.core._hashing import short_hash
from trustscore.llm._protocol import LLM, ChatRequest, ChatResult, Constraint, Message

__all__ = [
    "CONCEPT_PROMPT",
    "Concept",
    "concept_request",
    "extract_concepts_heuristic",
    "extract_concepts_llm",
    "parse_concepts",
    "prepare_concepts",
    "word_rank",
]

MAX_RANK = 100_000
"""Rank of a word that is capitalised or not among the 100,000 most frequent (maximally rare)."""

CONCEPT_PROMPT = (
    "Read the question below and list the named entities, concepts and technical terms a person must "
    "know to answer it. Copy each one exactly as it is written in the question, keep them in the order "
    "they appear, and leave out everyday words.\n\n"
    "Question: {question}\n\n"
    'Answer with JSON: {{"concepts": ["...", "..."]}}'
)
CONCEPT_PROMPT_VERSION = short_hash(CONCEPT_PROMPT)

_CONCEPT_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "properties": {"concepts": {"type": "array", "items": {"type": "string"}, "maxItems": 20}},
    "required": ["concepts"],
    "additionalProperties": False,
}

# A small English function-word list (ours); the heuristic never starts or ends a concept with one.
_STOPWORD_TEXT = """
a an the and or but nor of in on at to for from by with about into onto over under between among as
is are was were be been being am do does did done have has had having can could shall should will
would may might must not no yes so than then that this these those there here it its itself he she
they them their his her him we us our you your i me my what which who whom whose when where why how
if whether also just only very more most less least much many some any each every all both either
neither other another such own same few lot lots please tell explain describe give list name
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-.]*[A-Za-z0-9]|[A-Za-z0-9]")


@dataclass(frozen=True)
class Concept:
    text: str
    rarity: float
    """Sum over words of rank / 100 (higher = rarer); the paper's weight is exp(-rarity)."""
    position: int
    """Character offset of the concept in the question (-1 when not found verbatim)."""


def word_rank(word: str) -> int:
    """Frequency rank of a word (0 = most frequent); capitalised or unlisted words get ``MAX_RANK``."""
    if word[:1].isupper():
        return MAX_RANK
    return _listed_rank(word.lower())


def _listed_rank(word: str) -> int:
    """The rank in wordfreq's English list (``MAX_RANK`` beyond it or when absent)."""
    from trustscore.textmodels import rank

    found = rank(word)
    return found if found is not None and found < MAX_RANK else MAX_RANK


def _rarity(text: str) -> float:
    words = _WORD.findall(text) or [text]
    return sum(word_rank(w) for w in words) / 100.0


def _is_common(text: str, top_n: int) -> bool:
    """One lower-case word among the ``top_n`` most frequent (a capitalised name like "Vienna" is kept)."""
    words = _WORD.findall(text)
    return len(words) == 1 and not words[0][:1].isupper() and _listed_rank(words[0].lower()) < top_n


def prepare_concepts(
    question: str, entities: Sequence[str], *, common_top_n: int = 10_000, max_concepts: int | None = None
) -> list[Concept]:
    """Order, merge, de-duplicate, filter and rank raw entities (rarest first)."""
    lowered = question.lower()
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    for raw in entities:
        text = raw.strip().strip("\"'“”‘’.,;:?!()[]").strip()
        if not text or text.lower() in seen:
            continue
        seen.add(text.lower())
        found.append((lowered.find(text.lower()), text))
    found.sort(key=lambda item: (item[0] < 0, item[0]))
    merged = _merge_adjacent([t for _, t in found], lowered)
    uncovered = [t for t in merged if not any(t != o and t.lower() in o.lower() for o in merged)]
    kept = [t for t in uncovered if not _is_common(t, common_top_n)] or uncovered
    concepts = [Concept(text=t, rarity=_rarity(t), position=lowered.find(t.lower())) for t in kept]
    concepts.sort(key=lambda c: -c.rarity)  # stable: equal rarity keeps question order
    return concepts[:max_concepts] if max_concepts is not None else concepts


def _merge_adjacent(texts: list[str], lowered_question: str) -> list[str]:
    out = list(texts)
    changed = True
    while changed:
        changed = False
        for i in range(len(out) - 1):
            for joiner in (" ", ""):
                joined = out[i] + joiner + out[i + 1]
                if joined.lower() in lowered_question:
                    out[i : i + 2] = [joined]
                    changed = True
                    break
            if changed:
                break
    return out


# ---- heuristic extraction ------------------------------------------------------------------------

_CONNECTORS = frozenset({"of", "the", "de", "la", "von", "van", "der", "and", "v", "vs", "for", "on", "a"})


def extract_concepts_heuristic(question: str, *, common_top_n: int = 10_000) -> list[str]:
    """Capitalised spans (inner connectors allowed) and runs of rare lower-case words, in question order.

    A capitalised word that only starts the sentence and is common ("What", "Explain") is not a concept.
    A question with neither falls back to its rarest content word.
    """
    tokens = [(m.group(0), m.start()) for m in _WORD.finditer(question)]
    # a full stop after one letter ("v.", initials) or "vs." does not end a sentence
    sentence_starts = {0} | {m.end() for m in re.finditer(r"(?<!\b[A-Za-z])(?<!\bvs)[.?!:]\s+|\n", question)}
    first_in_sentence = {
        i for i, (_, at) in enumerate(tokens) if at in sentence_starts or question[:at].strip() == ""
    }

    def is_named(i: int) -> bool:
        word = tokens[i][0]
        if word.lower() in STOPWORDS and i in first_in_sentence:
            return False
        if word[:1].isupper() or any(ch.isdigit() for ch in word) or (len(word) > 1 and word.isupper()):
            return not (
                i in first_in_sentence
                and _listed_rank(word.lower()) < common_top_n
                and not word.isupper()
            )
        return False

    def is_rare(i: int) -> bool:
        word = tokens[i][0].lower()
        return word not in STOPWORDS and len(word) > 2 and _listed_rank(word) >= common_top_n

    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        if is_named(i):
            j = i + 1
            while j < len(tokens):
                if is_named(j):
                    j += 1
                elif tokens[j][0].lower() in _CONNECTORS and j + 1 < len(tokens) and is_named(j + 1):
                    j += 2
                else:
                    break
            spans.append((i, j))
            i = j
        elif is_rare(i):
            j = i + 1
            while j < len(tokens) and is_rare(j) and not is_named(j):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    if not spans:
        content = [k for k, (word, _) in enumerate(tokens) if word.lower() not in STOPWORDS and len(word) > 2]
        if content:
            rarest = max(content, key=lambda k: (_listed_rank(tokens[k][0].lower()), -k))
            spans = [(rarest, rarest + 1)]
    out = []
    for a, b in spans:
        start = tokens[a][1]
        end = tokens[b - 1][1] + len(tokens[b - 1][0])
        out.append(question[start:end])
    return out


# ---- LLM extraction ------------------------------------------------------------------------------


class _ConceptList(BaseModel):
    model_config = ConfigDict(extra="ignore")
    concepts: list[str]


def concept_request(question: str) -> ChatRequest:
    return ChatRequest(
        messages=[Message(role="user", content=CONCEPT_PROMPT.format(question=question))],
        temperature=0.0,
        max_tokens=256,
        constraint=Constraint(json_schema=_CONCEPT_SCHEMA),
        tag=f"familiarity-concepts@{CONCEPT_PROMPT_VERSION}",
    )


def parse_concepts(text: str, question: str) -> list[str]:
    """The judge's concepts that really occur in the question (a concept it made up is dropped).

    Accepts the JSON object asked for, or, from a server that ignored the constraint, one concept a line.
    Raises ``ValueError`` when nothing usable is in the answer.
    """
    items: list[str]
    try:
        items = _ConceptList.model_validate(json.loads(text)).concepts
    except (json.JSONDecodeError, ValidationError):
        items = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip() for line in text.splitlines()]
    lowered = question.lower()
    kept = [
        c.strip().strip("\"'")
        for c in items
        if c.strip().strip("\"'") and c.strip().strip("\"'").lower() in lowered
    ]
    if not kept and items and any(i.strip() for i in items):
        raise ValueError("the concept extractor named nothing that occurs in the question")
    return kept


async def extract_concepts_llm(question: str, llm: LLM) -> tuple[list[str], ChatResult]:
    """Ask the judge LLM for the question's concepts (raises LLMError / ValueError on failure)."""
    result = await llm.generate(concept_request(question))
    return parse_concepts(result.text, question), result
