"""A white-box model's forward pass stops at the score budget (every leaf module checks it)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs trustscore[whitebox]")

from trustscore._errors import BudgetExceeded  # noqa: E402
from trustscore.compute._deadline import Deadline, bound  # noqa: E402
from trustscore.testing._tiny import save_tiny_model  # noqa: E402
from trustscore.whitebox._model import load_model  # noqa: E402


def test_a_forward_pass_stops_at_an_expired_deadline(tmp_path: Path) -> None:
    loaded = load_model(save_tiny_model(tmp_path / "llama", num_layers=2))
    ids = torch.tensor([[1, 2, 3, 4]])
    with torch.inference_mode():
        loaded.model(ids)  # no deadline bound: runs
        deadline = Deadline(60)
        deadline.cancel()
        with bound(deadline), pytest.raises(BudgetExceeded):
            loaded.model(ids)
        with bound(Deadline(60)):
            loaded.model(ids)  # a deadline still ahead: runs
