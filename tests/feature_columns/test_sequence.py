"""Sequence columns and SequenceFeatures over Arrow list columns."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
import colonnade.feature_columns as fc
from colonnade.core import IndexedRows, value_and_grad


def test_sequence_numeric_pads_with_default_and_normalizes_values():
    col = fc.sequence_numeric_column("t", default_value=-1.0, normalizer_fn=fc.standardize(1, 2))
    padded, lengths = fc.transform_features({"t": [[3.0, 5.0], [], [1.0, None], None]}, [col])["t"]
    assert lengths.tolist() == [2, 0, 2, 0]
    assert padded[:, :, 0].tolist() == [[1.0, 2.0], [-1.0, -1.0], [0.0, -1.0], [-1.0, -1.0]]


def test_sequence_numeric_shape_and_errors():
    col = fc.sequence_numeric_column("t", shape=(2,))
    padded, lengths = fc.transform_features({"t": [[1, 2, 3, 4], [5, 6]]}, [col])["t"]
    assert lengths.tolist() == [2, 1] and padded.shape == (2, 2, 2)
    assert padded[1].tolist() == [[5, 6], [0, 0]]
    with pytest.raises(ValueError, match="sequence 1 of feature 't' has 3 values, not a multiple"):
        fc.transform_features({"t": [[1, 2], [1, 2, 3]]}, [col])
    with pytest.raises(TypeError, match="default_value must be a single number"):
        fc.sequence_numeric_column("t", default_value=[1.0])


def test_sequence_embedding_per_step_with_null_steps():
    tokens = fc.sequence_categorical_column_with_vocabulary_list("tok", ["a", "b", "c"])
    emb = fc.embedding_column(
        tokens, 2, initializer=lambda s, d, r: np.arange(6, dtype=d).reshape(3, 2) + 1.0
    )
    layer = fc.SequenceFeatures([emb])
    values, lengths = layer({"tok": [["c", None, "a"], ["zz"], []]})
    assert lengths.tolist() == [3, 1, 0]
    assert values.numpy().tolist() == [
        [[5, 6], [0, 0], [1, 2]],
        [[0, 0], [0, 0], [0, 0]],  # a miss (-1) and padding are zero vectors
        [[0, 0], [0, 0], [0, 0]],
    ]
    (table,) = layer.trainable_variables
    _, (g,) = value_and_grad(lambda: cn.core.sum(layer({"tok": [["c", "c"], ["a"]]})[0]))([table])
    assert isinstance(g, IndexedRows)
    assert g.to_dense().tolist() == [[1, 1], [0, 0], [2, 2]]


def test_sequence_features_concatenates_by_name_and_checks_lengths():
    watches = fc.sequence_categorical_column_with_identity("watches", 4)
    temp = fc.sequence_numeric_column("temp")
    layer = fc.SequenceFeatures([temp, fc.indicator_column(watches)])
    values, lengths = layer({"watches": [[1, 3], [0]], "temp": [[0.5, 0.25], [2.0]]})
    assert values.shape == (2, 2, 5)
    assert values.numpy()[0].tolist() == [[0.5, 0, 1, 0, 0], [0.25, 0, 0, 0, 1]]
    assert lengths.tolist() == [2, 1]
    with pytest.raises(ValueError, match="sequence lengths differ between columns 'temp' and"):
        layer({"watches": [[1, 3], [0]], "temp": [[0.5], [2.0]]})
    with pytest.raises(ValueError, match="SequenceFeatures takes sequence columns"):
        fc.SequenceFeatures([fc.numeric_column("x")])
    with pytest.raises(ValueError, match="'w_embedding' is not one"):
        fc.SequenceFeatures([fc.embedding_column(fc.categorical_column_with_identity("w", 3), 2)])


def test_sequence_hash_and_vocabulary_file(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("x\ny\n", encoding="utf-8")
    seq = fc.sequence_categorical_column_with_vocabulary_file("s", str(path), num_oov_buckets=1)
    hashed = fc.sequence_categorical_column_with_hash_bucket("h", 10)
    out = fc.transform_features(
        {"s": pa.array([["y", "q"]]), "h": [["a", "b", "a"]]}, [seq, hashed]
    )
    assert out["s"].steps.to_lists() == [[1], [2]]
    assert out["h"].steps.to_lists() == [[9], [2], [9]]
    assert out["h"].lengths.tolist() == [3]


def test_sequence_columns_refused_elsewhere():
    seq = fc.sequence_categorical_column_with_identity("s", 3)
    with pytest.raises(ValueError, match="sequence column"):
        fc.LinearModel([seq])
    with pytest.raises(ValueError, match="categorical columns"):
        fc.crossed_column([seq, "x"], 10)
    with pytest.raises(ValueError, match="needs a categorical_column_with_"):
        fc.weighted_categorical_column(seq, "w")
    with pytest.raises(ValueError, match="sequence column"):
        fc.input_layer({"s": [[1]]}, [fc.indicator_column(seq)])


def test_pad_gradient_reaches_step_values():
    from colonnade.feature_columns.sequence import pad

    steps = cn.core.Variable(np.ones((3, 2), np.float32))
    _, (g,) = value_and_grad(lambda: cn.core.sum(pad(steps, np.array([0, 2, 2, 3])) * 2.0))([steps])
    assert np.asarray(g.to_dense() if isinstance(g, IndexedRows) else g).tolist() == [[2, 2]] * 3
