"""Code a newcomer runs from a checkout elsewhere finds its data relative to the checkout or by a flag:
no module names a folder that exists on one machine only."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).parents[1]
FOLDERS = ("trustscore", "benchmarks", "calibration", "scripts", "examples")
# a string literal or a usage line that starts at a home or workspace folder of one machine
ONE_MACHINE = re.compile(r"""["'`\[ ](/work/|/root/|/home/[a-z])""")


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_module_names_a_folder_of_one_machine(folder: str) -> None:
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ONE_MACHINE.search(line)
    ]
    assert not found, f"paths of one machine (use the checkout's parent, ../shared/data, or a flag): {found}"
