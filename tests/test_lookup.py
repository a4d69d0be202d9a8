"""cn.lookup / cn.compat.v1.lookup beyond the TF goldens (tests/tf/opsurface/
test_lookup_goldens.py): Arrow and ragged keys, bytes, export, TF 1's initializer ops,
the contrib spelling, and a large vocabulary checked against a dict replay."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn

LOOKUP = cn.compat.v1.lookup


def test_list_array_keys_keep_their_rows():
    table = LOOKUP.index_table_from_tensor(["a", "b"], num_oov_buckets=1)
    got = table.lookup(pa.array([["b"], [], ["a", "zz"]]))
    assert isinstance(got, pa.ListArray)
    assert got.to_pylist() == [[1], [], [0, 2]]


def test_bytes_and_arrow_keys_are_strings():
    table = LOOKUP.index_table_from_tensor(["a", "b"])
    assert table.lookup(np.array([b"b", b"q"], object)).tolist() == [1, -1]
    assert table.lookup(pa.array(["a", "b"])).tolist() == [0, 1]
    with pytest.raises(ValueError, match="must not be null"):
        table.lookup(pa.array(["a", None]))


def test_integer_keys_of_any_width():
    table = LOOKUP.index_table_from_tensor(np.array([5, 6]), dtype="int64")
    assert table.lookup(np.array([6, 7], np.int32)).tolist() == [1, -1]
    with pytest.raises(TypeError, match="must be <dtype: 'int64'>, received: <dtype: 'float32'>"):
        table.lookup(np.array([6.0], np.float32))


def test_large_vocabulary_matches_a_dict():
    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(50_000)], object)
    keys = np.array([f"w{i}" for i in rng.integers(0, 60_000, 100_000)], object)
    got = LOOKUP.index_table_from_tensor(vocab).lookup(keys)
    index = {w: i for i, w in enumerate(vocab)}
    assert got.tolist() == [index.get(k, -1) for k in keys]


def test_export_init_and_tables_initializer():
    init = cn.lookup.KeyValueTensorInitializer(["x", "y", "x"], [1, 2, 1])
    table = LOOKUP.HashTable(init, -1)
    keys, values = table.export()
    assert keys.tolist() == ["x", "y"] and values.tolist() == [1, 2]
    assert table.init is None and cn.compat.v1.tables_initializer() is None
    assert cn.compat.v1.contrib.lookup.index_table_from_file is LOOKUP.index_table_from_file


def test_vocabulary_file_errors_name_the_file(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("a\nb\n")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        LOOKUP.index_table_from_file(str(tmp_path / "nope.txt"))
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(ValueError, match="empty.txt is empty"):  # TF: "Read less bytes..."
        LOOKUP.index_table_from_file(str(tmp_path / "empty.txt"))
    with pytest.raises(ValueError, match="delimiter should be only 1 char"):
        LOOKUP.index_table_from_file(str(path), key_column_index=0, delimiter="::")
    with pytest.raises(ValueError, match="StrongHashSpec"):
        LOOKUP.index_table_from_tensor(
            ["a"], 1, hasher_spec=LOOKUP.HasherSpec("stronghash", (1, 2))
        )


def test_static_vocabulary_table_without_initializer_hashes_everything():
    table = cn.lookup.StaticVocabularyTable(None, 10)
    assert (
        table.lookup(["a", "b"]).tolist() == cn.strings.to_hash_bucket_fast(["a", "b"], 10).tolist()
    )
    assert int(table.size()) == 10


def test_contrib_index_to_string_in_one_call():
    got = cn.compat.v1.contrib.lookup.index_to_string(np.array([[1, 0], [7, 1]]), ["a", "b"])
    assert got.tolist() == [["b", "a"], ["UNK", "b"]]


def test_dictionary_fixed_size_and_null_list_keys():
    table = LOOKUP.index_table_from_tensor(["a", "b"])
    keys = pa.array(["b", "a", "b", "q"]).dictionary_encode()
    assert table.lookup(keys).tolist() == [1, 0, 1, -1]
    fixed = pa.FixedSizeListArray.from_arrays(pa.array(["a", "b", "q", "a"]), 2)
    assert table.lookup(fixed).to_pylist() == [[0, 1], [-1, 0]]
    lists = pa.array([["a"], None, ["b"]])
    assert table.lookup(lists).to_pylist() == [[0], None, [1]]
    assert table.lookup(pa.array(["a"], pa.large_string())).tolist() == [0]
    assert table.lookup(np.array([b"b"])).tolist() == [1]  # a numpy bytes array
