"""A package's re-exports, each imported from its module when first asked for (PEP 562).

A package's `__init__` names what other packages may import from it. Importing every module
there would load the whole package with the first name asked for, and a worker's cold start
would pay for modules only an occasional case needs (D146). So the `__init__` imports its
names for the type checker only and, at run time, answers each from its module on first use.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_exports(package: str, modules: Mapping[str, str]) -> Callable[[str], object]:
    """The module `__getattr__` of `package`: `modules` maps each name it re-exports to the
    module (relative to the package) that defines it. A name once read is kept on the package,
    so the next read is a plain attribute."""

    def attribute(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return attribute
