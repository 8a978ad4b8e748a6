"""What every registered judge brings with its registration, checked over the registry (a judge added
as one module passes these without a line changed here)."""

from __future__ import annotations

import pytest

from trustscore.judges import build_judge
from trustscore.judges._budget import cpu_advice
from trustscore.signals import JudgeCost, registered_signals

JUDGES = registered_signals("judge")


@pytest.mark.parametrize("name", list(JUDGES))
def test_a_judge_registers_a_worst_case_cost_that_its_cpu_settings_do_not_raise(name: str) -> None:
    spec = JUDGES[name]
    assert spec.cost is not None, f"{name}: register_judge(..., cost=) is missing"
    default = spec.config.model_validate({"endpoint": "e"})
    on_cpu = spec.config.model_validate({"endpoint": "e", **spec.cpu_settings})
    cost, cheaper = spec.cost(default), spec.cost(on_cpu)
    assert isinstance(cost, JudgeCost) and cost.requests >= 1 and cost.sequences >= cost.requests - 1
    assert 0 < cheaper.decode_tokens <= cost.decode_tokens
    assert build_judge(name, on_cpu).name == name


def test_the_cpu_advice_names_every_judge_and_suggests_their_registered_settings() -> None:
    judges = {name: spec.config.model_validate({"endpoint": "e"}) for name, spec in JUDGES.items()}
    advice = cpu_advice(judges, budget_s=1.0)
    for name, spec in JUDGES.items():
        assert any(line.startswith(f"  {name}: ") and "requests" in line for line in advice), name
        if spec.cpu_settings:
            assert f"[judges.{name}]" in advice
