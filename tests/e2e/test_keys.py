"""An API key read from a file keeps its line end: it is sent without it, and never shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_helpers import CONTEXT, QUESTION, RESPONSE, ensemble_dict, read_jsonl, to_toml, write_jsonl

from trustscore.cli import main
from trustscore.testing import FakeVLLMServer

KEY = "tsk-4f9a2c71e0b3d8"


@pytest.mark.parametrize("tail", ["\r", "\n", "\r\n", " "])
def test_a_key_with_a_line_end_is_sent_stripped_and_appears_nowhere(
    fake_vllm: FakeVLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tail: str,
) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY + tail)
    config = tmp_path / "trustscore.toml"
    config.write_text(to_toml(ensemble_dict(fake_vllm.base_url, endpoint={"api_key_env": "JUDGE_KEY"})))
    source = write_jsonl(tmp_path / "in.jsonl", [
        {"id": "a", "question": QUESTION, "context": CONTEXT, "response": RESPONSE}
    ])
    out = tmp_path / "out.jsonl"

    assert main(["score", str(source), "-o", str(out), "--config", str(config), "--no-progress"]) == 0
    (row,) = read_jsonl(out)
    assert row["complete"], row
    sent = {r.headers.get("authorization") for r in fake_vllm.engine.completion_requests()}
    assert sent == {f"Bearer {KEY}"}
    captured = capsys.readouterr()
    assert KEY not in out.read_text() and KEY not in captured.err and KEY not in captured.out
