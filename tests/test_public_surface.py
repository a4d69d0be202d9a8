"""The public surface is written by hand: literal ``__all__``s, no module objects where none are
promised, and docs/api.md generated from them (``python docs/make_api.py``)."""

import ast
import importlib.util
import types
from pathlib import Path

import pytest

import colonnade as cn

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FOLDERS = ("colonnade", "core", "data", "feature_columns", "estimators", "distribute")


def _make_api():
    spec = importlib.util.spec_from_file_location("make_api", ROOT / "docs" / "make_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _package_inits():
    return sorted(p for folder in PACKAGE_FOLDERS for p in (ROOT / folder).rglob("__init__.py"))


def _literal_all(path: Path):
    """The names of a module-level ``__all__ = [...]`` of string literals, or None."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", None)
        if getattr(target, "id", None) == "__all__":
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                return [e.value for e in value.elts]
            return None
    return None


@pytest.mark.parametrize("init", _package_inits(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_package_states_a_literal_all(init):
    names = _literal_all(init)
    assert names is not None, f"{init.relative_to(ROOT)} has no literal __all__ = [...] of strings"
    assert len(names) == len(set(names)), f"{init.relative_to(ROOT)} lists a name twice"


def test_every_public_name_resolves():
    make_api = _make_api()
    for path, module in make_api.namespaces(cn):
        missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
        assert not missing, f"{path}.__all__ names what it does not define: {missing}"


@pytest.mark.parametrize("module", [cn.core, cn.estimators, cn.feature_columns, cn.distribute])
def test_implementation_packages_export_no_modules(module):
    modules = [n for n in module.__all__ if isinstance(getattr(module, n), types.ModuleType)]
    assert modules == [], f"{module.__name__} exports module objects {modules}"


def test_api_md_is_generated_from_the_all_lists():
    make_api = _make_api()
    written = make_api.API_MD.read_text(encoding="utf-8")
    assert written == make_api.render(), (
        "docs/api.md disagrees with the packages' __all__: run `python docs/make_api.py`"
    )


def test_api_md_lists_what_api_md_promises():
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for namespace in ("colonnade.estimators", "colonnade.compat.v1", "colonnade.train"):
        assert f"## `{namespace}`" in text
    assert "- `DNNLinearCombinedClassifier(" in text
    assert "- `numeric_column(" in text
