"""Build the multi-domain labeled corpus the shipped calibrator is fitted and checked on.

    .venv/bin/python -m calibration.build_corpus [--data ../shared/data] [--mirrors ../.mirror]
        [-o .cache-data/corpus/corpus.jsonl] [--per-domain 200]
    .venv/bin/python -m calibration.build_corpus --extra .cache-data/corpus/corpus.jsonl \
        [--per-domain 400] -o .cache-data/corpus/extra.jsonl

Reads public snapshots already on disk (``git show`` on bare mirrors, as the project's ``fetch`` tool
leaves them) and RAGTruth from ``../shared/data``; writes one JSONL row per (context, response) with
``id``, ``dataset`` (the domain), ``source_id`` (the group key: rows sharing a document share it),
``question``, ``context``, ``response``, ``hallucinated`` (true = not faithful) and ``licence``. The corpus is
written OUTSIDE the repository (default ``.cache-data/corpus/``, gitignored) and never committed.

Domains, sources and licences (the licence travels with every row):

- ``ragtruth_qa`` / ``ragtruth_summary`` / ``ragtruth_data2txt``: RAGTruth test + train_extra in
  ``../shared/data/ragtruth`` (ParticleMedia/RAGTruth). Licence: MIT.
- ``frank_cnndm``: artidoro/frank, labels ``80a88fb12c:data/human_annotations.json``, texts
  ``cb46ad1e98:data/articles-wbertscore-json/`` (the CNN/DM part; Factuality == 1.0 is faithful).
  Licence: MIT.
- ``xsumfaith``: tingofurro/summac PR 15 (``46056e54e3:data/xsumfaith.json``), the validation cut of
  XSumFaith (google-research-datasets/xsum_hallucination_annotations). Licence: CC BY 4.0.
- ``factcc``: tingofurro/summac PR 15 (``46056e54e3:data/factcc.json``), the FactCC validation cut.
  Licence: BSD-3-Clause (FactCC); the summac repository is Apache-2.0.
- ``factscore``: amazon-science/Query-Conditioned-NLI ``e255f49bb2:data/factscore_*.json``: one atomic
  fact of a generated biography as a short answer to its question, Wikipedia passages as context
  ("contradiction" = hallucinated). Licence: upstream FActScore MIT, but the QC-NLI repository's
  LICENSE.txt says CC BY-NC 4.0 (its README says CC BY 4.0): **evaluation only, never in the shipped
  fit**.

Per-domain sizes are capped (``--per-domain``), sampled by whole documents with a fixed seed, so the
CPU cost of scoring stays small. Three public sets are reserved for the project's own held-out check
and are never read here.

``--extra CORPUS`` writes a fit-only set instead: rows of the shippable sources whose document is in no
row of ``CORPUS`` (the same text, however tokenized: ``_Shingles``), plus ``frank_bbc``, FRANK's BBC/XSum
part (labels MIT, over XSum articles: a training-only domain, not in the corpus); FActScore never. Each
extra row carries ``shares_documents_with``: the corpus domains whose full source holds its document (its
own domain included; FRANK BBC's articles are XSumFaith's), so a leave-one-domain-out fold that holds
out one of them leaves the row out of its training (``benchmarks.quality.fusion_forms --fit-extra``).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_MIRRORS = REPO.parent / ".mirror"
DEFAULT_OUT = REPO / ".cache-data" / "corpus" / "corpus.jsonl"

FRANK = ("artidoro+frank", "80a88fb12c", "cb46ad1e98")
SUMMAC = ("tingofurro+summac", "46056e54e3")
QCNLI = ("amazon-science+Query-Conditioned-NLI", "e255f49bb2")

SHIPPABLE = frozenset(
    {"ragtruth_qa", "ragtruth_summary", "ragtruth_data2txt", "frank_cnndm", "xsumfaith", "factcc"}
)
"""Domains whose licence lets a calibrator fitted on them ship in the wheel."""

_SUMMARY_QUESTION = "Summarize the following news article."
_CLAIM_QUESTION = "Is this statement about the article true?"

Row = dict[str, Any]


class SourceMissing(RuntimeError):
    """A snapshot or file the corpus needs is not on disk."""


def _git_show(mirrors: Path, repo: str, commit: str, path: str) -> str:
    git_dir = mirrors / repo / "repo"
    if not git_dir.exists():
        raise SourceMissing(f"{git_dir} not found: fetch github:{repo.replace('+', '/')} first")
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=False
    )
    if out.returncode != 0:
        raise SourceMissing(f"{repo}@{commit}:{path}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8")


def _git_ls(mirrors: Path, repo: str, commit: str, folder: str) -> list[str]:
    out = subprocess.run(
        ["git", "--git-dir", str(mirrors / repo / "repo"), "ls-tree", "--name-only", f"{commit}:{folder}"],
        capture_output=True,
        check=True,
    )
    return out.stdout.decode().split()


def ragtruth(data: Path) -> Iterator[Row]:
    for split in ("test", "train_extra"):
        path = data / "ragtruth" / f"{split}.jsonl"
        if not path.exists():
            raise SourceMissing(f"{path} not found; pass --data DIR holding ragtruth/")
        for line in path.open(encoding="utf-8"):
            r = json.loads(line)
            yield {
                "id": r["id"],
                "dataset": f"ragtruth_{r['task'].lower()}",
                "source_id": f"ragtruth-{r['source_id']}",
                "question": r["question"],
                "context": r["context"],
                "response": r["response"],
                "hallucinated": bool(r["hallucinated"]),
                "licence": "MIT",
            }


def frank(mirrors: Path, part: str = "cnndm") -> Iterator[Row]:
    """FRANK's human labels of one part (``cnndm`` or ``bbc``) joined with the articles on disk."""
    repo, labels_at, texts_at = FRANK
    annotations = json.loads(_git_show(mirrors, repo, labels_at, "data/human_annotations.json"))
    wanted = defaultdict(list)
    for a in annotations:
        if a["dataset"] == part:
            wanted[a["hash"]].append(a)
    listed = _git_ls(mirrors, repo, texts_at, "data/articles-wbertscore-json")
    present = {name.removesuffix(".json") for name in listed}
    prefix = "frank" if part == "cnndm" else f"frank_{part}"
    for doc_hash in sorted(set(wanted) & present):
        doc = json.loads(_git_show(mirrors, repo, texts_at, f"data/articles-wbertscore-json/{doc_hash}.json"))
        for a in wanted[doc_hash]:
            summary = doc.get(a["model_name"])
            if not summary:
                continue
            yield {
                "id": f"{prefix}-{doc_hash[:12]}-{a['model_name']}",
                "dataset": f"frank_{part}",
                "source_id": f"{prefix}-{doc_hash}",
                "question": _SUMMARY_QUESTION,
                "context": [doc["article"]],
                "response": summary,
                "hallucinated": float(a["Factuality"]) < 1.0,
                "licence": "MIT",
            }


