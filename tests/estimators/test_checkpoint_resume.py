"""An estimator resumes from the newest intact checkpoint when the state file is lost or
the latest checkpoint is damaged, and never writes over a checkpoint with other weights."""

import json
import logging
import os
import shutil

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
fc = cn.feature_columns


def frame(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": 3 * x + 1})


def regressor(model_dir, **config):
    config.setdefault("save_checkpoints_steps", 1000)
    return E.LinearRegressor(
        [fc.numeric_column("x")],
        optimizer=cn.train.GradientDescentOptimizer(0.05),
        config=E.RunConfig(model_dir=str(model_dir), log_step_count_steps=0, **config),
    )


def index_bytes(checkpoint) -> bytes:
    with open(os.path.join(checkpoint, "index.json"), "rb") as f:
        return f.read()


def damage_weights(checkpoint):
    """Flip the last byte of the kernel's file: same size, bad checksum."""
    with open(os.path.join(checkpoint, "index.json")) as f:
        arrays = json.load(f)["arrays"]
    path = os.path.join(checkpoint, arrays["linear/linear_model/x/weights"]["file"])
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)[0]
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last ^ 0xFF]))


def test_fit_resumes_after_the_state_file_is_lost(tmp_path, caplog):
    regressor(tmp_path).fit(frame(), label="y", batch_size=8)  # 8 steps
    first = str(tmp_path / "model.ckpt-8")
    before = index_bytes(first)
    os.remove(tmp_path / "checkpoint")
    est = regressor(tmp_path)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est.fit(frame(), label="y", batch_size=8)
    assert est.global_step == 16  # resumed, not restarted at 0
    assert "model.ckpt-8" in caplog.text and "state file" in caplog.text
    assert index_bytes(first) == before  # model.ckpt-8 was not written over
    assert cn.train.latest_checkpoint(tmp_path) == str(tmp_path / "model.ckpt-16")


def test_train_skips_a_damaged_latest_checkpoint(tmp_path, caplog):
    est = regressor(tmp_path, save_checkpoints_steps=4)
    est.fit(frame(), label="y", batch_size=8)  # saves steps 4 and 8
    damage_weights(str(tmp_path / "model.ckpt-8"))
    resumed = regressor(tmp_path, save_checkpoints_steps=4)
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        assert resumed.evaluate(frame(), label="y")["global_step"] == 4
    assert "skipping damaged checkpoint" in caplog.text and "model.ckpt-8" in caplog.text
    assert "checksum mismatch" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        resumed.fit(frame(), label="y", batch_size=8)  # steps 5..12: saves 8 and 12
    assert resumed.global_step == 12
    assert "moved it aside" in caplog.text  # the damaged step 8 is kept for inspection
    assert any(".damaged-" in n for n in os.listdir(tmp_path))
    assert cn.train.latest_checkpoint(tmp_path, verify=True) == str(tmp_path / "model.ckpt-12")


def test_training_refuses_to_start_over_checkpoints_that_are_all_damaged(tmp_path):
    regressor(tmp_path).fit(frame(), label="y", batch_size=8)
    damage_weights(str(tmp_path / "model.ckpt-8"))
    os.remove(os.path.join(tmp_path / "model.ckpt-8", "index.json"))
    with pytest.raises(cn.train.CheckpointCorruptedError, match=r"none is intact.*model.ckpt-8"):
        regressor(tmp_path).fit(frame(), label="y", batch_size=8)
    assert sorted(n for n in os.listdir(tmp_path) if n.startswith("model.ckpt")) == ["model.ckpt-8"]


def test_saving_other_weights_at_a_saved_step_is_refused(tmp_path):
    est = regressor(tmp_path)
    est.fit(frame(), label="y", batch_size=8)
    path = str(tmp_path / "model.ckpt-8")
    before = index_bytes(path)
    assert est.save_checkpoint() == path  # the same weights again: harmless
    est.set_weights({k: np.zeros_like(v) for k, v in est.get_weights().items()})
    with pytest.raises(FileExistsError, match=r"model.ckpt-8 already exists"):
        est.save_checkpoint()
    assert index_bytes(path) == before


def test_predicting_does_not_check_again_the_checkpoint_the_model_holds(tmp_path, monkeypatch):
    from colonnade.core import checkpoint_discovery

    est = regressor(tmp_path / "m")
    est.fit(frame(), label="y", batch_size=16)
    checks = []
    real = checkpoint_discovery.checkpoint_problem
    monkeypatch.setattr(
        checkpoint_discovery,
        "checkpoint_problem",
        lambda *a, **k: checks.append(a) or real(*a, **k),
    )
    first = est.predict(frame(4))
    again = est.predict(frame(4))
    assert checks == []  # the variables hold the checkpoint they saved, unchanged
    pd.testing.assert_frame_equal(first, again)
    other = regressor(tmp_path / "m")  # a second estimator trains on: the state file moves on
    other.fit(frame(seed=1), label="y", batch_size=16)
    checks.clear()
    moved = est.predict(frame(4))
    assert len(checks) == 1
    pd.testing.assert_frame_equal(moved, other.predict(frame(4)))


def test_resuming_needs_no_initializer_checkpoint_once_the_model_has_its_own(tmp_path):
    source = cn.train.Checkpoint(
        model={"table": cn.core.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))}
    ).save(str(tmp_path / "source" / "ckpt"))
    k = fc.categorical_column_with_identity("k", 4)

    def estimator():
        column = fc.embedding_column(
            k, 2, ckpt_to_load_from=source, tensor_name_in_ckpt="model/table"
        )
        return E.DNNRegressor(
            [3],
            [column],
            optimizer=cn.train.GradientDescentOptimizer(0.1),
            config=E.RunConfig(model_dir=str(tmp_path / "m"), log_step_count_steps=0),
        )

    data = pd.DataFrame({"k": [0, 1, 2, 3], "y": [0.0, 1.0, 2.0, 3.0]})
    first = estimator()
    first.fit(data, label="y", batch_size=4)
    expected = first.predict(data)
    shutil.rmtree(tmp_path / "source")
    resumed = estimator()  # built with the initializer's checkpoint gone
    pd.testing.assert_frame_equal(resumed.predict(data), expected)
    resumed.fit(data, label="y", batch_size=4)
    assert resumed.global_step == 2
    fresh = fc.DenseFeatures(
        [fc.embedding_column(k, 2, ckpt_to_load_from=source, tensor_name_in_ckpt="model/table")]
    )
    with pytest.raises(FileNotFoundError, match="ckpt_to_load_from .* does not exist"):
        fresh({"k": [0]})
