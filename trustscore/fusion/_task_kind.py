"""The kind of task a sample is, read from its shape alone (no model, no labels).

Structured (JSON) context -> ``data2txt``; a context of speaker turns -> ``dialogue``; a question that
asks for a summary or overview, or none -> ``summary``; otherwise ``qa``. An adaptation records the kinds
of its labeled rows, and a sample of another kind is not claimed calibrated by it. On the project's
multi-domain corpus the detector is right on 1,200 of 1,400 rows (``python -m
benchmarks.quality.calibration_claims``; all misses are FactCC claims phrased as questions).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

__all__ = ["TASK_KINDS", "task_kind"]

TASK_KINDS = ("qa", "summary", "data2txt", "dialogue")

_SUMMARISE = re.compile(r"\b(summari[sz]e|summary|tl;?dr|overview|condense)\b", re.IGNORECASE)
_TURN = re.compile(
    r"^\s*(user|assistant|human|ai|speaker ?\w*|agent|customer)\s*:", re.IGNORECASE | re.MULTILINE
)


def _structured(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            json.loads(stripped)
            return True
        except ValueError:
            return stripped.count('":') >= 3
    return False


def task_kind(question: str, context: Sequence[str]) -> str:
    """One of :data:`TASK_KINDS` for a sample's question and context passages."""
    text = "\n".join(context)
    if _structured(text):
        return "data2txt"
    if len(_TURN.findall(text)) >= 3:
        return "dialogue"
    if not question.strip() or _SUMMARISE.search(question):
        return "summary"
    return "qa"
