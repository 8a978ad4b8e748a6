"""While spaCy loads, catalogue's entry points are indexed by group and srsly's msgpack decoders are
found once: every selection answers as the original does, and the original is back afterwards."""

from __future__ import annotations

import sys
import threading
from importlib.metadata import entry_points
from types import ModuleType

import pytest

from trustscore.grounding.claims._entry_points import (
    EntryPointsByGroup,
    entry_points_by_group,
    msgpack_decoders_found_once,
)


def _groups(found: object) -> list[str]:
    return sorted({ep.group for ep in found.select()} if not isinstance(found, dict) else dict.keys(found))


def test_each_group_selects_the_same_entry_points_in_the_same_order() -> None:
    original = entry_points()
    index = EntryPointsByGroup(original)
    groups = _groups(original)
    assert groups, "this environment has no entry points to compare"
    for group in [*groups, "no.such.group"]:
        assert list(index.select(group=group)) == list(original.select(group=group)), group
    name = next(iter(original.select(group=groups[0]))).name
    assert list(index.select(group=groups[0], name=name)) == list(original.select(group=groups[0], name=name))


@pytest.fixture
def fake_catalogue(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = ModuleType("catalogue")
    module.AVAILABLE_ENTRY_POINTS = entry_points()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "catalogue", module)
    return module


def test_the_index_stands_in_for_the_block_only(fake_catalogue: ModuleType) -> None:
    original = fake_catalogue.AVAILABLE_ENTRY_POINTS
    with entry_points_by_group():
        inside = fake_catalogue.AVAILABLE_ENTRY_POINTS
        assert isinstance(inside, EntryPointsByGroup) and inside.original is original
        with entry_points_by_group():  # nested (another load meanwhile): the same index
            assert fake_catalogue.AVAILABLE_ENTRY_POINTS is inside
        assert fake_catalogue.AVAILABLE_ENTRY_POINTS is inside
    assert fake_catalogue.AVAILABLE_ENTRY_POINTS is original


def test_a_failing_load_puts_the_original_back(fake_catalogue: ModuleType) -> None:
    original = fake_catalogue.AVAILABLE_ENTRY_POINTS
    with pytest.raises(OSError), entry_points_by_group():
        raise OSError("the package's files are unreadable")
    assert fake_catalogue.AVAILABLE_ENTRY_POINTS is original


def test_a_replacement_made_meanwhile_is_left_in_place(fake_catalogue: ModuleType) -> None:
    replaced = entry_points()
    with entry_points_by_group():
        fake_catalogue.AVAILABLE_ENTRY_POINTS = replaced  # type: ignore[attr-defined]
    assert fake_catalogue.AVAILABLE_ENTRY_POINTS is replaced


def test_without_catalogue_nothing_is_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "catalogue", raising=False)
    with entry_points_by_group():
        assert "catalogue" not in sys.modules


def test_another_thread_meanwhile_selects_what_the_original_does(fake_catalogue: ModuleType) -> None:
    original = fake_catalogue.AVAILABLE_ENTRY_POINTS
    group = _groups(original)[0]
    seen: list[object] = []
    with entry_points_by_group():
        thread = threading.Thread(
            target=lambda: seen.append(list(fake_catalogue.AVAILABLE_ENTRY_POINTS.select(group=group)))
        )
        thread.start()
        thread.join()
    assert seen == [list(original.select(group=group))]


@pytest.fixture
def fake_srsly(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """srsly's msgpack API as far as the block reads it: a registry whose lookup counts its calls."""

    class Registry:
        def __init__(self) -> None:
            self.lookups = 0
            self.functions: dict[str, object] = {"numpy": len, "other": abs}

        def get_all(self) -> dict[str, object]:
            self.lookups += 1
            return dict(self.functions)

    module = ModuleType("srsly.msgpack")
    module.msgpack_decoders = Registry()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "srsly.msgpack", module)
    return module


def test_the_decoders_are_found_once_for_the_block_only(fake_srsly: ModuleType) -> None:
    decoders = fake_srsly.msgpack_decoders
    with msgpack_decoders_found_once():
        first = decoders.get_all()
        assert decoders.get_all() == first == {"numpy": len, "other": abs}
        assert list(first) == ["numpy", "other"]  # in the registry's order
        first["mutated"] = str  # each call's answer is the caller's own
        with msgpack_decoders_found_once():  # nested (another load meanwhile): still found once
            assert decoders.get_all() == {"numpy": len, "other": abs}
        assert decoders.lookups == 1
    decoders.get_all()
    assert decoders.lookups == 2  # the registry's own lookup is back


def test_a_failing_load_gives_the_decoders_lookup_back(fake_srsly: ModuleType) -> None:
    decoders = fake_srsly.msgpack_decoders
    with pytest.raises(OSError), msgpack_decoders_found_once():
        raise OSError("the package's files are unreadable")
    assert "get_all" not in vars(decoders)


def test_without_srsly_msgpack_nothing_is_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "srsly.msgpack", raising=False)
    with msgpack_decoders_found_once():
        assert "srsly.msgpack" not in sys.modules
