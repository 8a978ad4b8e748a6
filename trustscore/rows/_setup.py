"""What scored a result row, so a resumed run can refuse an output scored another way.

A scored row records its setup: ``fusion`` (what made its score: "default:logodds" or
"calibrator:<name>@<version>"), the signals its Scorer ran (the keys of ``signals``, a missing
signal included, with those a ``[cascade]`` skipped) and their versions (which change with their
settings: another model or prompt, or a release that reads otherwise). A rerun into the same
output adds rows beside the earlier ones, so it must score them the same way:
:func:`setup_mismatch` compares the earlier rows' setups with the run's and says what differs. Rows
that record no setup (an error row, a row too large to write, a row written before these fields) are
not compared.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["RowSetup", "SetupTally", "row_setup", "setup_mismatch"]


@dataclass(frozen=True)
class RowSetup:
    """What scored one row: its ``fusion``, the signals its Scorer ran, and the versions they gave."""

    fusion: str
    signals: frozenset[str]
    versions: frozenset[tuple[str, str]]
    """(signal, version) of each signal whose entry in the row names a version."""


def row_setup(row: Mapping[str, Any]) -> RowSetup | None:
    """The setup a result row was scored with; None for a row that records none (no ``signals``, or
    a ``fusion`` of "none": an error row)."""
    fusion, signals, cascade = row.get("fusion"), row.get("signals"), row.get("cascade")
    if not isinstance(fusion, str) or fusion == "none" or not isinstance(signals, dict) or not signals:
        return None
    names = set(signals)
    skipped = cascade.get("skipped") if isinstance(cascade, dict) else None
    if isinstance(skipped, list):
        names.update(name for name in skipped if isinstance(name, str))
    versions = {
        (name, found["version"])
        for name, found in signals.items()
        if isinstance(found, dict) and isinstance(found.get("version"), str)
    }
    return RowSetup(fusion, frozenset(names), frozenset(versions))


@dataclass
class _Seen:
    where: str
    complete: int = 0
    incomplete: int = 0


class SetupTally:
    """The setups of an output's rows: for each, where its first row is and how many rows, complete
    and not, were scored with it."""

    def __init__(self) -> None:
        self._seen: dict[RowSetup, _Seen] = {}

    def add(self, setup: RowSetup | None, where: str, complete: bool) -> None:
        """Count one row; ``where``: the place of the row, as the refusal names it ("line 3", or
        "line 3 of <part file>")."""
        if setup is None:
            return
        seen = self._seen.setdefault(setup, _Seen(where))
        if complete:
            seen.complete += 1
        else:
            seen.incomplete += 1

    def items(self) -> list[tuple[RowSetup, str, int, int]]:
        """(setup, where its first row is, complete rows, incomplete rows) of each setup, in the order
        first seen."""
        return [(s, v.where, v.complete, v.incomplete) for s, v in self._seen.items()]


def setup_mismatch(
    tally: SetupTally,
    fusions: Collection[str],
    signals: Mapping[str, str | None],
    *,
    keep_incomplete: bool,
) -> str | None:
    """Why the rows a run keeps were scored another way than the run scores (``fusions``: the ``fusion``
    its results may carry, empty when not known; ``signals``: the signals it runs, each with its
    version where it has one), naming the first such setup and what differs; None when they agree.
    ``keep_incomplete``: the incomplete rows stay in the output (without ``--retry-incomplete``), so
    they are compared too."""
    current = frozenset(signals)
    for setup, where, complete, incomplete in tally.items():
        kept = complete + (incomplete if keep_incomplete else 0)
        if not kept:
            continue
        differs = []
        if fusions and setup.fusion not in fusions:
            differs.append(f"fusion {setup.fusion!r} (this run: {' or '.join(map(repr, sorted(fusions)))})")
        if setup.signals != current:
            had, runs = sorted(setup.signals - current), sorted(current - setup.signals)
            parts = [f"signal(s) {', '.join(had)} this run does not run"] if had else []
            parts += [f"signal(s) {', '.join(runs)} they lack"] if runs else []
            differs.append(" and ".join(parts))
        changed = sorted((name, v) for name, v in setup.versions if signals.get(name) not in (None, v))
        if changed:
            shown = ", ".join(f"{name} {v!r} (this run: {signals[name]!r})" for name, v in changed)
            differs.append(f"signal version(s) {shown}")
        if differs:
            return f"{kept} earlier row(s), the first on {where}, were scored with {'; '.join(differs)}"
    return None
