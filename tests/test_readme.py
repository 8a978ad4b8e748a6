"""The README's code runs as written: every python block, the config, the test commands CI runs, and
the offline scores it quotes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from trustscore import Config

REPO = Path(__file__).parents[1]
README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, flags=re.S)


def block(language: str, containing: str) -> str:
    (found,) = [b for b in blocks(language) if containing in b]
    return found


def run_block(code: str) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})


def test_the_readme_stays_short() -> None:
    assert len(TEXT.splitlines()) <= 260, "README.md is for users: put the detail in a docs/ page"


def test_every_python_block_is_tested() -> None:
    tested = ("ts.score_sync(", "score_many(samples)", "ts.read_jsonl(", 'signals["likert"]')
    assert len(blocks("python")) == len(tested)
    assert all(sum(marker in b for marker in tested) == 1 for b in blocks("python"))


def test_the_first_score(capsys: pytest.CaptureFixture[str]) -> None:
    run_block(block("python", "ts.score_sync("))
    out = capsys.readouterr().out.splitlines()
    assert 0.0 <= float(out[0]) <= 1.0
    assert out[1] == "False"  # the offline score ranks: not calibrated
    assert out[2] in ("['lexical', 'embedding']", "['lexical', 'embedding', 'claims']")  # claims: its extra
    assert "text='1989'" in out[3]
    assert out[4] == "{}"
    # The reason names the wrong year when the claims extra reads it, else the weakest support.
    assert out[5].startswith(("contradicted: May 1989, the context says May 1998", "not supported by"))
    assert out[6].startswith(f"TrustScore({float(out[0]):.2f} not calibrated: {out[5]}; lexical, embedding")
    assert len(out) == 7 and len(out[6]) < 200


def test_a_result_prints_as_one_short_line() -> None:
    from trustscore import score_sync

    result = score_sync(
        question="How long is it?",
        context=["The bridge is 140 metres long."],
        response="It is 410 metres long.",
    )
    shown = (str(result), repr(result))
    assert all("\n" not in s and len(s) < 200 and s.startswith("TrustScore(") for s in shown)
    assert result.reason and result.reason in shown[0]
    long = result.model_copy(update={"reason": "contradicted: " + "Sir Bartholomew Fitzwilliam " * 20})
    assert (
        "\n" not in str(long)
        and len(str(long)) < 200
        and str(long).endswith("...; " + ", ".join(result.used_signals) + ")")
    )


def test_score_many(capsys: pytest.CaptureFixture[str]) -> None:
    run_block(block("python", "score_many(samples)"))
    lines = capsys.readouterr().out.splitlines()
    assert [line.rsplit(" ", 1)[0] for line in lines] == ["Clara Voss.", "It is 410 metres long."]


def test_streaming_a_file(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(REPO)
    run_block(block("python", "ts.read_jsonl("))
    lines = capsys.readouterr().out.splitlines()
    rows = len((REPO / "examples/rag_samples.jsonl").read_text(encoding="utf-8").splitlines())
    assert sorted(int(line.split()[0]) for line in lines) == list(range(rows))


def test_the_judge_config_is_valid() -> None:
    config = Config.from_dict(tomllib.loads(block("toml", "[judges.likert]")))
    assert config.endpoints["judge"].model == "judge"
    assert {"likert", "chainpoll"} <= set(config.judges.model_dump())


def test_judges_in_three_steps_against_a_fake_server(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake_vllm_factory: object,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = fake_vllm_factory(models="judge")  # type: ignore[operator]
    (tmp_path / "trustscore.toml").write_text(block("toml", "[judges.likert]"), encoding="utf-8")
    monkeypatch.setenv("TRUSTSCORE_ENDPOINT_JUDGE_BASE_URL", server.base_url)
    monkeypatch.chdir(tmp_path)
    run_block(block("python", 'signals["likert"]'))
    out = capsys.readouterr().out
    assert "'likert'" in out and "'chainpoll'" in out and out.rstrip().endswith("{}")


def the_two_commands() -> list[str]:
    """The command lines of the bash blocks under README's "## The two commands", as written."""
    section = TEXT.split("\n## The two commands\n", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [line for b in code for line in b.splitlines() if line.strip() and not line.startswith("#")]


def ci_commands() -> list[str]:
    return [
        line
        for line in (REPO / ".ci/run").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]


def test_ci_runs_the_readme_commands_first_as_written() -> None:
    """A newcomer runs README's two commands as written: CI runs exactly those lines before anything."""
    readme = the_two_commands()
    assert readme == [
        "bash scripts/setup && .venv/bin/trustscore score examples/rag_samples.jsonl -o scored.jsonl",
        "bash scripts/setup --dev && bash scripts/test",
    ]
    assert ci_commands()[: len(readme)] == readme


def test_ci_then_runs_only_the_extra_suites_and_the_contributing_page_says_how() -> None:
    """After README's test command, CI sets up the extra suites and runs them alone (--only), so the
    default suite runs once; docs/contributing.md shows the same commands."""
    extra = ci_commands()[len(the_two_commands()) :]
    assert extra[-1] == "bash scripts/test --only ray,vllm,realmodel,phoenix,torch-free"
    assert all(line.startswith("bash scripts/setup ") for line in extra[:-1])
    contributing = (REPO / "docs/contributing.md").read_text(encoding="utf-8")
    assert "bash scripts/setup --dev && bash scripts/test" in contributing
    for line in extra:
        assert f"`{line}`" in contributing, line


def test_only_runs_the_named_suites_and_not_the_default_checks() -> None:
    script = (REPO / "scripts/test").read_text(encoding="utf-8")
    default = script.split("if [ $only = 0 ]; then", 1)[1].split("\nfi\n", 1)[0]
    assert 'python" -m pytest\n' in default and 'mypy" trustscore' in default
    refused = ((["--only"], "--only takes a list"), (["--only", "ray,bogus"], "unknown flag --bogus"))
    for args, said in refused:
        done = subprocess.run(["bash", "scripts/test", *args], cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 2 and said in done.stderr


def test_mypy_passes_without_the_ray_extra() -> None:
    """README's test command sets up --dev, which installs no Ray: mypy takes ray.* as untyped there."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    overrides = pyproject["tool"]["mypy"]["overrides"]
    assert any("ray.*" in o["module"] and o.get("ignore_missing_imports") for o in overrides)


def test_the_test_script_runs_every_suite_that_ci_needs() -> None:
    """scripts/test runs what CI checks; --all adds each marked suite except the GPU one."""
    script = (REPO / "scripts/test").read_text(encoding="utf-8")
    for step in (
        'ruff" check .',
        'mypy" trustscore',
        'mkdocs" build --strict',
        'python" -m pytest\n',
        'python" -m pytest -m slow tests/test_notebooks.py',
    ):
        assert step in script, step
    markers = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"
    ]["markers"]
    for marker in (m.partition(":")[0] for m in markers):
        if marker not in ("slow", "gpu"):
            assert f"-m {marker}" in script and f"--{marker})" in script, marker


def test_the_test_script_runs_the_default_suite_without_torch() -> None:
    """The default install has no torch: --torch-free (in --all) runs the default suite in the venv
    scripts/setup --torch-free builds, after checking that torch and transformers are absent there."""
    script = (REPO / "scripts/test").read_text(encoding="utf-8")
    assert "--torch-free) torchfree=1" in script and "torchfree=1 ;;" in script.split("--all)")[1]
    assert "step .venv-torch-free/bin/python -m pytest\n" in script
    assert "'torch', 'transformers'" in script
    assert "bash scripts/setup --torch-free" in (REPO / ".ci/run").read_text(encoding="utf-8")


def test_the_test_script_refuses_an_unknown_flag() -> None:
    done = subprocess.run(["bash", "scripts/test", "--bogus"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "unknown flag --bogus" in done.stderr


def test_the_offline_limits_table_is_what_the_example_prints() -> None:
    done = subprocess.run(
        [sys.executable, "examples/offline_limits.py"], cwd=REPO, capture_output=True, text=True, check=True
    )
    printed = {
        m["name"]: m["score"]
        for m in re.finditer(r"^(?P<name>.+?)\s+(?P<score>[01]\.\d{3}|–)$", done.stdout, re.M)
    }
    row = r"^\| (?P<name>[^|]+?) \| [^|]+ \| (?P<score>[01]\.\d{3}|–) \|$"
    table = {m["name"]: m["score"] for m in re.finditer(row, TEXT, re.M)}
    assert len(printed) == 6 and printed.keys() == table.keys()
    for name, score in printed.items():
        if score == "–":
            assert table[name] == "–", name
        else:
            assert float(table[name]) == pytest.approx(float(score), abs=0.01), name


def test_getting_started_tells_the_offline_limits_as_readme_table_shows_them() -> None:
    """docs/index.md retells README's table in words: the changed facts on the same side of 0.5."""
    index = (REPO / "docs/index.md").read_text(encoding="utf-8")
    paragraph = index.split("**What the offline default cannot catch.**")[1].split("\n\n")[0]
    paragraph = " ".join(paragraph.split())
    row = r"^\| (?P<name>[^|]+?) \| [^|]+ \| (?P<score>[01]\.\d{3}|–) \|$"
    table = {m["name"]: m["score"] for m in re.finditer(row, TEXT, re.M)}
    changed = [float(table[name]) for name in ("changed date", "swapped name", "negation")]
    assert all(score < 0.5 for score in changed) and "fall under 0.5" in paragraph
    assert table["other language"] == "–" and "another language gets no score" in paragraph
    assert "examples/offline_limits.py" in paragraph and not re.search(r"prints \w+ such cases", paragraph)
