"""Build hook: writes the English word-frequency table into the package when trustscore is built or
installed (wheel and editable alike), from the wordfreq release pinned in pyproject's build-system
requirements, so the 5 MB table is made reproducibly instead of kept in git.

The table's builder is scripts/build_word_table.py (also runnable by hand); this hook only calls it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TABLE = Path("trustscore") / "textmodels" / "data" / "wordfreq_en.bin"


class WordTableHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        table = root / TABLE
        builder = _load_builder(root / "scripts" / "build_word_table.py")
        data = builder.build()
        if not table.is_file() or table.read_bytes() != data:
            table.parent.mkdir(parents=True, exist_ok=True)
            table.write_bytes(data)
        if self.target_name == "wheel" and version != "editable":
            # the file is not in git (and so left out by default): the wheel carries it all the same
            build_data["force_include"][str(table)] = TABLE.as_posix()


def _load_builder(script: Path) -> Any:
    spec = importlib.util.spec_from_file_location("build_word_table", script)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load the word table's builder {script}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
