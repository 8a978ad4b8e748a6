"""Scale out: the local command vs ``score --ray`` against the fake vLLM, and the Ray path's memory.

    python -m benchmarks.service.bench_scale [--samples 2000] [--repeats 3] [--out out/bench_scale.json]

Every arm is the real command a user runs (``python -m trustscore.cli score ...``) in its own process;
the fake vLLM server (trustscore.testing, judge_policy, a latency model with ``slots`` service slots
of ``overhead_s`` each, so capacity = slots / overhead_s requests/s) runs in another process, and the
Ray arms join one local Ray started here (started once: cluster start-up is not a per-run cost).

(a) Throughput, arms interleaved over ``--repeats`` rounds, for each server capacity in ``--slots``:
    local command, Ray with 1 actor, Ray with 2 actors. Figures: requests/s, the share of the
    server's capacity used (busy slot-seconds / (wall x slots)), and the client CPU per request
    (the local command's own CPU; for Ray the actors' CPU plus the driver's).
(b) Memory: peak resident memory (VmHWM) of the driver and of each actor while scoring
    ``--memory-samples`` small samples with the lexical signal (no judge: 100,000 judge calls take
    longer than this 2-core box can give), for each size given, ``--repeats`` times interleaved:
    bounded memory means the peaks do not grow with the input. An actor's VmHWM also counts the
    pages of Ray's shared object store it has written blocks into, so the actor's private memory
    (largest sampled RssAnon) is reported beside it.
(c) Client CPU per judge request, in this process (no start-up): ``score_many`` over ``--samples``
    samples against a zero-latency server. This is what an actor core spends per request, the
    figure the sizing model in docs/deployment.md uses.

The box is shared and has 2 cores: the report prints the load average, and ratios within one run
are what to read.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks._results import report_and_save
from benchmarks.judges.bench_judges import ServerProcess, make_samples
from trustscore.testing import LatencyModel

REPO = Path(__file__).resolve().parents[2]
TICK = os.sysconf("SC_CLK_TCK")


# -- watching processes ------------------------------------------------------------------------


def _status_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _cpu_s(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _actor_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"ScoreBatches" in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


class Watcher:
    """Polls the driver and every scoring actor: last CPU seconds, peak and sampled resident memory."""

    def __init__(self, driver: int | None, period_s: float = 0.25) -> None:
        self.driver = driver
        self.period_s = period_s
        self.cpu: dict[int, float] = {}
        self.peak_kb: dict[int, int] = {}
        self.private_peak_kb: dict[int, int] = {}
        """Largest sampled RssAnon: the process's own heap, without the object store's shared pages
        that a Ray worker maps (VmHWM counts every page it touched there)."""
        self.rss_series: dict[int, list[tuple[float, int]]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.perf_counter()
        self._old = set(_actor_pids())  # actors of an earlier run, still being torn down

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = [p for p in _actor_pids() if p not in self._old] + ([self.driver] if self.driver else [])
            for pid in pids:
                cpu, hwm, rss = _cpu_s(pid), _status_kb(pid, "VmHWM"), _status_kb(pid, "VmRSS")
                anon = _status_kb(pid, "RssAnon")
                if anon is not None:
                    self.private_peak_kb[pid] = max(self.private_peak_kb.get(pid, 0), anon)
                if cpu is not None:
                    self.cpu[pid] = cpu
                if hwm is not None:
                    self.peak_kb[pid] = max(self.peak_kb.get(pid, 0), hwm)
                if rss is not None:
                    self.rss_series.setdefault(pid, []).append((time.perf_counter() - self._t0, rss))
            self._stop.wait(self.period_s)

    def actors(self) -> list[int]:
        return [p for p in self.peak_kb if p != self.driver]


# -- inputs and configs --------------------------------------------------------------------------


def write_samples(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for start in range(0, n, 1000):
            for s in make_samples(min(1000, n - start)):
                row = s.model_dump(exclude={"metadata"})
                row["id"] = f"{row['id']}-{start}"
                f.write(json.dumps(row) + "\n")
    return path


def write_small_samples(path: Path, n: int) -> Path:
    """Short samples streamed to disk (the generator never holds them all)."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(
                json.dumps(
                    {
                        "id": f"s{i}",
                        "question": f"Where is landmark {i}?",
                        "context": f"Landmark {i} stands in the old town, next to the market.",
                        "response": f"Landmark {i} is in the old town." if i % 2 else "It is on the moon.",
                    }
                )
                + "\n"
            )
    return path