def summac_cut(mirrors: Path, name: str, licence: str) -> Iterator[Row]:
    repo, commit = SUMMAC
    data = json.loads(_git_show(mirrors, repo, commit, f"data/{name}.json"))
    for key, r in data.items():
        document = r["document"]
        yield {
            "id": f"{name}-{key}",
            "dataset": name,
            "source_id": f"{name}-" + hashlib.sha256(document.encode()).hexdigest()[:16],
            "question": _CLAIM_QUESTION if name == "factcc" else _SUMMARY_QUESTION,
            "context": [document],
            "response": r["claim"],
            "hallucinated": int(r["label"]) == 0,
            "licence": licence,
        }


def factscore(mirrors: Path) -> Iterator[Row]:
    repo, commit = QCNLI
    for generator in ("chatgpt", "instructgpt", "perplexityai"):
        text = _git_show(mirrors, repo, commit, f"data/factscore_{generator}.json")
        for b, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            bio = json.loads(line)
            passages = bio["tuple1"]["tuple"][0]
            context = [p.strip() for p in passages.replace("</s>", "").split("<s>") if p.strip()]
            notes = bio.get("additional_notes") or {}
            if isinstance(notes, str):
                notes = ast.literal_eval(notes)
            for q, (question, facts) in enumerate(notes.items()):
                for f, (fact, label) in enumerate(facts):
                    if label not in ("entailment", "contradiction"):
                        continue
                    yield {
                        "id": f"factscore-{generator}-{b}-{q}-{f}",
                        "dataset": "factscore",
                        "source_id": f"factscore-{generator}-{b}",
                        "question": question,
                        "context": context,
                        "response": fact,
                        "hallucinated": label == "contradiction",
                        "licence": "CC BY-NC 4.0 (QC-NLI wrapper; FActScore MIT)",
                    }


