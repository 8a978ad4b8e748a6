"""Install hints name a path to trustscore, never a PyPI project: trustscore is not on PyPI."""

from __future__ import annotations

import re
from pathlib import Path

from trustscore.core._extras import install_extra

PACKAGE = Path(__file__).resolve().parents[2] / "trustscore"


def test_the_hint_installs_the_extra_from_a_checkout_or_a_wheel() -> None:
    hint = install_extra("plots")
    assert hint.startswith("pip install '/path/to/trustscore[plots]'")
    assert "checkout" in hint and "wheel" in hint


def test_no_product_message_asks_pip_for_trustscore_by_name() -> None:
    by_name = re.compile(r"pip install ['\"]?trustscore\[")
    offenders = [str(p) for p in PACKAGE.rglob("*.py") if by_name.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
