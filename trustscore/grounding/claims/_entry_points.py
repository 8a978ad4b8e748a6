"""The installed packages' entry points, looked up by group, and srsly's msgpack decoders, found once,
while spaCy loads a pipeline.

spaCy's registries (catalogue) look for functions that other packages register through entry points:
every lookup of a registered name (each architecture, layer, component, scorer and tokenizer a
pipeline's config names, a few hundred for the small English pipeline) selects the entry points of
its group from all the installed packages' (``catalogue.AVAILABLE_ENTRY_POINTS``, read once when
catalogue is imported), comparing every one with the group. :func:`entry_points_by_group` puts in its
place, for the length of a load, an index of the same entry points by group, which answers the same
selection with a dictionary lookup (the original answers the rest catalogue asks of it). What any
registry finds is unchanged: the same entry points, in the same order.

srsly's ``unpackb`` (which reads each layer's weights and attributes, a few hundred calls for the small
English pipeline) asks its decoders' registry for all of them on every call, which compares every
function registered in the process (thousands, once spaCy is imported) with its namespace.
:func:`msgpack_decoders_found_once` finds them once for the length of a load: the same decoders, in
the same order (nothing registers one while a pipeline loads).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib.metadata import EntryPoint, EntryPoints
from itertools import chain
from typing import Any

__all__ = ["EntryPointsByGroup", "entry_points_by_group", "msgpack_decoders_found_once"]

_SWAPPING = threading.Lock()


class EntryPointsByGroup:
    """``entry_points`` (an ``importlib.metadata.entry_points()`` result) with ``select(group=...)``
    answered from an index by group; ``select`` with other parameters and the other attributes are the
    original's (catalogue reads no more of it; iterating, ``len`` and ``in`` are not forwarded)."""

    def __init__(self, entry_points: Any) -> None:
        self.original = entry_points
        by_group: dict[str, list[EntryPoint]] = {}
        for entry_point in _all(entry_points):
            by_group.setdefault(entry_point.group, []).append(entry_point)
        self._by_group = {group: EntryPoints(found) for group, found in by_group.items()}

    def select(self, **params: Any) -> Any:
        if params.keys() != {"group"}:
            return self.original.select(**params)
        return self._by_group.get(params["group"], EntryPoints(()))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.original, name)


def _all(entry_points: Any) -> Iterable[EntryPoint]:
    """Every entry point of an ``entry_points()`` result: by group (a dict) before Python 3.12, a
    sequence since."""
    if isinstance(entry_points, dict):  # dict's own values: SelectableGroups' warns that it is deprecated
        return chain.from_iterable(dict.values(entry_points))
    return entry_points  # type: ignore[no-any-return]


@contextmanager
def entry_points_by_group() -> Iterator[None]:
    """catalogue's entry points indexed by group until the block ends (nothing when catalogue is not
    imported or its entry points are already indexed); the original is back afterwards, unless
    something else replaced the index meanwhile."""
    catalogue = sys.modules.get("catalogue")
    with _SWAPPING:
        original = getattr(catalogue, "AVAILABLE_ENTRY_POINTS", None)
        if original is None or isinstance(original, EntryPointsByGroup) or not hasattr(original, "select"):
            index = None
        else:
            index = EntryPointsByGroup(original)
            catalogue.AVAILABLE_ENTRY_POINTS = index  # type: ignore[union-attr]
    try:
        yield
    finally:
        if index is not None:
            with _SWAPPING:
                if catalogue.AVAILABLE_ENTRY_POINTS is index:  # type: ignore[union-attr]
                    catalogue.AVAILABLE_ENTRY_POINTS = original  # type: ignore[union-attr]


@contextmanager
def msgpack_decoders_found_once() -> Iterator[None]:
    """srsly's msgpack decoders (``srsly.msgpack.msgpack_decoders.get_all()``) found once and answered
    from that until the block ends (nothing when srsly's msgpack API is not imported or the decoders are
    already found once); the registry's own lookup is back afterwards."""
    decoders = getattr(sys.modules.get("srsly.msgpack"), "msgpack_decoders", None)
    with _SWAPPING:
        if decoders is None or "get_all" in vars(decoders):
            found_once = None
        else:
            found = decoders.get_all()

            def found_once() -> dict[str, Any]:
                return dict(found)

            decoders.get_all = found_once
    try:
        yield
    finally:
        if found_once is not None and decoders is not None:
            with _SWAPPING:
                if vars(decoders).get("get_all") is found_once:
                    del decoders.get_all
