"""Build the corruption benchmark's pairs: a faithful sentence and the same sentence with one fact changed.

    .venv/bin/python -m benchmarks.quality.corruption_pairs [--data ../shared/data] [--mirrors ../.mirror]
        [-o .cache-data/corruption/pairs.jsonl] [--pairs 2000] [--seed 0] [--exclude PAIRS.jsonl]
        [--max-context-words 300]

FactCC-style (Kryscinski et al., 2020), from real text: contexts of RAGTruth QA / Summary / Data2txt
(``../shared/data/ragtruth``), FRANK CNN/DM, XSumFaith and FactCC documents (the public mirrors
``calibration.build_corpus`` reads). Documents the calibration corpus samples (``build_corpus.build``)
are left out, so the shipped calibrator was never fitted on a context the benchmark uses. Per context,
up to two verbatim sentences and one paraphrase:

- ``verbatim``: a sentence of the context, as it stands;
- ``paraphrase``: a sentence of a RAGTruth response its annotators found faithful (no hallucinated span),
  not found verbatim in the context: the model's own words for what the context says.

Each faithful sentence gets up to five corruptions of different kinds, one fact changed each:
``number`` (a cardinal), ``date`` (a year, month or weekday), ``name`` (a person named in no other
place of the context), ``swapped entity`` (a person, organisation or place replaced by another of the
same type from the same context), ``negation`` (``not`` added after an auxiliary or removed),
``antonym`` (a word replaced by its opposite from a fixed list) and ``unit`` (a unit after a number
replaced by another of the same dimension). Written outside the repository (gitignored), never
committed; the fixed seed makes the same file every time from the same sources.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from calibration.build_corpus import (
    DEFAULT_DATA,
    DEFAULT_MIRRORS,
    SourceMissing,
    build,
    frank,
    ragtruth,
    summac_cut,
)

REPO = Path(__file__).resolve().parents[2]
DEFAULT_PAIRS = REPO / ".cache-data" / "corruption" / "pairs.jsonl"
PER_SENTENCE = 5
"""Corruptions of one faithful sentence at most (each of a different kind)."""
KINDS = ("number", "date", "name", "swapped entity", "negation", "antonym", "unit")
MAX_CONTEXT_WORDS = 300
"""Longer contexts are skipped in the benchmark: scoring cost grows with the context, the kinds of error do
not. A fit set may take longer ones (``--max-context-words``): past 300 words few contexts are left that
the benchmark and the corpus do not use."""

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December",
)  # fmt: skip
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ANTONYMS = {
    "increase": "decrease", "increased": "decreased", "increases": "decreases", "rose": "fell",
    "rise": "fall", "higher": "lower", "more": "fewer", "largest": "smallest", "larger": "smaller",
    "before": "after", "first": "last", "won": "lost", "win": "lose", "early": "late", "earlier": "later",
    "open": "closed", "opened": "closed", "best": "worst", "better": "worse", "strong": "weak",
    "positive": "negative", "up": "down", "maximum": "minimum", "north": "south", "east": "west",
    "old": "new", "older": "younger", "high": "low", "long": "short", "accepted": "rejected",
    "allowed": "banned", "guilty": "innocent", "entered": "left", "gained": "lost", "above": "below",
    "inside": "outside", "cheap": "expensive", "easy": "difficult", "major": "minor", "success": "failure",
    "always": "never", "agreed": "refused", "supported": "opposed", "start": "end", "started": "ended",
}  # fmt: skip
_ANTONYMS.update({v: k for k, v in list(_ANTONYMS.items()) if v not in _ANTONYMS})
_UNITS = {
    "km": "miles", "kilometres": "miles", "kilometers": "miles", "miles": "kilometres", "mph": "km/h",
    "kg": "pounds", "kilograms": "pounds", "pounds": "kilograms", "tonnes": "pounds", "tons": "kilograms",
    "percent": "points", "%": " points", "million": "billion", "billion": "million",
    "thousand": "million", "hours": "minutes", "minutes": "hours", "days": "weeks", "weeks": "months",
    "months": "years", "years": "months", "metres": "feet", "meters": "feet", "feet": "metres",
    "dollars": "euros", "euros": "dollars", "degrees": "percent", "seconds": "minutes", "inches": "cm",
    "cm": "inches", "acres": "hectares", "hectares": "acres", "litres": "gallons", "gallons": "litres",
}  # fmt: skip
_AUX = re.compile(
    r"\b(is|are|was|were|has been|have been|had been|can|will|could|would|should|may|must|did|does|do)\b"
    r"(?![-'])(?! (?:not|no|never|n't)\b)"
)
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|can|will|could|would|should|did|does|do) not ")
_CONTRACTED = re.compile(r"\b(is|are|was|were|has|have|had|could|would|should|did|does|do)n't ")
_YEAR = re.compile(r"\b(1[89]\d\d|20[0-3]\d)\b")
_NUMBER = re.compile(r"(?<![\w.,/:-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w/:-]|[.,]\d)")
_LIST_MARKER = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*\u2022])\s+")
_SENTENCE = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")

Row = dict[str, Any]
Corruptor = Callable[[str, "Source", random.Random], str | None]


class Source:
    """One context: its text, its entities by type and the names seen in other contexts."""

    def __init__(self, text: str, entities: dict[str, list[str]], other_people: list[str]) -> None:
        self.text = text
        self.entities = entities
        self.other_people = other_people


def sentences(text: str) -> list[str]:
    """The sentences of ``text``. A line break ends one (a list item, a heading, a passage's title), and
    a list item's marker ("1.", "2)", "-", "•") is no part of its sentence: joined to the line before,
    "...uses of soybeans:  1." would make a faithful sentence of a marker, and a changed marker a
    "corrupted" fact."""
    out: list[str] = []
    for line in text.split("\n"):
        item = _LIST_MARKER.sub("", line, count=1)
        out.extend(s.strip() for s in _SENTENCE.split(item) if s.strip())
    return out


def _replace_once(sentence: str, start: int, end: int, new: str) -> str:
    return sentence[:start] + new + sentence[end:]


def _number(sentence: str, src: Source, rng: random.Random) -> str | None:
    dated = re.compile(r"\s?(" + "|".join(_MONTHS) + r")\b")
    found = [
        m
        for m in _NUMBER.finditer(sentence)
        if not _YEAR.fullmatch(m.group(1))
        and not dated.match(sentence, m.end(1))
        and not re.search(r"(" + "|".join(_MONTHS) + r")\s$", sentence[: m.start(1)])
    ]
    if not found:
        return None
    m = rng.choice(found)
    text = m.group(1)
    value = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    for _ in range(20):
        factor = rng.choice((0.5, 2.0, 1.5, 0.75, 3.0, 1.2, 0.8))
        new_value = round(value * factor, decimals) if value else float(rng.randint(2, 9))
        new = f"{new_value:,.{decimals}f}" if "," in text else f"{new_value:.{decimals}f}"
        if new != text and new not in src.text:
            return _replace_once(sentence, m.start(1), m.end(1), new)
    return None


def _date(sentence: str, src: Source, rng: random.Random) -> str | None:
    years = list(_YEAR.finditer(sentence))
    words = [
        m
        for m in re.finditer(r"\b(" + "|".join((*_MONTHS, *_WEEKDAYS)) + r")\b", sentence)
        if m.group(1) != "May" or m.start() > 0
    ]
    choices = [("year", m) for m in years] + [("word", m) for m in words]
    if not choices:
        return None
    what, m = rng.choice(choices)
    if what == "year":
        year = int(m.group(1))
        options = [
            str(year + d) for d in (-9, -5, -3, -2, -1, 1, 2, 3, 5, 9) if str(year + d) not in src.text
        ]
    else:
        pool = _MONTHS if m.group(1) in _MONTHS else _WEEKDAYS
        options = [w for w in pool if w != m.group(1) and w not in src.text]
    return _replace_once(sentence, m.start(1), m.end(1), rng.choice(options)) if options else None


def _entity(sentence: str, labels: tuple[str, ...], src: Source) -> list[tuple[str, str]]:
    return [(label, e) for label in labels for e in src.entities.get(label, []) if e in sentence]


def _name(sentence: str, src: Source, rng: random.Random) -> str | None:
    people = _entity(sentence, ("PERSON",), src)
    if not people:
        return None
    _, old = rng.choice(people)
    new = [p for p in src.other_people if p not in src.text and len(p.split()) == len(old.split())]
    return sentence.replace(old, rng.choice(new)) if new else None


def _swapped(sentence: str, src: Source, rng: random.Random) -> str | None:
    found = _entity(sentence, ("PERSON", "ORG", "GPE", "NORP"), src)
    rng.shuffle(found)
    for label, old in found:
        others = [e for e in src.entities[label] if e not in sentence and old not in e and e not in old]
        if others:
            return sentence.replace(old, rng.choice(others))
    return None


def _negation(sentence: str, src: Source, rng: random.Random) -> str | None:
    for pattern, fix in ((_NEGATED, r"\1 "), (_CONTRACTED, r"\1 ")):
        if pattern.search(sentence):
            return pattern.sub(fix, sentence, count=1)
    found = list(_AUX.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    return _replace_once(sentence, m.start(1), m.end(1), f"{m.group(1)} not")


def _keep_case(old: str, new: str) -> str:
    return new[0].upper() + new[1:] if old[0].isupper() else new


def _antonym(sentence: str, src: Source, rng: random.Random) -> str | None:
    found = [m for m in re.finditer(r"\b[A-Za-z]+\b", sentence) if m.group(0).lower() in _ANTONYMS]
    if not found:
        return None
    m = rng.choice(found)
    return _replace_once(sentence, m.start(), m.end(), _keep_case(m.group(0), _ANTONYMS[m.group(0).lower()]))


def _unit(sentence: str, src: Source, rng: random.Random) -> str | None:
    units = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
    found = list(re.finditer(r"\d\s?(" + units + r")(?![A-Za-z])", sentence))
    if not found:
        return None
    m = rng.choice(found)
    new = _UNITS[m.group(1)]
    return _replace_once(sentence, m.start(1), m.end(1), new.strip() if m.group(1) != "%" else new)


CORRUPTORS: dict[str, Corruptor] = {
    "number": _number,
    "date": _date,
    "name": _name,
    "swapped entity": _swapped,
    "negation": _negation,
    "antonym": _antonym,
    "unit": _unit,
}


def _contexts(data: Path, mirrors: Path) -> Iterator[Row]:
    used = {r["source_id"] for r in build(data, mirrors, 200)}
    sources = [
        ragtruth(data),
        frank(mirrors),
        summac_cut(mirrors, "xsumfaith", "CC BY 4.0"),
        summac_cut(mirrors, "factcc", "BSD-3-Clause"),
    ]
    for source in sources:
        for r in source:
            if r["source_id"] not in used:
                yield r


def _by_context(data: Path, mirrors: Path, max_words: int) -> dict[str, dict[str, Any]]:
    """source_id -> the context, its question, its domain and its faithful response sentences, for the
    contexts of at most ``max_words`` words."""
    out: dict[str, dict[str, Any]] = {}
    for r in _contexts(data, mirrors):
        text = "\n".join(r["context"])
        if len(text.split()) > max_words:
            continue
        entry = out.setdefault(
            r["source_id"],
            {"text": text, "context": r["context"], "question": r["question"], "domain": r["dataset"],
             "responses": []},
        )  # fmt: skip
        if r["dataset"].startswith("ragtruth") and not r["hallucinated"]:
            entry["responses"].extend(s for s in sentences(r["response"]) if s not in text)
    return out


def _eligible(sentence: str) -> bool:
    return 8 <= len(sentence.split()) <= 40 and not sentence.startswith(("{", "-", "*", "#"))


def _entities(nlp: Any, texts: list[str]) -> list[dict[str, list[str]]]:
    out = []
    for doc in nlp.pipe(texts, batch_size=32):
        found: dict[str, list[str]] = {}
        for ent in doc.ents:
            wanted = ent.label_ in ("PERSON", "ORG", "GPE", "NORP") and ent.text[:1].isupper()
            if wanted and ent.text not in found.get(ent.label_, []):
                found.setdefault(ent.label_, []).append(ent.text)
        out.append(found)
    return out


def _corrupt(sentence: str, src: Source, rng: random.Random, counts: Counter[str]) -> list[tuple[str, str]]:
    """Up to :data:`PER_SENTENCE` corruptions of different kinds, the rarer kinds so far first."""
    kinds = sorted(KINDS, key=lambda k: (counts[k], rng.random()))
    out: list[tuple[str, str]] = []
    for kind in kinds:
        changed = CORRUPTORS[kind](sentence, src, rng)
        if changed and changed != sentence and changed.strip():
            out.append((kind, changed))
            counts[kind] += 1
        if len(out) == PER_SENTENCE:
            break
    return out


def build_pairs(
    data: Path,
    mirrors: Path,
    n_pairs: int,
    seed: int = 0,
    exclude: frozenset[str] = frozenset(),
    max_words: int = MAX_CONTEXT_WORDS,
) -> list[Row]:
    """Rows of the benchmark, contexts in a seeded order until ``n_pairs`` corrupted rows: per context
    up to two verbatim sentences and one paraphrase, each with its corruptions; contexts whose
    source_id is in ``exclude``, or longer than ``max_words`` words, are skipped."""
    import spacy

    from trustscore.grounding.claims._config import DEFAULT_PIPELINES

    installed = set(spacy.util.get_installed_models())
    nlp = spacy.load(next(p for p in DEFAULT_PIPELINES if p in installed), disable=["parser", "lemmatizer"])
    rng = random.Random(seed)
    contexts = _by_context(data, mirrors, max_words)
    keys = sorted(k for k in contexts if k not in exclude)
    rng.shuffle(keys)
    keys = keys[:n_pairs]
    entities = _entities(nlp, [contexts[k]["text"] for k in keys])
    people = sorted({p for e in entities for p in e.get("PERSON", [])})
    rows: list[Row] = []
    counts: Counter[str] = Counter()
    for key, ents in zip(keys, entities, strict=True):
        c = contexts[key]
        src = Source(c["text"], ents, [p for p in people if p not in c["text"]])
        faithful = []
        verbatim = (
            [s for s in sentences(c["text"]) if _eligible(s)] if c["domain"] != "ragtruth_data2txt" else []
        )
        paraphrase = [s for s in c["responses"] if _eligible(s)]
        for role, pool, wanted in (("verbatim", verbatim, 2), ("paraphrase", paraphrase, 1)):
            rng.shuffle(pool)
            for s in pool[:6]:
                corrupted = _corrupt(s, src, rng, counts)
                if len(corrupted) >= 2:
                    faithful.append((role, s, corrupted))
                if sum(f[0] == role for f in faithful) == wanted:
                    break
        if not faithful:
            continue
        for f, (role, s, corrupted) in enumerate(faithful):
            base = {
                "dataset": "corruptions",
                "source_id": key,
                "context_domain": c["domain"],  # not "domain": a scored row's domain check takes that name
                "question": c["question"],
                "context": c["context"],
            }
            rows.append({**base, "id": f"{key}-{f}", "kind": role, "faithful_of": None, "response": s,
                         "hallucinated": False})  # fmt: skip
            for k, (kind, changed) in enumerate(corrupted):
                rows.append({**base, "id": f"{key}-{f}-{k}", "kind": kind, "faithful_of": f"{key}-{f}",
                             "response": changed, "hallucinated": True})  # fmt: skip
        if sum(r["hallucinated"] for r in rows) >= n_pairs:
            break
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_PAIRS)
    parser.add_argument("--pairs", type=int, default=2000, help="corrupted rows to build (at least)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--exclude",
        type=Path,
        default=None,
        help="a pairs file whose contexts to leave out (a fit set disjoint from the benchmark's contexts)",
    )
    parser.add_argument(
        "--max-context-words",
        type=int,
        default=MAX_CONTEXT_WORDS,
        help="skip longer contexts (a fit set may take longer ones than the benchmark's)",
    )
    args = parser.parse_args(argv)
    exclude: frozenset[str] = frozenset()
    if args.exclude is not None:
        exclude = frozenset(json.loads(line)["source_id"] for line in args.exclude.open(encoding="utf-8"))
    try:
        rows = build_pairs(args.data, args.mirrors, args.pairs, args.seed, exclude, args.max_context_words)
    except SourceMissing as e:
        print(f"SKIP: {e}")
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    kinds = Counter(r["kind"] for r in rows)
    domains = Counter(r["context_domain"] for r in rows)
    pairs = sum(bool(r["hallucinated"]) for r in rows)
    print(f"wrote {len(rows)} rows ({pairs} corrupted) from {len({r['source_id'] for r in rows})} contexts")
    print("kinds:", dict(kinds))
    print("domains:", dict(domains))
    return 0


if __name__ == "__main__":
    sys.exit(main())
