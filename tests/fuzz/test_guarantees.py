"""README's "What colonnade guarantees" bounds, each at its number: the largest allowed
passes the check, one more is refused by name. (Where a bound is tested elsewhere the
test is named in docs/exports.md's table.)"""

import json

import pytest

from colonnade.cli.job import MAX_CONFIG_BYTES, MAX_KEY_PARTS
from colonnade.core import tf_bundle
from colonnade.data import dataset, tfrecord
from colonnade.estimators.export import checks, receiver_checks
from colonnade.estimators.export.checks import ExportError
from colonnade.feature_columns.vocabulary import MAX_VOCABULARY_FILE_BYTES


def test_the_numbers_are_the_documented_ones():
    assert tfrecord.MAX_RECORD_BYTES == 2**31 - 1
    assert tfrecord.CHUNK_BYTES == 4 << 20
    assert dataset.MAX_ROWS == 2**31 - 1
    assert tf_bundle.MAX_CROSS_CUT_SLICES == 4096
    assert (checks.MAX_JSON_BYTES, checks.MAX_JSON_DEPTH) == (64 << 20, 64)
    assert receiver_checks.MAX_RECEIVER_FEATURES == 100_000
    assert (receiver_checks.MAX_FEATURE_RANK, receiver_checks.MAX_FEATURE_SIZE) == (8, 2**20)
    assert receiver_checks.MAX_EXAMPLE_VALUES == 2**20
    assert MAX_VOCABULARY_FILE_BYTES == 1 << 30
    assert (MAX_CONFIG_BYTES, MAX_KEY_PARTS) == (1 << 20, 32)


def nested(depth):
    return json.loads("[" * depth + "]" * depth)


def test_json_nesting_of_64_levels_passes_and_65_is_refused():
    checks.check_depth(nested(64), "m.json")
    with pytest.raises(ExportError, match="nested deeper than 64 levels"):
        checks.check_depth(nested(65), "m.json")


def receiver(features):
    return {"serving_input_receiver": {"type": "parsing", "features": features}}


def var():
    return {"kind": "var", "dtype": "int64", "shape": [], "default": None}


def fixed(shape):
    return {"kind": "fixed", "dtype": "float32", "shape": shape, "default": None}


def test_receiver_feature_count_rank_and_size_bounds():
    receiver_checks.check_receiver(receiver({f"f{i}": var() for i in range(100_000)}), "m.json")
    with pytest.raises(ExportError, match="expected 1 to 100,000 features, got 100001"):
        receiver_checks.check_receiver(receiver({f"f{i}": var() for i in range(100_001)}), "m.json")
    receiver_checks.check_receiver(receiver({"x": fixed([1] * 8)}), "m.json")
    with pytest.raises(ExportError, match="at most 8 integers"):
        receiver_checks.check_receiver(receiver({"x": fixed([1] * 9)}), "m.json")
    receiver_checks.check_receiver(receiver({"x": fixed([2**20])}), "m.json")
    with pytest.raises(ExportError, match="over 1,048,576 values"):
        receiver_checks.check_receiver(receiver({"x": fixed([2, 2**19 + 1])}), "m.json")


def test_fixed_length_values_of_one_example_are_bounded_together():
    half = fixed([2**19])
    receiver_checks.check_receiver(receiver({"a": half, "b": half}), "m.json")
    with pytest.raises(ExportError, match="hold 1,048,577 values an example together"):
        receiver_checks.check_receiver(receiver({"a": half, "b": half, "c": fixed([1])}), "m.json")
