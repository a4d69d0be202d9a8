"""Every docstring example in colonnade.data runs, and every public name has one."""

import doctest
import importlib
import inspect

import pytest

import colonnade as cn

MODULES = [
    "colonnade.data",
    "colonnade.data.columns",
    "colonnade.data.dataset",
    "colonnade.data.prefetch",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_public_names_have_examples():
    assert sorted(cn.data.__all__) == ["AUTOTUNE", "Dataset", "required_columns"]
    public = [cn.data.Dataset, cn.data.required_columns]
    public += [
        member
        for name, member in vars(cn.data.Dataset).items()
        if not name.startswith("_") and name != "AUTOTUNE"
    ]
    for obj in public:
        obj = getattr(obj, "__func__", obj)
        doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
        assert doc and ">>>" in doc, obj
