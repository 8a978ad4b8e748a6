"""A site directory holding one signal plug-in, found through its entry point as an installed one is."""

from __future__ import annotations

from pathlib import Path


def write_plugin_site(site: Path, *, module: str, source: str, signal: str) -> Path:
    """Write ``source`` as ``module`` into ``site`` with the dist-info that registers it as ``signal``."""
    (site / f"{module}.py").write_text(source, encoding="utf-8")
    dist = site / f"{module}-1.dist-info"
    dist.mkdir()
    name = module.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n")
    (dist / "entry_points.txt").write_text(f"[trustscore.signals]\n{signal} = {module}\n")
    return site
