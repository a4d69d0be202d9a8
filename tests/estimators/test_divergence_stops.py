"""Training whose state diverges stops at the first save it cannot make (issue 29)."""

import logging

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns

pytestmark = pytest.mark.filterwarnings(
    "ignore:overflow encountered:RuntimeWarning", "ignore:invalid value:RuntimeWarning"
)


SEED = 0


def train(model_dir, learning_rate, steps, **nan_hook):
    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"x": rng.normal(size=64) * 10, "y": rng.normal(size=64) * 100})
    est = E.DNNRegressor(
        hidden_units=[8, 8],
        feature_columns=[fc.numeric_column("x")],
        optimizer=cn.train.AdagradOptimizer(learning_rate),
        config=E.RunConfig(
            model_dir=str(model_dir),
            log_step_count_steps=0,
            save_checkpoints_steps=1,  # every step: the state's overflow is seen first
            tf_random_seed=SEED,  # initial weights fixed: the same path to divergence
        ),
    )
    hooks = [E.NanTensorHook(**nan_hook)] if nan_hook else None
    data = cn.data.Dataset.from_pandas(rows, label="y").batch(8).repeat()
    est.train(data, steps=steps, hooks=hooks, verbose=0)
    return est


def refused_steps(caplog) -> list:
    return [r.args[0] for r in caplog.records if r.msg.startswith("not saving a checkpoint")]


def test_adagrad_at_a_huge_learning_rate_stops_at_the_first_refused_save(tmp_path, caplog):
    """Issue 29: Adagrad at lr 1e6 after a good checkpoint overflowed its accumulators
    (the loss stayed finite), then trained on, warning at each of ~60 refused saves, and
    failed only when the 300 steps were done."""
    train(tmp_path, 0.1, steps=10)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        with pytest.raises(E.NonFiniteStateError, match="accumulator") as info:
            train(tmp_path, 1e6, steps=300)
    (refused,) = refused_steps(caplog)  # one refused save, then the error
    assert f"training ended at step {refused} " in str(info.value)
    assert 10 < refused < 310
    assert cn.train.latest_checkpoint(str(tmp_path)).endswith(f"model.ckpt-{refused - 1}")


def test_without_failing_on_nan_it_stops_there_with_the_warning(tmp_path, caplog):
    train(tmp_path, 0.1, steps=10)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est = train(tmp_path, 1e6, steps=300, fail_on_nan_loss=False)
    (refused,) = refused_steps(caplog)
    assert est.global_step == refused < 310
    assert cn.train.latest_checkpoint(str(tmp_path)).endswith(f"model.ckpt-{refused - 1}")
