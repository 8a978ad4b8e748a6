"""Adding a built-in judge is one module, one prompt file and one import line: a copy of the package
gets the toy judge in tests/judges/sixth/ that way, and the suite's judge-generic tests pass over it
there (with it among the registered judges)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOY = Path(__file__).resolve().parent / "sixth"

GENERIC_TESTS = [
    "tests/judges/test_registration.py",
    "tests/judges/test_run.py::test_build_judge_by_name_upgrades_plain_config_and_rejects_unknown_names",
    "tests/signals/test_registry.py::test_the_built_ins_register_like_any_other_signal",
    "tests/testing/test_judges.py",
    "tests/fusion/test_fuser.py::test_judges_weigh_more_than_heuristics_and_unknown_signals_sit_between",
    "tests/scoring/test_ensemble.py",
    "tests/cli/test_tables.py::test_the_score_summary_keeps_one_line_per_fact_when_redirected",
    "tests/test_layering.py",
    "tests/test_docs_site.py::test_the_site_renders_the_configuration_page_from_the_models",
]


def test_a_sixth_judge_is_one_module_one_prompt_and_one_import(tmp_path: Path) -> None:
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", ".venv*", "*.pyc")
    for part in ("trustscore", "prompts", "tests", "docs", "scripts"):
        shutil.copytree(REPO / part, copy / part, ignore=ignore)
    for part in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy(REPO / part, copy / part)
    # the three-file change
    shutil.copy(TOY / "yesno.py", copy / "trustscore" / "judges" / "_yesno.py")
    shutil.copy(TOY / "yesno.txt", copy / "prompts" / "yesno.txt")
    init = copy / "trustscore" / "judges" / "__init__.py"
    line = "from trustscore.judges._tlm import TLMConfig, TLMJudge\n"
    text = init.read_text(encoding="utf-8")
    assert line in text
    added = line + "from trustscore.judges._yesno import YesNoJudge\n"
    init.write_text(text.replace(line, added), encoding="utf-8")

    env = {**os.environ, "PYTHONPATH": str(copy)}
    listed = subprocess.run(
        [sys.executable, "-c", "import trustscore; print(*trustscore.registered_signals('judge'))"],
        cwd=copy, env=env, capture_output=True, text=True, check=True,
    )
    assert listed.stdout.split()[-1] == "yesno"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-x", *GENERIC_TESTS],
        cwd=copy, env=env, capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "test_a_judge_registers_a_worst_case_cost_that_its_cpu_settings_do_not_raise[yesno] PASSED" in (
        run.stdout
    )
