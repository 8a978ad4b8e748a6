"""``trustscore score --ray`` through a cascade gives the local command's rows: the same stage per row,
the same skipped judges. Run with ``pytest -m ray`` (needs the [ray] extra)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray

ray = pytest.importorskip("ray")

from e2e_helpers import CONTEXT, JUDGES, QUESTION, RESPONSE, ensemble_dict, read_jsonl, to_toml, write_jsonl  # noqa: E402

from trustscore.cli import main  # noqa: E402
from trustscore.ray._files import output_rows  # noqa: E402
from trustscore.testing import FakeVLLMServer  # noqa: E402

INVENTED = "Isaac Asimov wrote Foundation in 1951 at Zorbak Station."


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def write_config(tmp_path: Path, base_url: str) -> Path:
    data = ensemble_dict(base_url)
    # lexical on: the local stage
    data["signals"] = {"embedding": {"enabled": False}, "claims": {"enabled": False}}
    stages = (
        '[[cascade.stages]]\nname = "local"\nsignals = ["lexical"]\n\n'
        '[[cascade.stages]]\nname = "judges"\nsignals = ' + str(list(JUDGES)).replace("'", '"') + "\n"
        "band = [0.0, 0.8]\n"
    )
    path = tmp_path / "trustscore.toml"
    path.write_text(to_toml(data) + "\n" + stages, encoding="utf-8")
    return path


def test_ray_stops_each_row_where_the_local_command_does(
    local_ray: None, fake_vllm: FakeVLLMServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, fake_vllm.base_url)
    responses = [RESPONSE, INVENTED] * 3
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"id": f"r{i}", "question": QUESTION, "context": CONTEXT, "response": r}
            for i, r in enumerate(responses)
        ],
    )
    common = ["--config", str(config), "--no-progress"]
    assert main(["score", str(source), "-o", str(tmp_path / "local.jsonl"), *common]) == 0
    assert (
        main(["score", str(source), "-o", str(tmp_path / "out.jsonl"), *common, "--ray", "--actors", "1"])
        == 0
    )
    local = {r["id"]: r for r in read_jsonl(tmp_path / "local.jsonl")}
    remote = {r["id"]: r for r in output_rows(str(tmp_path / "out.jsonl"), "jsonl")}
    assert set(local) == set(remote)
    for key, want in local.items():
        assert remote[key]["cascade"] == want["cascade"], key
        assert sorted(remote[key]["signals"]) == sorted(want["signals"]), key
    supported = [local[f"r{i}"] for i in range(0, 6, 2)]
    invented = [local[f"r{i}"] for i in range(1, 6, 2)]
    assert all(
        r["cascade"] == {"stage": "local", "stage_index": 0, "skipped": list(JUDGES)} for r in supported
    )
    assert all(r["cascade"]["stage"] == "judges" and set(JUDGES) <= set(r["signals"]) for r in invented)
    assert all(r["complete"] for r in local.values())
