"""Hostile clients at once against `trustscore api`: held bodies, slow-loris heads, batch clients
that read nothing; then SIGTERM. Loopback only, bounded in counts and time, stops by itself.

    .venv/bin/python -m benchmarks.service.bench_api_hostile [--bodies 400] [--loris 300] [--readers 40]
        [--reader-rows 1000] [--reader-pad 0] [--duration 30] [--grace 5] [--send-timeout 10]
        [--nofile N] [--config F]

The service runs in its own process (`python -m trustscore.cli api`, default limits, `--shutdown-grace
5`), by default on the lexical signal alone (`--config` for another), so that the clients, not the
scoring, are what is measured. Once it is ready:

- ``--bodies`` clients each declare a body 1 byte short of 4 MiB, send all but its last byte and hold
  the connection; when the service closes one (408, 429), it comes back after 1 s;
- ``--loris`` clients each trickle a request head, one byte every 5 s, with no key; when the service
  closes one, it comes back at once;
- ``--readers`` clients each post a batch of ``--reader-rows`` rows, each carrying ``--reader-pad``
  more bytes (echoed in its result row: larger answers), with a 4 KiB receive buffer, and read
  nothing of the answer after its status line; one refused (429: the queue or the body budget is full)
  comes back after 1 s, one admitted holds its connection until the service lets it go.

The readers go first; once all are admitted and the service reports their rows scored (nothing in
flight or queued; at most 300 s), the other two kinds join them. Five seconds later, for
``--duration`` seconds, a valid client posts one sample a second on a fresh connection (each with a
2 s client timeout). Reported: the valid answers (status, min / median / max seconds), the
service's RSS every second (max, and its peak from /proc VmHWM), how the hostile clients were
answered, the log's size, then the seconds from SIGTERM (sent while they are all still connected) to
the process's end, and its exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROW = {"question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."], "response": "Frank Herbert."}
LEXICAL_ONLY = (
    '[signals.embedding]\nenabled = false\n[signals.claims]\nenabled = false\n[cache]\nmode = "off"\n'
)
BODY_BYTES = 4 * 2**20 - 1


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def limit_files(n: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))


def start(config: Path, args: argparse.Namespace, log: Path) -> tuple[subprocess.Popen[bytes], int, float]:
    started = time.perf_counter()
    command = [sys.executable, "-m", "trustscore.cli", "api", "--config", str(config), "--port", "0"]
    proc = subprocess.Popen(
        [*command, "--shutdown-grace", str(args.grace), "--send-timeout", str(args.send_timeout)],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        preexec_fn=None if args.nofile is None else lambda: limit_files(args.nofile),
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if found := re.search(r"running on http://127\.0\.0\.1:(\d+)", log.read_text(errors="replace")):
            return proc, int(found.group(1)), started
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the service did not start:\n" + log.read_text(errors="replace"))


async def request(port: int, raw: bytes, timeout: float) -> tuple[int, float]:
    """Status and seconds of one request on a fresh connection (status 0: no answer in time)."""
    began = time.perf_counter()
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(raw)
            line = await reader.readline()
            writer.close()
    except (TimeoutError, OSError):
        return 0, time.perf_counter() - began
    return int(line.split()[1]) if line.startswith(b"HTTP/") else 0, time.perf_counter() - began


def post(path: str, body: bytes, length: int | None = None) -> bytes:
    size = len(body) if length is None else length
    head = f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


async def held_body(port: int, stop: asyncio.Event, seen: Counter[str]) -> None:
    chunk = b" " * 2**16
    head = post("/v1/score", b"", BODY_BYTES)

    async def feed(writer: asyncio.StreamWriter) -> None:
        left = BODY_BYTES - 1
        with contextlib.suppress(OSError):  # the service may close it at any point
            while left > 0:
                writer.write(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))
                await writer.drain()
            await stop.wait()  # the last byte never comes

    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(head)
            feeding = asyncio.create_task(feed(writer))
            line = await reader.readline()  # held until the service answers or closes
            feeding.cancel()
            seen[f"body {line.split()[1].decode() if line.startswith(b'HTTP/') else 'closed'}"] += 1
            writer.close()
        except OSError as e:
            seen[f"body {type(e).__name__}"] += 1
        await asyncio.sleep(1)


async def loris(port: int, stop: asyncio.Event, seen: Counter[str]) -> None:
    head = b"POST /v1/score HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n"
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for byte in head:
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    async with asyncio.timeout(5):
                        if await reader.read(100) == b"":
                            break
                except TimeoutError:
                    continue
            seen["loris closed by the service"] += 1
            writer.close()
        except OSError as e:
            seen[f"loris {type(e).__name__}"] += 1
            await asyncio.sleep(0.1)


async def non_reader(port: int, args: argparse.Namespace, stop: asyncio.Event, seen: Counter[str]) -> None:
    pad = "p" * args.reader_pad  # carried into each result row: the answer outgrows the socket buffers
    rows = (json.dumps({**ROW, "id": f"r{i}", "pad": pad}) for i in range(args.reader_rows))
    raw = post("/v1/score/batch", "\n".join(rows).encode())
    while not stop.is_set():
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
            reader, writer = await asyncio.open_connection(sock=sock)
            writer.write(raw)
            await writer.drain()
            status = await reader.readline()  # the status line, then nothing more is read
            if not status.startswith(b"HTTP/1.1 200"):
                seen["reader refused, comes back"] += 1
                writer.close()
                await asyncio.sleep(1)
                continue
            writer.transport.pause_reading()  # type: ignore[attr-defined]
            seen["reader admitted"] += 1
            await stop.wait()
            writer.close()
            return
        except OSError as e:
            seen[f"reader {type(e).__name__}"] += 1
            await asyncio.sleep(1)


async def get(port: int, path: str) -> bytes:
    """The body of GET ``path`` (empty when there is no answer within 5 s)."""
    raw = f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode()
    with contextlib.suppress(OSError, TimeoutError):
        async with asyncio.timeout(5):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(raw)
            answer = await reader.read()
            writer.close()
            return answer.split(b"\r\n\r\n", 1)[-1]
    return b""


async def readers_scored(port: int, readers: int, seen: Counter[str], limit_s: float) -> float:
    """Seconds until every reader was admitted and nothing is in flight or queued (their rows scored)."""
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        if seen["reader admitted"] >= readers:
            health = json.loads(await get(port, "/healthz") or b"{}")
            if health.get("in_flight") == 0 and health.get("queued") == 0:
                break
        await asyncio.sleep(0.5)
    return time.perf_counter() - began


async def attack(port: int, pid: int, args: argparse.Namespace) -> dict[str, object]:
    stop = asyncio.Event()
    seen: Counter[str] = Counter()
    tasks = [asyncio.create_task(non_reader(port, args, stop, seen)) for _ in range(args.readers)]
    scored_s = await readers_scored(port, args.readers, seen, 300)  # they read nothing of their answers
    tasks += [asyncio.create_task(held_body(port, stop, seen)) for _ in range(args.bodies)]
    tasks += [asyncio.create_task(loris(port, stop, seen)) for _ in range(args.loris)]
    await asyncio.sleep(5)  # the other hostile clients are in
    valid: list[tuple[int, float]] = []
    rss: list[int] = []
    raw = post("/v1/score", json.dumps(ROW).encode())
    for _ in range(args.duration):
        tick = asyncio.create_task(asyncio.sleep(1))
        valid.append(await request(port, raw, 2.0))
        rss.append(status_kib(pid, "VmRSS"))
        await tick
    stop.set()
    return {
        "valid": valid,
        "rss": rss,
        "peak": status_kib(pid, "VmHWM"),
        "seen": seen,
        "tasks": tasks,
        "scored_s": scored_s,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bodies", type=int, default=400)
    p.add_argument("--loris", type=int, default=300)
    p.add_argument("--readers", type=int, default=40)
    p.add_argument("--reader-rows", type=int, default=1000)
    p.add_argument("--reader-pad", type=int, default=0, help="bytes carried in each reader row")
    p.add_argument("--send-timeout", type=float, default=10.0, help="the service's --send-timeout")
    p.add_argument("--nofile", type=int, default=None, help="the service's open-file limit (ulimit -n)")
    p.add_argument("--duration", type=int, default=30, help="seconds of valid requests under attack")
    p.add_argument("--grace", type=float, default=5.0)
    p.add_argument("--config", type=Path, default=None, help="service config (default: lexical only)")
    p.add_argument("--keep-log", type=Path, default=None, help="copy the service's log here")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = args.config or Path(tmp, "lexical.toml")
        if args.config is None:
            config.write_text(LEXICAL_ONLY)
        log = Path(tmp, "service.log")
        os.environ.setdefault("XDG_CACHE_HOME", str(Path(tmp, "cache")))
        proc, port, _ = start(config, args, log)
        try:
            out = asyncio.run(attack_then_stop(port, proc, args))
        finally:
            if proc.poll() is None:
                proc.kill()
        text = log.read_bytes()
        if args.keep_log:
            args.keep_log.write_bytes(text)
        out["cut"] = text.count(b"read nothing for")
        out["tracebacks"] = text.count(b"Traceback")
        report(out, len(text), len(text.splitlines()), args)


async def attack_then_stop(
    port: int, proc: subprocess.Popen[bytes], args: argparse.Namespace
) -> dict[str, object]:
    while (await request(port, b"GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n", 5.0))[0] != 200:
        await asyncio.sleep(0.2)
    out = await attack(port, proc.pid, args)
    # SIGTERM while the hostile clients are still connected (they are told to stop only after it)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    while proc.poll() is None and time.perf_counter() - sent < args.grace + 60:
        await asyncio.sleep(0.05)
    out["stop_s"] = time.perf_counter() - sent
    out["exit"] = proc.poll()
    for task in out.pop("tasks"):  # type: ignore[attr-defined]
        task.cancel()
    return out


def report(out: dict[str, object], log_bytes: int, log_lines: int, args: argparse.Namespace) -> None:
    valid: list[tuple[int, float]] = out["valid"]  # type: ignore[assignment]
    ok = sorted(s for status, s in valid if status == 200)
    statuses = Counter(status for status, _ in valid)
    rss: list[int] = out["rss"]  # type: ignore[assignment]
    print(
        f"attack: {args.bodies} held bodies, {args.loris} slow-loris heads, {args.readers} non-reading batch "
        f"clients x {args.reader_rows} rows, {args.duration} s"
    )
    print(f"the readers' rows were scored {out['scored_s']:.0f} s after they sent them")
    print(f"valid requests: {dict(statuses)} (0 = no answer within 2 s)")
    if ok:
        print(f"valid 200s, seconds: min {ok[0]:.3f} / median {statistics.median(ok):.3f} / max {ok[-1]:.3f}")
    print(
        f"service RSS: max sampled {max(rss) / 1024:.0f} MiB, peak (VmHWM) {int(out['peak']) / 1024:.0f} MiB"
    )
    print(f"hostile clients: {dict(sorted(out['seen'].items()))}")  # type: ignore[attr-defined]
    print(
        f"log: {log_lines} lines, {log_bytes / 1024:.0f} KiB; readers cut off (send_timeout_s): {out['cut']}"
    )
    print(f"SIGTERM (grace {args.grace:g} s) to exit: {out['stop_s']:.2f} s, exit status {out['exit']}")


if __name__ == "__main__":
    main()
