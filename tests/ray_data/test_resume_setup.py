"""``trustscore score --ray`` resumes only into part files scored the way this run scores, as the
local command does: other signals refuse the run (exit 2, before Ray scores or drops anything, the
part files as they were), naming what differs, the part file and the fix; the same setup resumes.
Run with ``pytest -m ray`` (needs the [ray] extra)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")

from trustscore import Scorer, register_signal  # noqa: E402
from trustscore.cli import main  # noqa: E402
from trustscore.ray._files import output_rows  # noqa: E402

SAMPLE = {"question": "How long is it?", "context": ["It is 140 metres long."], "response": "140 metres."}

LEXICAL = "[signals.embedding]\nenabled = false\n[signals.claims]\nenabled = false\n"
"""Lexical alone: local, no model to load."""

LEXICAL_AND_EMBEDDING = "[signals.claims]\nenabled = false\n"
"""Another setup: embedding too (refused before any actor would load its model)."""


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray for the module: one actor, and one CPU for Ray Data's read and write tasks."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def write_input(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"r{i}", **SAMPLE}) + "\n" for i in range(n)))
    return path


def write_config(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def score_ray(source: Path, output: Path, config: Path, *extra: str) -> int:
    args = ["score", str(source), "-o", str(output), "--config", str(config), "--ray", "--no-progress"]
    return main([*args, "--actors", "1", *extra])


def part_files(output: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(output.iterdir()) if not p.name.startswith(".")}


@pytest.mark.parametrize("name", ["out.jsonl", "out.parquet"])
def test_another_setup_is_refused_untouched_and_the_same_one_resumes(
    local_ray: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    output = tmp_path / name
    fmt = "jsonl" if name.endswith(".jsonl") else "parquet"
    lexical = write_config(tmp_path / "lexical.toml", LEXICAL)
    assert score_ray(write_input(tmp_path / "in.jsonl", 2), output, lexical) == 0
    before = part_files(output)
    assert before and {r["id"] for r in output_rows(str(output), fmt)} == {"r0", "r1"}
    capsys.readouterr()

    source = write_input(tmp_path / "in.jsonl", 4)
    other = write_config(tmp_path / "other.toml", LEXICAL_AND_EMBEDDING)
    for flags in ((), ("--retry-incomplete",)):
        assert score_ray(source, output, other, *flags) == 2
        err = capsys.readouterr().err
        assert f"-o {output}: 2 earlier row(s), the first on " in err
        first = err.split("the first on ", 1)[1].split(",", 1)[0]
        assert first.startswith(("line 1 of ", "row 1 of ")) and first.endswith(tuple(before)), err
        assert "signal(s) embedding they lack" in err
        assert "score into a new output directory, or delete" in err
        assert part_files(output) == before, "a refused run changed the part files"

    assert score_ray(source, output, lexical) == 0, "the same setup resumes"
    out = output_rows(str(output), fmt)
    assert sorted(r["id"] for r in out) == ["r0", "r1", "r2", "r3"]
    assert all(list(r["signals"]) == ["lexical"] for r in out)
    assert "2 row(s) scored (0 of them incomplete before), 2 already done" in capsys.readouterr().err


HINT = "pip install 'needs-extra[x]'"


def register_needs_extra() -> None:
    """An on-by-default signal whose extra this process (the driver) lacks, as claims without spaCy."""

    class NeedsExtraConfig(BaseModel):
        pass

    @register_signal(
        "needs_extra", config=NeedsExtraConfig, kind="local", on_by_default=True, install_hint=HINT
    )
    def build(config: NeedsExtraConfig, ctx: object) -> None:
        raise ImportError("No module named 'the_extra'")


def test_a_signal_the_driver_cannot_build_is_named_with_that_cause_not_as_one_the_run_does_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], signal_registry: None
) -> None:
    """Rows that actors with the extra scored record its signal; the driver, without it, cannot tell
    whether this run's actors run it. Refused before Ray starts, the part files as they were."""
    register_needs_extra()
    lexical = write_config(tmp_path / "lexical.toml", LEXICAL)
    driver = Scorer.from_config(lexical, no_cache=True, warn_skipped=False)
    assert "needs_extra" in driver.skipped
    signals = {
        "lexical": {"name": "lexical", "value": 0.9, "version": driver.signal_versions["lexical"]},
        "needs_extra": {"name": "needs_extra", "value": 0.8, "version": "1"},
    }
    output = tmp_path / "out.jsonl"
    output.mkdir()
    row = {"trustscore": "result/1", "score": 0.9, "complete": True, "fusion": driver.fusions[0]}
    lines = [json.dumps({"id": f"r{i}", **row, "signals": signals}) + "\n" for i in range(2)]
    (output / "a_000000.jsonl").write_text("".join(lines), encoding="utf-8")
    before = part_files(output)

    assert score_ray(write_input(tmp_path / "in.jsonl", 4), output, lexical) == 2
    err = capsys.readouterr().err
    assert "this run does not run" not in err, err
    assert f"-o {output}: 2 earlier row(s), the first on line 1 of " in err
    assert "were scored with signal(s) needs_extra, which this driver cannot build" in err
    assert "needs_extra signal is on by default but not installed" in err and HINT in err
    assert "it is skipped" not in err, "the run does not skip what the actors may run"
    assert "install the extra where the command runs, as on the actors" in err
    assert part_files(output) == before
