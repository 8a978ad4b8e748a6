"""The shipped multi-domain calibrator: valid, tied to the default signals, used by the offline default,
a ranking that never claims calibrated (naming the fix), and honest about its calibration domain."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from trustscore import Config, Sample, Scorer, Signal, TrustScore
from trustscore.calibrators import shipped_calibrator, shipped_calibrators
from trustscore.cli import main as cli_main
from trustscore.fusion import load_model
from trustscore.grounding import EmbeddingGrounding, LexicalSupport
from trustscore.grounding._lexical import SHARE_PRIOR_WORDS

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
PACKAGED = REPO / "trustscore" / "calibrators" / "local_multidomain.json"
DOCUMENTED = REPO / "calibration" / "local_multidomain.json"
RESPONSE = " ".join(["The footbridge opened to the public in May 1998 after two years of work."] * 3)
CONTEXT = [" ".join(["The Eastfield footbridge over the Marr river opened to the public in May 1998."] * 20)]
EXAMPLES = REPO / "examples" / "rag_samples.jsonl"


def default_versions() -> dict[str, str]:
    return {s.name: s.version for s in (LexicalSupport(), EmbeddingGrounding())}


class ScriptedLocal:
    """A local signal replaying a fixed Signal under a chosen name and version."""

    def __init__(self, name: str, version: str, value: float, raw: Any) -> None:
        self.name = name
        self.version = version
        self._signal = Signal(name=name, value=value, raw=raw, version=version)

    async def run(self, sample: Sample) -> Signal:
        return self._signal


def embedding_raw(similarity: float) -> dict[str, float | int]:
    return {
        "min": similarity - 0.1,
        "mean": similarity,
        "q25": similarity - 0.05,
        "softmin": similarity - 0.08,
        "frac_low": 0.0 if similarity > 0.6 else 0.5,
        "sentences": 2,
        "chunks": 6,
        "negation_mismatch": 0.0,
    }


def lexical_raw(unsupported: float) -> dict[str, float | int]:
    return {
        "weighted_unsupported_share": unsupported,
        "unsupported_share": unsupported,
        "shrunk_unsupported_share": unsupported * 15 / (15 + SHARE_PRIOR_WORDS),
        "words": 12,
        "numbers": 1,
        "names": 2,
        "numbers_unsupported_share": unsupported,
        "names_unsupported": round(2 * unsupported),
        "names_unsupported_share": round(2 * unsupported) / 2,
        "log_unsupported_weight": math.log1p(unsupported * 15),
        "response_words": len(RESPONSE.split()),
        "context_words": len(CONTEXT[0].split()),
    }


class OneScorerPerRow:
    """What ``trustscore calibrate`` builds to score a labeled file: here a Scorer per row whose two
    local signals say whether that row is grounded (``grounded``, one bool a row)."""

    def __init__(self, versions: dict[str, str], grounded: Iterator[bool]) -> None:
        self.versions, self.grounded = versions, grounded

    def score_many_sync(self, samples: list[Sample], **_: object) -> list[TrustScore]:
        import anyio

        return [
            anyio.run(
                Scorer(
                    Config(), local_signals=local_pair(self.versions, grounded=next(self.grounded))
                ).score_sample,
                s,
            )
            for s in samples
        ]


def local_pair(versions: dict[str, str], *, grounded: bool) -> list[ScriptedLocal]:
    share = 0.05 if grounded else 0.6
    similarity = 0.85 if grounded else 0.3
    return [
        ScriptedLocal("lexical", versions["lexical"], 1 - share, lexical_raw(share)),
        ScriptedLocal("embedding", versions["embedding"], similarity, embedding_raw(similarity)),
    ]


def test_the_packaged_file_loads_and_validates() -> None:
    model = load_model(PACKAGED)
    assert model.name == "local_multidomain"
    # the 1,200 rows of the six shippable domains less the 3 lexical does not read: 2 abstentions and an
    # answer in another language (missing for it, with that reason)
    assert model.training.n == 1197 and model.training.label == "hallucinated"
    assert model.training.group == "source_id" and model.training.intercept_by == "dataset"
    assert model.held_out is not None and model.held_out.report.macro["auroc"] is not None
    assert model.held_out.report.macro["auroc"] > 0.7
    assert [m.name for m in shipped_calibrators()] == ["local_multidomain", "local_multidomain_claims"]


def test_the_packaged_file_is_a_ranking_whose_reason_names_the_fix() -> None:
    model = load_model(PACKAGED)
    reason = model.not_calibrated_reason
    assert reason is not None and reason.startswith("base rate of your data unknown")
    assert "about 200-400 labeled rows" in reason and "trustscore calibrate LABELED.jsonl --adapt" in reason
    assert "fusion.calibrator" in reason


def test_the_packaged_file_records_its_calibration_domain() -> None:
    model = load_model(PACKAGED)
    d = model.domain
    assert d is not None and d.n == model.training.n
    assert d.data_sha256 == model.training.data_sha256
    assert "factcc" in d.data_name
    assert "factscore" not in d.data_name, "FActScore (NC licence) is never fitted on"
    assert [x.name for x in d.dimensions][-2:] == ["response_words", "context_words"]
    assert d.in_sample_alarm_rate <= 0.05


def test_the_documented_copy_is_the_packaged_file() -> None:
    assert DOCUMENTED.resolve() == PACKAGED.resolve()


def test_fitted_on_the_signals_and_versions_the_default_scorer_runs() -> None:
    model = load_model(PACKAGED)
    assert model.signal_versions == default_versions()
    scorer = Scorer(Config())
    assert scorer.signal_names[:2] == ["lexical", "embedding"]  # and claims, with its extra
    assert shipped_calibrator(default_versions()) == model


@pytest.mark.parametrize(
    "versions",
    [
        {"lexical": "lexical-support/0+old"},
        {"lexical": None, "embedding": None},
        {"lexical": "x", "embedding": "y", "lynx": "z"},
    ],
    ids=["subset", "no-versions", "other-versions"],
)
def test_no_shipped_calibrator_for_other_signal_sets(versions: dict[str, str | None]) -> None:
    assert shipped_calibrator(versions) is None


def test_superset_of_signals_gets_no_shipped_calibrator() -> None:
    assert shipped_calibrator({**default_versions(), "lynx": "lynx@1"}) is None


async def test_default_signal_set_is_calibrated_and_ranks_grounded_higher() -> None:
    versions = default_versions()
    good = await Scorer(Config(), local_signals=local_pair(versions, grounded=True)).score(
        question="q", context=CONTEXT, response=RESPONSE
    )
    bad = await Scorer(Config(), local_signals=local_pair(versions, grounded=False)).score(
        question="q", context=CONTEXT, response=RESPONSE
    )
    assert good.domain is not None and good.domain.inside, good.domain
    assert good.fusion.startswith("calibrator:local_multidomain@")
    assert good.score is not None and bad.score is not None and good.score > bad.score
    reason = load_model(PACKAGED).not_calibrated_reason
    for result in (good, bad):
        assert result.calibrated is False and result.not_calibrated_reason == reason
    short = await Scorer(Config(), local_signals=local_pair(versions, grounded=True)).score(
        question="q", context=CONTEXT, response="1998."
    )
    assert short.domain is not None and not short.domain.inside
    assert short.calibrated is False and short.score == good.score
    assert short.domain.reasons[0].startswith("response has 1 words; calibration data's")


async def test_the_shipped_model_adapted_on_labeled_rows_scores_through_its_adaptation(
    tmp_path: Path,
) -> None:
    from trustscore.fitting import adapt_model
    from trustscore.rows._scored import rows_from_dicts

    versions = default_versions()
    rows = []
    for i in range(40):
        grounded = i % 3 != 0
        signals = {s.name: s._signal.model_dump(mode="json") for s in local_pair(versions, grounded=grounded)}
        rows.append(
            {
                "id": str(i),
                "score": None,
                "calibrated": False,
                "signals": signals,
                "hallucinated": not grounded,
            }
        )
    adapted = adapt_model(load_model(PACKAGED), rows_from_dicts(rows), label="hallucinated")
    (adaptation,) = adapted.adaptations
    assert adaptation.n == 40 and adaptation.domain is None and adaptation.task_kinds is None
    assert adaptation.not_calibrated_reason is None, adaptation.not_calibrated_reason
    path = tmp_path / "mine.json"
    path.write_text(adapted.to_json(), encoding="utf-8")
    config = Config.model_validate({"fusion": {"calibrator": str(path)}})
    result = await Scorer(config, local_signals=local_pair(versions, grounded=True)).score(
        question="q", context=CONTEXT, response=RESPONSE
    )
    assert result.calibrated is True and result.not_calibrated_reason is None
    assert result.fusion == adapted.description and result.interval is not None


async def test_with_a_judge_added_the_default_mean_is_used() -> None:
    from scorer_fakes import FakeJudge, FakeLLM

    scorer = Scorer(
        Config(),
        judges=[FakeJudge("lynx", 1.0)],
        local_signals=local_pair(default_versions(), grounded=True),
        llms={"judge": FakeLLM()},
    )
    result = await scorer.score(question="q", context=["c"], response="r")
    assert result.calibrated is False and result.fusion == "default:logodds"


async def test_a_changed_signal_version_falls_back_to_the_default_mean() -> None:
    versions = {**default_versions(), "embedding": "embedding-grounding/2+changed"}
    result = await Scorer(Config(), local_signals=local_pair(versions, grounded=True)).score(
        question="q", context=["c"], response="r"
    )
    assert result.calibrated is False and result.fusion == "default:logodds"


def test_offline_default_ranks_the_examples_and_claims_no_calibration(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert cli_main(["score", str(EXAMPLES), "-o", str(out), "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12
    assert all(r["domain"] is not None for r in rows)
    reason = load_model(PACKAGED).not_calibrated_reason
    assert all(r["calibrated"] is False and r["not_calibrated_reason"] == reason for r in rows)
    # The shipped model of the signals that run: lexical + embedding, and claims with its extra.
    assert len({r["fusion"] for r in rows}) == 1
    assert {r["fusion"] for r in rows} <= {m.description for m in shipped_calibrators()}
    assert all(r["used_signals"][:2] == ["lexical", "embedding"] for r in rows)
    assert all(0.0 <= r["score"] <= 1.0 for r in rows)
    hallucinated = [r["score"] for r in rows if r["hallucinated"]]
    faithful = [r["score"] for r in rows if not r["hallucinated"]]
    assert sum(faithful) / len(faithful) > sum(hallucinated) / len(hallucinated)


async def test_an_adaptation_on_question_answering_does_not_claim_summaries_or_short_hand_written_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Borrowed calibration: adapted on labeled QA rows, a summary of the same kind of documents and a
    short hand-written sample are scored but never claimed calibrated; a QA row like the labeled ones is."""
    import anyio

    import trustscore.cli._score as cli_score

    versions = default_versions()
    labeled = tmp_path / "qa.jsonl"
    with labeled.open("w", encoding="utf-8") as f:
        for i in range(60):
            row = {
                "id": f"r{i}",
                "question": "When did it open?",
                "context": CONTEXT,
                "response": RESPONSE,
                "hallucinated": i % 3 == 0,
                "source_id": f"doc{i // 3}",
            }
            f.write(json.dumps(row) + "\n")
    grounded = iter([i % 3 != 0 for i in range(60)])

    monkeypatch.setattr(
        cli_score, "build_scorer", lambda config, no_cache: OneScorerPerRow(versions, grounded)
    )
    path = tmp_path / "mine.json"
    adapt = ["calibrate", str(labeled), "--adapt", "-o", str(path)]
    assert await anyio.to_thread.run_sync(cli_main, adapt) == 0
    config = Config.model_validate({"fusion": {"calibrator": str(path)}})
    scorer = Scorer(config, local_signals=local_pair(versions, grounded=True))
    qa = await scorer.score(question="When did it open?", context=CONTEXT, response=RESPONSE)
    assert qa.calibrated is True, qa.not_calibrated_reason
    summary = await scorer.score(question="Summarize the article.", context=CONTEXT, response=RESPONSE)
    assert summary.calibrated is False and summary.score is not None
    assert summary.not_calibrated_reason is not None and "summary task" in summary.not_calibrated_reason
    hand = await scorer.score(
        question="When did the bridge open?", context=["The bridge opened in May 1998."], response="In 1989."
    )
    assert hand.calibrated is False and hand.score is not None
    assert hand.not_calibrated_reason is not None and "words" in hand.not_calibrated_reason
