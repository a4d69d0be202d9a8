"""cn.train.Saver, TF 1's Saver made eager: by-name save/restore, max_to_keep, the state
file, and restoring moving averages with ema.variables_to_restore() (TF's evaluation
idiom); errors as TF's."""

import os

import numpy as np
import pytest

import colonnade as cn

Variable = cn.core.Variable


def test_save_restore_by_name_keeps_max_to_keep_and_writes_the_state_file(tmp_path):
    w = Variable(np.array([1.0, 2.0], np.float32), name="dense/kernel")
    b = Variable(np.array([0.5], np.float32), name="dense/bias")
    saver = cn.train.Saver([w, b], max_to_keep=2)
    prefix = str(tmp_path / "model.ckpt")
    paths = [saver.save(None, prefix, global_step=step) for step in (10, 20, 30)]
    assert [os.path.basename(p) for p in paths] == [
        "model.ckpt-10",
        "model.ckpt-20",
        "model.ckpt-30",
    ]
    assert saver.last_checkpoints == paths[1:]
    assert cn.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    assert not os.path.exists(paths[0])  # max_to_keep=2 deleted the oldest
    names = dict(cn.train.list_variables(paths[-1]))
    assert names["dense/kernel"] == [2] and names["dense/bias"] == [1]
    w.assign(np.zeros(2, np.float32))
    cn.train.Saver({"dense/kernel": w}).restore(None, paths[-1])  # a dict names them
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])
    again = saver.save(None, str(tmp_path / "plain"))  # no step: the path itself,
    assert saver.save(None, str(tmp_path / "plain")) == again  # replaced as TF's


def test_ema_variables_to_restore_loads_the_averages(tmp_path):
    """TF's pattern: train with an EMA, save everything, then evaluate with
    Saver(ema.variables_to_restore()), which loads each shadow into its variable."""
    v = Variable(np.array([1.0, 2.0], np.float32), name="v")
    ema = cn.train.ExponentialMovingAverage(0.5)
    ema.apply([v])
    v.assign(np.array([3.0, 4.0], np.float32))
    ema.apply([v])  # shadow = 0.5 * [1, 2] + 0.5 * [3, 4]
    path = cn.train.Saver([v, *ema.variables()]).save(None, str(tmp_path / "m"), global_step=1)
    cn.train.Saver(ema.variables_to_restore()).restore(None, path)
    np.testing.assert_allclose(v.numpy(), [2.0, 3.0])


def test_errors_are_tfs(tmp_path):
    w = Variable(np.ones(1, np.float32), name="w")
    path = cn.train.Saver([w]).save(None, str(tmp_path / "m"))
    with pytest.raises(KeyError, match="Key other not found in checkpoint"):
        cn.train.Saver({"other": w}).restore(None, path)
    with pytest.raises(ValueError, match="var_list` must specify a list or dict"):
        cn.train.Saver()
    with pytest.raises(ValueError, match="At least two variables have the same name: w"):
        cn.train.Saver([w, Variable(np.ones(1, np.float32), name="w")])
    with pytest.raises(ValueError, match="No variables to save"):
        cn.train.Saver([])
    with pytest.raises(ValueError, match="Can't load save_path when it is None"):
        cn.train.Saver([w]).restore(None, None)
