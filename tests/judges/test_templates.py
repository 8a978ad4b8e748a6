"""The judge templates live in the top-level prompts/ folder and ship inside the wheel."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from trustscore.judges._templates import load_template, prompts_folder

REPO = Path(__file__).resolve().parents[2]


def test_a_source_checkout_reads_the_top_level_prompts_folder() -> None:
    assert Path(str(prompts_folder())) == REPO / "prompts"
    assert load_template("lynx.txt") == (REPO / "prompts" / "lynx.txt").read_text(encoding="utf-8")
    with pytest.raises(FileNotFoundError):
        load_template("no_such_template.txt")


def test_the_wheel_ships_every_template_inside_the_package(tmp_path: Path) -> None:
    builders = pytest.importorskip("hatchling.builders.wheel", reason="the test extra installs hatchling")
    (wheel,) = builders.WheelBuilder(str(REPO)).build(directory=str(tmp_path), versions=["standard"])
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = sorted(p.name for p in (REPO / "prompts").iterdir() if p.suffix == ".txt")
    assert len(templates) >= 15
    missing = [t for t in templates if f"trustscore/prompts/{t}" not in names]
    assert not missing, f"not in the wheel: {missing}"
    assert not any(n.startswith("prompts/") for n in names)
