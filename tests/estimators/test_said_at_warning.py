"""What would otherwise pass without a word is said at WARNING, which Python shows by
default: an untrained model asked to evaluate or predict, and a ``train`` whose input ran
out before the step it was asked to reach."""

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

fc = cn.feature_columns
FRAME = pd.DataFrame({"x": np.linspace(-1.0, 1.0, 40), "y": [0, 1] * 20})

# tensorflow_estimator 2.15, estimator.py (Estimator.evaluate and Estimator.predict):
# 'Could not find trained model in model_dir: {}, running initialization to evaluate.'
TF_EVALUATE = "Could not find trained model in model_dir: {}, running initialization to evaluate."
TF_PREDICT = "Could not find trained model in model_dir: {}, running initialization to predict."


def linear(model_dir):
    return cn.estimators.LinearClassifier([fc.numeric_column("x")], model_dir=str(model_dir))


def warnings(caplog) -> list:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def test_evaluate_and_predict_without_a_checkpoint_warn_in_tfs_words(tmp_path, caplog):
    est = linear(tmp_path)
    with caplog.at_level("WARNING", logger="colonnade"):
        metrics = est.evaluate(FRAME, label="y", verbose=0)
    assert metrics["global_step"] == 0
    assert warnings(caplog) == [TF_EVALUATE.format(tmp_path)]
    caplog.clear()
    with caplog.at_level("WARNING", logger="colonnade"):
        got = est.predict(FRAME[["x"]], verbose=0)
    np.testing.assert_array_equal(np.asarray(got["logistic"], float), np.full(40, 0.5))
    assert warnings(caplog) == [TF_PREDICT.format(tmp_path)]


def test_a_trained_model_evaluates_and_predicts_without_the_warning(tmp_path, caplog):
    est = linear(tmp_path)
    est.fit(FRAME, label="y", verbose=0)
    with caplog.at_level("WARNING", logger="colonnade"):
        est.evaluate(FRAME, label="y", verbose=0)
        est.predict(FRAME[["x"]], verbose=0)
    assert warnings(caplog) == []


def test_validation_during_fit_does_not_warn(tmp_path, caplog):
    """fit's epochs evaluate the model as trained in memory, before any checkpoint."""
    est = linear(tmp_path)
    with caplog.at_level("WARNING", logger="colonnade"):
        history = est.fit(FRAME, label="y", epochs=2, validation_data=FRAME, verbose=0)
    assert len(history.history["val_loss"]) == 2
    assert warnings(caplog) == []


def test_the_untrained_warning_shows_with_pythons_default_logging(tmp_path):
    """No logging set up, as in a plain script: the warning reaches stderr."""
    script = textwrap.dedent(
        f"""
        import pandas as pd
        import colonnade as cn
        est = cn.estimators.LinearRegressor(
            [cn.feature_columns.numeric_column("x")], model_dir={str(tmp_path)!r})
        est.predict(pd.DataFrame({{"x": [1.0, 2.0]}}), verbose=0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert TF_PREDICT.format(tmp_path) in done.stderr


def batches_of(frame, batch_size, repeat=False):
    ds = cn.data.Dataset.from_pandas(frame, label="y")
    return lambda: (ds.repeat() if repeat else ds).batch(batch_size)


def test_train_whose_input_runs_out_before_max_steps_says_where_it_stopped(tmp_path, caplog):
    est = linear(tmp_path)
    with caplog.at_level("WARNING", logger="colonnade"):
        est.train(batches_of(FRAME, 10), max_steps=100, verbose=0)  # 40 rows: 4 steps
    assert est.global_step == 4
    (message,) = warnings(caplog)
    assert message.startswith(
        "the input ran out at step 4, before step 100 that max_steps (or steps) asked for"
    )
    assert "Dataset.repeat()" in message
    caplog.clear()
    with caplog.at_level("WARNING", logger="colonnade"):
        est.train(batches_of(FRAME, 10), steps=6, verbose=0)  # from step 4 toward 10
    assert est.global_step == 8
    assert warnings(caplog)[0].startswith("the input ran out at step 8, before step 10 ")


@pytest.mark.parametrize(
    "kwargs,first",
    [({"max_steps": 4}, 4), ({"steps": 3}, 3), ({}, 4)],  # reached exactly; before; no goal
)
def test_train_that_reaches_its_goal_or_has_none_does_not_warn(tmp_path, caplog, kwargs, first):
    est = linear(tmp_path)
    with caplog.at_level("WARNING", logger="colonnade"):
        est.train(batches_of(FRAME, 10), verbose=0, **kwargs)
        assert est.global_step == first
        est.train(batches_of(FRAME, 10, repeat=True), steps=9, verbose=0)
    assert est.global_step == first + 9
    assert warnings(caplog) == []
