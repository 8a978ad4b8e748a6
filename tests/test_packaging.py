"""What the wheel ships: the product and its public test kit, not the repository's own CI kit."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    builders = pytest.importorskip("hatchling.builders.wheel", reason="the test extra installs hatchling")
    out = tmp_path_factory.mktemp("wheel")
    (path,) = builders.WheelBuilder(str(REPO)).build(directory=str(out), versions=["standard"])
    return zipfile.ZipFile(path)


def test_the_vllm_engine_kit_stays_out_of_the_wheel(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert "trustscore/testing/_server.py" in names
    assert "trustscore/testing/pytest_plugin.py" in names
    kit = {"vllm_engine.py", "vllm_model.py", "real_model.py"}
    assert not {f"trustscore/testing/{name}" for name in kit} & names


def test_h11_is_needed_only_by_the_testing_extra(wheel: zipfile.ZipFile) -> None:
    (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    requires = Parser().parsestr(wheel.read(metadata).decode()).get_all("Requires-Dist") or []
    h11 = [r for r in requires if r.startswith("h11")]
    assert h11 and all("extra ==" in r for r in h11), h11
    assert any("extra == 'testing'" in r for r in h11), h11


def test_without_h11_the_fake_server_names_the_extra_to_install() -> None:
    code = "import sys; sys.modules['h11'] = None; import trustscore.testing._server"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 1
    assert "needs h11: pip install '/path/to/trustscore[testing]'" in done.stderr


def _extras_table(page: str) -> list[str]:
    text = (REPO / page).read_text(encoding="utf-8")
    start = text.index("| extra | adds | for |")
    return text[start : text.index("\n\n", start)].splitlines()


def test_the_extras_tables_name_exactly_pyprojects_extras_and_agree() -> None:
    """README's and docs/index.md's extras tables list every extra pyproject declares, and no other,
    and are the same table (README is the copy a newcomer reads first)."""
    import re
    import tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    readme = _extras_table("README.md")
    named = [name for row in readme[2:] for name in re.findall(r"`([a-z-]+)`", row.split(" | ")[0])]
    assert sorted(named) == sorted(declared)
    assert _extras_table("docs/index.md") == readme


def test_every_pip_install_of_trustscore_in_the_docs_names_a_checkout_path() -> None:
    """trustscore is on no index: `pip install 'trustscore[...]'` cannot work, a checkout's path can."""
    import re

    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "trustscore/testing/README.md"]
    for page in pages:
        for line in page.read_text(encoding="utf-8").splitlines():
            for target in re.findall(r"pip install (?:--\S+ )*'?([^\s'`]+)", line):
                assert not target.startswith("trustscore"), f"{page.name}: {line.strip()}"


def test_the_grounding_tables_ship_with_their_notices(wheel: zipfile.ZipFile) -> None:
    """The place table both grounding signals read ("CA" for "California") and the claims tables are
    package data: a wheel without them would fail at the first score, not at install."""
    names = set(wheel.namelist())
    for path in (
        "trustscore/grounding/data/places.tsv",
        "trustscore/grounding/data/NOTICE-pycountry.md",
        "trustscore/grounding/data/spellings.tsv",
        "trustscore/grounding/data/NOTICE-breame.md",
        "trustscore/grounding/claims/data/antonyms.tsv",
        "trustscore/grounding/claims/data/units.json",
    ):
        assert path in names, path
