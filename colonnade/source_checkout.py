"""Running from a clone: ``colonnade.core``, ``colonnade.data``, ... are its sibling folders.

pyproject.toml maps the top-level folders ``core/``, ``data/``, ``feature_columns/``,
``estimators/`` and ``distribute/`` into the import package (``[tool.setuptools.package-dir]``).
An install (``pip install .`` or ``-e .``) carries that mapping out, but Python run in the
clone's root finds the local ``colonnade/`` folder first, and that folder holds none of them.
When ``colonnade`` is imported from a clone, :func:`map_sibling_packages` adds a finder that
resolves exactly the mapped sub-packages to their folders; nothing else in the clone
(``tests/``, ``benchmarks/``) becomes importable as ``colonnade.*``.

>>> import colonnade
>>> import colonnade.data
>>> colonnade.data.__name__
'colonnade.data'
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["SiblingPackageFinder", "map_sibling_packages", "sibling_packages"]

PACKAGE = "colonnade"


def sibling_packages(package_folder) -> dict:
    """``{"colonnade.core": <clone>/core, ...}``: the sub-packages pyproject.toml maps to
    other folders, when ``package_folder`` (the ``colonnade/`` folder) sits in a clone
    whose pyproject.toml maps it; ``{}`` for an installed copy.

    >>> sibling_packages("/nonexistent/colonnade")
    {}
    """
    root = Path(package_folder).resolve().parent
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    try:
        with open(pyproject, "rb") as f:
            config = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return {}  # not our clone's: an installed copy beside someone else's file
    mapping = config.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    if config.get("project", {}).get("name") != PACKAGE or mapping.get(PACKAGE) != PACKAGE:
        return {}
    return {
        name: root / folder
        for name, folder in mapping.items()
        if name.startswith(PACKAGE + ".") and (root / folder / "__init__.py").is_file()
    }


class SiblingPackageFinder(importlib.abc.MetaPathFinder):
    """Finds each of ``packages`` (dotted name -> folder) in its folder; defers anything
    else to the other finders. Their modules are then found through the package's
    ``__path__`` as usual."""

    def __init__(self, packages: dict):
        self.packages = dict(packages)

    def find_spec(self, fullname, path=None, target=None):
        folder = self.packages.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, folder / "__init__.py", submodule_search_locations=[str(folder)]
        )


def map_sibling_packages(package_folder) -> None:
    """Make the mapped sub-packages importable when ``colonnade`` is run from a clone
    (see the module docstring); a no-op for an installed copy, or if done already."""
    packages = sibling_packages(package_folder)
    if packages and not any(isinstance(f, SiblingPackageFinder) for f in sys.meta_path):
        sys.meta_path.append(SiblingPackageFinder(packages))
