# Copyright 2018 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Port of tensorflow_estimator's early_stopping_test.py (TF 2.15), its cases and expected
values verbatim. TF's ``run_session`` (one step of a monitored session, then
``should_stop()``) is translated to ``train(steps=3)`` with the hook: a hook that stops
ends training at step 1, else it reaches 3. The evaluations are event files of scalar
summaries, which TF's reader and colonnade's both read. Runs on TF 2.15 too
(``COLONNADE_TF_BACKEND=tf``): the cases that pass ``min_delta`` (a TF argument newer than
2.15) are left out; the others are TF 2.15's behaviour."""

import os

import numpy as np
import pytest
from tensorboardX import SummaryWriter
from tf_backend import ON_TF

if ON_TF:
    import tensorflow as tf
    from tensorflow_estimator.python.estimator import early_stopping

    def _model_fn(features, labels, mode):
        step = tf.compat.v1.train.get_global_step()
        return tf.estimator.EstimatorSpec(
            mode, loss=tf.constant(0.0), train_op=tf.compat.v1.assign_add(step, 1)
        )

    def _estimator(model_dir):
        return tf.estimator.Estimator(_model_fn, model_dir=model_dir)

    def _input_fn():
        return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]])).repeat()

else:
    import colonnade as cn

    early_stopping = cn.estimators.experimental

    def _model_fn(features, labels, mode):
        w = cn.core.get_variable("w", [1], initializer=np.zeros(1, np.float32))
        loss = cn.core.sum(w * 0.0)
        train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=cn.train.get_global_step()
        )
        return cn.estimators.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def _estimator(model_dir):
        config = cn.estimators.RunConfig(log_step_count_steps=0, save_summary_steps=0)
        return cn.estimators.Estimator(_model_fn, model_dir=model_dir, config=config)

    def _input_fn():
        return {"x": np.ones((1, 1), np.float32)}, np.ones((1, 1), np.float32)


def _write_events(eval_dir, params):
    with SummaryWriter(eval_dir) as writer:
        for steps, loss, accuracy in params:
            writer.add_scalar("loss", loss, steps)
            writer.add_scalar("accuracy", accuracy, steps)


def test_read_eval_metrics(tmp_path):
    eval_dir = str(tmp_path / "eval")
    _write_events(eval_dir, [(1000, 1, 2), (2000, 3, 4), (3000, 5, 6)])
    assert early_stopping.read_eval_metrics(eval_dir) == {
        1000: {"loss": 1, "accuracy": 2},
        2000: {"loss": 3, "accuracy": 4},
        3000: {"loss": 5, "accuracy": 6},
    }


def test_read_eval_metrics_when_no_events(tmp_path):
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    assert early_stopping.read_eval_metrics(str(eval_dir)) == {}
    eval_dir.rmdir()
    assert early_stopping.read_eval_metrics(str(eval_dir)) == {}


@pytest.fixture
def estimator(tmp_path):
    est = _estimator(str(tmp_path / "model"))
    os.makedirs(est.eval_dir())
    _write_events(
        est.eval_dir(), [(1000, 0.8, 0.5), (2000, 0.7, 0.6), (3000, 0.4, 0.7), (3500, 0.41, 0.68)]
    )
    return est


def _stopped(estimator, hooks) -> bool:
    estimator.train(_input_fn, steps=3, hooks=hooks if isinstance(hooks, list) else [hooks])
    return {1: True, 3: False}[int(estimator.get_variable_value("global_step"))]


@pytest.mark.parametrize(
    "threshold, min_steps, should_stop", [(0.8, 0, False), (0.6, 4000, False), (0.6, 0, True)]
)
def test_stop_if_higher_hook(estimator, threshold, min_steps, should_stop):
    hook = early_stopping.stop_if_higher_hook(
        estimator, metric_name="accuracy", threshold=threshold, min_steps=min_steps
    )
    assert _stopped(estimator, hook) == should_stop


@pytest.mark.parametrize(
    "threshold, min_steps, should_stop", [(0.3, 0, False), (0.5, 4000, False), (0.5, 0, True)]
)
def test_stop_if_lower_hook(estimator, threshold, min_steps, should_stop):
    hook = early_stopping.stop_if_lower_hook(
        estimator, metric_name="loss", threshold=threshold, min_steps=min_steps
    )
    assert _stopped(estimator, hook) == should_stop


@pytest.mark.parametrize(
    "max_steps, min_steps, should_stop", [(1500, 0, False), (500, 4000, False), (500, 0, True)]
)
def test_stop_if_no_increase_hook(estimator, max_steps, min_steps, should_stop):
    hook = early_stopping.stop_if_no_increase_hook(
        estimator, metric_name="accuracy", max_steps_without_increase=max_steps, min_steps=min_steps
    )
    assert _stopped(estimator, hook) == should_stop


@pytest.mark.parametrize(
    "max_steps, min_steps, should_stop", [(1500, 0, False), (500, 4000, False), (500, 0, True)]
)
def test_stop_if_no_decrease_hook(estimator, max_steps, min_steps, should_stop):
    hook = early_stopping.stop_if_no_decrease_hook(
        estimator, metric_name="loss", max_steps_without_decrease=max_steps, min_steps=min_steps
    )
    assert _stopped(estimator, hook) == should_stop


@pytest.mark.parametrize(
    "max_steps, loss_threshold, should_stop",
    [(1500, 0.3, False), (1500, 0.5, True), (500, 0.3, True)],
)
def test_multiple_hooks(estimator, max_steps, loss_threshold, should_stop):
    hooks = [
        early_stopping.stop_if_no_decrease_hook(
            estimator, metric_name="loss", max_steps_without_decrease=max_steps
        ),
        early_stopping.stop_if_lower_hook(estimator, metric_name="loss", threshold=loss_threshold),
    ]
    assert _stopped(estimator, hooks) == should_stop


@pytest.mark.parametrize("should_stop", [False, True])
def test_make_early_stopping_hook(estimator, should_stop):
    hook = early_stopping.make_early_stopping_hook(estimator, should_stop_fn=lambda: should_stop)
    assert _stopped(estimator, hook) == should_stop


def test_make_early_stopping_hook_typeerror():
    with pytest.raises(TypeError):
        early_stopping.make_early_stopping_hook(estimator=object(), should_stop_fn=lambda: True)


def test_make_early_stopping_hook_valueerror(estimator):
    with pytest.raises(ValueError):
        early_stopping.make_early_stopping_hook(
            estimator, should_stop_fn=lambda: True, run_every_secs=60, run_every_steps=100
        )
