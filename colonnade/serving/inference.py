"""A request's predictions: ``Predictor.predict``'s computation without its per-call
machinery.

``Predictor.predict`` reads its input through the training pipeline: a background
prefetch thread per call (started, then joined) and a pandas frame of the results. For
a one-row request those cost several times the model itself (about 3 ms of 4 on the
2-core development machine). A request is already one Arrow table in memory, so here
each slice of :data:`SLICE_ROWS` rows goes straight through the same steps on the
calling thread: the network's feature transforms, its logits, the head's predictions,
kept as numpy arrays in TF's shapes. The results equal ``Predictor.predict``'s
(``tests/test_serve.py`` checks).

A request of a few rows also takes its hash, vocabulary and identity ids from the served
model's :class:`~colonnade.feature_columns.transform_cache.ValueIds` memo (the same ids,
each value's computed once), the costliest part of a one-row request's transforms.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import core
from ..estimators.inputs.input_fn import INFERENCE_BATCH_SIZE
from ..feature_columns import TransformCache

__all__ = ["SLICE_ROWS", "predict_table"]

SLICE_ROWS = INFERENCE_BATCH_SIZE
"""Rows transformed and predicted at once, as ``Predictor.predict`` batches them."""


def predict_table(predictor, table: pa.Table, keys, value_ids=None) -> dict:
    """``{key: array}`` of ``predictor``'s predictions ``keys`` for every row of
    ``table`` (the model's input columns), in order; each array has ``table.num_rows``
    rows. ``value_ids``, a ``ValueIds`` of this predictor's, speeds up tiny tables.

    >>> predict_table(cn.load(path), pa.table({"age": [31.0]}), ["logistic"])  # doctest: +SKIP
    {'logistic': array([[0.73]], dtype=float32)}
    """
    network, head = predictor.network, predictor.head
    parts = []
    for batch in table.combine_chunks().to_batches(max_chunksize=SLICE_ROWS):
        cache = TransformCache(batch)
        cache.compute(network.feature_columns, num_threads=1, value_ids=value_ids)
        network.prepare(cache, training=False)
        with core.no_grad():
            logits = network.logits(batch, training=False, rng=None, cache=cache)
        predictions = head.predictions(logits.value)
        parts.append({k: np.asarray(predictions[k]) for k in keys})
    if not parts:  # no rows: the shapes of one row of zero logits, cut to none
        predictions = head.predictions(np.zeros((1, head.logits_dimension), np.float32))
        return {k: np.asarray(predictions[k])[:0] for k in keys}
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}
