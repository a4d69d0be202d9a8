"""tf.Example parsing (cn.io.parse_example and friends) and writing."""

import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.data.example_writer import encode_examples, encode_sequence_examples
from colonnade.feature_columns import (
    categorical_column_with_vocabulary_list,
    make_parse_example_spec,
    numeric_column,
)

F, V, S = cn.io.FixedLenFeature, cn.io.VarLenFeature, cn.io.FixedLenSequenceFeature

TABLE = pa.table(
    {
        "age": [39, 50, None],
        "hours": [40.5, 13.0, 60.25],
        "workclass": ["State-gov", None, "Private"],
        "tags": [["a", "b"], [], ["c"]],
        "xy": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
    }
)


def varint(n):
    n %= 1 << 64
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]))


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_round_trip_types_defaults_and_absent_nulls():
    records = encode_examples(TABLE)
    got = cn.io.parse_example(
        records,
        {
            "age": F([], "int64", default_value=-1),
            "hours": F([], "float32"),
            "workclass": F([], "string", default_value="?"),
            "tags": V("string"),
            "xy": F([2], "float32"),
        },
    )
    assert got.schema.field("age").type == pa.int64()
    assert got.schema.field("hours").type == pa.float32()
    assert got.schema.field("tags").type == pa.list_(pa.string())
    assert got.schema.field("xy").type == pa.list_(pa.float32(), 2)
    assert got.to_pydict() == {
        "age": [39, 50, -1],
        "hours": [40.5, 13.0, 60.25],
        "workclass": ["State-gov", "?", "Private"],
        "tags": [["a", "b"], [], ["c"]],
        "xy": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
    }


def test_multi_dimensional_shape_and_vector_default():
    records = encode_examples(pa.table({"m": [[1, 2, 3, 4], None]}))
    got = cn.io.parse_example(records, {"m": F([2, 2], "int64", default_value=[0, 0, 0, 9])})
    assert got.column("m").to_pylist() == [[[1, 2], [3, 4]], [[0, 0], [0, 9]]]


def test_missing_required_feature_names_feature_and_record():
    records = encode_examples(TABLE)
    with pytest.raises(ValueError, match="feature 'age' is required but record 2 does not"):
        cn.io.parse_example(records, {"age": F([], "int64")})


def test_wrong_kind_names_feature_and_record():
    records = encode_examples(pa.table({"x": [1, 2]})) + encode_examples(pa.table({"x": [1.5]}))
    with pytest.raises(
        ValueError,
        match="feature 'x' in record 2 is a float_list, but it was "
        "declared as int64_list; declare its dtype as 'float32'",
    ):
        cn.io.parse_example(records, {"x": F([], "int64")})


def test_wrong_number_of_values():
    records = encode_examples(pa.table({"x": [[1, 2], [1, 2, 3]]}))
    with pytest.raises(
        ValueError,
        match=r"feature 'x' in record 1 has 3 values, but "
        r"FixedLenFeature shape \[2\] needs 2",
    ):
        cn.io.parse_example(records, {"x": F([2], "int64")})


def test_spec_errors_as_tf():
    with pytest.raises(ValueError, match="default_value has 3 values but shape"):
        F([2], "int64", default_value=[1, 2, 3])
    with pytest.raises(ValueError, match="got dtype 'float64'"):
        V("float64")
    with pytest.raises(TypeError, match="expected FixedLenFeature"):
        cn.io.parse_example([], {"x": "int64"})
    records = encode_examples(pa.table({"x": [[1, 2]]}))
    with pytest.raises(ValueError, match="needs allow_missing=True"):
        cn.io.parse_example(records, {"x": S([], "int64")})
    assert F([], np.int64) == F([], "int64") == F([], pa.int64())
    assert V(pa.string()).dtype == "string" and V(np.float32).dtype == "float32"


def test_invalid_utf8_names_feature_and_bytes_dtype_reads_it():
    records = encode_examples(pa.table({"b": pa.array([b"\xff\xfe"], pa.binary())}))
    with pytest.raises(ValueError, match="feature 'b' holds bytes that are not UTF-8"):
        cn.io.parse_example(records, {"b": F([], "string")})
    assert cn.io.parse_example(records, {"b": F([], "bytes")}).column("b").to_pylist() == [
        b"\xff\xfe"
    ]


