"""Fuzzing the long-message reader (issue 41): a tf.Example whose lists hold thousands of
values, mutated, parses or raises a ValueError naming the record, within the time bound,
and gives what the field-by-field reading gives (the long reader switched off).
"""

import numpy as np
import pyarrow as pa
from fuzzhelpers import FUZZ, bounded, mutate, mutations
from hypothesis import given

import colonnade as cn
from colonnade.data import wire
from colonnade.data.example_writer import encode_examples

SPEC = {
    "tags": cn.io.VarLenFeature("bytes"),
    "ids": cn.io.VarLenFeature("int64"),
    "scores": cn.io.VarLenFeature("float32"),
}
SEED = encode_examples(
    pa.table(
        {
            "tags": pa.array([[b"t%d" % i for i in range(3000)]], pa.list_(pa.binary())),
            "ids": pa.array([list(range(0, 3_000_000, 1000))], pa.list_(pa.int64())),
            "scores": pa.array([np.arange(3000, dtype=np.float32)], pa.list_(pa.float32())),
        }
    )
)[0]


def parsed(record, passes):
    saved = wire.LONG_MESSAGE_PASSES
    wire.LONG_MESSAGE_PASSES = passes
    try:
        return repr(cn.io.parse_example([record], SPEC).to_pydict())  # repr: NaN == NaN
    except ValueError as err:
        assert "record 0" in str(err) or "feature '" in str(err), err
        return "ValueError"
    finally:
        wire.LONG_MESSAGE_PASSES = saved


@FUZZ
@given(ops=mutations())
def test_a_mutated_long_example_parses_as_field_by_field_or_raises(ops):
    record = mutate(SEED, ops)
    with bounded():
        long_read = parsed(record, wire.LONG_MESSAGE_PASSES)
    assert long_read == parsed(record, 10**9)
