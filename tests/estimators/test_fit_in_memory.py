"""``fit`` keeps its epochs in memory, as Keras's fit: one checkpoint at the end (plus the
config's periodic ones), validation of the variables as they are after each epoch, and on
an error no checkpoint of the failed run, as a failed ``train`` run."""

import os
import re

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns


def frame(n=96, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": 3.0 * x + 1.0 + rng.normal(0, 0.1, n)})


def saved_steps(model_dir) -> list:
    names = os.listdir(model_dir)
    return sorted({int(m.group(1)) for f in names if (m := re.match(r"model\.ckpt-(\d+)$", f))})


def regressor(model_dir):
    config = E.RunConfig(model_dir=str(model_dir), tf_random_seed=1, log_step_count_steps=0)
    return E.LinearRegressor([fc.numeric_column("x")], config=config)


class Record(E.Callback):
    """The weights and the logs after each epoch; raises ``error`` after epoch ``at``."""

    def __init__(self, error=None, at=None):
        self.weights, self.logs, self.error, self.at = [], [], error, at

    def on_epoch_end(self, epoch, logs):
        w = self.estimator.get_weights()
        self.weights.append(
            (
                float(w["linear/linear_model/x/weights"][0, 0]),
                float(w["linear/linear_model/bias_weights"][0]),
            )
        )
        self.logs.append(dict(logs))
        if epoch == self.at:
            raise self.error


def test_one_checkpoint_at_the_end_and_each_validation_reads_the_epochs_weights(tmp_path):
    est, record, valid = regressor(tmp_path), Record(), frame(40, seed=1)
    est.fit(frame(), label="y", epochs=3, batch_size=16, validation_data=valid, callbacks=[record])
    assert saved_steps(tmp_path) == [18]  # 6 steps an epoch; none at 6 or 12
    for (w, b), logs in zip(record.weights, record.logs):
        # the regression head's evaluate loss: the mean squared error (plain numpy)
        expected = np.mean((w * valid["x"] + b - valid["y"]) ** 2)
        assert logs["val_loss"] == pytest.approx(expected, rel=1e-5)
    assert len({w for w, _ in record.weights}) == 3  # each epoch trained on
    latest = cn.train.load_variable(str(tmp_path), "linear/linear_model/x/weights")
    assert float(latest[0, 0]) == pytest.approx(record.weights[-1][0], rel=1e-6)


def test_a_later_fit_goes_on_from_the_saved_end(tmp_path):
    est = regressor(tmp_path)
    est.fit(frame(), label="y", epochs=1, batch_size=16)
    saved = cn.train.load_variable(str(tmp_path), "linear/linear_model/x/weights")

    class AtStart(E.Callback):
        def on_epoch_begin(self, epoch):
            if epoch == 0:
                self.weights = self.estimator.get_weights()["linear/linear_model/x/weights"]

    again, start = regressor(tmp_path), AtStart()  # a new process reads model_dir
    again.fit(frame(), label="y", epochs=2, batch_size=16, callbacks=[start])
    np.testing.assert_array_equal(start.weights, saved)
    assert saved_steps(tmp_path) == [6, 18]
    assert again.evaluate(frame(), label="y")["global_step"] == 18


def test_an_error_saves_nothing_of_the_failed_run(tmp_path):
    est = regressor(tmp_path)
    est.fit(frame(), label="y", epochs=1, batch_size=16)
    before = cn.train.load_variable(str(tmp_path), "linear/linear_model/x/weights")
    record = Record(ValueError("a callback's bug"), at=1)
    with pytest.raises(ValueError, match="a callback's bug"):
        est.fit(frame(), label="y", epochs=3, batch_size=16, callbacks=[record])
    assert saved_steps(tmp_path) == [6]
    # the next call reads the latest checkpoint, not the failed run's variables
    assert est.evaluate(frame(), label="y")["global_step"] == 6
    after = est.get_weights()["linear/linear_model/x/weights"]
    np.testing.assert_array_equal(after, before)


def test_ctrl_c_saves_the_work_done(tmp_path):
    est = regressor(tmp_path)
    record = Record(KeyboardInterrupt(), at=1)
    with pytest.raises(KeyboardInterrupt):
        est.fit(frame(), label="y", epochs=3, batch_size=16, callbacks=[record])
    assert saved_steps(tmp_path) == [12]
    saved = cn.train.load_variable(str(tmp_path), "linear/linear_model/x/weights")
    assert float(saved[0, 0]) == pytest.approx(record.weights[-1][0], rel=1e-6)


def test_weights_restored_after_a_periodic_save_of_the_last_step_are_the_saved_ones(tmp_path):
    """A periodic save lands on the last step (6 steps an epoch, one save each 6), then
    EarlyStopping puts the best epoch's weights back: model_dir's checkpoint of that step
    must hold those, as the model in memory does, not the last epoch's."""
    config = E.RunConfig(
        model_dir=str(tmp_path), tf_random_seed=1, log_step_count_steps=0, save_checkpoints_steps=6
    )
    est = E.LinearRegressor([fc.numeric_column("x")], config=config)
    valid = frame(40, seed=1).assign(y=0.0)  # its loss grows as the slope is learned
    record = Record()
    stop = E.EarlyStopping(patience=0, restore_best_weights=True)
    est.fit(
        frame(), label="y", epochs=5, batch_size=16, validation_data=valid, callbacks=[record, stop]
    )
    assert len(record.weights) == 2 and record.weights[1][0] > record.weights[0][0]
    assert saved_steps(tmp_path) == [6, 12]
    saved = cn.train.load_variable(str(tmp_path), "linear/linear_model/x/weights")
    assert float(saved[0, 0]) == pytest.approx(record.weights[0][0], rel=1e-6)  # epoch 1's
    fresh = E.LinearRegressor([fc.numeric_column("x")], config=config)  # a new process
    x = pd.DataFrame({"x": [1.0]})
    expected = record.weights[0][0] + record.weights[0][1]
    assert float(fresh.predict(x)["predictions"][0]) == pytest.approx(expected, rel=1e-5)
    assert float(est.predict(x)["predictions"][0]) == pytest.approx(expected, rel=1e-5)
