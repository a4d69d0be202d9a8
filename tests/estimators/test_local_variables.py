"""LOCAL_VARIABLES in a ``model_fn``: evaluation state that no checkpoint holds and that
starts again from its initial value in each ``train``, ``evaluate`` and ``predict`` call
(TF's ``local_init_op``), and the ``(value_tensor, update_op)`` metric pairs TF programs
build on them. The expected values are TF 2.15's, from the same scenarios run by
``tests/estimators/golden/tf_local_variables.py``."""

import numpy as np
import pytest

import colonnade as cn

v1 = cn.compat.v1
E = cn.estimators


def model_fn(features, labels, mode):
    w = v1.get_variable("w", initializer=np.float32(1.0))
    n = v1.get_variable(
        "n", initializer=np.float32(0.0), collections=[v1.GraphKeys.LOCAL_VARIABLES]
    )
    m = v1.get_local_variable("m", initializer=np.float32(10.0))
    if mode == E.ModeKeys.PREDICT:
        predictions = {
            "n": v1.reshape(n.assign_add(1.0), [1]),
            "m": v1.reshape(m.assign_add(1.0), [1]),
        }
        return E.EstimatorSpec(mode, predictions=predictions)
    loss = w * n.assign_add(1.0)
    return E.EstimatorSpec(mode, loss=loss, train_op=v1.train.get_global_step().assign_add(1))


def input_fn():
    return cn.data.Dataset.from_tensor_slices(({"x": [1.0]}, [1.0])).batch(1).repeat()


def test_local_variables_are_not_checkpointed_and_restart_in_each_call(tmp_path):
    est = E.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=3)
    names = {name for name, _ in cn.train.list_variables(est.latest_checkpoint())}
    assert names - {"save_counter"} == {"global_step", "w"}  # (docs/tf_checkpoints.md)
    assert est.evaluate(input_fn, steps=4)["loss"] == 2.5  # (1 + 2 + 3 + 4) / 4
    assert est.evaluate(input_fn, steps=2)["loss"] == 1.5
    rows = est.predict(lambda: cn.data.Dataset.from_tensor_slices({"x": [1.0] * 3}).batch(1))
    assert [(float(r["n"]), float(r["m"])) for r in rows] == [(1, 11), (2, 12), (3, 13)]


def test_the_local_variables_collection():
    store = cn.core.VariableStore()
    with store.as_default():
        a = v1.get_local_variable("a", initializer=np.float32(1.0))
        b = v1.get_variable(
            "b", initializer=np.float32(1.0), collections=[v1.GraphKeys.LOCAL_VARIABLES]
        )
        c = v1.get_variable("c", initializer=np.float32(1.0))
        assert v1.local_variables() == [a, b]
        assert v1.get_collection(v1.GraphKeys.LOCAL_VARIABLES) == [a, b]
        assert v1.global_variables() == [c]
        assert (a.trainable, b.trainable) == (False, True)
        assert v1.get_local_variable("a") is a
    a.assign(5.0)
    store.reset_local_variables()
    assert float(a.numpy()) == 1.0
    assert sorted(store.variables()) == ["c"]


def metric_model_fn(features, labels, mode):
    w = v1.get_variable("w", initializer=np.float32(1.0))
    x = v1.reshape(features["x"], [-1])
    total = v1.get_local_variable("total", initializer=np.float32(0.0))
    count = v1.get_local_variable("count", initializer=np.float32(0.0))
    up_total = total.assign_add(v1.reduce_sum(x))
    up_count = count.assign_add(v1.cast(v1.size(x), v1.float32))
    ops = {
        "ratio": (total / count, v1.group(up_total, up_count)),
        "total": (total, up_total),
        "constant": (v1.constant(7.0), v1.no_op()),
        "mean": v1.metrics.mean(x),
    }
    return E.EstimatorSpec(
        mode,
        loss=w * v1.reduce_mean(x),
        eval_metric_ops=ops,
        train_op=v1.train.get_global_step().assign_add(1),
    )


def five_rows():
    return cn.data.Dataset.from_tensor_slices({"x": [1.0, 2.0, 3.0, 4.0, 10.0]}).batch(2)


def test_tensor_metric_pairs_read_local_variables_after_the_last_update(tmp_path):
    est = E.Estimator(metric_model_fn, model_dir=str(tmp_path))
    est.train(lambda: five_rows().repeat(), steps=1)
    got = est.evaluate(five_rows)
    expected = {"loss": 5.0, "ratio": 4.0, "total": 20.0, "constant": 7.0, "mean": 4.0}
    assert {k: got[k] for k in expected} == pytest.approx(expected)
    got = est.evaluate(five_rows, steps=2)
    expected = {"loss": 2.5, "ratio": 2.5, "total": 10.0, "constant": 7.0, "mean": 2.5}
    assert {k: got[k] for k in expected} == pytest.approx(expected)


def test_a_tensor_metric_must_be_a_scalar(tmp_path):
    def model_fn(features, labels, mode):
        x = v1.reshape(features["x"], [-1])
        return E.EstimatorSpec(
            mode,
            loss=v1.reduce_mean(x),
            eval_metric_ops={"rows": (x, v1.no_op())},
            train_op=v1.train.get_global_step().assign_add(1),
        )

    est = E.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(lambda: five_rows().repeat(), steps=1)
    with pytest.raises(ValueError, match=r"eval_metric_ops\['rows'\]'s value must be a scalar"):
        est.evaluate(five_rows)
    with pytest.raises(TypeError, match=r"eval_metric_ops\['bad'\] must be a"):
        E.EstimatorSpec("eval", loss=v1.constant(0.0), eval_metric_ops={"bad": ("a", None)})


def test_bad_local_variable_requests_are_refused_by_name():
    with pytest.raises(RuntimeError, match="needs a variable store"):
        v1.get_local_variable("n", initializer=np.float32(0.0))
    with cn.core.VariableStore().as_default():
        v1.get_variable("w", initializer=np.float32(1.0))
        with pytest.raises(ValueError, match="'w' already exists as a model"):
            v1.get_local_variable("w", initializer=np.float32(0.0))
        v1.get_local_variable("n", shape=[2], initializer=cn.core.initializers.zeros())
        with pytest.raises(ValueError, match=r"'n' already exists with shape \(2,\)"):
            v1.get_local_variable("n", shape=[3])
        with pytest.raises(ValueError, match="'m' needs a shape"):
            v1.get_local_variable("m")