def write_config(path: Path, server: ServerProcess, judges: Sequence[str], *, lexical: bool) -> Path:
    lines = [
        "[endpoints.judge]",
        f'base_url = "{server.base_url}"',
        f'model = "{server.model}"',
        "initial_concurrency = 256",
        "max_concurrency = 256",
        "",
        "[signals.lexical]",
        f"enabled = {'true' if lexical else 'false'}",
        "[signals.embedding]",
        "enabled = false",
        "",
        "[cache]",
        'mode = "off"',
        "",
        "[limits]",
        "max_concurrent_samples = 512  # the server's slots, not the client's limit, should bind",
    ]
    for judge in judges:
        lines += ["", f"[judges.{judge}]", 'endpoint = "judge"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- one run of the command ----------------------------------------------------------------------


def run_command(
    source: Path, output: Path, config: Path, *, ray_address: str | None, actors: int | None
) -> dict[str, Any]:
    command = [sys.executable, "-m", "trustscore.cli", "score", str(source), "-o", str(output)]
    command += ["--config", str(config), "--no-progress"]
    if ray_address is not None:
        command += ["--ray", "--address", ray_address, "--actors", str(actors)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_quiet_env()
    )
    with Watcher(proc.pid) as watcher:
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode}):\n{err.decode()[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    driver_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    actors_cpu = sum(watcher.cpu[p] for p in watcher.actors())
    return {
        "wall_s": wall,
        "driver_cpu_s": driver_cpu,
        "actors_cpu_s": actors_cpu,
        "driver_peak_mb": watcher.peak_kb.get(proc.pid, 0) / 1024,
        "actor_peak_mb": [watcher.peak_kb[p] / 1024 for p in watcher.actors()],
        "actor_private_peak_mb": [watcher.private_peak_kb.get(p, 0) / 1024 for p in watcher.actors()],
        "actor_rss_series_mb": [
            [(round(t, 1), kb / 1024) for t, kb in watcher.rss_series[p]] for p in watcher.actors()
        ],
        "driver_rss_series_mb": [(round(t, 1), kb / 1024) for t, kb in watcher.rss_series.get(proc.pid, [])],
    }


def _quiet_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    return env


def _clear(path: Path) -> None:
    if path.is_dir():
        for child in path.iterdir():
            child.unlink()
        path.rmdir()
    elif path.exists():
        path.unlink()


# -- (a) throughput ------------------------------------------------------------------------------


def bench_throughput(
    work: Path,
    ray_address: str,
    n: int,
    settings: Sequence[tuple[int, float]],
    repeats: int,
    judges: Sequence[str],
) -> list[dict[str, Any]]:
    source = write_samples(work / "throughput.jsonl", n)
    arms: list[tuple[str, int | None]] = [("local", None), ("ray-1-actor", 1), ("ray-2-actors", 2)]
    out = []
    for slots, overhead_s in settings:
        server = ServerProcess(LatencyModel(capacity=slots, overhead_s=overhead_s))
        try:
            config = write_config(work / f"t{slots}.toml", server, judges, lexical=False)
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in arms}
            for round_ in range(repeats):
                for name, actors in arms:
                    print(
                        f"  capacity {slots / overhead_s:.0f} req/s, {name}, round {round_ + 1}",
                        file=sys.stderr,
                    )
                    output = work / ("out.jsonl" if actors is None else "out-ray.jsonl")
                    _clear(output)
                    server.ask("reset")
                    run = run_command(
                        source, output, config, ray_address=ray_address if actors else None, actors=actors
                    )
                    stats = server.ask("stats")
                    run.pop("actor_rss_series_mb")
                    run.pop("driver_rss_series_mb")
                    run["requests"] = stats["requests"]
                    run["requests_per_s"] = stats["requests"] / run["wall_s"]
                    run["capacity_used"] = stats["busy_s"] / (run["wall_s"] * slots)
                    client_cpu = run["driver_cpu_s"] + run["actors_cpu_s"]
                    run["client_cpu_ms_per_request"] = 1000 * client_cpu / max(stats["requests"], 1)
                    runs[name].append(run)
            out.append(
                {
                    "slots": slots,
                    "overhead_s": overhead_s,
                    "capacity_requests_per_s": slots / overhead_s,
                    "samples": n,
                    "judges": list(judges),
                    "load_average_after": os.getloadavg(),
                    "arms": {name: _summary(rs) for name, rs in runs.items()},
                }
            )
        finally:
            server.stop()
    return out


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = (
        "wall_s",
        "requests_per_s",
        "capacity_used",
        "client_cpu_ms_per_request",
        "driver_cpu_s",
        "actors_cpu_s",
    )
    return {
        k: {
            "min": min(r[k] for r in runs),
            "median": statistics.median(r[k] for r in runs),
            "max": max(r[k] for r in runs),
        }
        for k in keys
    } | {"requests": runs[0]["requests"]}


# -- (b) memory ----------------------------------------------------------------------------------


def bench_memory(work: Path, ray_address: str, sizes: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    """Each size ``repeats`` times, the sizes interleaved, so load on the box hits them alike."""
    server = ServerProcess(None)  # no latency: the pipeline, not the server, is what is measured
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in sizes}
    try:
        config = write_config(work / "memory.toml", server, [], lexical=True)
        sources = {n: write_small_samples(work / f"small-{n}.jsonl", n) for n in sizes}
        for round_ in range(repeats):
            for n in sizes:
                print(f"  memory, {n} samples, round {round_ + 1}", file=sys.stderr)
                output = work / f"small-{n}-out.jsonl"
                _clear(output)
                run = run_command(sources[n], output, config, ray_address=ray_address, actors=1)
                written = sum(1 for f in output.iterdir() for _ in f.open("rb"))
                runs[n].append(
                    {
                        "rows_written": written,
                        "wall_s": run["wall_s"],
                        "samples_per_s": n / run["wall_s"],
                        "driver_peak_mb": run["driver_peak_mb"],
                        "actor_peak_mb": max(run["actor_peak_mb"]),
                        "actor_private_peak_mb": max(run["actor_private_peak_mb"]),
                        "actors": len(run["actor_peak_mb"]),
                        "driver_rss_by_decile_mb": _deciles(run["driver_rss_series_mb"]),
                        "actor_rss_by_decile_mb": [_deciles(s) for s in run["actor_rss_series_mb"]],
                    }
                )
                _clear(output)
        for source in sources.values():
            source.unlink()
    finally:
        server.stop()
    return [
        {
            "samples": n,
            "rows_written": [r["rows_written"] for r in rs],
            **{
                k: _spread([r[k] for r in rs])
                for k in ("samples_per_s", "driver_peak_mb", "actor_peak_mb", "actor_private_peak_mb")
            },
            "runs": rs,
        }
        for n, rs in runs.items()
    ]


def _spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _deciles(series: list[tuple[float, float]]) -> list[float]:
    """The largest resident size seen in each tenth of the run: flat means bounded."""
    if not series:
        return []
    end = series[-1][0] or 1.0
    buckets: list[float] = [0.0] * 10
    for t, mb in series:
        i = min(int(10 * t / end), 9)
        buckets[i] = max(buckets[i], mb)
    return [round(b, 1) for b in buckets]


# -- (c) client CPU per request ----------------------------------------------------------------


def bench_client_cpu(n: int, repeats: int) -> dict[str, Any]:
    """CPU seconds this process spends per judge request, for one judge and for all five."""
    import anyio

    from benchmarks.judges.bench_judges import JUDGES, ensemble_config
    from trustscore import Scorer

    server = ServerProcess(None)
    out: dict[str, Any] = {}
    try:
        samples = make_samples(n)
        for label, judges in (("likert", ("likert",)), ("five judges", JUDGES)):
            config = ensemble_config(server, judges, slots=256)
            per_request = []
            for _ in range(repeats):
                server.ask("reset")

                async def run(cfg: Any = config) -> None:
                    async with Scorer(cfg) as scorer:
                        await scorer.score_many(samples)

                cpu0 = time.process_time()
                anyio.run(run)
                cpu = time.process_time() - cpu0
                per_request.append(1000 * cpu / server.ask("stats")["requests"])
            out[label] = {
                "samples": n,
                "requests_per_sample": server.ask("stats")["requests"] / n,
                "client_cpu_ms_per_request": {
                    "min": min(per_request),
                    "median": statistics.median(per_request),
                    "max": max(per_request),
                },
            }
    finally:
        server.stop()
    return out


# -- report --------------------------------------------------------------------------------------


def _fmt(cell: dict[str, float], spec: str) -> str:
    return f"{cell['median']:{spec}} ({cell['min']:{spec}}-{cell['max']:{spec}})"


def print_report(result: dict[str, Any]) -> None:
    print(
        f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; cores: {os.cpu_count()}"
    )
    for setting in result.get("throughput", []):
        print(
            f"\n(a) capacity {setting['capacity_requests_per_s']:.0f} req/s ({setting['slots']} slots x "
            f"{setting['overhead_s']}s), {setting['samples']} samples, judges {','.join(setting['judges'])}:"
        )
        print("    arm            req/s median (min-max)   capacity used        client CPU ms/request")
        for name, arm in setting["arms"].items():
            rate, used = _fmt(arm["requests_per_s"], ".0f"), _fmt(arm["capacity_used"], ".0%")
            print(f"    {name:<14} {rate:<24} {used:<20} {_fmt(arm['client_cpu_ms_per_request'], '.2f')}")
    for label, c in result.get("client_cpu", {}).items():
        print(
            f"\n(c) client CPU per request, {label} ({c['requests_per_sample']:.0f} requests a sample): "
            f"{_fmt(c['client_cpu_ms_per_request'], '.2f')} ms"
        )
    for m in result.get("memory", []):
        print(
            f"\n(b) {m['samples']} samples, {len(m['runs'])} run(s), median (min-max): "
            f"{_fmt(m['samples_per_s'], '.0f')} samples/s; "
            f"driver peak {_fmt(m['driver_peak_mb'], '.0f')} MB; "
            f"actor peak {_fmt(m['actor_peak_mb'], '.0f')} MB, of it private (RssAnon) "
            f"{_fmt(m['actor_private_peak_mb'], '.0f')} MB (rows written {m['rows_written']})"
        )
        for r in m["runs"]:
            print(f"    driver RSS by tenth of the run: {r['driver_rss_by_decile_mb']}")
            for series in r["actor_rss_by_decile_mb"]:
                print(f"    actor RSS by tenth of the run:  {series}")


def _ray(num_cpus: int) -> Iterator[str]:
    import ray

    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=2000, help="samples per throughput run")
    ap.add_argument(
        "--repeats", type=int, default=3, help="interleaved rounds of the throughput and memory arms"
    )
    ap.add_argument(
        "--settings",
        default="16x0.5,256x0.1",
        help="server settings, SLOTSxSECONDS each: one bound by the server, one by the client",
    )
    ap.add_argument("--judges", default="likert", help="judges in the throughput runs")
    ap.add_argument("--memory-samples", default="10000,100000", help="sizes of the memory runs")
    ap.add_argument(
        "--ray-cpus",
        type=int,
        default=3,
        help="logical CPUs of the local Ray (2 actors + 1 for read/write tasks)",
    )
    ap.add_argument("--cpu-samples", type=int, default=200, help="samples per run of (c)")
    ap.add_argument(
        "--only", choices=("throughput", "memory", "cpu"), help="run one part (default: all three)"
    )
    ap.add_argument("--work", type=Path, default=REPO / "out" / "bench_scale")
    ap.add_argument("--out", type=Path, default=REPO / "out" / "bench_scale.json")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    result: dict[str, Any] = {"cores": os.cpu_count(), "load_average_before": os.getloadavg()}
    cluster = _ray(args.ray_cpus)
    address = next(cluster)
    try:
        if args.only in (None, "cpu"):
            print("(c) client CPU ...", file=sys.stderr)
            result["client_cpu"] = bench_client_cpu(args.cpu_samples, args.repeats)
        if args.only in (None, "throughput"):
            print("(a) throughput ...", file=sys.stderr)
            settings = [(int(a), float(b)) for a, b in (x.split("x") for x in args.settings.split(","))]
            judges = [j for j in args.judges.split(",") if j]
            result["throughput"] = bench_throughput(
                args.work, address, args.samples, settings, args.repeats, judges
            )
        if args.only in (None, "memory"):
            print("(b) memory ...", file=sys.stderr)
            result["memory"] = bench_memory(
                args.work, address, [int(s) for s in args.memory_samples.split(",")], args.repeats
            )
    finally:
        cluster.close()
    return report_and_save(result, args.out, print_report)


if __name__ == "__main__":
    sys.exit(main())
