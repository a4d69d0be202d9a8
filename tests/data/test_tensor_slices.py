"""from_tensor_slices and dicts of arrays of any rank: a row is its values flattened
row-major, as TF's input_layer flattens a dense feature."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn

fc = cn.feature_columns


def test_a_dict_of_arrays_of_any_rank_slices_along_the_first_axis():
    cube = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    ds = cn.data.Dataset.from_tensor_slices(
        {"cube": cube, "id": np.arange(4), "s": ["a", "b", "c", "d"]}
    )
    table = ds.to_table()
    assert table.column("cube").to_pylist() == [row.ravel().tolist() for row in cube]
    assert table.column("id").to_pylist() == [0, 1, 2, 3]
    batch = next(iter(ds.batch(4)))
    dense = fc.input_layer(batch, [fc.numeric_column("cube", shape=(2, 3))]).numpy()
    np.testing.assert_array_equal(dense, cube.reshape(4, 6))  # TF's input_layer: [batch, 6]


def test_a_features_labels_pair_iterates_as_an_input_fn():
    features = {"x": np.arange(8.0).reshape(4, 2)}
    ds = cn.data.Dataset.from_tensor_slices((features, np.array([[1.0], [0.0], [1.0], [0.0]])))
    batch, labels = next(iter(ds.batch(3)))
    assert labels.tolist() == [1.0, 0.0, 1.0] and batch["x"].to_pylist()[2] == [4.0, 5.0]
    two = cn.data.Dataset.from_tensor_slices((features, {"a": [1, 2, 3, 4], "b": [5, 6, 7, 8]}))
    assert two.label == ["a", "b"]


def test_an_estimator_trains_from_tensor_slices_and_predicts_from_a_dict(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 2, 2)).astype(np.float32)
    y = x.reshape(64, 4) @ np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    column = fc.numeric_column("x", shape=(2, 2))
    est = cn.estimators.LinearRegressor([column], model_dir=str(tmp_path), optimizer="SGD")
    est.train(
        lambda: cn.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(16).repeat(), steps=200
    )
    rows = est.predict(lambda: cn.data.Dataset.from_tensor_slices({"x": x}).batch(64))
    predicted = np.array([row["predictions"][0] for row in rows])
    assert np.corrcoef(predicted, y)[0, 1] > 0.99
    path = est.export_saved_model(tmp_path / "export")
    from_export = cn.load(path).predict({"x": x[:5]})["predictions"].to_numpy()
    np.testing.assert_allclose(from_export, predicted[:5], rtol=1e-5, atol=1e-6)


def test_bad_slices_are_named():
    with pytest.raises(ValueError, match="column 'b' has 3 rows, column 'a' has 4|column 'a' has"):
        cn.data.Dataset.from_tensor_slices({"a": np.zeros(4), "b": np.zeros(3)})
    with pytest.raises(ValueError, match="column 'a' is a scalar"):
        cn.data.Dataset.from_dict({"a": 3.0})
    with pytest.raises(ValueError, match="a feature is named 'label'"):
        cn.data.Dataset.from_tensor_slices(({"label": [1]}, [0]))
    with pytest.raises(ValueError, match=r"\['y'\] are both features and labels"):
        cn.data.Dataset.from_tensor_slices(({"y": [1]}, {"y": [0]}))
    with pytest.raises(ValueError, match="len 2 tuple, or features alone; got a tuple of 3"):
        cn.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(3), np.zeros(3)))
    with pytest.raises(TypeError, match="labels given as a dict need features as a dict"):
        cn.data.Dataset.from_tensor_slices((np.zeros(3), {"y": np.zeros(3)}))
    with pytest.raises(ValueError, match="column 'label' has 2 rows, column 'features' has 3"):
        cn.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(2)))
    with pytest.raises(ValueError, match=r"shape \(2, 0\): rows of no values"):
        cn.data.Dataset.from_dict({"a": np.zeros((2, 0))})
    table = cn.data.Dataset.from_dict({"a": pa.array([1, 2])}).to_table()
    assert table.column("a").to_pylist() == [1, 2]


def test_one_array_as_features_reaches_the_model_fn_as_that_array(tmp_path):
    """TF's ``from_tensor_slices(x)`` / ``((x, y))`` of a tensor (not a dict): the
    ``model_fn`` gets the tensor, in its row shape; values by hand (rows 2 and 3)."""
    cube = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    seen = []

    def model_fn(features, labels, mode):
        seen.append((features, labels))
        step = cn.train.get_global_step().assign_add(1)
        return cn.estimators.EstimatorSpec(mode, loss=cn.constant(0.0), train_op=step)

    est = cn.estimators.Estimator(model_fn, model_dir=str(tmp_path))
    slices = cn.data.Dataset.from_tensor_slices
    est.train(lambda: slices((cube, np.array([7, 8, 9, 10]))).skip(2).batch(2), steps=1)
    features, labels = seen[-1]
    assert isinstance(features, np.ndarray) and features.shape == (2, 3, 2)
    np.testing.assert_array_equal(features, cube[2:])
    assert labels.tolist() == [9, 10]
    est.train(lambda: slices(np.array([[1, 2], [3, 4]])).batch(2), steps=1)
    features, labels = seen[-1]
    assert features.tolist() == [[1, 2], [3, 4]] and labels is None
    est.train(lambda: np.array([5, 6]), steps=1)  # an input_fn's one tensor, not its rows
    assert seen[-1][0].tolist() == [5, 6] and seen[-1][1] is None


def test_a_map_over_one_array_gets_that_array_as_tf_does():
    """TF's map function gets the one tensor (not a dict) and may return it, or a pair."""
    slices = cn.data.Dataset.from_tensor_slices
    (batch,) = list(slices(np.arange(4)).map(lambda x: x * 2).batch(4))
    assert batch.schema.names == ["features"] and batch.column(0).to_pylist() == [0, 2, 4, 6]
    features, labels = next(iter(slices(np.arange(4)).map(lambda x: (x * 2, x % 2)).batch(4)))
    assert features.column(0).to_pylist() == [0, 2, 4, 6] and labels.tolist() == [0, 1, 0, 1]
    pairs = slices((np.arange(4), np.arange(4))).map(lambda x, y: (x + 1, y * 3)).batch(4)
    features, labels = next(iter(pairs))
    assert features.column(0).to_pylist() == [1, 2, 3, 4] and labels.tolist() == [0, 3, 6, 9]
    with pytest.raises(TypeError, match="returned one ndarray for elements of 2 columns"):
        list(cn.data.Dataset.from_tensor_slices({"a": [1], "b": [2]}).map(lambda d: np.zeros(1)))
