"""What a benchmark does with its result: print its report, keep the JSON for the docs' tables."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def report_and_save(result: dict[str, Any], out: Path, print_report: Callable[[dict[str, Any]], None]) -> int:
    """Print the report, write ``result`` to ``out`` as JSON; the exit status (0)."""
    print_report(result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0
