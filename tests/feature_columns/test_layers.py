"""DenseFeatures / input_layer and LinearModel / linear_model against TF 2.15 outputs,
gradients (sparse IndexedRows, and finite differences), names and errors."""

import numpy as np
import pytest

import colonnade as cn
import colonnade.feature_columns as fc
from colonnade.core import IndexedRows, value_and_grad


def golden_columns(table):
    """The columns of golden/make_golden.py's input_layer case."""
    init = lambda shape, dtype, rng: np.asarray(table, dtype=dtype)  # noqa: E731
    age = fc.numeric_column("age")
    age_b = fc.bucketized_column(age, [18.0, 30.0, 65.0])
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"], num_oov_buckets=3)
    word = fc.categorical_column_with_hash_bucket("word", 6)
    wword = fc.weighted_categorical_column(word, "w")
    dense = [
        fc.indicator_column(color),
        age,
        age_b,
        fc.embedding_column(color, 4, combiner="mean", initializer=init),
        fc.embedding_column(wword, 4, combiner="sqrtn", initializer=init),
        fc.embedding_column(word, 4, combiner="sum", max_norm=1.0, initializer=init),
    ]
    linear = [age, age_b, color, wword, fc.crossed_column(["word", age_b], 7)]
    return dense, linear


def golden_features(g):
    f = dict(g["features"])
    f["age"] = [a[0] for a in f["age"]]
    return f


def test_input_layer_matches_tf(golden):
    g = golden["input_layer"]
    dense, _ = golden_columns(g["table"])
    cols_to_vars = {}
    out = fc.input_layer(golden_features(g), dense, cols_to_vars=cols_to_vars)
    np.testing.assert_allclose(out.numpy(), g["output"], rtol=1e-5, atol=1e-6)
    names = sorted(v.name + ":0" for vs in cols_to_vars.values() for v in vs)
    assert names == [n for n in g["variable_names"] if n.startswith("input_layer/")]


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_linear_model_matches_tf(golden, combiner):
    g = golden["linear_model"]
    _, linear = golden_columns(golden["input_layer"]["table"])
    model = fc.LinearModel(linear, units=2, sparse_combiner=combiner)
    per_column = [v for c in model.feature_columns for v in model.column_variables(c)]
    for v in per_column + [model.bias]:  # variables also lists the fused table
        v.assign(g["assigned"][f"{combiner}/{v.name}:0"])
    out = model(golden_features(g))
    np.testing.assert_allclose(out.numpy(), g["output"][combiner], rtol=1e-5, atol=1e-5)


def test_linear_model_sparse_combiner_mean_seed_example():
    # y_0 = (w_a + w_b) / 2 + w_d + b ;  y_1 = w_c + (w_e + 2 w_f) / 3 + b
    f1 = fc.categorical_column_with_vocabulary_list("f1", ["a", "b", "c"])
    f2 = fc.categorical_column_with_vocabulary_list("f2", ["d", "e", "f"])
    model = fc.LinearModel([f1, f2], sparse_combiner="mean")
    w = {"a": 1.0, "b": 2.0, "c": 4.0, "d": 8.0, "e": 16.0, "f": 32.0}
    model.column_weights(f1).assign([[w["a"]], [w["b"]], [w["c"]]])
    model.column_weights(f2).assign([[w["d"]], [w["e"]], [w["f"]]])
    model.bias.assign([0.5])
    out = model({"f1": [["a", "b"], ["c"]], "f2": [["d"], ["e", "f", "f"]]}).numpy()
    y0 = (w["a"] + w["b"]) / 2 + w["d"] + 0.5
    y1 = w["c"] + (w["e"] + 2 * w["f"]) / 3 + 0.5
    np.testing.assert_allclose(out[:, 0], [y0, y1], rtol=1e-6)


def test_indicator_counts_seed_example():
    name = fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("name", ["bob", "george", "wanda"])
    )
    out = fc.input_layer({"name": [["bob"], ["bob", "wanda"], ["bob", "bob"]]}, [name])
    assert out.numpy().tolist() == [[1, 0, 0], [1, 0, 1], [2, 0, 0]]


def test_input_layer_orders_columns_by_name():
    cols = [fc.numeric_column("zeta"), fc.numeric_column("alpha"), fc.numeric_column("mid")]
    out = fc.input_layer({"zeta": [3.0], "alpha": [1.0], "mid": [2.0]}, cols)
    assert out.numpy().tolist() == [[1.0, 2.0, 3.0]]


