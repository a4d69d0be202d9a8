"""Issue 41 (WEAK, Graph ops): a serving graph with ``reshape(x, [-1, 0])`` or
``expand_dims(x, axis=8)`` on a rank-1 placeholder passed the load, then failed on every
request. Both are refused when the graph is checked (``cn.load``), naming the node."""

import pytest

import colonnade.compat.v1 as tf
from colonnade.estimators.export.checks import ExportError
from colonnade.estimators.export.serving_graph_checks import check_graph


def _graph(make):
    x = tf.placeholder(tf.float32, [None])
    return tf.estimator.export.ServingInputReceiver({"y": make(x)}, {"x": x}).to_json()


@pytest.mark.parametrize(
    "make, match",
    [
        (
            lambda x: tf.expand_dims(x, 8),
            r"nodes\[1\]\.axis: 8 is outside -2 to 1 for an input of rank 1, so every request "
            "would fail at this expand_dims",
        ),
        (
            lambda x: tf.expand_dims(tf.expand_dims(x, -1) * 2.0, -4),
            r"\.axis: -4 is outside -3 to 2 for an input of rank 2",
        ),
        (
            lambda x: tf.reshape(x, [-1, 0]),
            r"nodes\[1\]\.shape: \[-1, 0\] holds no value a row, so every request would fail",
        ),
    ],
)
def test_a_graph_failing_every_request_is_refused_at_load(make, match):
    with pytest.raises(ExportError, match=match):
        check_graph(_graph(make), "model.json")


@pytest.mark.parametrize(
    "make",
    [
        lambda x: tf.expand_dims(x, 1),
        lambda x: tf.expand_dims(x, -2),
        lambda x: tf.expand_dims(tf.expand_dims(x, -1), 2),
        lambda x: tf.reshape(tf.expand_dims(x, -1) + tf.constant([1.0, 2.0]), [-1, 2, 1]),
    ],
)
def test_graphs_that_fit_their_ranks_load(make):
    graph = _graph(make)
    assert check_graph(graph, "model.json") is graph
