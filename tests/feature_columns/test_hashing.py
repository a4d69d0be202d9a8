"""Fingerprint64 and FingerprintCat64 against pyfarmhash and TensorFlow 2.15."""

import farmhash
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade.feature_columns as fc
from colonnade.feature_columns.hashing import fingerprint64, fingerprint_cat64, hash_bucket_ids


def reference(values):
    return np.array([farmhash.fingerprint64(v) for v in values], dtype=np.uint64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=200), max_size=40))
def test_fingerprint64_matches_pyfarmhash(values):
    assert fingerprint64(pa.array(values, pa.string())).tolist() == reference(values).tolist()


def test_fingerprint64_every_length_class():
    # lengths 0..300 cross every farmhash branch (0-3, 4-7, 8-16, 17-32, 33-64, >64 loops)
    rng = np.random.default_rng(0)
    values = ["".join(chr(c) for c in rng.integers(32, 0x2FFF, n)) for n in range(301)]
    for arr in (
        pa.array(values),
        pa.array(values, pa.large_string()),
        pa.array(values).dictionary_encode(),
        pa.array(values, pa.string_view()),
    ):
        assert (fingerprint64(arr) == reference(values)).all()


def test_fingerprint64_respects_slices_and_binary():
    values = [f"value-{i}" * (i % 7) for i in range(50)]
    sliced = pa.array(values).slice(13, 20)
    assert fingerprint64(sliced).tolist() == reference(values[13:33]).tolist()
    raw = pa.array([v.encode() for v in values], pa.binary())
    assert fingerprint64(raw).tolist() == reference(values).tolist()
    assert fingerprint64(pa.array([], pa.string())).shape == (0,)


def test_fingerprint64_refuses_numbers():
    with pytest.raises(TypeError, match="strings or binary"):
        fingerprint64(pa.array([1.5]))


def test_tf_hash_buckets_of_strings(golden):
    g = golden["hash_strings"]
    values = g["values"]
    # tf.strings.to_hash_bucket_fast(values, 2**63 - 1)
    assert (fingerprint64(values) % np.uint64(2**63 - 1)).tolist() == g["mod_2_63_minus_1"]
    for size in ("10", "1000", "1000003"):
        col = fc.categorical_column_with_hash_bucket("s", int(size))
        # a ragged batch is TF's SparseTensor input: every value hashed, '' too
        ids = fc.transform_features({"s": [[v] for v in values] + [[]]}, [col])["s"]
        assert ids.to_lists()[:-1] == g[size]
        # a scalar (TF: dense) feature drops TF's ignore value ''
        scalar = fc.transform_features({"s": values}, [col])["s"]
        assert scalar.to_lists() == [[] if v == "" else i for v, i in zip(values, g[size])]


def test_tf_hash_buckets_of_integers(golden):
    g = golden["hash_ints"]
    for size in ("10", "1000", "1000003"):
        col = fc.categorical_column_with_hash_bucket("i", int(size), dtype="int64")
        for data in (g["values"], pa.array(g["values"], pa.int64()).dictionary_encode()):
            ids = fc.transform_features({"i": data}, [col])["i"]  # dense: -1 is dropped
            expected = [[] if v == -1 else i for v, i in zip(g["values"], g[size])]
            assert ids.to_lists() == expected
    assert hash_bucket_ids(np.array([7, -1]), 1000).tolist() == [g["1000"][3][0], g["1000"][2][0]]


def test_integers_hash_as_their_decimal_strings():
    ints = fc.categorical_column_with_hash_bucket("k", 97, dtype="int32")
    strs = fc.categorical_column_with_hash_bucket("k", 97)
    a = fc.transform_features({"k": pa.array([5, -12, 0], pa.int32())}, [ints])["k"].ids
    b = fc.transform_features({"k": ["5", "-12", "0"]}, [strs])["k"].ids
    assert a.tolist() == b.tolist()


def fingerprint_cat64_reference(fp1, fp2):
    # TF's FingerprintCat64 (tensorflow/core/platform/fingerprint.h) in Python integers.
    mask, kmul = 2**64 - 1, 0xC6A4A7935BD1E995

    def shift_mix(v):
        return v ^ (v >> 47)

    result = fp1 ^ kmul
    result ^= (shift_mix((fp2 * kmul) & mask) * kmul) & mask
    result = (result * kmul) & mask
    result = (shift_mix(result) * kmul) & mask
    return shift_mix(result)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1)), max_size=20))
def test_fingerprint_cat64_matches_integer_reference(pairs):
    a = np.array([p[0] for p in pairs], dtype=np.uint64)
    b = np.array([p[1] for p in pairs], dtype=np.uint64)
    expected = [fingerprint_cat64_reference(x, y) for x, y in pairs]
    assert fingerprint_cat64(a, b).tolist() == expected


def test_fingerprint_cat64_scalars_do_not_warn():
    with np.errstate(all="raise"):
        out = fingerprint_cat64(fc.DEFAULT_HASH_KEY, 2**64 - 1)
    assert int(out) == fingerprint_cat64_reference(fc.DEFAULT_HASH_KEY, 2**64 - 1)


def test_small_arrays_hash_as_large_ones_memo_or_not():
    rng = np.random.default_rng(0)
    words = ["", "a", "é", "x" * 17, "y" * 40, "z" * 90] + [
        "".join(rng.choice(list("abcdef"), rng.integers(1, 30))) for _ in range(200)
    ]
    whole = fingerprint64(pa.array(words))  # over 64 values: the vectorized path
    for _ in range(2):  # the second time from the memo
        small = np.concatenate(
            [fingerprint64(pa.array(words[i : i + 7])) for i in range(0, 206, 7)]
        )
        np.testing.assert_array_equal(small, whole)
    with_null = fingerprint64(pa.array(["a", None], type=pa.large_string()))
    np.testing.assert_array_equal(with_null, fingerprint64(["a", ""]))
    binary = fingerprint64(pa.array([b"a", None], type=pa.binary()))
    np.testing.assert_array_equal(binary, with_null)
