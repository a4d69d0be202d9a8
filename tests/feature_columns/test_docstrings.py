"""Every example in colonnade.feature_columns' docstrings runs and gives what it shows."""

import doctest
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import colonnade.feature_columns as fc

MODULES = ["colonnade.feature_columns"] + [
    f"colonnade.feature_columns.{m.name}" for m in pkgutil.iter_modules(fc.__path__)
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, extraglobs={"np": np}, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0


def test_every_public_name_has_an_example():
    missing = [n for n in fc.__all__ if ">>>" not in (inspect.getdoc(getattr(fc, n)) or "")]
    assert missing == []
