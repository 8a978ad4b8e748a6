"""The test kit's README: its complete user test runs and passes as a user would run it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import trustscore.testing

pytest_plugins = ["pytester"]

README = Path(trustscore.testing.__file__).with_name("README.md")


def _code_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_complete_user_test_passes(pytester: pytest.Pytester) -> None:
    user_test = next(block for block in _code_blocks() if block.startswith("# test_my_rag_guard.py"))
    pytester.makepyfile(test_my_rag_guard=user_test)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(passed=2)


def test_the_policy_and_fault_snippets_run(fake_vllm: object) -> None:
    server = fake_vllm
    for block in _code_blocks()[:2]:
        exec(compile(block, str(README), "exec"), {"server": server})
