"""Shared fixtures for the feature column tests.

``golden`` holds values produced once by TensorFlow 2.15 (see ``golden/make_golden.py``;
TensorFlow is not needed to run the tests).
"""

import json
import pathlib

import pytest

GOLDEN = pathlib.Path(__file__).parent / "golden" / "tf_2_15.json"


@pytest.fixture(scope="session")
def golden():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))
