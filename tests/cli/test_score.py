"""``trustscore score``: JSONL in and out, carried fields, resume, bad input, summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from scorer_fakes import FakeLocal

import trustscore.cli._score as cli_score
from trustscore import Config, Sample, Scorer, Signal, TrustScore
from trustscore._types import DomainCheck
from trustscore.cli import main
from trustscore.fusion._fuser import DefaultFuser
from trustscore.rows import ScoreRunSummary, row_line

CTX = ["Dune is a 1965 novel by Frank Herbert."]


class Counting(FakeLocal):
    """Scores 1.0 when the response names Herbert, else 0.2; counts what it saw."""

    def __init__(self) -> None:
        super().__init__("grounded", lambda s: 1.0 if "Herbert" in s.response else 0.2)
        self.seen: list[str | None] = []

    async def run(self, sample: Sample) -> Signal:
        self.seen.append(sample.id)
        return await super().run(sample)


@pytest.fixture
def signal(monkeypatch: pytest.MonkeyPatch) -> Counting:
    counting = Counting()

    def build(config: Path | None, *, no_cache: bool) -> Scorer:
        return Scorer(Config(), judges=[], local_signals=[counting, FakeLocal("flaky", lambda s: 1 / 0)])

    monkeypatch.setattr(cli_score, "build_scorer", build)
    return counting


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def rows(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "id": f"s{i}",
            "question": "Who wrote Dune?",
            "context": CTX,
            "response": "Frank Herbert." if i % 2 == 0 else "Isaac Asimov.",
            "label": i % 2,
            "task": "QA",
        }
        for i in range(start, start + n)
    ]


def test_scores_a_file_and_carries_extra_fields(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(4))
    out = tmp_path / "out" / "scored.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    got = {r["id"]: r for r in read_jsonl(out)}
    assert set(got) == {"s0", "s1", "s2", "s3"}
    s0, s1 = got["s0"], got["s1"]
    assert s0["score"] == 0.99 and s1["score"] == pytest.approx(0.2)  # 1.0 clipped
    assert list(s0)[:4] == ["id", "trustscore", "score", "reason"]  # the finding beside the score
    assert s0["reason"] == "supported by the context (grounded 1.00)"
    assert s1["reason"] == "not supported by the context (grounded 0.20)"
    assert s0["label"] == 0 and s1["label"] == 1 and s0["task"] == "QA"
    assert s0["used_signals"] == ["grounded"] and s0["fusion"] == "default:logodds"
    assert s0["signals"]["grounded"]["value"] == 1.0
    assert s0["signals"]["flaky"]["value"] is None
    assert s0["signals"]["flaky"]["error"] == "ZeroDivisionError: division by zero"
    assert s0["complete"] is True and s0["calibrated"] is False
    assert set(s0) >= {"usage", "seconds"} and "question" not in s0 and "response" not in s0
    printed = capsys.readouterr().out
    assert "grounded" in printed and "flaky" in printed
    assert "scored 4, skipped 0 already done" in printed
    assert "fusion: default:logodds for 4 row(s)" in printed
    assert "calibrated P(trustworthy): 0 of 4 scored row(s)" in printed
    assert f"not calibrated, 4 row(s): {DefaultFuser.not_calibrated_reason}" in printed
    assert s0["not_calibrated_reason"] == DefaultFuser.not_calibrated_reason
    documented = cli_score.__doc__ or ""  # score --help lists every column a row has
    assert [k for k in s0 if k not in {"label", "task"} and f"``{k}``" not in documented] == []


def test_resume_skips_ids_already_written(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(3))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    write_jsonl(src, rows(5))
    signal.seen.clear()
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--concurrency", "2"]) == 0
    assert sorted(signal.seen) == ["s3", "s4"]
    assert sorted(r["id"] for r in read_jsonl(out)) == ["s0", "s1", "s2", "s3", "s4"]
    assert "scored 2, skipped 3 already done" in capsys.readouterr().out


def test_a_torn_last_line_is_dropped_and_rescored(signal: Counting, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(2))
    out = tmp_path / "out.jsonl"
    out.write_text(row_line({"id": "s0", "score": 1.0}) + '{"id": "s1", "trustscore": "res', encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert signal.seen == ["s1"]
    assert [r["id"] for r in read_jsonl(out)] == ["s0", "s1"]


def test_rows_without_id_get_a_stable_content_id(signal: Counting, tmp_path: Path) -> None:
    data = [{k: v for k, v in r.items() if k != "id"} for r in rows(2)]
    src = write_jsonl(tmp_path / "in.jsonl", data)
    out = tmp_path / "out.jsonl"
    main(["score", str(src), "-o", str(out), "--no-progress"])
    ids = [r["id"] for r in read_jsonl(out)]
    assert len(ids) == 2 and all(len(i) == 16 for i in ids) and ids[0] != ids[1]
    signal.seen.clear()
    main(["score", str(src), "-o", str(out), "--no-progress"])
    assert signal.seen == []


def test_integer_ids_are_accepted_as_text(signal: Counting, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", [{**rows(1)[0], "id": 7}])
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert read_jsonl(out)[0]["id"] == "7"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (['{"question": "q", "response": "r"}', "{not json"], r"in.jsonl:2: not valid JSON"),
        (['{"question": "q", "response": ""}'], r"in.jsonl:1: invalid sample: response: response is empty"),
        (['{"question": "q"}'], r"in.jsonl:1: invalid sample: response: is required"),
        (['["q", "r"]'], r"in.jsonl:1: expected a JSON object"),
        (
            [
                '{"id": "a", "question": "q", "response": "r"}',
                "",
                '{"id": "a", "question": "q", "response": "s"}',
            ],
            r"in.jsonl:3: id 'a' already used on line 1",
        ),
        (
            ['{"question": "q", "response": "r", "score": 1}'],
            r"in.jsonl:1: field\(s\) \['score'\] would be overwritten",
        ),
        ([""], r"has no samples"),
    ],
)
def test_bad_input_stops_before_scoring_with_the_line_number_with_on_error_stop(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], expected: str
) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress", "--on-error", "stop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trustscore: error: ")
    import re

    assert re.search(expected, err), err
    assert signal.seen == [] and not out.exists()


def test_a_foreign_output_file_is_refused(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    out = tmp_path / "out.jsonl"
    out.write_text("hello\n", encoding="utf-8")
    assert main(["score", str(src), "-o", str(out)]) == 2
    assert "out.jsonl:1: not a trustscore result row" in capsys.readouterr().err


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "in.jsonl", "-o", "o.jsonl", "--concurrency", "0"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    assert (
        main(["score", str(src), "-o", str(tmp_path / "o.jsonl"), "--config", str(tmp_path / "x.toml")]) == 2
    )
    assert "config file" in capsys.readouterr().err


pytest_anyio = pytest.mark.anyio


@pytest_anyio
async def test_an_interrupted_run_keeps_the_rows_it_finished(tmp_path: Path) -> None:
    class StuckOnS2(FakeLocal):
        async def run(self, sample: Sample) -> Signal:
            if sample.id == "s2":
                await anyio.sleep_forever()
            return Signal(name=self.name, value=0.5)

    scorer = Scorer(Config(), judges=[], local_signals=[StuckOnS2("x")])
    src = write_jsonl(tmp_path / "in.jsonl", rows(4))
    out = tmp_path / "out.jsonl"
    with anyio.move_on_after(0.5):
        await cli_score.score_file(cli_score.read_input(src), out, scorer, progress=False, concurrency=4)
    assert sorted(r["id"] for r in read_jsonl(out)) == ["s0", "s1", "s3"]


def test_lexical_only_config_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("trustscore.grounding._lexical")
    config = tmp_path / "trustscore.toml"
    off = "[signals.embedding]\nenabled = false\n\n[signals.claims]\nenabled = false\n"
    config.write_text(off, encoding="utf-8")
    src = write_jsonl(tmp_path / "in.jsonl", rows(2))
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--config", str(config), "--no-progress"]) == 0
    got = {r["id"]: r for r in read_jsonl(out)}
    assert got["s0"]["used_signals"] == ["lexical"]
    assert got["s0"]["score"] > got["s1"]["score"]


@pytest_anyio
async def test_the_input_is_read_lazily_and_a_resume_scores_only_the_rest(tmp_path: Path) -> None:
    taken = 0
    taken_when_run: list[int] = []
    interrupt = anyio.CancelScope()

    class StuckOnS0(FakeLocal):
        """s0 never finishes (one of the two slots stays taken); the run is cut when s10 starts."""

        async def run(self, sample: Sample) -> Signal:
            taken_when_run.append(taken)
            if sample.id == "s10":
                interrupt.cancel()
            if sample.id == "s0":
                await anyio.sleep_forever()
            return Signal(name=self.name, value=0.5)

    src = write_jsonl(tmp_path / "in.jsonl", rows(40))
    out = tmp_path / "out.jsonl"
    checked = cli_score.InputFile.check(src)

    def counted() -> Any:
        nonlocal taken
        for row in checked:
            taken += 1
            yield row

    scorer = Scorer(Config(), judges=[], local_signals=[StuckOnS0("x")])
    with interrupt:
        await cli_score.score_file(counted(), out, scorer, progress=False, concurrency=2)
    # Completion order: s1..s9 were written while s0 still ran (one slot each, written before the next).
    assert [r["id"] for r in read_jsonl(out)] == [f"s{i}" for i in range(1, 10)]
    # Rows taken = rows written + the two in flight + the one waiting for admission: no run-ahead.
    assert taken_when_run[0] <= 3 and taken_when_run[-1] <= 9 + 3
    summary = await cli_score.score_file(checked, out, scorer_without_stuck(), progress=False, concurrency=2)
    assert summary.skipped == 9 and summary.scored == 31
    assert sorted(r["id"] for r in read_jsonl(out)) == sorted(f"s{i}" for i in range(40))


def scorer_without_stuck() -> Scorer:
    return Scorer(Config(), judges=[], local_signals=[FakeLocal("x")])


@pytest_anyio
async def test_progress_counts_only_the_rows_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scorer = Scorer(Config(), judges=[], local_signals=[FakeLocal("x")])
    src = write_jsonl(tmp_path / "in.jsonl", rows(5))
    out = tmp_path / "out.jsonl"
    out.write_text(row_line({"id": "s1", "score": 0.5}) + row_line({"id": "s3", "score": 0.5}))
    await cli_score.score_file(cli_score.InputFile.check(src), out, scorer, progress=True)
    assert "3/3" in capsys.readouterr().err


def test_a_torn_last_line_longer_than_a_read_block_is_cut(signal: Counting, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(2))
    out = tmp_path / "out.jsonl"
    kept = row_line({"id": "s0", "score": 1.0})
    torn = '{"id": "s1", "trustscore": "result/1", "note": "' + "x" * 200_000
    out.write_text(kept + torn, encoding="utf-8")
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    assert signal.seen == ["s1"]
    assert [r["id"] for r in read_jsonl(out)] == ["s0", "s1"]


def test_an_output_that_is_not_utf8_is_refused_with_the_byte(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", rows(1))
    out = tmp_path / "out.jsonl"
    out.write_bytes(b'{"id": "s0", "trustscore": "result/1"}\n{"id": "\xff"}\n')
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 2
    assert "out.jsonl:2: byte 9 of the line is not UTF-8" in capsys.readouterr().err


def test_the_summary_counts_calibrated_only_the_rows_that_claim_it(tmp_path: Path) -> None:
    import io

    fusion = "calibrator:mine@0123456789ab"
    inside = DomainCheck(inside=True, calibrator=fusion)
    outside = DomainCheck(
        inside=False,
        reasons=["response has 1 words; calibration data's 0.5th percentile is 9"],
        calibrator=fusion,
    )
    summary = ScoreRunSummary(output=tmp_path / "out.jsonl")
    summary.add(
        TrustScore(score=0.8, calibrated=True, signals={}, used_signals=[], fusion=fusion, domain=inside)
    )
    summary.add(
        TrustScore(
            score=0.7,
            calibrated=False,
            signals={},
            used_signals=[],
            fusion=fusion,
            domain=outside,
            not_calibrated_reason="outside the calibration domain of " + fusion + ": ...",
        )
    )
    summary.add(
        TrustScore(
            score=0.6,
            calibrated=False,
            signals={},
            used_signals=[],
            fusion=fusion,
            domain=inside,
            not_calibrated_reason="base rate of your data unknown: adapt it",
        )
    )
    out = io.StringIO()
    summary.print(out)
    printed = out.getvalue()
    assert f"fusion: {fusion} for 3 row(s)" in printed
    assert "calibrated P(trustworthy): 1 of 3 scored row(s)" in printed
    assert "not calibrated, 1 row(s): base rate of your data unknown: adapt it" in printed
    assert "outside the calibration domain: 1 of 3 row(s)" in printed
    assert "calibration data: response in 1 row(s) (see each row's domain.reasons)" in printed


def test_an_input_rows_own_domain_is_carried_as_sample_domain(
    signal: Counting, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = [{**row, "domain": "support"} for row in rows(2)]
    src = write_jsonl(tmp_path / "in.jsonl", [*named, *rows(1, start=2)])
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "-o", str(out), "--no-progress"]) == 0
    got = {r["id"]: r for r in read_jsonl(out)}
    assert got["s0"]["sample_domain"] == got["s1"]["sample_domain"] == "support"
    assert "sample_domain" not in got["s2"]
    assert got["s0"]["domain"] is None  # the calibration-domain check: no calibrator recorded one

    clash = {**rows(1, start=3)[0], "domain": "a", "sample_domain": "b"}
    both = write_jsonl(tmp_path / "both.jsonl", [clash])
    assert main(["score", str(both), "-o", str(out), "--no-progress"]) == 2
    assert "fields 'domain' and 'sample_domain' both given" in capsys.readouterr().err