def test_embedding_gradients_are_indexed_rows_and_match_finite_differences():
    ids = fc.categorical_column_with_identity("item", 6)
    weights = fc.weighted_categorical_column(ids, "w")
    layer = fc.DenseFeatures(
        [fc.embedding_column(weights, 3, combiner="sqrtn", max_norm=1.5)], seed=1
    )
    (table,) = layer.trainable_variables
    feats = {"item": [[0, 2, 2], [5], []], "w": [[1.0, 0.5, 2.0], [3.0], []]}
    target = np.array([[0.3, -0.2, 0.1], [1.0, 0.0, -1.0], [0.0, 0.0, 0.0]], np.float32)

    def loss_fn():
        return cn.core.sum(cn.core.square(layer(feats) - target))

    loss, (g,) = value_and_grad(loss_fn)([table])
    assert isinstance(g, IndexedRows)
    assert sorted(set(g.indices.tolist())) == [0, 2, 5]
    dense = g.to_dense()
    eps = 1e-3
    base = table.numpy().astype(np.float64)
    for r, c in [(0, 0), (2, 1), (5, 2), (3, 0)]:
        for sign in (1, -1):
            shifted = base.copy()
            shifted[r, c] += sign * eps
            table.assign(shifted)
            if sign == 1:
                up = float(loss_fn().numpy())
            else:
                down = float(loss_fn().numpy())
        table.assign(base)
        assert dense[r, c] == pytest.approx((up - down) / (2 * eps), rel=2e-2, abs=2e-3)


def test_linear_weights_gradients_are_indexed_rows():
    color = fc.categorical_column_with_hash_bucket("color", 100)
    model = fc.LinearModel([color, fc.numeric_column("x")], units=2)
    feats = {"color": [["red", "blue"], ["red"]], "x": [1.0, 2.0]}
    w = model.column_weights(color)
    _, grads = value_and_grad(lambda: cn.core.sum(model(feats)))(model.trainable_variables)
    by_name = dict(zip([v.name for v in model.trainable_variables], grads))
    g = by_name["linear_model/color/weights"]
    assert isinstance(g, IndexedRows) and g.dense_shape == w.shape
    assert g.to_dense().sum() == pytest.approx(6.0)  # 3 ids x 2 units
    np.testing.assert_allclose(by_name["linear_model/bias_weights"], [2.0, 2.0])
    np.testing.assert_allclose(by_name["linear_model/x/weights"], [[3.0, 3.0]])


def test_dense_features_names_children_and_trainable():
    a = fc.categorical_column_with_identity("watched", 5)
    b = fc.categorical_column_with_identity("impression", 5)
    shared = fc.shared_embedding_columns([a, b], 3)
    frozen = fc.embedding_column(fc.categorical_column_with_identity("k", 4), 2, trainable=False)
    layer = fc.DenseFeatures(shared + [frozen], seed=0)
    names = [v.name for v in layer.variables]
    assert names == [
        "dense_features/impression_watched_shared_embedding/embedding_weights",
        "dense_features/k_embedding/embedding_weights",
    ]
    assert [v.name for v in layer.trainable_variables] == [names[0]]
    assert sorted(layer.checkpoint_children()) == [
        "impression_watched_shared_embedding/embedding_weights",
        "k_embedding/embedding_weights",
    ]
    out = layer({"watched": [1, 2], "impression": [2, 4], "k": [0, 3]}).numpy()
    table = layer.variables[0].numpy()
    # by name: impression_shared_embedding, k_embedding, watched_shared_embedding
    np.testing.assert_allclose(out[:, 0:3], table[[2, 4]])
    np.testing.assert_allclose(out[:, 3:5], layer.variables[1].numpy()[[0, 3]])
    np.testing.assert_allclose(out[:, 5:8], table[[1, 2]])
    assert layer.dimension == 8


def test_shared_embedding_names_match_tf(golden):
    g = golden["shared_names"]
    a = fc.categorical_column_with_identity("watched", 5)
    b = fc.categorical_column_with_identity("impression", 5)
    shared = fc.shared_embeddings([a, b], 3)
    assert [c.name for c in shared] == g["columns"]
    cols_to_vars = {}
    fc.input_layer({"watched": [1], "impression": [2]}, shared, cols_to_vars=cols_to_vars)
    assert sorted({v.name + ":0" for vs in cols_to_vars.values() for v in vs}) == g["variables"]


def test_default_embedding_initializer_is_truncated_normal():
    col = fc.embedding_column(fc.categorical_column_with_identity("k", 20000), 16)
    table = fc.DenseFeatures([col], seed=3).variables[0].numpy()
    stddev = 1 / np.sqrt(16)
    assert np.abs(table).max() <= 2 * stddev + 1e-6
    assert table.std() == pytest.approx(stddev * 0.88, rel=0.03)  # truncation at 2 sigma