def sample_by_group(rows: list[Row], cap: int, seed: int) -> list[Row]:
    """Whole documents, in a seeded random order, until ``cap`` rows; at most 8 rows per document
    (so one article cannot fill a domain, while each embedded context serves several rows)."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        groups[r["source_id"]].append(r)
    rng = random.Random(seed)
    keys = sorted(groups)
    rng.shuffle(keys)
    out: list[Row] = []
    for k in keys:
        members = sorted(groups[k], key=lambda r: r["id"])
        rng.shuffle(members)
        out.extend(members[: max(1, min(8, cap - len(out)))])
        if len(out) >= cap:
            break
    return out


def build(data: Path, mirrors: Path, per_domain: int, seed: int = 0) -> list[Row]:
    by_domain: dict[str, list[Row]] = defaultdict(list)
    sources = [
        ragtruth(data),
        frank(mirrors),
        summac_cut(mirrors, "xsumfaith", "CC BY 4.0"),
        summac_cut(mirrors, "factcc", "BSD-3-Clause"),
        factscore(mirrors),
    ]
    for source in sources:
        for r in source:
            by_domain[r["dataset"]].append(r)
    out: list[Row] = []
    for domain in sorted(by_domain):
        out.extend(sample_by_group(by_domain[domain], per_domain, seed))
    return out


TRAINING_ONLY = {"frank_bbc": "xsumfaith"}
"""Domains only ever in the fit-only extra set (``--extra``), never in the corpus, each with the corpus
domain it is held out with: FRANK's BBC part labels summaries of XSumFaith's articles by XSumFaith's
systems."""


class _Shingles:
    """Which documents are the same text: sets of 8-word shingles (lowercased letters and digits), so
    a tokenized copy ("-lrb- cnn -rrb-", split "n't") of an article still matches its source; a document
    is held when half its shingles are."""

    WIDTH = 8
    SHARE = 0.5

    def __init__(self) -> None:
        self.seen: set[int] = set()

    @classmethod
    def of(cls, row: Row) -> set[int]:
        text = " ".join(row["context"]) if isinstance(row["context"], list) else str(row["context"])
        words = "".join(c if c.isalnum() else " " for c in text.lower()).split()
        return {hash(tuple(words[i : i + cls.WIDTH])) for i in range(max(1, len(words) - cls.WIDTH + 1))}

    def add(self, row: Row) -> None:
        self.seen |= self.of(row)

    def holds(self, row: Row) -> bool:
        mine = self.of(row)
        return len(mine & self.seen) >= self.SHARE * len(mine)


def build_extra(data: Path, mirrors: Path, corpus: list[Row], per_domain: int, seed: int = 0) -> list[Row]:
    """The fit-only set: rows of the shippable sources and of ``TRAINING_ONLY`` whose document is in no
    row of ``corpus``, sampled by whole documents, each with ``shares_documents_with``."""
    by_domain: dict[str, list[Row]] = defaultdict(list)
    sources = [
        ragtruth(data),
        frank(mirrors),
        frank(mirrors, "bbc"),
        summac_cut(mirrors, "xsumfaith", "CC BY 4.0"),
        summac_cut(mirrors, "factcc", "BSD-3-Clause"),
    ]
    for source in sources:
        for r in source:
            by_domain[r["dataset"]].append(r)
    return select_extra(by_domain, corpus, per_domain, seed)


def select_extra(by_domain: dict[str, list[Row]], corpus: list[Row], per_domain: int, seed: int) -> list[Row]:
    """Up to ``per_domain`` rows a domain of documents no ``corpus`` row holds, by whole documents, each
    with ``shares_documents_with``, the domains interleaved (a scoring run stopped early has scored some
    rows of each)."""
    in_corpus = _Shingles()
    for r in corpus:
        in_corpus.add(r)
    corpus_ids = {r["source_id"] for r in corpus}
    sources_of = {d: _Shingles() for d in by_domain if d in SHIPPABLE}
    for d, shingles in sources_of.items():
        for r in by_domain[d]:
            shingles.add(r)
    picked: list[list[Row]] = []
    for domain in sorted(by_domain):
        fresh = [r for r in by_domain[domain] if r["source_id"] not in corpus_ids and not in_corpus.holds(r)]
        rows = []
        for r in sample_by_group(fresh, per_domain, seed):
            shared = {d for d, shingles in sources_of.items() if shingles.holds(r)} | {domain}
            if domain in TRAINING_ONLY:
                shared.add(TRAINING_ONLY[domain])
            rows.append({**r, "shares_documents_with": sorted(shared)})
        picked.append(rows)
    longest = max(map(len, picked), default=0)
    return [rows[i] for i in range(longest) for rows in picked if i < len(rows)]


def _write(rows: list[Row], output: Path) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        counts[r["dataset"]][0] += 1
        counts[r["dataset"]][1] += int(r["hallucinated"])
    for domain, (n, pos) in sorted(counts.items()):
        print(f"{domain:20s} {n:4d} rows, {pos / n:.0%} hallucinated")
    print(f"wrote {len(rows)} rows to {output}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--per-domain", type=int, default=200)
    parser.add_argument(
        "--extra",
        type=Path,
        default=None,
        metavar="CORPUS",
        help="write the fit-only set of documents not in CORPUS instead (default: extra.jsonl beside it)",
    )
    args = parser.parse_args(argv)
    try:
        if args.extra is None:
            rows = build(args.data, args.mirrors, args.per_domain)
        else:
            corpus = [json.loads(line) for line in args.extra.open(encoding="utf-8")]
            rows = build_extra(args.data, args.mirrors, corpus, args.per_domain)
    except (SourceMissing, FileNotFoundError) as e:
        print(f"SKIP: {e}")
        return 1
    default = DEFAULT_OUT if args.extra is None else args.extra.with_name("extra.jsonl")
    _write(rows, args.output or default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
