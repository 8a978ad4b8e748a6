"""The CPU check of ``score --ray``'s actor count (pure: no Ray needed)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyarrow", reason="the Ray path needs the ray extra")

from trustscore.ray._dataset import cpus_short


def test_actors_that_leave_a_cpu_free_pass() -> None:
    assert cpus_short(1, {"CPU": 2.0}, name="--actors") is None
    assert cpus_short(14, {"CPU": 16.0}, name="--actors") is None


def test_too_many_actors_say_how_many_cpus_and_how_many_actors_fit() -> None:
    said = cpus_short(2, {"CPU": 2.0}, name="--actors")
    assert (
        said is not None and said.startswith("--actors=2 needs 3 CPUs") and "use at most 1 actor(s)" in said
    )


def test_a_cluster_of_one_cpu_or_none_yet_is_told_to_add_cpus_not_to_use_no_actors() -> None:
    for cpus in ({"CPU": 1.0}, {}):  # the default actor count on one CPU; an autoscaler's head of none
        said = cpus_short(1, cpus, name="--actors")
        assert said is not None and "use at most" not in said and "ray start --num-cpus N" in said
