"""Copying heads from the weights: exact trace/eigenvalues, a planted copier found, JSON cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch", reason="white-box signals need trustscore[whitebox]")

import torch

from trustscore.testing._tiny import save_tiny_model
from trustscore.whitebox import _heads as heads_module
from trustscore.whitebox._heads import (
    CopyingHeads,
    iqr_outlier_count,
    load_or_score_copying_heads,
    score_copying_heads,
)
from trustscore.whitebox._model import LoadedModel, load_model

PLANTED = (1, 2)


def _plant_copier(loaded: LoadedModel, layer: int, head: int) -> None:
    """Make W_U·W_O·W_V·W_E^T positive semi-definite with a large trace for one head."""
    attn = loaded.attention(layer)
    dh, group = loaded.head_dim, loaded.n_heads // loaded.n_kv_heads
    kv = head // group
    with torch.no_grad():
        w_e = loaded.embed.weight
        w_u = loaded.lm_head.weight * loaded.final_norm.weight[None, :]
        gram = w_e.T @ w_u
        _, vectors = torch.linalg.eigh((gram + gram.T) / 2)
        basis = vectors[:, -dh:]  # the subspace where W_E and W_U agree most
        gain = loaded.input_norm(layer).weight
        attn.v_proj.weight[kv * dh : (kv + 1) * dh] = 5 * basis.T / gain[None, :]
        attn.o_proj.weight[:, head * dh : (head + 1) * dh] = 5 * basis


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=["llama", "qwen2"])
def planted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> LoadedModel:
    path = save_tiny_model(
        tmp_path_factory.mktemp(f"heads-{request.param}") / "m", model_type=request.param, num_layers=3
    )
    loaded = load_model(path)
    _plant_copier(loaded, *PLANTED)
    return loaded


def _full_ov(loaded: LoadedModel, layer: int, head: int) -> torch.Tensor:
    attn = loaded.attention(layer)
    dh, group = loaded.head_dim, loaded.n_heads // loaded.n_kv_heads
    kv = head // group
    w_v = attn.v_proj.weight[kv * dh : (kv + 1) * dh] * loaded.input_norm(layer).weight[None, :]
    w_o = attn.o_proj.weight[:, head * dh : (head + 1) * dh]
    w_u = loaded.lm_head.weight * loaded.final_norm.weight[None, :]
    return (w_u.double() @ w_o.double() @ w_v.double() @ loaded.embed.weight.double().T).detach()


def test_planted_copying_head_ranks_first(planted: LoadedModel) -> None:
    result = score_copying_heads(planted, gershgorin_sample=None)
    assert result.top(1) == [PLANTED]
    best = result.heads[0]
    assert best.trace > 0 and best.eigen_copying > 0.95
    assert len(result.heads) == planted.n_layers * planted.n_heads


def test_trace_and_eigenvalues_are_exact(planted: LoadedModel) -> None:
    result = score_copying_heads(planted, gershgorin_sample=None)
    by_head = {(s.layer, s.head): s for s in result.heads}
    for layer, head in [PLANTED, (0, 1), (2, 3)]:
        full = _full_ov(planted, layer, head)
        assert by_head[(layer, head)].trace == pytest.approx(float(torch.trace(full)), rel=1e-3, abs=1e-5)
        eig = torch.linalg.eigvals(full)
        eig = eig[eig.abs() > 1e-6 * eig.abs().max()]
        expected = float(eig.real.sum() / eig.abs().sum())
        assert by_head[(layer, head)].eigen_copying == pytest.approx(expected, abs=1e-3)
        centres = torch.diagonal(full)
        radii = full.abs().sum(1) - centres.abs()
        edges = torch.cat([centres - radii, centres + radii]).numpy()
        assert by_head[(layer, head)].gershgorin_outliers == iqr_outlier_count(edges)


def test_sampled_gershgorin_still_finds_the_planted_head(planted: LoadedModel) -> None:
    assert score_copying_heads(planted, gershgorin_sample=64).top(1) == [PLANTED]


def test_iqr_outliers() -> None:
    assert iqr_outlier_count(np.array([1.0, 2, 3, 4, 5, 6, 7, 8, 100])) == 1
    assert iqr_outlier_count(np.ones(10)) == 0


def test_cache_round_trip_and_corrupt_file(
    planted: LoadedModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_or_score_copying_heads(planted, cache_dir=tmp_path, gershgorin_sample=None)
    files = list((tmp_path / "copying_heads").glob("*.json"))
    assert len(files) == 1
    assert CopyingHeads.model_validate_json(files[0].read_text()) == first

    def refuse(*_a: object, **_k: object) -> CopyingHeads:
        raise AssertionError("a cached result must not be recomputed")

    monkeypatch.setattr(heads_module, "score_copying_heads", refuse)
    assert load_or_score_copying_heads(planted, cache_dir=tmp_path, gershgorin_sample=None) == first
    monkeypatch.undo()

    files[0].write_text("{not json")
    again = load_or_score_copying_heads(planted, cache_dir=tmp_path, gershgorin_sample=None)
    assert again == first
    assert CopyingHeads.model_validate_json(files[0].read_text()) == first
