"""``Dataset.skip``/``take`` and ``map(num_parallel_calls=)`` against TF 2.15's tf.data (the
expected lists are what TF printed for the same pipelines over ``tf.data.Dataset.range``)."""

import pytest

import colonnade as cn

D = cn.data.Dataset


def _rows(n):
    return D.from_dict({"x": list(range(n))})


def _batches(ds):
    return [b.column("x").to_pylist() for b in ds]


def test_skip_and_take_count_rows_or_batches_as_tf():
    assert _batches(_rows(10).batch(3).skip(1).take(2)) == [[3, 4, 5], [6, 7, 8]]
    assert _rows(10).skip(4).take(3).to_table()["x"].to_pylist() == [4, 5, 6]
    assert _rows(4).skip(-1).to_table().num_rows == 0
    assert _rows(4).take(-1).to_table().num_rows == 4
    assert _rows(4).take(2).repeat(2).to_table()["x"].to_pylist() == [0, 1, 0, 1]
    assert _batches(_rows(10).take(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert _rows(5).skip(10).to_table().num_rows == 0


def test_skip_and_take_cross_reader_batches():
    ds = D.from_dict({"x": list(range(10))}).batch(4).map(lambda b: b)  # batches 4, 4, 2
    assert _batches(ds.take(2)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    unbatched = D.from_arrow(ds.to_table()).skip(3).take(5)
    assert unbatched.to_table()["x"].to_pylist() == [3, 4, 5, 6, 7]


@pytest.mark.parametrize("count", [-2, 1.5, True, "3"])
def test_bad_counts_are_named(count):
    with pytest.raises(ValueError, match="skip count must be an integer >= -1"):
        _rows(3).skip(count)


def test_map_accepts_tfs_parallel_arguments():
    ds = _rows(3).map(lambda b: b, num_parallel_calls=cn.data.AUTOTUNE, deterministic=False)
    assert ds.to_table()["x"].to_pylist() == [0, 1, 2]
    assert _rows(3).map(lambda b: b, num_parallel_calls=4).to_table().num_rows == 3
    with pytest.raises(ValueError, match="num_parallel_calls"):
        _rows(3).map(lambda b: b, num_parallel_calls=0)