def test_fixed_len_sequence_feature_in_parse_example():
    records = encode_examples(pa.table({"x": [[1, 2, 3, 4], [], None]}))
    got = cn.io.parse_example(records, {"x": S([2], "int64", allow_missing=True)})
    # TF pads every record to the longest, with default_value (0 by default)
    assert got.column("x").to_pylist() == [[[1, 2], [3, 4]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]]


def test_garbage_record_is_an_error_naming_it():
    good = encode_examples(pa.table({"x": [1]}))[0]
    with pytest.raises(ValueError, match="record 1 is not a valid serialized tf.train"):
        cn.io.parse_example([good, good[:-2]], {"x": F([], "int64")})


def test_protobuf_semantics_in_any_layout():
    """Reversed map entry fields, unknown fields, unpacked int64, a key given twice (the
    last wins), two `features` fields (merged) and a negative int64."""
    entry_x = field(2, field(3, varint(8) + varint(5) + varint(8) + varint(-7))) + field(1, b"x")
    entry_x_again = field(1, b"x") + field(2, field(3, field(1, varint(42))))
    entry_s = field(1, b"s") + field(2, field(1, field(1, b"hi") + field(1, b"yo")))
    unknown = varint(9 << 3) + varint(77)
    record = field(1, field(1, entry_x) + unknown) + unknown + field(1, field(1, entry_s))
    record2 = field(1, field(1, entry_x) + field(1, entry_x_again))
    got = cn.io.parse_example([record, record2], {"x": V("int64"), "s": V("string")})
    assert got.to_pydict() == {"x": [[5, -7], [42]], "s": [["hi", "yo"], []]}


def test_arrow_input_and_parse_single_example():
    records = pa.array(encode_examples(TABLE), pa.binary())
    spec = {"hours": F([], "float32"), "tags": V("string"), "xy": F([2], "float32")}
    assert cn.io.parse_example(records.slice(1), spec).num_rows == 2
    one = cn.io.parse_single_example(encode_examples(TABLE)[0], spec)
    assert one["hours"].shape == () and one["hours"] == np.float32(40.5)
    assert one["tags"].tolist() == ["a", "b"]
    assert one["xy"].tolist() == [1.0, 2.0]


def test_make_parse_example_spec_schema():
    columns = [
        numeric_column("hours"),
        categorical_column_with_vocabulary_list("workclass", ["Private", "State-gov"]),
    ]
    schema = make_parse_example_spec(columns)
    got = cn.io.parse_example(encode_examples(TABLE), schema)
    assert got.schema == schema
    assert got.column("workclass").to_pylist() == [["State-gov"], [], ["Private"]]
    nullable = pa.schema([pa.field("age", pa.int64()), pa.field("hours", pa.float64())])
    got = cn.io.parse_example(encode_examples(TABLE), nullable)
    assert got.column("age").to_pylist() == [39, 50, None]
    assert got.schema == nullable
    required = pa.schema([pa.field("age", pa.int64(), nullable=False)])
    with pytest.raises(ValueError, match="feature 'age' is required but record 2"):
        cn.io.parse_example(encode_examples(TABLE), required)


def test_parse_sequence_example():
    records = encode_sequence_examples(
        [{"user": [7]}, {"user": [8]}],
        [{"clicks": [[1], [2], [3]], "words": [["a", "b"], []]}, {"clicks": []}],
    )
    ctx, seq = cn.io.parse_sequence_example(
        records,
        {"user": F([], "int64")},
        {"clicks": S([], "int64", allow_missing=True), "words": V("string")},
    )
    assert ctx.to_pydict() == {"user": [7, 8]}
    assert seq.to_pydict() == {"clicks": [[1, 2, 3], []], "words": [[["a", "b"], []], []]}
    with pytest.raises(ValueError, match="feature list 'words' is required but record 1"):
        cn.io.parse_sequence_example(records, None, {"words": S([], "string")})
    with pytest.raises(ValueError, match="has a step with 1 values, but shape \\[2\\]"):
        cn.io.parse_sequence_example(records, None, {"clicks": S([2], "int64")})


def test_writer_refuses_unsupported_types():
    with pytest.raises(TypeError, match="column 'when' has type timestamp"):
        encode_examples(pa.table({"when": pa.array([0], pa.timestamp("s"))}))


def _protobuf_classes():
    pytest.importorskip("google.protobuf")
    import example_pb

    return example_pb.build()


