from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """Tiny matrices run fastest on one thread, and far faster than two on a busy 2-core machine: the
    modules of tiny white-box models use it (``pytest.mark.usefixtures("one_torch_thread")``)."""
    torch = pytest.importorskip("torch", reason="white-box signals need trustscore[whitebox]")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