def test_max_norm_clips_rows():
    col = fc.embedding_column(
        fc.categorical_column_with_identity("k", 2),
        2,
        combiner="sum",
        max_norm=1.0,
        initializer=lambda shape, dtype, rng: np.array([[3.0, 4.0], [0.3, 0.4]], dtype),
    )
    out = fc.input_layer({"k": [[0], [1], [0, 1]]}, [col]).numpy()
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4], [0.9, 1.2]], rtol=1e-6)


def test_layer_errors():
    cat = fc.categorical_column_with_identity("k", 3)
    with pytest.raises(ValueError, match="Wrap a categorical column with embedding_column"):
        fc.DenseFeatures([cat])
    with pytest.raises(
        ValueError, match="Duplicate feature column name found for columns: \\['x'\\]"
    ):
        fc.DenseFeatures([fc.numeric_column("x"), fc.numeric_column("x", default_value=0.0)])
    with pytest.raises(ValueError, match="unknown sparse_combiner 'max'"):
        fc.LinearModel([cat], sparse_combiner="max")
    with pytest.raises(ValueError, match="unknown combiner 'sqrt' of column 'k_embedding'"):
        fc.DenseFeatures([fc.embedding_column(cat, 2, combiner="sqrt")])
    with pytest.raises(ValueError, match="dimension must be at least 1"):
        fc.embedding_column(cat, 0)
    with pytest.raises(ValueError, match="both ckpt_to_load_from and tensor_name_in_ckpt"):
        fc.embedding_column(cat, 2, ckpt_to_load_from="/tmp/x")
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([cat, fc.categorical_column_with_identity("j", 4)], 2)
    with pytest.raises(ValueError, match="sequence column"):
        fc.DenseFeatures(
            [fc.embedding_column(fc.sequence_categorical_column_with_identity("s", 3), 2)]
        )
    with pytest.raises(KeyError, match="feature 'k' not found .*needed by feature column 'k'"):
        fc.LinearModel([cat])({"x": [1]})


def test_embedding_loads_its_table_from_a_checkpoint(tmp_path):
    from colonnade.core.checkpoint import Checkpoint

    saved = cn.core.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    path = Checkpoint(model={"table": saved}).save(str(tmp_path / "ckpt"))
    cat = fc.categorical_column_with_identity("k", 4)
    col = fc.embedding_column(cat, 3, ckpt_to_load_from=path, tensor_name_in_ckpt="model/table")
    layer = fc.DenseFeatures([col])
    np.testing.assert_array_equal(layer.variables[0].numpy(), saved.numpy())
    assert layer({"k": [2]}).numpy().tolist() == [[6.0, 7.0, 8.0]]
    bad = fc.embedding_column(cat, 3, ckpt_to_load_from=path, tensor_name_in_ckpt="nope")
    with pytest.raises(ValueError, match="cannot load 'nope' from checkpoint"):
        fc.DenseFeatures([bad])
    wrong = fc.embedding_column(
        fc.categorical_column_with_identity("k", 5),
        3,
        ckpt_to_load_from=path,
        tensor_name_in_ckpt="model/table",
    )
    with pytest.raises(ValueError, match="has shape \\(5, 3\\) but 'model/table'"):
        fc.DenseFeatures([wrong])


def test_shared_cache_computes_a_transform_once():
    calls = []

    def norm(x):
        calls.append(1)
        return x

    x = fc.numeric_column("x", normalizer_fn=norm)
    b = fc.bucketized_column(x, [0.0])
    cache = fc.TransformCache({"x": [1.0, -1.0]})
    fc.DenseFeatures([x, b])(cache)
    fc.LinearModel([x, b])(cache)
    assert len(calls) == 1


def test_initializer_of_the_wrong_shape_is_refused():
    col = fc.embedding_column(
        fc.categorical_column_with_identity("k", 3),
        2,
        initializer=lambda shape, dtype, rng: np.zeros((2, 2), dtype),
    )
    with pytest.raises(ValueError, match="returned shape \\(2, 2\\); expected \\(3, 2\\)"):
        fc.DenseFeatures([col])


def test_functional_layers_in_one_store_name_their_variables_as_tf1_graph_layers():
    # TF1 names the second linear_model of a graph linear_model_1/..., and so on
    price = fc.numeric_column("price")
    names = []
    with cn.core.VariableStore().as_default():
        for _ in range(2):
            cols_to_vars = {}
            fc.linear_model({"price": [[1.0]]}, [price], cols_to_vars=cols_to_vars)
            names += [v.name for v in cols_to_vars[price] + cols_to_vars["bias"]]
    assert names == [
        "linear_model/price/weights",
        "linear_model/bias_weights",
        "linear_model_1/price/weights",
        "linear_model_1/bias_weights",
    ]
