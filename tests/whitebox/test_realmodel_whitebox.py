"""The white-box signals on a trained model (SmolLM2-135M-Instruct, built by
``python -m trustscore.testing.real_model``): copying heads from real weights, a ReDeEP profile fitted
with ``trustscore fit-redeep`` on six RAGTruth train rows and read back by the signal, local
Self-Familiarity, and AARF, which below its threshold is plain greedy generation. A few rows: the
mechanics and invariants, not accuracy (``benchmarks/speed/bench_real_model_whitebox.py`` measures that)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from trustscore import Sample

pytestmark = pytest.mark.realmodel
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# ../shared/data beside the checkout, as the session and CI lay it out.
RAGTRUTH_TRAIN = Path(__file__).resolve().parents[3] / "shared" / "data" / "ragtruth" / "train_extra.jsonl"


@pytest.fixture(scope="module")
def model_dir() -> Path:
    real_model = pytest.importorskip("trustscore.testing.real_model")
    if not real_model.real_model_ready():
        pytest.skip("the trained model is not built: bash scripts/setup --realmodel")
    return Path(real_model.default_real_model_dir())


@pytest.fixture(scope="module")
def train_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three shortest hallucinated and the three shortest clean QA rows of the RAGTruth train split."""
    if not RAGTRUTH_TRAIN.is_file():
        pytest.skip(f"{RAGTRUTH_TRAIN} is not here")
    rows = [json.loads(line) for line in RAGTRUTH_TRAIN.read_text(encoding="utf-8").splitlines() if line]
    qa = sorted(
        (r for r in rows if r["task"] == "QA"),
        key=lambda r: (len(r["response"]) + sum(len(c) for c in r["context"]), r["id"]),
    )
    picked = [r for r in qa if r["spans"]][:3] + [r for r in qa if not r["spans"]][:3]
    path = tmp_path_factory.mktemp("ragtruth") / "train6.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in picked), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def profile_path(model_dir: Path, train_rows: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from trustscore.cli import main

    out = tmp_path_factory.mktemp("profile") / "smollm2.json"
    # Six responses, each its own CV group: two folds still hold both labels.
    args = [
        "fit-redeep",
        str(train_rows),
        "--model",
        str(model_dir),
        "-o",
        str(out),
        "--folds",
        "2",
        "--group",
        "id",
    ]
    assert main(args) == 0
    return out


def test_copying_heads_of_the_trained_model_sit_in_its_upper_layers(model_dir: Path) -> None:
    from trustscore.whitebox._heads import load_or_score_copying_heads
    from trustscore.whitebox._model import load_model

    loaded = load_model(model_dir)
    heads = load_or_score_copying_heads(loaded)
    assert len(heads.heads) == loaded.n_layers * loaded.n_heads == 30 * 9
    top = heads.top(8)
    # Induction/copying circuits form in the later layers of a trained model; random weights have none.
    assert sum(layer >= loaded.n_layers // 2 for layer, _ in top) >= 6, top
    assert max(h.eigen_copying for h in heads.heads[:8]) > 0.5


def test_a_profile_fitted_with_the_command_scores_a_held_out_row(model_dir: Path, profile_path: Path) -> None:
    from trustscore.whitebox._profile import RedeepProfile
    from trustscore.whitebox._redeep import RedeepSignal

    profile = RedeepProfile.load(profile_path)
    assert profile.model.n_layers == 30 and profile.model.n_heads == 9
    assert profile.training.n_responses == 6
    signal = RedeepSignal(model_path=model_dir, profile=profile)
    sample = Sample(
        question="What is the capital of France?",
        context=["Paris is the capital and largest city of France."],
        response="The capital of France is Paris.",
    )
    result = anyio.run(signal.run, sample)
    assert result.value is not None and 0.0 <= result.value <= 1.0, result.error
    assert result.raw["units"] > 0  # type: ignore[index,operator]


def test_local_self_familiarity_reads_what_the_trained_model_writes(model_dir: Path) -> None:
    from trustscore.whitebox._familiarity import FamiliaritySignal
    from trustscore.whitebox._familiarity_config import FamiliarityConfig

    config = FamiliarityConfig(model_path=model_dir, explanation_max_tokens=24, max_concepts=2)
    signal = FamiliaritySignal.from_config(config, None)
    result = anyio.run(signal.familiarity, "What is the population of Paris?")
    assert result.value is not None and 0.0 < result.value <= 1.0, result.error
    assert result.raw["concepts"]  # type: ignore[index]
    assert not [w for w in result.warnings if "empty explanation" in w]  # the trained model explains


def test_aarf_below_its_threshold_is_plain_greedy_generation(model_dir: Path, profile_path: Path) -> None:
    from trustscore.whitebox._model import build_prompt
    from trustscore.whitebox._profile import RedeepProfile
    from trustscore.whitebox.aarf import AARFSettings, generate_with_aarf, load_for_aarf

    loaded = load_for_aarf(model_dir)
    profile = RedeepProfile.load(profile_path)
    sample = Sample(
        question="Where does the Quellen river flow?",
        context=["The Quellen river flows north through the town of Brindale."],
        response="(ignored)",
    )
    result = generate_with_aarf(
        loaded, sample, profile=profile, settings=AARFSettings(threshold=1.0, max_new_tokens=16)
    )
    # Plain greedy as its definition: the argmax of a full forward over the text so far, step by step.
    # (transformers' generate() is no reference here: on this model its first-step logits differ from
    # the model's own forward by up to 2.6.)
    ids = loaded.tokenizer(
        build_prompt(loaded.tokenizer, sample), add_special_tokens=False, return_tensors="pt"
    ).input_ids
    plain: list[int] = []
    with torch.inference_mode():
        for _ in range(16):
            token = int(loaded.model(input_ids=ids).logits[0, -1].argmax())
            plain.append(token)
            ids = torch.cat([ids, torch.tensor([[token]])], dim=1)
    tokens = [s.token_id for s in result.steps]
    assert result.intervened_steps == [] and tokens
    # AARF stops before the end-of-turn token; the loop above runs on through it.
    assert tokens == plain[: len(tokens)]
    assert len(tokens) == 16 or plain[len(tokens)] == loaded.tokenizer.eos_token_id
    assert all(0.0 <= s.score <= 1.0 for s in result.steps)  # the fitted profile scored every token
