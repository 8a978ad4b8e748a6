"""Where a fresh process's claims pipeline spends its CPU: spaCy's import, the parts of its load, and
the first check.

    python -m benchmarks.speed.bench_claims_load --python VENV/bin/python [--baseline VENV/bin/python]
        [--repeats 5]

Runs ``--repeats`` fresh processes of ``--python`` (a README install, ``pip install '<checkout>[claims]'``;
editable, to measure a working tree) with trustscore and numpy imported first (the plain install
imports them too), each timing the CPU seconds of its one thread for: spaCy's import as the claims
check imports it; the pipeline's load, split into what ``Language.from_disk`` reads (the vocabulary,
the tokenizer with its special cases and patterns, each component's weights or tables) and the rest
(config, registry, building the components); and the first claims check of one short sample on the
loaded pipeline. Prints min / median / max of each part. With ``--baseline`` (another README install,
e.g. of the tree before a change) its processes alternate with ``--python``'s in the same run, and the
table has a column for each. Each variant first runs once untimed, so that its bytecode is written, as
a pip install's is.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PARTS = r"""
import json, time, warnings
warnings.simplefilter("ignore")
import numpy, trustscore
from trustscore import Sample
from trustscore.grounding.claims import _pipeline
from trustscore.grounding.claims._signal import ClaimsCheck
from trustscore.grounding.claims._thinc_import import import_spacy

check = ClaimsCheck()
cpu = time.thread_time
began = cpu()
import_spacy(keep_torch_out=True)
parts = {"import spaCy": cpu() - began}
import spacy.util

read = spacy.util.from_disk


def timed_from_disk(path, readers, exclude):
    if "tokenizer" not in readers or "vocab" not in readers:  # a component's own files
        return read(path, readers, exclude)

    def timed(name, reader):
        def run(p):
            began = cpu()
            try:
                return reader(p)
            finally:
                parts[f"load: {name}"] = cpu() - began

        return run

    return read(path, {name: timed(name, reader) for name, reader in readers.items()}, exclude)


spacy.util.from_disk = timed_from_disk
began = cpu()
check.pipeline.nlp()
load = cpu() - began
parts["load: config, registry, building"] = load - sum(v for k, v in parts.items() if k.startswith("load: "))
sample = Sample(question="When did the bridge open?", context=["The bridge opened in 1998."],
                response="It opened in 1998.")
began = cpu()
assert check.score(sample).value is not None
parts["first check"] = cpu() - began
parts["total"] = parts["import spaCy"] + load + parts["first check"]
print(json.dumps(parts))
"""


def parts_once(python: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    with tempfile.TemporaryDirectory() as cache:
        env["TRUSTSCORE_CACHE_DIR"] = cache
        out = subprocess.run([str(python), "-c", PARTS], capture_output=True, text=True, env=env, cwd=cache)
    if out.returncode:
        raise SystemExit(f"{python} failed:\n{out.stderr[-3000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.bench_claims_load")
    parser.add_argument("--python", type=Path, required=True, help="the python of a README install")
    parser.add_argument("--baseline", type=Path, help="another README install's python, run alternately")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pythons = {"this install": args.python}
    if args.baseline is not None:
        pythons["baseline"] = args.baseline
    for python in pythons.values():
        parts_once(python)  # untimed: writes the bytecode an install would have
    print(f"load before: {os.getloadavg()}")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in pythons}
    for _ in range(args.repeats):
        for name, python in pythons.items():
            runs[name].append(parts_once(python))
    print(f"load after: {os.getloadavg()}\n")
    print("| part | " + " | ".join(f"CPU s, {name}, min / median / max" for name in pythons) + " |")
    print("|---|" + "---|" * len(pythons))
    for part in runs["this install"][0]:
        cells = []
        for name in pythons:
            values = [run.get(part, 0.0) for run in runs[name]]
            cells.append(f"{min(values):.3f} / {statistics.median(values):.3f} / {max(values):.3f}")
        print(f"| {part} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
