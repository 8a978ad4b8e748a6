"""Build the multi-domain labeled corpus the shipped calibrator is fitted and checked on.

    .venv/bin/python -m calibration.build_corpus [--data ../shared/data] [--mirrors ../.mirror]
        [-o .cache-data/corpus/corpus.jsonl] [--per-domain 200]

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


def frank_cnndm(mirrors: Path) -> Iterator[Row]:
    repo, labels_at, texts_at = FRANK
    annotations = json.loads(_git_show(mirrors, repo, labels_at, "data/human_annotations.json"))
    wanted = defaultdict(list)
    for a in annotations:
        if a["dataset"] == "cnndm":
            wanted[a["hash"]].append(a)
    listed = _git_ls(mirrors, repo, texts_at, "data/articles-wbertscore-json")
    present = {name.removesuffix(".json") for name in listed}
    for doc_hash in sorted(set(wanted) & present):
        doc = json.loads(_git_show(mirrors, repo, texts_at, f"data/articles-wbertscore-json/{doc_hash}.json"))
        for a in wanted[doc_hash]:
            summary = doc.get(a["model_name"])
            if not summary:
                continue
            yield {
                "id": f"frank-{doc_hash[:12]}-{a['model_name']}",
                "dataset": "frank_cnndm",
                "source_id": f"frank-{doc_hash}",
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
        frank_cnndm(mirrors),
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--per-domain", type=int, default=200)
    args = parser.parse_args(argv)
    try:
        rows = build(args.data, args.mirrors, args.per_domain)
    except SourceMissing as e:
        print(f"SKIP: {e}")
        return 1
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        counts[r["dataset"]][0] += 1
        counts[r["dataset"]][1] += int(r["hallucinated"])
    for domain, (n, pos) in sorted(counts.items()):
        print(f"{domain:20s} {n:4d} rows, {pos / n:.0%} hallucinated")
    print(f"wrote {len(rows)} rows to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
