"""The public names are listed once: in the ``maple`` facade and in each name's home module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest

PACKAGES = ["maple", "maple_core", "maple_adapters", "maple_entrypoints"]


def modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"{package}."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return names


def test_the_facade_lists_exactly_the_public_names() -> None:
    import maple

    assert maple.__all__ == sorted(maple.__all__)
    public = sorted(n for n in vars(maple) if not n.startswith("_") and n != "annotations")
    assert public == maple.__all__
    for name in maple.__all__:
        value = getattr(maple, name)
        assert not isinstance(value, types.ModuleType), name
        if inspect.isclass(value) or inspect.isfunction(value):
            assert name in importlib.import_module(value.__module__).__all__, name


def test_no_package_but_the_facade_lists_another_modules_names() -> None:
    """A name is listed in its home module, and once more in the facade: nowhere else."""
    for name in modules():
        module = importlib.import_module(name)
        if name == "maple" or not (module.__file__ or "").endswith("__init__.py"):
            continue
        for export in module.__all__:
            value = getattr(module, export)
            if inspect.isclass(value) or inspect.isfunction(value):
                assert value.__module__ == name or name == "maple_entrypoints.review", (
                    f"{name} lists {export}, whose home is {value.__module__}"
                )


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
