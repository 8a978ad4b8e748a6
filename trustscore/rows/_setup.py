"""What scored a result row, so a resumed run can refuse an output scored another way.

A scored row records its setup: ``fusion`` (what made its score: "default:logodds" or
"calibrator:<name>@<version>"), the signals its Scorer ran (the keys of ``signals``, a missing
signal included, with those a ``[cascade]`` skipped) and their versions (which change with their
settings: another model or prompt, or a release that reads otherwise). A rerun into the same
output adds rows beside the earlier ones, so it must score them the same way:
:func:`setup_mismatch` compares the earlier rows' setups with the run's and says what differs. Rows
that record no setup (an error row, a row too large to write, a row written before these fields) are
not compared, nor are rows a later row of their id replaced (:class:`SetupTally`).
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from trustscore.rows._ids import IdIndex

__all__ = ["RowPlace", "RowSetup", "SetupTally", "row_setup", "setup_mismatch"]


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


class RowPlace(NamedTuple):
    """Where a row is, as a refusal names it: "line 3", "line 3 of <part file>", "row 3 of <part file>"."""

    unit: str
    number: int
    file: str = ""

    def __str__(self) -> str:
        return f"{self.unit} {self.number}" + (f" of {self.file}" if self.file else "")


_NO_SETUP = -1
"""The code of a row that records no setup (an error row): it still replaces an earlier row of its id."""


class SetupTally:
    """The setups of the rows that stand in an output: of rows with one id the last stands (a sample
    scored again, a row written twice), as the resume state reads them, so a row a later one replaced
    is not counted. Per row it keeps its id in an :class:`~trustscore.rows.IdIndex` and three numbers
    (its setup with whether it is complete, its file, its number), not its place's text: an output's
    rows cost about what its ids do."""

    def __init__(self) -> None:
        self._setups: dict[RowSetup, int] = {}
        self._files: dict[tuple[str, str], int] = {}
        self._last = IdIndex()
        """Id -> the number of its last row (rows are numbered as added)."""
        self._codes = array("i")
        """Per row: 2 * its setup's number + 1 when complete, or :data:`_NO_SETUP`."""
        self._file_of = array("i")
        self._number_of = array("q")
        self._tallied: list[tuple[RowSetup, RowPlace, int, int]] | None = None
        """:meth:`items` as last computed (a pass over every id), until the next :meth:`add`."""

    def add(self, row_id: str, setup: RowSetup | None, where: RowPlace, *, complete: bool) -> None:
        """Count one row, in the order of the output (a later row of ``row_id`` replaces this one);
        ``where``: its place."""
        code = _NO_SETUP
        if setup is not None:
            code = 2 * self._setups.setdefault(setup, len(self._setups)) + int(complete)
        self._last.set(row_id, len(self._codes))
        self._codes.append(code)
        self._file_of.append(self._files.setdefault((where.unit, where.file), len(self._files)))
        self._number_of.append(where.number)
        self._tallied = None

    def items(self) -> list[tuple[RowSetup, RowPlace, int, int]]:
        """(setup, where its first standing row is, complete rows, incomplete rows) of each setup some
        standing row was scored with, in the order of those first rows. Computed once per state: a
        resume asks for it more than once (is there any, can the driver build it, does it match)."""
        if self._tallied is None:
            self._tallied = self._tally()
        return self._tallied

    def _tally(self) -> list[tuple[RowSetup, RowPlace, int, int]]:
        first: dict[int, int] = {}
        counts: dict[int, list[int]] = {}
        for _, row in self._last.items():
            code = self._codes[row]
            if code == _NO_SETUP:
                continue
            first[code // 2] = min(first.get(code // 2, row), row)
            counts.setdefault(code // 2, [0, 0])[code % 2] += 1
        setups, files = list(self._setups), list(self._files)
        return [
            (setups[number], self._place(row, files), counts[number][1], counts[number][0])
            for number, row in sorted(first.items(), key=lambda found: found[1])
        ]

    def _place(self, row: int, files: list[tuple[str, str]]) -> RowPlace:
        unit, file = files[self._file_of[row]]
        return RowPlace(unit, self._number_of[row], file)


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
