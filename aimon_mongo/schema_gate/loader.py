"""Load a declarations package (by import name, or from a directory) and build its inventory.

A declarations package holds one module per format family; every module-level :class:`StoredRoot`, and
every class tagged with ``@root(...)``, is a root. Modules inside the package import each other
relatively, so a copy of the directory loads as its own package (the gate's tests edit such copies).
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Final

from aimon_mongo.errors import SchemaGateError
from aimon_mongo.schema_gate.build import build_graph
from aimon_mongo.schema_gate.inventory import Inventory, RootSchema
from aimon_mongo.stored.declare import ROOT_ATTRIBUTE, StoredRoot

DEFAULT_DECLARATIONS: Final = "aimon_mongo.stored"

_counter = itertools.count()


def load_inventory(source: str | Path = DEFAULT_DECLARATIONS) -> Inventory:
    """The inventory of the declarations in ``source`` (an importable package name or a directory)."""
    path = Path(source)
    if isinstance(source, Path) or path.is_dir():
        return _load_directory(path)
    try:
        package = importlib.import_module(str(source))
    except ImportError as exc:
        raise SchemaGateError("declarations-missing", f"cannot import declarations {source!r}: {exc}") from None
    return _inventory(_modules(package))


def _load_directory(path: Path) -> Inventory:
    init = path / "__init__.py"
    if not init.is_file():
        raise SchemaGateError("declarations-missing", f"{path} is not a package directory (no __init__.py)")
    name = f"_schema_gate_declarations_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(path)])
    if spec is None or spec.loader is None:
        raise SchemaGateError("declarations-missing", f"cannot load {path}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
        return _inventory(_modules(package))
    finally:
        for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[loaded]


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    yield package
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        yield importlib.import_module(f"{package.__name__}.{info.name}")


def _inventory(modules: Iterator[ModuleType]) -> Inventory:
    found: dict[str, StoredRoot] = {}
    for module in modules:
        for value in list(vars(module).values()):
            declared = _declared_root(value, module.__name__)
            if declared is None:
                continue
            if declared.name in found and found[declared.name] is not declared:
                raise SchemaGateError("duplicate-root", f"root {declared.name!r} is declared twice")
            found[declared.name] = declared
    return Inventory.of(
        RootSchema(r.name, r.family.name, r.family.version, build_graph(r.shape, r.name)) for r in found.values()
    )


def _declared_root(value: object, module: str) -> StoredRoot | None:
    if isinstance(value, StoredRoot):
        return value
    if isinstance(value, type) and getattr(value, "__module__", None) == module:
        tag = value.__dict__.get(ROOT_ATTRIBUTE)
        if isinstance(tag, StoredRoot):
            return tag
    return None
