"""The installed package: public names, command line, and the docstring examples."""

import doctest
import importlib
import subprocess
import sys

import pytest

import colonnade as cn

DOCTEST_MODULES = [
    "colonnade.core",
    "colonnade.core.autodiff",
    "colonnade.core.backend",
    "colonnade.core.indexed_rows",
    "colonnade.core.ops",
    "colonnade.core.variables",
]


def test_submodules_are_exposed():
    for name in ("core", "train", "feature_columns", "data", "estimators"):
        assert hasattr(cn, name), name
    assert cn.core.__name__ == "colonnade.core"


@pytest.mark.parametrize("module", DOCTEST_MODULES)
def test_docstring_examples_run(module):
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, extraglobs={"np": importlib.import_module("numpy")})
    assert result.failed == 0


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "colonnade", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_version_and_help():
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"colonnade {cn.__version__}"
    out = run_cli("--help")
    assert out.returncode == 0 and "demo" in out.stdout


def test_cli_demo_learns():
    out = run_cli("demo", "--steps", "200")
    assert out.returncode == 0, out.stderr
    accuracy = float(out.stdout.split("test accuracy ")[1].split()[0])
    assert accuracy > 0.9
