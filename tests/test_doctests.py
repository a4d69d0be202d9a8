"""Every docstring example in every module of ``colonnade`` runs and gives what it shows.

The modules are found by walking the package, not listed by hand, so a new module's examples run
without anyone remembering to add it here. ``colonnade.core``, ``colonnade.data``, ... are mapped
from other folders (see pyproject.toml), so ``colonnade.__path__`` alone does not reach them: every
sub-package found is walked through its own ``__path__`` as well.
"""

import doctest
import importlib
import pkgutil
import sys
import types
from pathlib import Path

import pytest

import colonnade

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# Modules never imported here, each with the reason. Anything else that fails to import fails the
# test, unless what is missing is one of OPTIONAL_DEPENDENCIES.
NOT_IMPORTED = {
    "__main__": "importing a __main__ module runs the command line and exits",
}
# Third-party modules only some installs have (pyproject's optional extras).
OPTIONAL_DEPENDENCIES = {
    "cupy": "the 'gpu' extra",
    "cupyx": "the 'gpu' extra",
    "sklearn": "the 'sklearn' extra (colonnade.sklearn)",
    "ray": "the 'ray' extra (colonnade.distribute's actors)",
}
OPTIONFLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _skipped_reason(name):
    return NOT_IMPORTED.get(name.rsplit(".", 1)[-1])


def discover_modules():
    """The names of ``colonnade`` and every module and package below it, sorted."""
    found = {"colonnade"}
    walked = set()
    packages = [colonnade]

    def onerror(name):  # a sub-package that fails to import while walking: reported by the test
        found.add(name)

    while packages:
        package = packages.pop()
        if package.__name__ in walked:
            continue
        walked.add(package.__name__)
        prefix = package.__name__ + "."
        for info in pkgutil.walk_packages(package.__path__, prefix, onerror=onerror):
            found.add(info.name)
            if info.ispkg and info.name in sys.modules:
                packages.append(sys.modules[info.name])
        # Sub-packages mapped from another folder: reachable only as attributes.
        for value in vars(package).values():
            if (
                isinstance(value, types.ModuleType)
                and hasattr(value, "__path__")
                and value.__name__.startswith(prefix)
            ):
                found.add(value.__name__)
                packages.append(value)
    return sorted(found)


MODULES = discover_modules()


def import_module(name):
    """The module, or None when it needs an optional dependency this install lacks."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if (err.name or "").split(".")[0] in OPTIONAL_DEPENDENCIES:
            return None
        raise


def import_or_skip(name):
    reason = _skipped_reason(name)
    if reason:
        pytest.skip(f"{name}: {reason}")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        top = (err.name or "").split(".")[0]
        if top in OPTIONAL_DEPENDENCIES:
            pytest.skip(f"{name} needs {top} ({OPTIONAL_DEPENDENCIES[top]}), not installed")
        raise


def examples_run_in(module):
    """How many examples doctest will run in the module (those marked +SKIP are not run)."""
    tests = doctest.DocTestFinder().find(module)
    return sum(not ex.options.get(doctest.SKIP, False) for t in tests for ex in t.examples)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = import_or_skip(name)
    result = doctest.testmod(module, optionflags=OPTIONFLAGS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
    assert result.attempted == examples_run_in(module)


def test_the_walk_reaches_every_package_and_many_examples():
    pyproject = Path(__file__).parents[1] / "pyproject.toml"
    packages = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["packages"]
    assert set(packages) <= set(MODULES)
    for name in (
        "colonnade.cli.job",
        "colonnade.core.optimizers",
        "colonnade.core.schedules",
        "colonnade.data.dataset",
        "colonnade.estimators.canned.estimators",
        "colonnade.feature_columns.dense",
    ):
        assert name in MODULES
    modules = [import_module(n) for n in MODULES if _skipped_reason(n) is None]
    total = sum(examples_run_in(m) for m in modules if m is not None)
    assert total >= 350  # 390 when this was written: the walk must not come back (nearly) empty