values_int = st.lists(st.integers(-(2**63), 2**63 - 1), max_size=5)
values_float = st.lists(st.floats(width=32, allow_nan=False), max_size=5)
values_bytes = st.lists(st.text(max_size=6), max_size=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(values_int, values_float, values_bytes, st.booleans()), max_size=8))
def test_agrees_with_protobuf_runtime(rows):
    """Examples serialized by the protobuf runtime parse to the values put in."""
    classes = _protobuf_classes()
    records = []
    for ints, floats, texts, with_ints in rows:
        ex = classes["Example"]()
        if with_ints:
            ex.features.feature["i"].int64_list.value.extend(ints)
        ex.features.feature["f"].float_list.value.extend(floats)
        ex.features.feature["b"].bytes_list.value.extend(t.encode() for t in texts)
        records.append(ex.SerializeToString())
    got = cn.io.parse_example(records, {"i": V("int64"), "f": V("float32"), "b": V("string")})
    assert got.column("i").to_pylist() == [r[0] if r[3] else [] for r in rows]
    assert got.column("f").to_pylist() == [r[1] for r in rows]
    assert got.column("b").to_pylist() == [r[2] for r in rows]
    # ... and what colonnade writes, the protobuf runtime reads back the same.
    ours = encode_examples(got)
    for record, (ints, floats, texts, with_ints) in zip(ours, rows):
        ex = classes["Example"].FromString(record)
        assert list(ex.features.feature["i"].int64_list.value) == (ints if with_ints else [])
        assert list(ex.features.feature["f"].float_list.value) == floats
        assert [v.decode() for v in ex.features.feature["b"].bytes_list.value] == texts


def _example(features):
    """A serialized tf.Example of ``{name: Feature payload}`` (written here by hand)."""
    entries = b"".join(field(1, field(1, k.encode()) + field(2, v)) for k, v in features.items())
    return field(1, entries)


def _general_path():
    """Patches that turn off the one-field list decoding and the scalar-column builder,
    so the general per-feature path parses everything."""
    from unittest import mock

    from colonnade.data import example_columns, example_messages

    return (
        mock.patch.object(example_messages, "_one_field_list", lambda *a: (None, None)),
        mock.patch.object(example_columns, "_scalar_columns", lambda *a: {}),
    )


scalar_rows = st.lists(
    st.tuples(
        st.integers(-(2**63), 2**63 - 1),
        st.floats(width=32, allow_nan=False),
        st.text(max_size=6),
        st.binary(max_size=4),
        st.sampled_from(["packed", "unpacked", "missing"]),
    ),
    max_size=8,
)


@settings(max_examples=80, deadline=None)
@given(scalar_rows)
def test_scalar_fast_path_agrees_with_values_and_general_path(rows):
    """Scalar FixedLenFeatures (each kind, one value per record: the fast path, and when
    one record lacks a feature or writes its int64 unpacked, the other paths) give the
    values written, and the same table as the general per-feature path."""
    records = []
    for i, x, text, raw, layout in rows:
        feats = {
            "f": field(2, field(1, struct.pack("<f", x))),
            "s": field(1, field(1, text.encode())),
            "t": field(1, field(1, text[::-1].encode())),
            "b": field(1, field(1, raw)),
            "j": field(3, field(1, varint(len(text)))),
        }
        if layout == "packed":
            feats["i"] = field(3, field(1, varint(i)))
        elif layout == "unpacked":
            feats["i"] = field(3, varint(1 << 3) + varint(i))
        records.append(_example(feats))
    expected = {
        "i": [7 if r[4] == "missing" else r[0] for r in rows],
        "j": [len(r[2]) for r in rows],
        "f": [float(np.float32(r[1])) for r in rows],
        "s": [r[2] for r in rows],
        "t": [r[2][::-1] for r in rows],
        "b": [r[3] for r in rows],
    }
    kinds = {"i": "int64", "j": "int64", "f": "float32", "s": "string", "t": "string"}
    # Two strings share one Arrow array; a string and a bytes feature cannot.
    for names in (["i", "j", "f", "s", "t"], ["t", "b", "j"]):
        spec = {k: F([], kinds.get(k, "bytes"), 7 if k == "i" else None) for k in names}
        got = cn.io.parse_example(records, spec)
        assert got.to_pydict() == {k: expected[k] for k in names}
        one, scalar = _general_path()
        with one, scalar:
            general = cn.io.parse_example(records, spec)
        assert got.equals(general)
        assert got.schema == general.schema
