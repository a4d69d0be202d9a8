"""Categorical columns: TF 2.15's ids for vocabularies, identities, crosses and weights."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade.feature_columns as fc
from colonnade.feature_columns import vocabulary


def ids_of(column, features):
    return fc.transform_features(features, [column])[column.name]


# ---------------------------------------------------------------- vocabularies


def test_vocabulary_list_string_oov_buckets(golden):
    g = golden["vocab_string_oov"]
    col = fc.categorical_column_with_vocabulary_list("c", ["R", "G", "B", "Y"], num_oov_buckets=3)
    assert col.num_buckets == 7
    assert ids_of(col, {"c": g["input"]}).to_lists() == g["ids"]


def test_vocabulary_list_integer_oov_buckets(golden):
    g = golden["vocab_int_oov"]
    col = fc.categorical_column_with_vocabulary_list("c", [10, 20, 30], num_oov_buckets=5)
    assert col.dtype == "int64"
    assert ids_of(col, {"c": g["input"]}).to_lists() == g["ids"]
    narrow = pa.array(g["input"], pa.list_(pa.int32()))
    assert ids_of(col, {"c": narrow}).to_lists() == g["ids"]


def test_vocabulary_list_default_value(golden):
    # the seed's example: ('X', 'R', 'G', 'B', 'Y') with default_value=0: 'B' -> 3
    g = golden["vocab_default"]
    col = fc.categorical_column_with_vocabulary_list(
        "c", ("X", "R", "G", "B", "Y"), default_value=0
    )
    assert ids_of(col, {"c": g["input"]}).to_lists() == g["ids"]


def test_vocabulary_miss_without_oov_is_minus_one_then_pruned(golden):
    g = golden["vocab_minus_one"]
    col = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
    ids = ids_of(col, {"c": g["input"]})
    assert ids.to_lists() == g["ids"]  # TF keeps the -1 (a cross hashes it)
    assert ids.pruned().to_lists() == [[0], [1]]  # lookups drop it


def test_vocabulary_seed_example_oov_buckets():
    # the seed: ('R', 'G', 'B', 'Y') with num_oov_buckets=2: 'B' -> 2, others in 4..5
    col = fc.categorical_column_with_vocabulary_list(
        "colors", ("R", "G", "B", "Y"), num_oov_buckets=2
    )
    ids = ids_of(col, {"colors": ["B", "purple", "teal"]}).ids
    assert ids[0] == 2 and set(ids[1:].tolist()) <= {4, 5}


def test_vocabulary_file(tmp_path, golden):
    path = tmp_path / "colors.txt"
    path.write_text("R\nG\r\nB\nY\nextra\n", encoding="utf-8")
    col = fc.categorical_column_with_vocabulary_file(
        "c", str(path), vocabulary_size=4, num_oov_buckets=3
    )
    g = golden["vocab_string_oov"]
    assert col.vocabulary_size == 4 and col.num_buckets == 7
    assert ids_of(col, {"c": g["input"]}).to_lists() == g["ids"]
    path.write_text("changed\n", encoding="utf-8")  # read once, at construction
    assert ids_of(col, {"c": [["B"]]}).to_lists() == [[2]]


def test_vocabulary_file_integers_and_full_length(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text("10\n20\n30", encoding="utf-8")
    col = fc.categorical_column_with_vocabulary_file("c", path, dtype="int64", default_value=1)
    assert col.vocabulary_size == 3
    assert ids_of(col, {"c": [30, 99, 10]}).ids.tolist() == [2, 1, 0]


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda p: fc.categorical_column_with_vocabulary_file("c", p / "nope.txt"),
            "cannot be read",
        ),
        (
            lambda p: fc.categorical_column_with_vocabulary_file(
                "c", p / "v.txt", vocabulary_size=9
            ),
            "only 3 entries",
        ),
        (
            lambda p: fc.categorical_column_with_vocabulary_file("c", p / "dup.txt"),
            "duplicate entries \\['a'\\]",
        ),
        (
            lambda p: fc.categorical_column_with_vocabulary_file("c", p / "v.txt", dtype="int64"),
            "not an integer",
        ),
        (
            lambda p: fc.categorical_column_with_vocabulary_file(
                "c", p / "v.txt", num_oov_buckets=1, default_value=0
            ),
            "Can't specify both",
        ),
    ],
)
def test_vocabulary_file_errors(tmp_path, make, match):
    (tmp_path / "v.txt").write_text("a\nb\nc\n", encoding="utf-8")
    (tmp_path / "dup.txt").write_text("a\nb\na\n", encoding="utf-8")
    with pytest.raises(ValueError, match=match):
        make(tmp_path)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (
            {"vocabulary_list": ["a", "b", "a", "c", "c"]},
            ValueError,
            "duplicate entries \\['a', 'c'\\]",
        ),
        ({"vocabulary_list": []}, ValueError, "empty"),
        ({"vocabulary_list": ["a", 1]}, ValueError, "all strings or all integers"),
        (
            {"vocabulary_list": ["a"], "num_oov_buckets": -1},
            ValueError,
            "Invalid num_oov_buckets",
        ),
        (
            {"vocabulary_list": ["a"], "num_oov_buckets": 2, "default_value": 0},
            ValueError,
            "Can't specify both",
        ),
        ({"vocabulary_list": ["a"], "default_value": 5}, ValueError, "\\[0, 1\\)"),
        ({"vocabulary_list": ["a"], "dtype": "int64"}, ValueError, "do not match"),
        ({"vocabulary_list": ["a"], "dtype": "float32"}, ValueError, "string or integer"),
        ({"vocabulary_list": "abc"}, TypeError, "list or tuple"),
    ],
)
def test_vocabulary_list_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        fc.categorical_column_with_vocabulary_list("c", **kwargs)


def test_vocabulary_type_mismatch_is_type_error():
    col = fc.categorical_column_with_vocabulary_list("c", ["a", "b"])
    with pytest.raises(
        TypeError, match="expects string values in feature 'c', got Arrow type int64"
    ):
        ids_of(col, {"c": [1, 2]})


# ---------------------------------------------------------------- hash bucket


def test_hash_bucket_nulls_give_no_id_and_dictionary_input_matches():
    col = fc.categorical_column_with_hash_bucket("k", 50)
    plain = ids_of(col, {"k": [["a", None, "b"], None, [], ["c"]]})
    assert [len(r) for r in plain.to_lists()] == [2, 0, 0, 1]
    dict_typed = pa.array(
        [["a", None, "b"], None, [], ["c"]], pa.list_(pa.dictionary(pa.int32(), pa.string()))
    )
    assert ids_of(col, {"k": dict_typed}).to_lists() == plain.to_lists()
    scalar = ids_of(col, {"k": pa.array(["a", None, "c"]).dictionary_encode()})
    assert scalar.to_lists() == [plain.to_lists()[0][:1], [], plain.to_lists()[3]]


def test_hash_bucket_sliced_dictionary_hashes_only_what_the_batch_uses():
    big = pa.array([f"v{i}" for i in range(50_000)])
    arr = pa.DictionaryArray.from_arrays(pa.array(np.arange(0, 50_000, 7, dtype=np.int32)), big)
    col = fc.categorical_column_with_hash_bucket("k", 1000)
    expected = ids_of(col, {"k": arr.cast(pa.string())}).ids
    assert ids_of(col, {"k": arr.slice(10, 30)}).ids.tolist() == expected[10:40].tolist()


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"hash_bucket_size": 0}, ValueError, "hash_bucket_size must be at least 1"),
        ({"hash_bucket_size": 2.5}, TypeError, "hash_bucket_size must be an integer"),
        ({"hash_bucket_size": 10, "dtype": "float32"}, ValueError, "string or integer"),
    ],
)
def test_hash_bucket_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        fc.categorical_column_with_hash_bucket("k", **kwargs)


def test_hash_bucket_wrong_input_type():
    col = fc.categorical_column_with_hash_bucket("k", 10)
    with pytest.raises(
        TypeError, match="column 'k': .* expects string values .* got Arrow type double"
    ):
        ids_of(col, {"k": [1.5, 2.5]})
    ints = fc.categorical_column_with_hash_bucket("k", 10, dtype="int64")
    with pytest.raises(TypeError, match="expects integer values"):
        ids_of(ints, {"k": ["a"]})


# ---------------------------------------------------------------- identity


def test_identity_values_default_and_errors():
    col = fc.categorical_column_with_identity("v", 10, default_value=0)
    assert ids_of(col, {"v": [[3, 12], [-1], None, [9]]}).to_lists() == [[3, 0], [0], [], [9]]
    strict = fc.categorical_column_with_identity("v", 10)
    with pytest.raises(
        ValueError, match=r"2 values outside \[0, 10\): indices\[1\] = 12 is not in \[0, 10\)"
    ):
        ids_of(strict, {"v": [3, 12, 15]})
    with pytest.raises(ValueError, match=r"default_value 10 not in range \[0, 10\)"):
        fc.categorical_column_with_identity("v", 10, default_value=10)
    with pytest.raises(ValueError, match="num_buckets 0 < 1"):
        fc.categorical_column_with_identity("v", 0)
    with pytest.raises(TypeError, match="expects integer values"):
        ids_of(strict, {"v": ["3"]})


# ---------------------------------------------------------------- crosses


def crossed(g, keys, size, hash_key=None):
    col = fc.crossed_column(keys, size, hash_key=hash_key)
    assert col.name == g["name"]
    inputs = {}
    for key, rows in g["input"].items():
        if key == "price":
            inputs[key] = [r[0] for r in rows]
        else:
            inputs[key] = rows
    return ids_of(col, inputs).to_lists()


def test_cross_string_string(golden):
    g = golden["cross_str_str"]
    assert crossed(g, ["a", "b"], 1000) == g["ids"]


def test_cross_big_bucket_and_hash_key(golden):
    assert (
        crossed(golden["cross_str_str_big"], ["a", "b"], 2**62)
        == golden["cross_str_str_big"]["ids"]
    )
    assert (
        crossed(golden["cross_hash_key"], ["a", "b"], 1000, 12345)
        == golden["cross_hash_key"]["ids"]
    )


def test_cross_bucketized_string(golden):
    price = fc.bucketized_column(fc.numeric_column("price"), [0.0, 10.0, 100.0])
    g = golden["cross_bucket_str"]
    assert crossed(g, [price, "kw"], 500) == g["ids"]


def test_cross_vocabulary_miss_is_hashed_as_tf(golden):
    vocab = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
    g = golden["cross_vocab_miss_str"]
    assert crossed(g, [vocab, "s"], 997) == g["ids"]


def test_cross_three_way_multivalent(golden):
    ident = fc.categorical_column_with_identity("id", 10)
    price = fc.bucketized_column(fc.numeric_column("price"), [0.0, 10.0, 100.0])
    g = golden["cross_three_way"]
    assert crossed(g, [ident, price, "kw"], 10007) == g["ids"]


def test_cross_integer_feature_and_nested(golden):
    g = golden["cross_int_key"]
    assert crossed(g, ["i", "s"], 1000) == g["ids"]
    g = golden["cross_nested"]
    assert crossed(g, [fc.crossed_column(["a", "b"], 50), "c"], 1000) == g["ids"]


def test_cross_scalar_fast_path_equals_list_path(golden):
    g = golden["cross_str_str_big"]
    col = fc.crossed_column(["a", "b"], 2**62)
    scalar = ids_of(col, {"a": ["x", "z"], "b": ["p", "q"]})
    assert scalar.univalent and scalar.to_lists() == g["ids"]
    df = pd.DataFrame({"a": ["x", "z"], "b": pd.Categorical(["p", "q"])})
    assert ids_of(col, df).to_lists() == g["ids"]


def test_cross_null_drops_the_row():
    col = fc.crossed_column(["a", "b"], 100)
    ids = ids_of(col, {"a": ["x", None, "y"], "b": ["p", "q", None]})
    assert [len(r) for r in ids.to_lists()] == [1, 0, 0]


@pytest.mark.parametrize(
    "keys, match",
    [
        (["a"], "length > 1"),
        ("ab", "length > 1"),
        (
            [fc.categorical_column_with_hash_bucket("h", 10), "b"],
            "does not cross the hashed column 'h'",
        ),
        (
            [fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w"), "b"],
            "weighted column",
        ),
        ([fc.numeric_column("n"), "b"], "feature names or categorical columns"),
    ],
)
def test_cross_errors(keys, match):
    with pytest.raises(ValueError, match=match):
        fc.crossed_column(keys, 10)


def test_cross_bucket_size_and_float_feature():
    with pytest.raises(ValueError, match="hash_bucket_size must be > 1"):
        fc.crossed_column(["a", "b"], 0)
    with pytest.raises(
        TypeError,
        match="reads integers, but feature 'a' of type double has values that are not whole",
    ):
        ids_of(fc.crossed_column(["a", "b"], 10), {"a": [1.5], "b": ["x"]})


# ---------------------------------------------------------------- weighted


def test_weighted_column_aligns_weights_with_ids():
    terms = fc.categorical_column_with_vocabulary_list("terms", ["very", "model", "when"])
    col = fc.weighted_categorical_column(terms, "frequencies")
    assert col.name == "terms_weighted_by_frequencies"
    assert col.input_keys == ("terms", "frequencies")
    out = ids_of(
        col,
        {
            "terms": [["very", None, "model"], ["when"], None],
            "frequencies": [[0.3, 9.0, 0.1], [0.4], None],
        },
    )
    assert out.to_lists() == [[0, 1], [2], []]
    np.testing.assert_allclose(out.weights, [0.3, 0.1, 0.4], rtol=1e-6)


def test_weighted_column_errors():
    col = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 5), "w")
    with pytest.raises(ValueError, match="Incompatible shapes: weights 'w' have 2 values"):
        ids_of(col, {"i": [[1, 2], [3]], "w": [[1.0], [1.0]]})
    with pytest.raises(ValueError, match="list lengths differ"):
        ids_of(col, {"i": [[1, 2], [3]], "w": [[1.0], [1.0, 2.0]]})
    with pytest.raises(ValueError, match="1 values have an id but a null weight"):
        ids_of(col, {"i": [1, 2], "w": [1.0, None]})
    with pytest.raises(TypeError, match="expects floating or integer values in feature 'w'"):
        ids_of(col, {"i": [1], "w": ["x"]})
    with pytest.raises(ValueError, match="needs a categorical_column_with_"):
        fc.weighted_categorical_column(fc.crossed_column(["a", "b"], 4), "w")
    with pytest.raises(ValueError, match="Parse config for i already exists"):
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 5), "i")


def test_missing_feature_names_the_key_and_the_columns_present():
    col = fc.categorical_column_with_hash_bucket("age", 10)
    with pytest.raises(KeyError, match="feature 'age' not found .*'Age', 'income'"):
        ids_of(col, {"Age": [1], "income": [2]})


def test_integer_columns_read_integral_floats_from_pandas():
    # pandas stores an int column with missing values as float64 with NaN (a null in Arrow)
    df = pd.DataFrame({"i": [3.0, None, 1.0]})
    ident = fc.categorical_column_with_identity("i", 5)
    hashed = fc.categorical_column_with_hash_bucket("i", 1000, dtype="int64")
    vocab = fc.categorical_column_with_vocabulary_list("i", [1, 3], num_oov_buckets=1)
    out = fc.transform_features(df, [ident])
    assert out["i"].to_lists() == [[3], [], [1]]
    as_ints = {"i": pa.array([3, None, 1], pa.int64())}
    for col in (hashed, vocab):
        assert ids_of(col, df).to_lists() == ids_of(col, as_ints).to_lists()
    with pytest.raises(TypeError, match="reads integers, but feature 'i' .* not whole numbers"):
        ids_of(ident, {"i": [1.5]})


def test_cross_seed_example_formula():
    # The seed's crossed_column example: first key {[0,0]: "a", [1,0]: "b", [1,1]: "c"},
    # second key {[0,0]: "d", [1,0]: "e"} cross to Hash64("d", Hash64("a")) and so on:
    # FingerprintCat64 folds Fingerprint64 of each key's value into hash_key, key by key.
    import farmhash

    from colonnade.feature_columns.hashing import fingerprint_cat64

    def expected(*values, size=1000):
        acc = np.uint64(fc.DEFAULT_HASH_KEY)
        for v in values:
            acc = fingerprint_cat64(acc, np.uint64(farmhash.fingerprint64(v)))
        return int(acc % np.uint64(size))

    col = fc.crossed_column(["first", "second"], 1000)
    out = ids_of(col, {"first": [["a"], ["b", "c"]], "second": [["d"], ["e"]]})
    assert out.to_lists() == [[expected("a", "d")], [expected("b", "e"), expected("c", "e")]]


def test_a_vocabulary_file_must_be_a_bounded_regular_file(tmp_path, monkeypatch):
    """Issue 29: `vocabulary_file = "/dev/zero"` in a job config read until memory ran out."""
    with pytest.raises(ValueError, match="'/dev/zero' is not a regular file"):
        fc.categorical_column_with_vocabulary_file("c", "/dev/zero")
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n")
    monkeypatch.setattr(vocabulary, "MAX_VOCABULARY_FILE_BYTES", 5)
    with pytest.raises(ValueError, match="is over 5 bytes, the most a vocabulary file may hold"):
        fc.categorical_column_with_vocabulary_file("c", str(path))
    monkeypatch.setattr(vocabulary, "MAX_VOCABULARY_FILE_BYTES", 6)
    assert fc.categorical_column_with_vocabulary_file("c", str(path)).vocabulary_size == 3
    path.write_bytes(b"a\n\xff\n")
    with pytest.raises(ValueError, match="is not UTF-8 text"):
        fc.categorical_column_with_vocabulary_file("c", str(path))
