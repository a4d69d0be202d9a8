"""Every public name of colonnade.feature_columns has an example (they run in test_doctests.py)."""

import inspect

import colonnade.feature_columns as fc


def test_every_public_name_has_an_example():
    assert len(fc.__all__) > 20
    missing = [n for n in fc.__all__ if ">>>" not in (inspect.getdoc(getattr(fc, n)) or "")]
    assert missing == []
