"""Issue 41 (bug 6, feature-column layers): a model_fn export whose params size an
``input_layer``'s embedding table or a ``linear_model``'s weights (embedding dimension,
hash bucket counts, identity buckets, units) beyond the stored weights is refused before
the layer is made, naming the variable and the params that size it. Before, the layer was
made first (its tables initialized at the asked size) and checked after: an embedding
dimension of 10^4 over 10^6 hash buckets was a raw MemoryError (37 GiB)."""

import json
import shutil
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators
N = 32
RNG = np.random.default_rng(0)
DATA = {
    "k": np.array([f"v{i % 7}" for i in range(N)]),
    "c": RNG.integers(0, 5, N),
    "x": RNG.normal(size=N).astype(np.float32),
}
ROWS = pd.DataFrame({key: value[:3] for key, value in DATA.items()})
PARAMS = {"hash_bucket_size": 20, "dimension": 3, "identity_buckets": 5, "units": 2}


def layers_model_fn(features, labels, mode, params):
    hashed = fc.categorical_column_with_hash_bucket("k", params["hash_bucket_size"])
    deep = fc.input_layer(
        features, [fc.embedding_column(hashed, params["dimension"]), fc.numeric_column("x")]
    )
    ids = fc.categorical_column_with_identity("c", params["identity_buckets"])
    wide = fc.linear_model(features, [ids], units=params["units"])
    logits = cn.layers.dense(deep, params["units"]) + wide
    if mode == E.ModeKeys.PREDICT:
        return E.EstimatorSpec(mode, predictions={"logits": logits})
    target = np.asarray(labels, np.float32).reshape(-1, 1)
    loss = cn.losses.mean_squared_error(np.repeat(target, params["units"], 1), logits)
    train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=cn.train.get_global_step()
    )
    return E.EstimatorSpec(mode, {"logits": logits}, loss, train_op)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("layers")
    est = E.Estimator(layers_model_fn, model_dir=str(tmp / "m"), params=PARAMS)
    est.train(lambda: (DATA, DATA["x"]), steps=1, verbose=0)
    return est.export_saved_model(str(tmp / "exports"))


def _edited(export, tmp_path, **params):
    path = tmp_path / "edited"
    shutil.copytree(export, path)
    with open(path / "model.json") as f:
        meta = json.load(f)
    meta["params"].update(params)
    with open(path / "model.json", "w") as f:
        json.dump(meta, f)
    return cn.load(str(path), model_fns={"layers_model_fn": layers_model_fn})


def test_the_export_as_made_predicts(export):
    got = cn.load(export, model_fns={"layers_model_fn": layers_model_fn}).predict(ROWS)
    assert got.shape == (3, 2) and np.isfinite(got.to_numpy()).all()


@pytest.mark.parametrize(
    "params, variable, shapes, named",
    [
        (  # 10^6 x 10^4 float32: 37 GiB if it were made
            {"hash_bucket_size": 10**6, "dimension": 10**4},
            "model/input_layer/k_embedding/embedding_weights",
            r"\(\(1000000, 10000\), \(20, 3\)\)",
            ["dimension=10000", "hash_bucket_size=1000000"],
        ),
        (
            {"dimension": 10**8},
            "model/input_layer/k_embedding/embedding_weights",
            r"\(\(20, 100000000\), \(20, 3\)\)",
            ["dimension=100000000"],
        ),
        (
            {"identity_buckets": 10**9},
            "model/linear_model/c/weights",
            r"\(\(1000000000, 2\), \(5, 2\)\)",
            ["identity_buckets=1000000000"],
        ),
    ],
)
def test_layer_params_beyond_the_stored_weights_are_refused_before_any_memory(
    export, tmp_path, params, variable, shapes, named
):
    predictor = _edited(export, tmp_path, **params)
    tracemalloc.start()
    try:
        with pytest.raises(cn.estimators.export.ExportError) as refused:
            predictor.predict(ROWS)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(refused.value)
    assert f"{{'{variable}': " in message
    assert __import__("re").search(shapes, message), message
    assert "refused before the variable is made" in message
    for param in named:
        assert param in message, message
    assert peak < 8 * 2**20, f"{peak / 2**20:.1f} MiB taken before the refusal"


def test_a_layer_the_export_lacks_is_refused_before_it_is_made(export):
    def wider(features, labels, mode, params):
        extra = fc.categorical_column_with_hash_bucket("z", 10**7)
        fc.input_layer(features, [fc.embedding_column(extra, 1000)])  # 37 GiB if made
        return layers_model_fn(features, labels, mode, params)

    predictor = cn.load(export, model_fns={"layers_model_fn": wider})
    with pytest.raises(
        cn.estimators.export.ExportError,
        match=r"missing \[.model/input_layer/z_embedding/embedding_weights.\]",
    ):
        predictor.predict(ROWS)


def test_a_generator_of_columns_is_read_once():
    """The layer's columns are planned, then made: a generator gives both its columns."""

    def model_fn(features, labels, mode):
        net = fc.input_layer(features, (c for c in [fc.numeric_column("x")]))
        return E.EstimatorSpec(mode, predictions={"net": net})

    est = E.Estimator(model_fn)
    x = np.array([1.5, 2.0], np.float32)
    got = next(est.predict(lambda: {"x": x}, yield_single_examples=False))
    np.testing.assert_array_equal(got["net"], [[1.5], [2.0]])
