"""Third-party signals are discovered through the 'trustscore.signals' entry-point group, by the real
importlib.metadata machinery: the example package in examples/plugin is installed the way pip lays
it out (the module plus a .dist-info with entry_points.txt) into a directory on sys.path."""

from __future__ import annotations

import logging
import shutil
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from trustscore import Config, ConfigError, Scorer
from trustscore.signals import _registry as registry

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("signal_registry")]

PLUGIN = Path(__file__).resolve().parents[2] / "examples" / "plugin"
OFFLINE = {"signals": {"lexical": {"enabled": False}, "embedding": {"enabled": False}}}


def install(site: Path, name: str, version: str, entry_points: dict[str, dict[str, str]]) -> None:
    """A .dist-info as pip writes it: METADATA and entry_points.txt."""
    dist = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = []
    for group, entries in entry_points.items():
        lines += [f"[{group}]", *(f"{key} = {value}" for key, value in entries.items()), ""]
    (dist / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh site directory on sys.path; the registry scans the entry points again."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    yield tmp_path
    for module in ("trustscore_hedges", "broken_plugin"):
        sys.modules.pop(module, None)


async def test_the_example_plugin_is_found_through_its_entry_point(site: Path) -> None:
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    install(site, project["name"], project["version"], project["entry-points"])
    shutil.copy(PLUGIN / "trustscore_hedges.py", site)
    assert "trustscore_hedges" not in sys.modules

    config = Config.from_dict({**OFFLINE, "signals": {"hedges": {"per_hedge": 0.5}}})
    assert registry.get_signal("hedges").origin == "trustscore_hedges"
    scorer = Scorer(config)
    r = await scorer.score(question="How long is it?", response="I think it is probably 120 metres.")
    assert r.signals["hedges"].value == 0.0 and r.signals["hedges"].raw == {"hedges": ["I think", "probably"]}
    with pytest.raises(ConfigError, match=r"signals\.hedges\.per_hedge: Input should be greater than 0"):
        Config.from_dict({"signals": {"hedges": {"per_hedge": 0}}})


def test_a_broken_plugin_is_reported_by_name_and_spares_the_others(
    site: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (site / "broken_plugin.py").write_text("raise ImportError('needs libfoo')\n", encoding="utf-8")
    install(site, "broken", "1.0", {"trustscore.signals": {"broken": "broken_plugin", "absent": "json"}})
    failed = r"'broken' comes from a plug-in that failed to load: broken_plugin: ImportError: needs libfoo"
    with caplog.at_level(logging.WARNING, logger="trustscore"), pytest.raises(ConfigError, match=failed):
        Config.from_dict({"signals": {"broken": {}}})
    assert "plug-in broken failed to load" in caplog.text
    with pytest.raises(ConfigError, match=r"json loaded but registered no signal named 'absent'"):
        Config.from_dict({"signals": {"absent": {}}})
    assert Scorer(Config.from_dict({"signals": {"embedding": {"enabled": False}}})).signal_names == [
        "lexical",
        "claims",
    ]
