"""The layers on the cupy backend give what they give on numpy (needs a CUDA GPU)."""

import numpy as np
import pytest

import colonnade as cn
import colonnade.feature_columns as fc

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(
        not cn.core.cupy_available(), reason="cupy with a CUDA GPU is not available"
    ),
]

FEATURES = {
    "price": [1.0, 20.0, 300.0],
    "kw": [["a", "b"], [], ["c"]],
    "item": [[1, 2, 2], [0], []],
    "w": [[1.0, 0.5, 2.0], [3.0], []],
}


def build():
    price = fc.numeric_column("price")
    bucket = fc.bucketized_column(price, [10.0, 100.0])
    kw = fc.categorical_column_with_hash_bucket("kw", 50)
    item = fc.weighted_categorical_column(fc.categorical_column_with_identity("item", 4), "w")
    dense = fc.DenseFeatures(
        [price, bucket, fc.indicator_column(kw), fc.embedding_column(item, 3, max_norm=1.0)],
        seed=0,
    )
    linear = fc.LinearModel(
        [price, bucket, kw, item, fc.crossed_column(["kw", bucket], 20)],
        units=2,
        sparse_combiner="sqrtn",
    )
    for v in linear.variables:
        v.assign(np.linspace(-1, 1, int(np.prod(v.shape)), dtype=np.float32).reshape(v.shape))
    return dense, linear


def run(backend):
    cn.core.set_backend(backend)
    try:
        dense, linear = build()
        out = dense(FEATURES)
        logits = linear(FEATURES)
        table = dense.trainable_variables[0]
        _, (g,) = cn.core.value_and_grad(lambda: cn.core.sum(dense(FEATURES)))([table])
        return out.numpy(), logits.numpy(), g, table
    finally:
        cn.core.set_backend("numpy")


def test_layers_on_cupy_match_numpy():
    import cupy

    host = run("numpy")
    device = run("cupy")
    assert isinstance(device[3].value, cupy.ndarray)
    np.testing.assert_allclose(device[0], host[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(device[1], host[1], rtol=1e-5, atol=1e-6)
    assert isinstance(device[2], cn.core.IndexedRows)
    np.testing.assert_allclose(cupy.asnumpy(device[2].to_dense()), host[2].to_dense(), rtol=1e-5)
