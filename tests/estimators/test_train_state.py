"""An estimator's training state (estimators/train_state.py)."""

import numpy as np
import pandas as pd

import colonnade as cn

E, fc = cn.estimators, cn.feature_columns


def linear(model_dir, seed=3):
    config = E.RunConfig(tf_random_seed=seed, save_summary_steps=0, log_step_count_steps=0)
    columns = [fc.categorical_column_with_identity("a", 4), fc.numeric_column("x")]
    return E.LinearClassifier(columns, model_dir=str(model_dir), config=config)


def data(n=16):
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {"a": rng.integers(0, 4, n), "x": rng.normal(size=n), "y": rng.integers(0, 2, n)}
    )


def test_a_step_draws_the_same_randomness_in_every_estimator_with_the_seed(tmp_path):
    one, two = linear(tmp_path / "1").train_state, linear(tmp_path / "2").train_state
    draws = [one.step_rng(s).random() for s in range(3)]
    assert draws == [two.step_rng(s).random() for s in range(3)]
    assert len(set(draws)) == 3  # one stream per step
    expected = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(1, 2))).random()
    assert draws[2] == expected


def test_a_save_is_numbered_by_the_global_step(tmp_path):
    state = linear(tmp_path).train_state
    state.set_global_step(7)
    path = state.save()
    assert path.endswith("model.ckpt-7") and cn.train.latest_checkpoint(str(tmp_path)) == path
    assert int(cn.train.load_variable(path, "global_step")) == 7


def test_restore_newest_brings_back_the_checkpoints_values(tmp_path):
    est = linear(tmp_path)
    est.fit(data(), label="y", epochs=1, batch_size=8, verbose=0)
    state = est.train_state
    weights = state.model_variables()["linear/linear_model/x/weights"]
    saved = weights.numpy().copy()
    weights.assign(np.full(weights.shape, 5.0, np.float32))
    assert state.restore_newest() == est.latest_checkpoint()
    np.testing.assert_array_equal(weights.numpy(), saved)


def test_a_workers_state_has_fresh_optimizers_over_the_same_variables(tmp_path):
    est = linear(tmp_path)
    est.fit(data(), label="y", epochs=1, batch_size=8, verbose=0)
    worker = est.train_state.for_worker()
    assert worker.checkpoint is None and worker.holds is None
    for (mine, variables), (theirs, shared) in zip(
        est.train_state.trained_parts(), worker.trained_parts()
    ):
        assert int(mine.iterations.numpy()) == 2 and int(theirs.iterations.numpy()) == 0
        assert all(a is b for a, b in zip(variables, shared))
