"""``trustscore score --ray`` says an on-by-default signal whose extra is missing on the actors as the
local command does: one ``not run:`` line in its summary with the install hint, no row degraded for
it, and no actor warns about it on its own. Run with ``pytest -m ray`` (needs the [ray] extra)."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")

from tests.ray_data.plugin_site import write_plugin_site  # noqa: E402
from trustscore.cli import main  # noqa: E402
from trustscore.ray._files import output_rows  # noqa: E402

HINT = "pip install 'needs-extra[x]'"

NEEDS_EXTRA_PLUGIN = f"""
from pydantic import BaseModel

from trustscore import register_signal


class NeedsExtraConfig(BaseModel):
    pass


@register_signal(
    "needs_extra", config=NeedsExtraConfig, kind="local", on_by_default=True, install_hint={HINT!r}
)
def build(config, ctx):
    raise ImportError("No module named 'the_extra'")  # as claims without spaCy
"""


@pytest.fixture(scope="module")
def ray_without_the_extra(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A local Ray whose workers find an on-by-default plug-in signal whose extra is not installed."""
    site = write_plugin_site(
        tmp_path_factory.mktemp("site"),
        module="needs_extra_signal",
        source=NEEDS_EXTRA_PLUGIN,
        signal="needs_extra",
    )
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    ray.init(
        num_cpus=3,  # two actors, and one CPU left for Ray Data's read and prepare tasks
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )
    try:
        yield
    finally:
        ray.shutdown()


def worker_log_text() -> str:
    """Every Ray worker log of this session (where an actor's warnings go with log_to_driver off)."""
    logs = Path(ray._private.worker.global_worker.node.get_logs_dir_path())
    return "".join(p.read_text(errors="replace") for p in logs.glob("worker-*") if p.is_file())


def test_the_ray_summary_says_it_once_with_the_install_hint_and_no_actor_warns(
    ray_without_the_extra: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = tmp_path / "trustscore.toml"
    config.write_text("[signals.embedding]\nenabled = false\n[signals.claims]\nenabled = false\n")
    sample = {"question": "How long is it?", "context": ["It is 140 metres long."], "response": "140 metres."}
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": f"r{i}", **sample}) + "\n" for i in range(6)))
    output = tmp_path / "out.jsonl"
    args = ["score", str(source), "-o", str(output), "--config", str(config), "--ray", "--no-progress"]
    with caplog.at_level(logging.WARNING, logger="trustscore"):
        status = main([*args, "--actors", "2", "--batch-size", "2"])
    printed = capsys.readouterr()
    said = [line for line in (printed.out + printed.err).splitlines() if "needs_extra" in line]
    assert status == 0
    assert len(said) == 1 and said[0].startswith("not run: needs_extra signal is on by default")
    assert HINT in said[0] and "it is skipped" in said[0]
    assert not [r for r in caplog.records if "needs_extra" in r.getMessage()]
    assert "needs_extra" not in worker_log_text(), "an actor warned about the skipped signal itself"
    results = output_rows(str(output), "jsonl")
    assert len(results) == 6 and not any(r["degraded"] for r in results)
    assert all("needs_extra" not in r["signals"] for r in results)
