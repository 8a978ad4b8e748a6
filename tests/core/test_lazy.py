"""lazy_exports: a package's names load from their home module on first access, once."""

from __future__ import annotations

import sys
import types

import pytest

from trustscore.core._lazy import lazy_exports


def test_a_name_loads_from_its_home_once_and_unknown_names_are_attribute_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = types.ModuleType("lazyhome")
    home.value = object()  # type: ignore[attr-defined]
    package = types.ModuleType("lazypkg")
    monkeypatch.setitem(sys.modules, "lazyhome", home)
    monkeypatch.setitem(sys.modules, "lazypkg", package)
    package.__getattr__, package.__dir__ = lazy_exports("lazypkg", {"value": "lazyhome"})  # type: ignore[attr-defined]
    assert "value" not in vars(package)
    assert package.value is home.value  # type: ignore[attr-defined]
    assert vars(package)["value"] is home.value  # kept: the next read does not come back here
    assert dir(package) == sorted({*vars(package), "value"})
    package.__all__ = ["value"]  # type: ignore[attr-defined]
    assert dir(package) == ["value"]
    with pytest.raises(AttributeError, match="module 'lazypkg' has no attribute 'nope'"):
        package.nope  # type: ignore[attr-defined]  # noqa: B018


def test_every_lazy_package_keeps_its_promises() -> None:
    import trustscore
    import trustscore.fusion
    import trustscore.grounding
    import trustscore.llm
    import trustscore.testing

    for package in (trustscore, trustscore.fusion, trustscore.grounding, trustscore.llm, trustscore.testing):
        assert dir(package) == sorted(package.__all__)
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{package.__name__}.{name}"
