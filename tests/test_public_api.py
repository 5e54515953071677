"""Each package's public names are exactly its sorted ``__all__``, and each name is documented."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest

PACKAGES = ["maple_core", "maple_adapters", "maple_entrypoints"]


def modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_all_lists_exactly_the_public_names(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__)
    assert dir(module) == module.__all__
    for name in module.__all__:
        value = getattr(module, name)
        assert not isinstance(value, types.ModuleType), name
        if inspect.isclass(value) or inspect.isfunction(value):
            assert name in importlib.import_module(value.__module__).__all__, name
    assert not hasattr(module, "not_a_public_name")


@pytest.mark.parametrize("name", modules())
def test_every_module_has_a_sorted_all_of_documented_names(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__doc__, f"{name} has no docstring"
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert exported == sorted(exported)
    for export in exported:
        value = getattr(module, export)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name}.{export} has no docstring"
