"""The installed package: public names and the command line (examples: test_doctests.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

import colonnade as cn


def test_submodules_are_exposed():
    for name in ("core", "train", "feature_columns", "data", "estimators"):
        assert hasattr(cn, name), name
    assert cn.core.__name__ == "colonnade.core"


ROOT = Path(__file__).resolve().parents[1]
IMPORT_FROM_ROOT = """
import importlib.util, sys
if {drop_editable_finder}:  # as after a plain ``pip install .``, shadowed by ./colonnade/
    sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in str(f.__module__)]
import colonnade, colonnade.data, colonnade.estimators, colonnade.distribute
assert colonnade.data.__file__ == {data_init!r}, colonnade.data.__file__
assert colonnade.feature_columns.__name__ == "colonnade.feature_columns"
assert importlib.util.find_spec("colonnade.tests") is None
"""


@pytest.mark.parametrize("drop_editable_finder", [False, True])
def test_imports_from_the_repository_root(drop_editable_finder):
    """Python run in the clone's root finds ./colonnade/ first: the sub-packages mapped
    from sibling folders still import, from those folders, with or without the editable
    install's finder; tests/ does not become colonnade.tests."""
    code = IMPORT_FROM_ROOT.format(
        drop_editable_finder=drop_editable_finder, data_init=str(ROOT / "data" / "__init__.py")
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "colonnade", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_version_and_help():
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"colonnade {cn.__version__}"
    out = run_cli("--help")
    assert out.returncode == 0 and "demo" in out.stdout


def test_colonnade_demo_command_runs():
    out = run_cli("demo", "--epochs", "1", "--train-rows", "3000")
    assert out.returncode == 0, out.stderr
    assert "test accuracy" in out.stdout and "model_dir" in out.stdout


def test_census_demo_learns_on_a_small_slice(capsys):
    from colonnade.demo import run_demo

    summary = run_demo(epochs=1, train_rows=4000, batch_size=128)
    assert summary["accuracy"] > 0.78  # the majority class alone gives 0.764
    assert "test accuracy" in capsys.readouterr().out


def test_typed_package_and_documented_public_constructors():
    """``py.typed`` ships, and every argument of the canned estimators' constructors and
    their fit/evaluate/predict/train/export methods is annotated and in the docstring."""
    import inspect
    import typing

    assert (Path(cn.__file__).parent / "py.typed").is_file()
    E = cn.estimators
    classes = [
        E.LinearClassifier,
        E.LinearRegressor,
        E.DNNClassifier,
        E.DNNRegressor,
        E.DNNLinearCombinedClassifier,
        E.DNNLinearCombinedRegressor,
    ]
    methods = [(c.__init__, c.__doc__) for c in classes]
    for name in ("fit", "evaluate", "predict", "train", "export_saved_model"):
        method = getattr(E.LinearClassifier, name)
        methods.append((method, method.__doc__))
    methods.append((cn.load, cn.load.__doc__))
    for fn, doc in methods:
        hints = typing.get_type_hints(fn)
        for param in list(inspect.signature(fn).parameters)[1 if fn is not cn.load else 0 :]:
            assert f"        {param}: " in doc, (fn.__qualname__, param)
            assert param in hints, (fn.__qualname__, param)


def test_feature_column_factories_are_typed_and_documented():
    import inspect
    import typing

    fc = cn.feature_columns
    factories = [getattr(fc, n) for n in fc.__all__ if "_column" in n]
    assert len(factories) >= 15
    for fn in factories:
        hints = typing.get_type_hints(fn)
        assert "return" in hints, fn.__name__
        doc = fn.__doc__
        for param in inspect.signature(fn).parameters:
            assert param in hints, (fn.__name__, param)
            assert f"        {param}: " in doc or "    Args: as " in doc, (fn.__name__, param)


def test_load_adult_refuses_a_bad_row_count():
    from colonnade.demo import load_adult

    for rows, error in ((0, ValueError), (-5, ValueError), (True, TypeError), ("10", TypeError)):
        with pytest.raises(error, match="rows must be"):
            load_adult("test", rows=rows)
    with pytest.raises(ValueError, match="split must be 'train' or 'test'"):
        load_adult("validation")


def test_a_broken_pyproject_beside_an_installed_copy_is_not_ours(tmp_path):
    from colonnade.source_checkout import sibling_packages

    (tmp_path / "colonnade").mkdir()
    (tmp_path / "pyproject.toml").write_text("this is [not toml")
    assert sibling_packages(tmp_path / "colonnade") == {}


def test_every_package_folder_is_installed():
    """``pip install .`` (not ``-e``) copies only the packages pyproject.toml lists: each
    folder with an ``__init__.py`` under a mapped folder must be one of them, or the
    installed ``import colonnade`` fails (as it did for ``colonnade.compat``)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = set()
    for package, folder in setup["package-dir"].items():
        for init in (root / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(root / folder).parts
            found.add(".".join((package, *parts)))
    assert sorted(found - set(setup["packages"])) == []
